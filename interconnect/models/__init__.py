"""Pure arithmetic of GPU interconnect: clusters, collectives, overlap, layouts, distance, cross-site sync.

Every model is plain numpy with the unit in each argument's name (``size_bytes``, ``bw_gbps`` in
GB/s, ``time_us``, ``distance_m``). Public functions also accept a :class:`pint.Quantity` for such an
argument: :func:`interconnect.units.expects` checks its dimension and converts it, so
``two_site_allreduce(cluster, Q_(1, "GiB"), Q_(100, "km"))`` and
``two_site_allreduce(cluster, 2**30, 1e5)`` give the same answer. Nothing here imports Streamlit or
Plotly.

The package exports its main entry points; everything else stays in its module:

* :class:`Cluster`, :func:`resolve_cluster` (:mod:`~interconnect.models.cluster`): the machine;
* :func:`allreduce`, :func:`collective` (:mod:`~interconnect.models.collectives`): NCCL-like timing;
* :func:`cliff_summary` (:mod:`~interconnect.models.cliff`): scale-up against scale-out bandwidth;
* :func:`step_schedule` (:mod:`~interconnect.models.overlap`): a training step with bucketed overlap;
* :func:`plan`, :func:`search_layouts` (:mod:`~interconnect.models.parallelism`): TP x PP x DP layouts;
* :func:`two_site_allreduce` (:mod:`~interconnect.models.reach`): what distance does to an all-reduce;
* :class:`ModelPreset`, :func:`load_model_presets` (:mod:`~interconnect.models.presets`): model shapes.

The names load on first use (as in Scientific Python's SPEC 1, lazy loading), so importing one
module of the package does not import all of them.

>>> from interconnect.models import resolve_cluster, allreduce
>>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
>>> cluster.ranks
8
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from interconnect import lazy_exports

if TYPE_CHECKING:  # for type checkers and editors; at run time the names load lazily
    from interconnect.models.cliff import cliff_summary
    from interconnect.models.cluster import Cluster, resolve_cluster
    from interconnect.models.collectives import allreduce, collective
    from interconnect.models.overlap import step_schedule
    from interconnect.models.parallelism import plan, search_layouts
    from interconnect.models.presets import ModelPreset, load_model_presets
    from interconnect.models.reach import two_site_allreduce

_EXPORTS: dict[str, str] = {
    "Cluster": "cluster",
    "resolve_cluster": "cluster",
    "allreduce": "collectives",
    "collective": "collectives",
    "cliff_summary": "cliff",
    "step_schedule": "overlap",
    "plan": "parallelism",
    "search_layouts": "parallelism",
    "two_site_allreduce": "reach",
    "ModelPreset": "presets",
    "load_model_presets": "presets",
}

__all__ = [
    "Cluster",
    "ModelPreset",
    "allreduce",
    "cliff_summary",
    "collective",
    "load_model_presets",
    "plan",
    "resolve_cluster",
    "search_layouts",
    "step_schedule",
    "two_site_allreduce",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
