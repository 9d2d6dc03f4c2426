"""Collective communication cost models: all-reduce and friends, checked against nccl-tests runs.

Everything is plain numpy with units in the names: sizes in bytes, times in µs, bandwidths in GB/s
(1 GB = 1e9 B, as nccl-tests prints them). Modules, bottom first (each imports only those above it
in this list):

* :mod:`~interconnect.hardware.collectives.params`: NCCL's and RCCL's constants, the per-cluster parameter
  record, the protocol mask, :func:`as_size_bytes`, busbw factors and the result record.
* :mod:`~interconnect.hardware.collectives.steps`: network latency, pipeline fills and ring passes
  shared by every collective.
* :mod:`~interconnect.hardware.collectives.model`: textbook alpha-beta formulas and the NCCL-like model of a
  :class:`~interconnect.hardware.cluster.Cluster` (:func:`allreduce`, :func:`allreduce_by_algorithm`,
  :func:`sweep_allreduce`).
* :mod:`~interconnect.hardware.collectives.fitting`: robust ``t = a + S/B`` fit, efficiency against spec.
* :mod:`~interconnect.hardware.collectives.measurements`: the published sweeps the model is calibrated on and
  :func:`compare_sweep`, the comparison the CLI, benchmarks and tests share.
* :mod:`~interconnect.hardware.collectives.others`: all-gather, reduce-scatter, all-to-all and send/recv
  with NCCL's algorithms and protocols (:func:`collective` takes any of them by name;
  :func:`collective_time_us` adds broadcast).
* :mod:`~interconnect.hardware.collectives.traffic`: bytes leaving the node per algorithm; the
  "87 % less inter-node traffic" claim under both baselines.
* :mod:`~interconnect.hardware.collectives.calibration`: a measured sweep's wire efficiency and extra
  latency (:func:`calibrate`), applied with :func:`apply_calibration`; the hardware stays the catalog's.
"""

from interconnect.hardware.collectives.calibration import (
    Calibration,
    apply_calibration,
    calibrate,
    compare_collective,
    wire_efficiency,
)
from interconnect.hardware.collectives.fitting import (
    AlphaBetaFit,
    MeasuredCluster,
    cluster_from_fit,
    efficiency_vs_spec,
    fit_alpha_beta,
)
from interconnect.hardware.collectives.measurements import (
    ACCURACY_TARGETS,
    LARGE_BYTES,
    LAUNCH_OVERHEAD_US,
    MIDDLE_BYTES,
    SMALL_BYTES,
    Comparison,
    Measurement,
    compare_sweep,
    load_measurements,
)
from interconnect.hardware.collectives.model import (
    ALGORITHM_LABELS,
    ALLREDUCE_ALGORITHMS,
    AUTO_CANDIDATES,
    COLLECTIVES,
    PROTOCOLS,
    AllreduceDetail,
    AllreduceResult,
    allreduce,
    allreduce_by_algorithm,
    allreduce_detail,
    as_size_bytes,
    busbw_factor,
    hierarchical_allreduce_time_us,
    in_network_busbw_factor,
    protocol_mask,
    ring_allreduce_time_us,
    ring_exit_relief,
    sweep_allreduce,
)
from interconnect.hardware.collectives.others import (
    COLLECTIVE_ALGORITHMS,
    COLLECTIVE_LABELS,
    OTHER_COLLECTIVES,
    CollectiveResult,
    all_gather,
    alltoall,
    collective,
    collective_by_algorithm,
    collective_time_us,
    compare_collective_sweep,
    normalize_collective,
    reduce_scatter,
    sendrecv,
)
from interconnect.hardware.collectives.traffic import (
    TrafficClaim,
    bytes_leaving_node_per_gpu,
    hierarchical_traffic_claim,
)

__all__ = [
    "Calibration",
    "apply_calibration",
    "calibrate",
    "compare_collective",
    "wire_efficiency",
    "ACCURACY_TARGETS",
    "ALGORITHM_LABELS",
    "COLLECTIVE_ALGORITHMS",
    "COLLECTIVE_LABELS",
    "OTHER_COLLECTIVES",
    "CollectiveResult",
    "all_gather",
    "alltoall",
    "collective",
    "collective_by_algorithm",
    "compare_collective_sweep",
    "normalize_collective",
    "reduce_scatter",
    "sendrecv",
    "ALLREDUCE_ALGORITHMS",
    "AUTO_CANDIDATES",
    "COLLECTIVES",
    "LARGE_BYTES",
    "LAUNCH_OVERHEAD_US",
    "MIDDLE_BYTES",
    "PROTOCOLS",
    "SMALL_BYTES",
    "AllreduceDetail",
    "AllreduceResult",
    "AlphaBetaFit",
    "Comparison",
    "MeasuredCluster",
    "Measurement",
    "TrafficClaim",
    "allreduce",
    "allreduce_by_algorithm",
    "allreduce_detail",
    "as_size_bytes",
    "busbw_factor",
    "bytes_leaving_node_per_gpu",
    "cluster_from_fit",
    "collective_time_us",
    "compare_sweep",
    "efficiency_vs_spec",
    "fit_alpha_beta",
    "hierarchical_allreduce_time_us",
    "hierarchical_traffic_claim",
    "in_network_busbw_factor",
    "load_measurements",
    "protocol_mask",
    "ring_allreduce_time_us",
    "ring_exit_relief",
    "sweep_allreduce",
]
