"""Reach: what distance does to a link, its latency and a training step, from a PCB trace to another continent."""
