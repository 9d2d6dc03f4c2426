"""The Reach page's live family: which kinds of link still reach, at every distance the slider offers.

The Reach page's live chart lets the viewer drag the distance between two GPUs and watch kinds of
link drop out, one by one, as each one's reach is passed. The browser can only follow at once if it
already holds the answer for every position, so this module computes it for every distance of the
slider in one vectorized pass over the page's own rows (:func:`~interconnect.topics.reach.model.reach_rows`):
whether each row reaches (:func:`~interconnect.datafiles.wires.within_reach`), the fastest of each
kind and of all that still reach (:func:`~interconnect.topics.reach.model.fastest_by_kind`, the
page's one tie-break), the delay in fibre and the bytes the fastest link keeps in flight
(:func:`~interconnect.topics.reach.model.round_trip_s`, :func:`~interconnect.topics.reach.model.bdp_bytes`).

Rows are grouped into the kinds a reader tells apart: every medium of ``wires.toml`` by its kind
(NVLink copper, passive and active copper, active optical cables, multimode, single-mode and
coherent optics), the old PC cables as one group, and each other catalogued link (MetroX, a
long-haul wavelength) on its own. A kind whose fastest rate falls as the distance grows is drawn as
one bar per step (single-mode optics: 100 GB/s to 2 km, then 50 GB/s to 10 km), so a bar's label
never claims a rate that no longer reaches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from interconnect.datafiles.wires import within_reach
from interconnect.topics.reach.model import (
    EPISODE,
    GROUPED_LAYERS,
    LANDMARKS,
    MAX_DISTANCE_M,
    MIN_DISTANCE_M,
    LinkReach,
    Propagation,
    bdp_bytes,
    fastest_by_kind,
    fastest_reaching,
    kind_key,
    one_way_delay_s,
    round_trip_s,
)

__all__ = ["DISTANCE_STOPS_M", "ReachFamily", "ReachGroup", "live_distances", "reach_family", "reach_groups"]


def _stops() -> tuple[float, ...]:
    stops = {m * 10.0**e for e in range(-1, 8) for m in (1, 2, 5)}
    stops |= {mark.distance_m for mark in LANDMARKS} | {EPISODE.distance_m}
    return tuple(sorted(s for s in stops if MIN_DISTANCE_M <= s <= MAX_DISTANCE_M))


#: The slider's distances in m: 1-2-5 steps from 10 cm to 20,000 km, the landmarks and the episode's 11 m.
DISTANCE_STOPS_M: tuple[float, ...] = _stops()
#: Catalog layers whose links form one group on the chart (the old PC cables tell one story).
_GROUPED_LAYERS = GROUPED_LAYERS


@dataclass(frozen=True)
class ReachGroup:
    """One row of the chart: a kind of link at one rate, out to the farthest that rate reaches.

    ``kind`` is the ``wires.toml`` kind of its media (``"dac"``, ``"multimode"`` ...), or ``None``
    for catalog links outside ``wires.toml``; ``layer`` is the catalog layer its colour comes from.
    ``rate_gbps`` is GB/s per direction, ``reach_m`` metres: up to ``reach_m`` the kind's fastest
    member that reaches (:func:`~interconnect.topics.reach.model.fastest_by_kind`) runs at
    ``rate_gbps`` or faster, beyond it slower or not at all. ``reach_basis`` is that figure's basis
    (``"spec"``, ``"estimate"`` ...). ``member_ids`` are the members that are the kind's fastest
    somewhere on this step. ``kind_id`` names the kind (:func:`~interconnect.topics.reach.model.kind_key`)
    where a kind has several steps; the first (fastest) step's ``id`` is the kind itself, the others
    ``kind@rate``.
    """

    id: str
    kind: str | None
    layer: str
    member_ids: tuple[str, ...]
    member_names: tuple[str, ...]
    rate_gbps: float
    reach_m: float
    reach_basis: str
    kind_id: str = ""

    @property
    def key(self) -> str:
        """The kind this row is a step of (:func:`~interconnect.topics.reach.model.kind_key`)."""
        return self.kind_id or self.id


@dataclass(frozen=True, eq=False)
class ReachFamily:
    """The page's reach figures at every slider distance (rows) and for every group (columns).

    ``group_reaches`` (distances, groups): the kind's fastest member that reaches the distance
    (:func:`~interconnect.topics.reach.model.fastest_by_kind`) runs at the row's rate or faster.
    ``kind_ids`` names the kinds; ``kinds_reaching`` (distances, kinds) says which still reach and
    ``kind_fastest_ids`` (distances, kinds) is the fastest member of each (``None`` where none does).
    ``links_reaching``: how many of the page's rows reach each distance (of ``links_total``).
    ``fastest_ids`` / ``fastest_rate_gbps`` (GB/s per direction): the fastest row that reaches
    (``None`` / NaN where none does); ``fastest_rtt_s`` its round trip in its own medium and
    ``fastest_bdp_bytes`` the bytes it keeps in flight (NaN where none). ``fibre_one_way_s`` and
    ``fibre_rtt_s``: the delay in fibre, in s, whatever reaches.
    """

    distances_m: np.ndarray
    groups: tuple[ReachGroup, ...]
    group_reaches: np.ndarray
    kind_ids: tuple[str, ...]
    kinds_reaching: np.ndarray
    kind_fastest_ids: tuple[tuple[str | None, ...], ...]
    links_reaching: np.ndarray
    links_total: int
    fastest_ids: tuple[str | None, ...]
    fastest_names: tuple[str | None, ...]
    fastest_rate_gbps: np.ndarray
    fastest_rtt_s: np.ndarray
    fastest_bdp_bytes: np.ndarray
    fibre_one_way_s: np.ndarray
    fibre_rtt_s: np.ndarray


def live_distances(current_m: float) -> tuple[float, ...]:
    """Return the slider's distances (m): :data:`DISTANCE_STOPS_M` and the page's own distance.

    >>> len(DISTANCE_STOPS_M), DISTANCE_STOPS_M[0], DISTANCE_STOPS_M[-1]
    (30, 0.1, 20000000.0)
    >>> live_distances(11.0) == DISTANCE_STOPS_M  # the episode's 11 m is a stop
    True
    >>> 1.5 in live_distances(1.5)
    True
    """
    current = min(max(float(current_m), MIN_DISTANCE_M), MAX_DISTANCE_M)
    return tuple(sorted({*DISTANCE_STOPS_M, current}))


def reach_groups(rows: Sequence[LinkReach], kinds: dict[str, str]) -> tuple[ReachGroup, ...]:
    """Group the page's rows into the chart's rows: one per kind and rate step, shortest reach first.

    Parameters
    ----------
    rows : sequence of LinkReach
        The page's rows (:func:`~interconnect.topics.reach.model.reach_rows`).
    kinds : dict of str to str
        The ``wires.toml`` kind of each row that is a medium there (``{medium id: kind}``).

    Returns
    -------
    tuple of ReachGroup
        For each kind (``wires.toml`` kind, grouped layer :data:`_GROUPED_LAYERS`, or the row
        itself), one row per step of its fastest rate outwards, as
        :func:`~interconnect.topics.reach.model.fastest_by_kind` gives it at each member's reach;
        ordered by reach (then fastest first).

    Examples
    --------
    >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 3.0, "spec", "copper-twinax", False, 4.5e-9)
    >>> acc = LinkReach("acc", "ACC", "cable", 50.0, 5.0, "spec", "copper-twinax", False, 4.5e-9)
    >>> ecp = LinkReach("ecp", "ECP", "historical", 2.5e-3, 10.0, "spec", "copper-cable", False, 5e-9)
    >>> old = LinkReach("lpt", "LapLink", "historical", 5e-5, 15.0, "spec", "copper-cable", False, 5e-9)
    >>> [(g.id, g.rate_gbps, g.reach_m) for g in reach_groups([dac, acc, ecp, old], {"dac": "dac", "acc": "dac"})]
    [('dac', 50.0, 5.0), ('historical', 0.0025, 10.0), ('historical@5e-05', 5e-05, 15.0)]
    """
    members: dict[str, list[LinkReach]] = {}
    for row in rows:
        members.setdefault(kind_key(row, kinds), []).append(row)
    groups = []
    for key, group in members.items():
        steps: list[list] = []  # [rate, reach, basis, member ids]
        for reach in sorted({r.reach_m for r in group}):
            best = fastest_by_kind(group, reach, kinds)[key]
            if best is None:  # pragma: no cover - a member reaches its own reach
                continue
            farthest = max((r for r in group if r.reach_m == reach), key=lambda r: r.rate_gbps)
            if steps and steps[-1][0] == best.rate_gbps:
                steps[-1][1:3] = [reach, farthest.reach_basis]
                steps[-1][3] += [best.id] if best.id not in steps[-1][3] else []
            else:
                steps.append([best.rate_gbps, reach, farthest.reach_basis, [best.id]])
        names = {r.id: r.name for r in group}
        for n, (rate, reach, basis, ids) in enumerate(steps):
            groups.append(ReachGroup(key if n == 0 else f"{key}@{rate:g}", kinds.get(group[0].id), group[0].layer,
                                     tuple(ids), tuple(names[i] for i in ids), rate, reach, basis, key))
    return tuple(sorted(groups, key=lambda g: (g.reach_m, -g.rate_gbps, g.id)))


def reach_family(rows: Sequence[LinkReach], kinds: dict[str, str], distances_m: Sequence[float],
                 fibre: Propagation) -> ReachFamily:
    r"""Compute which groups reach, the fastest row and the delays, at every distance.

    Parameters
    ----------
    rows : sequence of LinkReach
        The page's rows, shortest reach first (:func:`~interconnect.topics.reach.model.reach_rows`).
    kinds : dict of str to str
        The ``wires.toml`` kind of each row that is a medium there.
    distances_m : sequence of float
        The slider's distances, m.
    fibre : Propagation
        Fibre's propagation (the page's "one way, in fibre").

    Returns
    -------
    ReachFamily

    Notes
    -----
    A row reaches :math:`d` when :math:`d \le \mathrm{reach}(1 + 10^{-9})`. The fastest of each kind
    is :func:`~interconnect.topics.reach.model.fastest_by_kind`'s (highest rate, then fewer watts per
    port with unknown last, then the shorter reach), the fastest of all the first of those by the
    same order (:func:`~interconnect.topics.reach.model.fastest_reaching`). Its round trip is
    :math:`2 d \tau` in its own medium and its bytes in flight :math:`R \cdot 2 d \tau`; fibre's one
    way is :math:`d \tau_{fibre}`.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> from interconnect.topics.reach.model import propagation_for, reach_rows
    >>> from interconnect.hardware.wires import get_wires
    >>> wires = get_wires()
    >>> family = reach_family(reach_rows(), {m.id: m.kind for m in wires.media.values()}, [1.0, 11.0, 1e6],
    ...                       propagation_for("fibre", get_catalog()))
    >>> family.fastest_ids
    ('nvlink-spine', 'sr8-800g', 'wan-100g-wave')
    >>> [f"{t * 1e9:.0f} ns" for t in family.fibre_rtt_s[:2]]
    ['10 ns', '108 ns']
    """
    distances = np.asarray(distances_m, dtype=float)
    reaches = np.array([row.reach_m for row in rows], dtype=float)
    groups = reach_groups(rows, kinds)
    reached = within_reach(distances[:, None], reaches[None, :])  # (distances, rows)
    per_distance = [fastest_by_kind(rows, float(d), kinds) for d in distances]
    kind_ids = tuple(per_distance[0]) if per_distance else tuple(dict.fromkeys(g.key for g in groups))
    kind_fastest = tuple(tuple(None if best[k] is None else best[k].id for k in kind_ids) for best in per_distance)
    kinds_reaching = np.array([[f is not None for f in row] for row in kind_fastest], dtype=bool).reshape(
        len(distances), len(kind_ids))
    # a row (a kind at one rate) reaches while the kind's fastest member that reaches is at least that fast
    group_reaches = np.array([[best[g.key] is not None and best[g.key].rate_gbps >= g.rate_gbps * (1 - 1e-9)
                               for g in groups] for best in per_distance], dtype=bool)
    group_reaches = group_reaches.reshape(len(distances), len(groups))
    fastest = [fastest_reaching([r for r in best.values() if r is not None], float(d))
               for best, d in zip(per_distance, distances, strict=True)]
    fastest_rate = np.array([np.nan if f is None else f.rate_gbps for f in fastest], dtype=float)
    fastest_delay = np.array([np.nan if f is None else f.delay_s_per_m for f in fastest], dtype=float)
    fastest_rtt = round_trip_s(distances, fastest_delay)
    return ReachFamily(
        distances_m=distances, groups=groups, group_reaches=group_reaches, kind_ids=kind_ids,
        kinds_reaching=kinds_reaching, kind_fastest_ids=kind_fastest, links_reaching=reached.sum(axis=1),
        links_total=len(rows),
        fastest_ids=tuple(None if f is None else f.id for f in fastest),
        fastest_names=tuple(None if f is None else f.name for f in fastest),
        fastest_rate_gbps=fastest_rate, fastest_rtt_s=fastest_rtt,
        fastest_bdp_bytes=bdp_bytes(fastest_rate * 1e9, fastest_rtt),
        fibre_one_way_s=one_way_delay_s(distances, fibre.delay_s_per_m),
        fibre_rtt_s=round_trip_s(distances, fibre.delay_s_per_m),
    )
