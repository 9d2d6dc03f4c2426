"""Fabric: from GPUs to switches, optics and watts; tiers, rails and oversubscription, and what they cost."""
