"""The All-reduce page's live chart: busbw against message size while the node count is dragged."""

from __future__ import annotations

import numpy as np

from interconnect.figures.live import LiveAxis, LiveSeries, live_spec, log_axis_ticks
from interconnect.topics.allreduce.figures import ALGORITHM_COLOURS, SHORT_NAMES
from interconnect.topics.allreduce.sweep import NodeFamily
from interconnect.units import Q_, format_bandwidth, format_duration, format_size

__all__ = ["node_family_spec"]

_SIZE_TICKS = tuple(float(2**p) for p in range(3, 35, 3))
_CHOSEN_COLOUR = "#111827"
#: busbw more than ten thousand times below the family's best is the 8-byte corner nobody reads.
_FLOOR_FRACTION = 1e-4


def node_family_spec(family: NodeFamily, current_nodes: int, readout_size_bytes: float, chosen_label: str,
                     *, present: bool = False) -> dict:
    """The live chart of :func:`~interconnect.topics.allreduce.sweep.node_family`.

    Each algorithm is a dotted line and the chosen one (NCCL's pick, or what was forced) a thick one,
    as on the page's other charts; the sentence beside the slider gives the time and busbw at the
    page's message size for each node count.

    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.topics.allreduce.sweep import node_family
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> spec = node_family_spec(node_family(cluster, (1, 2)), 2, 2**28, "NCCL's pick")
    >>> spec["slider"]["labels"], spec["slider"]["index"]
    (['1 node', '2 nodes'], 1)
    >>> print(spec["readouts"][1])  # 392 GB/s: the same as node_count_curve's example at 2 nodes
    2 nodes × 8 GPUs = 16 ranks: 256 MiB in 1.28 ms, busbw 392 GB/s (NCCL's pick: NVLSTree)
    """
    counts = [int(n) for n in family.node_counts]
    index = counts.index(int(current_nodes)) if int(current_nodes) in counts else 0
    sizes = family.size_bytes.astype(float)
    at = int(np.argmin(np.abs(np.log2(sizes) - np.log2(max(float(readout_size_bytes), 1.0)))))
    series = []
    for name, busbw in family.busbw_by_algorithm.items():
        if np.isfinite(busbw).any():
            series.append(LiveSeries(SHORT_NAMES.get(name, name), ALGORITHM_COLOURS.get(name, "#6b7280"), busbw,
                                     width=1.6, dash="dot"))
    series.append(LiveSeries(chosen_label, _CHOSEN_COLOUR, family.busbw_chosen_gbps, width=4.0))
    values = np.concatenate([s.y_by_position.ravel() for s in series])
    best = float(np.nanmax(values)) if np.isfinite(values).any() else 1.0
    low, high, ticks = log_axis_ticks(values, lambda v: format_bandwidth(Q_(v, "GB/s")),
                                      floor=best * _FLOOR_FRACTION)
    x_axis = LiveAxis("message size per GPU", True, sizes[0] / 1.3, sizes[-1] * 1.3,
                      tuple((v, format_size(Q_(v, "B"))) for v in _SIZE_TICKS))
    y_axis = LiveAxis("busbw (nccl-tests' definition)", True, low, high, ticks)
    size_text = format_size(Q_(sizes[at], "B"))
    readouts = []
    for i, nodes in enumerate(counts):
        ranks = nodes * family.gpus_per_node
        head = f"{nodes} node{'s' if nodes != 1 else ''} × {family.gpus_per_node} GPUs = {ranks:,} ranks"
        time_us, busbw = family.time_chosen_us[i, at], family.busbw_chosen_gbps[i, at]
        if not np.isfinite(time_us):
            readouts.append(f"{head}: {chosen_label} cannot run at {size_text}")
            continue
        algorithm = str(family.algorithm_chosen[i, at])
        readouts.append(f"{head}: {size_text} in {format_duration(Q_(float(time_us), 'us'))}, busbw "
                        f"{format_bandwidth(Q_(float(busbw), 'GB/s'))} ({chosen_label}: "
                        f"{SHORT_NAMES.get(algorithm, algorithm)})")
    labels = [f"{n:,} node{'s' if n != 1 else ''}" for n in counts]
    return live_spec(title="busbw against message size, as the node count changes", slider_label="Nodes",
                     slider_values=counts, slider_labels=labels, index=index, x_axis=x_axis, x_values=sizes,
                     y_axis=y_axis, series=series, readouts=readouts, present=present, height_px=340)
