"""Tests of what the topics share: the cluster, the collectives, fabrics, media, wires and presets."""
