"""The Hugging Face Ultra-Scale Playbook's 256 MB all-reduce curve against the fabric model, as a hypothesis.

Measured busbw over the model's busbw on the Playbook's cluster gives the share of the spine the job
seems to get; that share is read two ways, as a taper (oversubscription) or as other traffic on the
spine, and set beside what a fixed taper would draw. A labelled hypothesis, not a fit: nothing here
feeds back into the model. It sits above :mod:`interconnect.hardware.fabric` because it runs the
collective model on a cluster, and the cluster model asks the fabric for its network share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import allreduce
from interconnect.hardware.fabric import FabricTopology
from interconnect.hardware.playbook import PLAYBOOK_CLUSTER, playbook_curve

__all__ = ["PlaybookRow", "playbook_hypothesis"]


@dataclass(frozen=True)
class PlaybookRow:
    """One node count of the Playbook's 256 MB all-reduce, beside the model without a fabric.

    ``implied_share`` = measured / model: the share of each NIC's rate the measurement behaves as if it
    had. ``implied_oversubscription`` is 1 / that share (a taper that would explain it alone),
    ``implied_shared`` is 1 - that share (other traffic that would explain it alone). Inverted point by
    point: nothing is fitted.
    """

    nodes: int
    measured_gbps: float
    low_gbps: float | None
    high_gbps: float | None
    model_gbps: float
    implied_share: float
    implied_oversubscription: float
    implied_shared: float


def playbook_hypothesis(oversubscriptions: tuple[float, ...] = (2.0, 7.0), servers_per_group: int = 2
                        ) -> tuple[list[PlaybookRow], dict[float, list[float]]]:
    """Return the Playbook's measured busbw against the model on its cluster, and fixed tapers for comparison.

    Returns the rows (one per node count, :class:`PlaybookRow`) and, for each oversubscription in
    ``oversubscriptions``, the model's busbw at the same node counts with that taper beyond leaf
    groups of ``servers_per_group`` servers: a fixed taper gives a step, then a flat line.

    >>> rows, _ = playbook_hypothesis()
    >>> rows[-1].nodes, rows[-1].measured_gbps, round(rows[-1].implied_oversubscription)
    (64, 32.9, 7)
    """
    curve = playbook_curve()
    size_bytes = 256e6
    rows: list[PlaybookRow] = []
    tapered: dict[float, list[float]] = {o: [] for o in oversubscriptions}
    for index, nodes in enumerate(int(n) for n in curve.x):
        inputs = {**PLAYBOOK_CLUSTER, "nodes": nodes}
        cluster, _ = resolve_cluster(**inputs)
        model = float(allreduce(cluster, size_bytes).busbw_gbps[0])
        measured = float(curve.busbw_gbps[index])
        share = measured / model
        rows.append(PlaybookRow(
            nodes=nodes, measured_gbps=measured,
            low_gbps=None if curve.low_gbps is None else float(curve.low_gbps[index]),
            high_gbps=None if curve.high_gbps is None else float(curve.high_gbps[index]),
            model_gbps=model, implied_share=share, implied_oversubscription=1.0 / share if share > 0 else math.inf,
            implied_shared=max(0.0, 1.0 - share)))
        for o in oversubscriptions:
            topology = FabricTopology("rail-leaf-spine", servers_per_group, o)
            tapered[o].append(float(allreduce(replace(cluster, topology=topology), size_bytes).busbw_gbps[0]))
    return rows, tapered
