"""The Seating chart's live family: TFLOP/s per GPU against the global batch, at every node count.

As the cluster grows, the layout follows it (TP kept, PP shrunk where it must, DP takes the rest:
:func:`~interconnect.topics.seating.model.fit_layout`), and each pipeline gets fewer micro-batches of
the same global batch: the bubble and the exposed data-parallel traffic grow, so more GPUs need a
larger batch to stay busy. The whole family (every node count the slider offers, every batch on
the x axis) is one vectorized call of the seating model, so the browser can redraw it while the
hand moves without computing anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from interconnect.hardware.cluster import MAX_NODES, Cluster
from interconnect.topics.seating.model import Layout, Workload, fit_layout, memory_summary
from interconnect.topics.seating.model.step import evaluate_layouts
from interconnect.workloads.presets import ModelPreset

__all__ = ["BATCHES", "SeatingFamily", "live_seating_nodes", "seating_family"]

#: Global batches on the x axis, in sequences: powers of two from 1 to 16,384 (the page's own is added).
BATCHES = tuple(2**k for k in range(0, 15))
#: Node counts the slider offers besides the page's own: powers of two up to 1,024.
NODE_COUNTS = tuple(2**k for k in range(0, 11))


@dataclass(frozen=True)
class SeatingFamily:
    """The seating model over node counts (rows) and global batches (columns).

    ``tflops_per_gpu`` and ``compute_tflops_per_gpu`` are in TFLOP/s (model FLOPs, as MFU counts
    them): the step as the model bills it, and compute alone (no bubble, nothing exposed). NaN
    where the batch leaves a pipeline less than one micro-batch. ``bubble`` is the share of the
    step, ``step_s`` seconds, ``fits`` whether the memory fits with the allowance kept free,
    ``memory`` the readout's memory per GPU in words (:func:`~interconnect.topics.seating.model.memory_summary`,
    the same verdict as the bill's metric).
    """

    node_counts: tuple[int, ...]
    batches: np.ndarray
    layouts: tuple[Layout, ...]
    changes: tuple[str, ...]
    tflops_per_gpu: np.ndarray
    compute_tflops_per_gpu: np.ndarray
    mfu: np.ndarray
    bubble: np.ndarray
    step_s: np.ndarray
    fits: np.ndarray
    memory: tuple[tuple[str, ...], ...] = ()


def live_seating_nodes(current: int, maximum: int = MAX_NODES) -> tuple[int, ...]:
    """Return the slider's node counts: powers of two up to 1,024 and the page's own count.

    >>> live_seating_nodes(6)[:5]
    (1, 2, 4, 6, 8)
    """
    current = max(1, min(int(current), int(maximum)))
    return tuple(sorted({*NODE_COUNTS, current}))


def seating_family(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload,
                   node_counts: Sequence[int], batches: Sequence[int] = BATCHES) -> SeatingFamily:
    """Run the seating model at every node count and global batch, the layout following the node count.

    Parameters
    ----------
    model, cluster, workload : ModelPreset, Cluster, Workload
        As the page has them; the workload's global batch is replaced by each of ``batches``.
    layout : Layout
        The layout asked for: its TP, PP, CP, EP and ZeRO stage are kept where the node count allows
        (:func:`~interconnect.topics.seating.model.fit_layout`), DP takes the rest.
    node_counts : sequence of int
        The node counts of the slider.
    batches : sequence of int
        Global batches in sequences (the x axis).

    Returns
    -------
    SeatingFamily

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.workloads.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    >>> family = seating_family(load_model_presets()["llama3-70b"], cluster, Layout(tp=8, pp=4, zero=1),
    ...                         Workload(), [8, 64], [256, 4096])
    >>> [layout.label() for layout in family.layouts]
    ['TP8 × PP4 × DP2, ZeRO-1', 'TP8 × PP4 × DP16, ZeRO-1']
    >>> bool(family.tflops_per_gpu[1, 0] < family.tflops_per_gpu[0, 0])  # same batch, 8x the GPUs: less each
    True
    """
    counts = tuple(int(n) for n in node_counts)
    batch = np.asarray(batches, dtype=float)
    fitted = [fit_layout(model, cluster.gpus_per_node * n, layout.tp, layout.pp, layout.cp, layout.ep, layout.zero)
              for n in counts]
    layouts = tuple(f[0] for f in fitted)
    rows, cols = len(counts), batch.size

    def degrees(name: str) -> np.ndarray:
        return np.repeat(np.array([getattr(lay, name) for lay in layouts], dtype=float), cols)

    # the seating model is vectorized over layouts; the global batch rides along as one more array
    out = evaluate_layouts(model, cluster, replace(workload, global_batch=np.tile(batch, rows)), degrees("tp"),
                    degrees("pp"), degrees("dp"), degrees("cp"), degrees("ep"), degrees("zero"))
    shape = (rows, cols)
    enough = out["micro"].reshape(shape) >= 1.0  # at least one micro-batch per pipeline
    runs = np.array([model.heads % lay.tp == 0 and lay.pp <= model.layers for lay in layouts])[:, None]
    valid = enough & runs

    def grid(values: np.ndarray) -> np.ndarray:
        return np.where(valid, np.asarray(values, dtype=float).reshape(shape), np.nan)

    tflops = grid(out["tflops"]) / 1e12
    compute = grid(out["tflops"] * out["step_s"] / np.maximum(out["compute_s"], 1e-30)) / 1e12
    total, reserved, capacity = (out[k].reshape(shape) for k in ("mem_total", "mem_reserved", "mem_capacity"))
    memory = tuple(tuple(memory_summary(float(total[i, j]), float(reserved[i, j]), float(capacity[i, j]))
                         for j in range(cols)) for i in range(rows))
    return SeatingFamily(counts, batch, layouts, tuple(f[1] for f in fitted), tflops, compute, grid(out["mfu"]),
                         grid(out["bubble"]), grid(out["step_s"]), out["fits"].reshape(shape) & valid, memory)
