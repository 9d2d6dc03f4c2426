"""The All-reduce page beside published and measured runs: the Playbook's p5 curve, AWS's tuner, a log's busbw.

Numbers carry their unit in the name: sizes in bytes, times in µs, bandwidths in GB/s (1e9 B/s).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import allreduce, busbw_factor
from interconnect.hardware.playbook import PLAYBOOK_CLUSTER
from interconnect.units import expects

#: The same team's nccl-tests all-reduce on AWS p5 (Smol Training Playbook, Hugging Face, 2025,
#: "Troubleshooting interconnect" section): 480 GB/s on one node, 479 on two, 320-350 GB/s from 3 to 16
#: nodes; large messages, size not stated. (nodes, low, high) in GB/s busbw.
SMOL_PLAYBOOK_P5: tuple[tuple[int, float, float], ...] = ((1, 480.0, 480.0), (2, 479.0, 479.0),
                                                         (3, 320.0, 350.0), (16, 320.0, 350.0))
SMOL_PLAYBOOK_URL = "https://huggingface.co/spaces/HuggingFaceTB/smol-training-playbook"


#: The all-reduce algorithm and protocol that aws-ofi-nccl's tuner sets on AWS p5/p5e for a 256 MB message,
#: at the Playbook's node counts (8 ranks per node). Read from the (size, ranks) polygons of
#: ``region_init_internal_p5_p5e`` in aws-ofi-nccl ``src/tuner/nccl_ofi_regions.cpp`` (region tuner, shipped
#: since aws-ofi-nccl 1.13): Tree/LL128 up to 36 MiB at 32 ranks, 112 MiB at 64, 288 MiB at 128 and 256 and
#: 320 MiB at 512 ranks, Ring/LL128 above that edge (to 1.4-2 GiB). The tuner leaves two nodes or fewer to
#: NCCL's own choice ("the regions are not well defined", ``region_get_coll_info_internal_v3``).
P5_TUNER_PICKS_256MB: dict[int, tuple[str, str]] = {
    4: ("ring", "LL128"), 8: ("ring", "LL128"), 16: ("tree", "LL128"), 32: ("tree", "LL128"), 64: ("tree", "LL128"),
}


@dataclass(frozen=True)
class P5TunerCheck:
    """The model's busbw on the Playbook's cluster with its own pick and with AWS's tuner's pick (one node count)."""

    nodes: int
    model_algorithm: str
    model_protocol: str
    model_busbw_gbps: float
    tuner_algorithm: str
    tuner_protocol: str
    tuner_busbw_gbps: float


@expects(size_bytes="B")
def p5_tuner_check(size_bytes: float = 256e6) -> list[P5TunerCheck]:
    """Compare the model's pick with aws-ofi-nccl's p5 tuner pick at the Playbook's node counts.

    Parameters
    ----------
    size_bytes : float
        Message size in B; the tuner picks of :data:`P5_TUNER_PICKS_256MB` hold for 256 MB.

    Returns
    -------
    list of P5TunerCheck
        One entry per node count of :data:`P5_TUNER_PICKS_256MB`, busbw in GB/s.

    Notes
    -----
    Both columns are the same model (:func:`~interconnect.hardware.collectives.allreduce`) on
    :data:`PLAYBOOK_CLUSTER`; only the algorithm and protocol differ. It shows how much the AWS tuner's
    choice alone could move the model toward the Playbook's curve.

    Examples
    --------
    >>> rows = p5_tuner_check()
    >>> [(row.nodes, row.tuner_algorithm) for row in rows][:2]
    [(4, 'ring'), (8, 'ring')]
    """

    inputs = dict(PLAYBOOK_CLUSTER)
    gpu = str(inputs.pop("gpu"))
    rows = []
    for nodes, (algorithm, protocol) in P5_TUNER_PICKS_256MB.items():
        cluster, _ = resolve_cluster(gpu, **{**inputs, "nodes": nodes})
        own = allreduce(cluster, [size_bytes])
        tuned = allreduce(cluster, [size_bytes], algorithm, protocol=protocol)
        rows.append(P5TunerCheck(nodes, str(own.algorithm[0]), str(own.protocol[0]), float(own.busbw_gbps[0]),
                                 algorithm, protocol, float(tuned.busbw_gbps[0])))
    return rows



@expects(size_bytes="B", time_us="us")
def measured_busbw_gbps(size_bytes: np.ndarray, time_us: np.ndarray, ranks: int) -> np.ndarray:
    r"""Compute nccl-tests' all-reduce busbw from sizes and times.

    Parameters
    ----------
    size_bytes : numpy.ndarray
        Sizes, B.
    time_us : numpy.ndarray
        Times, µs.
    ranks : int
        Number of ranks n.

    Returns
    -------
    numpy.ndarray
        busbw in GB/s.

    Notes
    -----
    .. math:: \text{busbw} = \frac{S}{t}\,\frac{2(n-1)}{n}

    (nccl-tests ``doc/PERFORMANCE.md``).

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> f"{measured_busbw_gbps(Q_(1, 'GiB'), Q_(4.07, 'ms'), 8):.0f} GB/s"
    '462 GB/s'
    """
    return np.asarray(size_bytes, dtype=float) / (np.asarray(time_us, dtype=float) * 1e3) * busbw_factor(
        "all_reduce", ranks)


def launch_from_log(gpus_per_process: int | None, ranks: int | None) -> tuple[str, str]:
    """Read how a benchmark was launched from its header, and say how it was read.

    Parameters
    ----------
    gpus_per_process : int or None
        nThread x nGpus from the header (:attr:`~interconnect.io.nccl_tests.NcclRun.gpus_per_process`).
    ranks : int or None
        The run's rank count.

    Returns
    -------
    (str, str)
        A launch mode (a key of
        :data:`~interconnect.hardware.collectives.measurements.LAUNCH_OVERHEAD_US`) and where it came from.

    Examples
    --------
    >>> launch_from_log(8, 8)[0], launch_from_log(1, 16)[0], launch_from_log(None, 8)[0]
    ('single-process', 'process-per-gpu', 'process-per-gpu')
    """
    if gpus_per_process is None:
        return "process-per-gpu", "the log does not say (no nThread/nGpus line); assumed one process per GPU"
    if gpus_per_process > 1 and (ranks is None or ranks > 1):
        return "single-process", (f"the header's nThread x nGpus = {gpus_per_process}: one process drives "
                                  f"{gpus_per_process} GPUs")
    return "process-per-gpu", "the header's nThread x nGpus = 1: one process per GPU"
