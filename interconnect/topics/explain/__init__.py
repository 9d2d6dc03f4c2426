"""Explain my run: read a job's NCCL_DEBUG=INFO output and say what ran, against the model."""
