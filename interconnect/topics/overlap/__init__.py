"""Overlap: hiding the gradient all-reduce behind the backward pass, bucket by bucket, and what stays exposed."""
