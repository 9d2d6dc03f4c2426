"""The Reach page's live family: which kinds of link still reach, at every distance the slider offers.

The Reach page's live chart lets the viewer drag the distance between two GPUs and watch kinds of
link drop out, one by one, as each one's reach is passed. The browser can only follow at once if it
already holds the answer for every position, so this module computes it for every distance of the
slider in one vectorized pass over the page's own rows (:func:`~interconnect.topics.reach.model.reach_rows`):
whether each row reaches (:func:`~interconnect.datafiles.wires.within_reach`), the fastest that
still does (as :func:`~interconnect.topics.reach.model.fastest_reaching` picks it), the delay in fibre
and the bytes the fastest link keeps in flight (:func:`~interconnect.topics.reach.model.round_trip_s`,
:func:`~interconnect.topics.reach.model.bdp_bytes`).

Rows are grouped into the kinds a reader tells apart: every medium of ``wires.toml`` by its kind
(NVLink copper, passive and active copper, active optical cables, multimode, single-mode and
coherent optics), the old PC cables as one group, and each other catalogued link (MetroX, a
long-haul wavelength) on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from interconnect.datafiles.wires import within_reach
from interconnect.topics.reach.model import (
    EPISODE,
    LANDMARKS,
    MAX_DISTANCE_M,
    MIN_DISTANCE_M,
    LinkReach,
    Propagation,
    bdp_bytes,
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
_GROUPED_LAYERS = ("historical",)


@dataclass(frozen=True)
class ReachGroup:
    """One row of the chart: a kind of link, its fastest rate and its longest reach.

    ``kind`` is the ``wires.toml`` kind of its media (``"dac"``, ``"multimode"`` ...), or ``None``
    for catalog links outside ``wires.toml``; ``layer`` is the catalog layer its colour comes from.
    ``rate_gbps`` is GB/s per direction (the fastest member), ``reach_m`` metres (the longest) and
    ``reach_basis`` that figure's basis (``"spec"``, ``"estimate"`` ...).
    """

    id: str
    kind: str | None
    layer: str
    member_ids: tuple[str, ...]
    member_names: tuple[str, ...]
    rate_gbps: float
    reach_m: float
    reach_basis: str


@dataclass(frozen=True, eq=False)
class ReachFamily:
    """The page's reach figures at every slider distance (rows) and for every group (columns).

    ``group_reaches`` (distances, groups): some member of the group reaches the distance.
    ``links_reaching``: how many of the page's rows reach each distance (of ``links_total``).
    ``fastest_ids`` / ``fastest_rate_gbps`` (GB/s per direction): the fastest row that reaches
    (``None`` / NaN where none does); ``fastest_rtt_s`` its round trip in its own medium and
    ``fastest_bdp_bytes`` the bytes it keeps in flight (NaN where none). ``fibre_one_way_s`` and
    ``fibre_rtt_s``: the delay in fibre, in s, whatever reaches.
    """

    distances_m: np.ndarray
    groups: tuple[ReachGroup, ...]
    group_reaches: np.ndarray
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
    """Group the page's rows into the chart's rows, shortest reach first.

    Parameters
    ----------
    rows : sequence of LinkReach
        The page's rows (:func:`~interconnect.topics.reach.model.reach_rows`).
    kinds : dict of str to str
        The ``wires.toml`` kind of each row that is a medium there (``{medium id: kind}``).

    Returns
    -------
    tuple of ReachGroup
        One per kind, one for each grouped layer (:data:`_GROUPED_LAYERS`) and one per other row,
        ordered by longest reach (then fastest first).

    Examples
    --------
    >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 3.0, "spec", "copper-twinax", False, 4.5e-9)
    >>> acc = LinkReach("acc", "ACC", "cable", 50.0, 5.0, "spec", "copper-twinax", False, 4.5e-9)
    >>> old = LinkReach("lpt", "LapLink", "historical", 5e-5, 15.0, "spec", "copper-cable", False, 5e-9)
    >>> [(g.id, g.reach_m) for g in reach_groups([dac, acc, old], {"dac": "dac", "acc": "dac"})]
    [('dac', 5.0), ('historical', 15.0)]
    """
    members: dict[str, list[LinkReach]] = {}
    kind_of: dict[str, str | None] = {}
    for row in rows:
        kind = kinds.get(row.id)
        key = kind if kind is not None else (row.layer if row.layer in _GROUPED_LAYERS else row.id)
        members.setdefault(key, []).append(row)
        kind_of[key] = kind
    groups = []
    for key, group in members.items():
        farthest = max(group, key=lambda r: r.reach_m)
        groups.append(ReachGroup(key, kind_of[key], group[0].layer, tuple(r.id for r in group),
                                 tuple(r.name for r in group), max(r.rate_gbps for r in group), farthest.reach_m,
                                 farthest.reach_basis))
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
    A row reaches :math:`d` when :math:`d \le \mathrm{reach}(1 + 10^{-9})`. The fastest is the
    highest rate among rows that reach, the shorter reach breaking a tie (rows come shortest reach
    first, so the first maximum). Its round trip is :math:`2 d \tau` in its own medium and its bytes
    in flight :math:`R \cdot 2 d \tau`; fibre's one way is :math:`d \tau_{fibre}`.

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
    rates = np.array([row.rate_gbps for row in rows], dtype=float)
    reaches = np.array([row.reach_m for row in rows], dtype=float)
    delays = np.array([row.delay_s_per_m for row in rows], dtype=float)
    groups = reach_groups(rows, kinds)
    reached = within_reach(distances[:, None], reaches[None, :])  # (distances, rows)
    member = np.array([[row.id in group.member_ids for group in groups] for row in rows], dtype=bool)
    group_reaches = (reached[:, :, None] & member[None, :, :]).any(axis=1)
    masked = np.where(reached, rates[None, :], -np.inf)
    best = np.argmax(masked, axis=1)
    any_reach = reached.any(axis=1)
    fastest_rate = np.where(any_reach, rates[best], np.nan)
    fastest_delay = np.where(any_reach, delays[best], np.nan)
    fastest_rtt = round_trip_s(distances, fastest_delay)
    return ReachFamily(
        distances_m=distances, groups=groups, group_reaches=group_reaches, links_reaching=reached.sum(axis=1),
        links_total=len(rows),
        fastest_ids=tuple(rows[b].id if ok else None for b, ok in zip(best, any_reach, strict=True)),
        fastest_names=tuple(rows[b].name if ok else None for b, ok in zip(best, any_reach, strict=True)),
        fastest_rate_gbps=fastest_rate, fastest_rtt_s=fastest_rtt,
        fastest_bdp_bytes=bdp_bytes(fastest_rate * 1e9, fastest_rtt),
        fibre_one_way_s=one_way_delay_s(distances, fibre.delay_s_per_m),
        fibre_rtt_s=round_trip_s(distances, fibre.delay_s_per_m),
    )
