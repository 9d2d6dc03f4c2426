"""Across sites: training between data centres, DiLoCo-style rare syncing and what it costs in bandwidth and steps."""
