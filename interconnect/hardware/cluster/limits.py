"""The bounds of a cluster: what resolution clamps each input to (one place for each number)."""

MAX_GPUS_PER_NODE = 1024
MAX_NODES = 100_000
MAX_RANKS = 1_000_000
MAX_NICS_PER_NODE = 4096
MIN_NIC_GBIT_S = 1.0
MAX_NIC_GBIT_S = 12_800.0
MAX_HOP_LATENCY_US = 100_000.0  # a typed per-hop latency above 0.1 s is clamped
