"""Which links reach a distance: each medium's reach, the fastest that still gets there, and the leash.

The rate lost at each step outwards is the leash chart's staircase.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from interconnect.catalog import Link
from interconnect.datafiles.wires import within_reach
from interconnect.topics.reach.model.delay import bdp_bytes, round_trip_s
from interconnect.topics.reach.model.propagation import propagation_for, propagation_medium_of
from interconnect.units import expects

__all__ = [
    "GROUPED_LAYERS",
    "KIND_NAMES",
    "LeashStep",
    "LinkReach",
    "fastest_by_kind",
    "fastest_rank",
    "fastest_reaching",
    "kind_key",
    "kind_name",
    "long_haul_links",
    "option_of",
    "leash_steps",
    "links_without_reach",
    "media_with_reach",
    "reach_rows",
]


@dataclass(frozen=True)
class LinkReach:
    """A catalog link seen from the Reach page: its rate, its reach and what its signal travels in."""

    id: str
    name: str
    layer: str
    rate_gbps: float  # GB/s per direction (a half-duplex link's shared rate)
    reach_m: float
    reach_basis: str
    medium_id: str
    medium_inferred: bool
    delay_s_per_m: float
    power_w_per_port: float | None = None  # watts per port at one end, for a wires.toml medium (None: not found)

    @expects(distance_m="m")
    def reaches(self, distance_m: float) -> bool:
        """Say whether the link's reach covers a distance (a boundary distance counts as reached).

        Parameters
        ----------
        distance_m : float
            Distance in m (or a length Quantity).

        Returns
        -------
        bool
            True when ``distance_m`` is at most the reach, within a relative 1e-9.

        Examples
        --------
        >>> from interconnect.units import Q_
        >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 2.0, "spec", "copper-twinax", False, 4.5e-9)
        >>> dac.reaches(2.0), dac.reaches(Q_(3, "m"))
        (True, False)
        """
        return within_reach(distance_m, self.reach_m)

    @expects(distance_m="m")
    def rtt_s(self, distance_m: float) -> float:
        r"""Compute the round trip over a distance in this link's medium.

        Parameters
        ----------
        distance_m : float
            Distance in m (or a length Quantity).

        Returns
        -------
        float
            Round-trip time in s, :math:`2 d \tau` (:func:`round_trip_s`).

        Examples
        --------
        >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 2.0, "spec", "copper-twinax", False, 4.5e-9)
        >>> f"{dac.rtt_s(2.0) * 1e9:.0f} ns"
        '18 ns'
        """
        return float(round_trip_s(distance_m, self.delay_s_per_m))

    @expects(distance_m="m")
    def bdp_bytes(self, distance_m: float) -> float:
        """Compute the bytes in flight at this link's rate over a distance.

        Parameters
        ----------
        distance_m : float
            Distance in m (or a length Quantity).

        Returns
        -------
        float
            Bytes in flight, B: the rate (GB/s x 1e9) times :meth:`rtt_s` (:func:`bdp_bytes`).

        Examples
        --------
        >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 2.0, "spec", "copper-twinax", False, 4.5e-9)
        >>> f"{dac.bdp_bytes(2.0):.0f} B"
        '900 B'
        """
        return float(bdp_bytes(self.rate_gbps * 1e9, self.rtt_s(distance_m)))


def _reach_row(link: Link, catalog: object | None) -> LinkReach | None:
    if link.reach is None:
        return None
    try:
        reach_m = float(link.reach.quantity.to("m").magnitude)
        rate = float(link.bandwidth.per_direction().to("GB/s").magnitude)
    except Exception:  # a figure that is not a length or a rate: not a medium for this page
        return None
    if not (math.isfinite(reach_m) and reach_m > 0 and math.isfinite(rate) and rate > 0):
        return None
    medium_id, inferred = propagation_medium_of(link)
    propagation = propagation_for(medium_id, catalog)
    return LinkReach(link.id, link.name, link.layer, rate, reach_m, link.reach.basis, propagation.id, inferred,
                     propagation.delay_s_per_m)


def media_with_reach(links: Iterable[Link], catalog: object | None = None) -> list[LinkReach]:
    """List every link with a usable reach figure, shortest reach first (fastest first at equal reach).

    Parameters
    ----------
    links : iterable of interconnect.catalog.Link
        Catalog links; those without a reach (the catalog says "not found" rather than guess) are
        left out, see :func:`links_without_reach`.
    catalog : interconnect.catalog.Catalog, optional
        Where to look up each medium's propagation (:func:`propagation_for`).

    Returns
    -------
    list of LinkReach
        Rate in GB/s per direction, reach in m and delay in s/m per link.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> rows = media_with_reach(get_catalog().links.values())
    >>> all(a.reach_m <= b.reach_m for a, b in zip(rows, rows[1:]))
    True
    """
    rows = [row for link in links if (row := _reach_row(link, catalog)) is not None]
    return sorted(rows, key=lambda row: (row.reach_m, -row.rate_gbps, row.name))


def reach_rows(wires: Any = None, catalog: Any = None) -> list[LinkReach]:
    """List the Reach page's points: every medium of ``wires.toml``, then the catalog's other links.

    Parameters
    ----------
    wires : interconnect.hardware.wires.Wires, optional
        The protocols and media; the packaged ``wires.toml`` by default.
    catalog : interconnect.catalog.Catalog, optional
        The catalog; the packaged one by default.

    Returns
    -------
    list of LinkReach
        One row per medium, at the rate of the fastest protocol it carries, with the chart layer of
        its kind (:data:`~interconnect.hardware.wires.KIND_LAYERS`); then every catalog link with a reach
        that the wires file does not describe again (old parallel and serial cables, MetroX, long-haul
        wavelengths), shortest reach first as in :func:`media_with_reach`.

    Examples
    --------
    >>> rows = {row.id: row for row in reach_rows()}
    >>> rows["sr8-800g"].rate_gbps, rows["sr8-800g"].reach_m, rows["sr8-800g"].layer
    (100.0, 50.0, 'cable')
    >>> "laplink-parallel" in rows, "ib-ndr" in rows, "400zr" in rows and rows["400zr"].name.startswith("OIF")
    (True, False, True)
    """
    from interconnect.catalog import get_catalog
    from interconnect.hardware.wires import KIND_LAYERS, get_wires

    data = wires or get_wires()
    catalog = catalog or get_catalog()
    from interconnect.hardware.wires import Option

    rows = []
    for medium in data.media.values():
        propagation = propagation_for(medium.propagation, catalog)
        carried = data.fastest_carried(medium.id)
        rows.append(LinkReach(medium.id, medium.name, KIND_LAYERS.get(medium.kind, "cable"),
                              carried.rate_gbps, medium.reach_m, medium.reach.basis,
                              propagation.id, False, propagation.delay_s_per_m,
                              Option(carried, medium).power_w_per_port))
    covered = data.catalog_link_ids()
    others = [link for link in catalog.links.values() if link.id not in covered]
    rows += media_with_reach(others, catalog)
    return sorted(rows, key=lambda row: (row.reach_m, -row.rate_gbps, row.name))


def links_without_reach(links: Iterable[Link]) -> list[Link]:
    """List the links the catalog gives no reach for (they cannot be placed on a distance scale).

    Parameters
    ----------
    links : iterable of interconnect.catalog.Link
        Catalog links.

    Returns
    -------
    list of interconnect.catalog.Link
        Those whose ``reach`` is None.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> links = list(get_catalog().links.values())
    >>> len(links_without_reach(links)) + len(media_with_reach(links)) <= len(links)
    True
    """
    return [link for link in links if link.reach is None]


#: Catalog layers whose links form one kind on the page (the old PC cables tell one story).
GROUPED_LAYERS = ("historical",)
#: Names a reader knows the kinds by (a wires.toml kind, a grouped layer, or a catalog link's own id).
KIND_NAMES = {
    "board": "Baseboard NVLink", "nvlink-copper": "NVLink copper", "dac": "Passive copper (DAC)",
    "acc": "Active copper (ACC)", "aoc": "Active optical (AOC)", "multimode": "Multimode optics",
    "single-mode": "Single-mode optics", "coherent": "Coherent optics (ZR)", "historical": "Old PC cables",
    "metrox": "MetroX (InfiniBand)", "wan-100g-wave": "WAN wavelength",
}


def kind_key(row: LinkReach, kinds: Mapping[str, str]) -> str:
    """The kind a row belongs to: its ``wires.toml`` kind, its grouped layer, or else its own id.

    >>> old = LinkReach("lpt", "LapLink", "historical", 5e-5, 15.0, "spec", "copper-cable", False, 5e-9)
    >>> kind_key(old, {}), kind_key(old, {"lpt": "dac"})
    ('historical', 'dac')
    """
    kind = kinds.get(row.id)
    if kind is not None:
        return kind
    return row.layer if row.layer in GROUPED_LAYERS else row.id


def kind_name(key: str, rows: Sequence[LinkReach] = ()) -> str:
    """A kind's name for a reader: :data:`KIND_NAMES`, else the first member's name before any bracket.

    >>> kind_name("single-mode"), kind_name("x", [LinkReach("x", "Thing (long)", "c", 1, 1, "spec", "f", False, 0)])
    ('Single-mode optics', 'Thing')
    """
    if key in KIND_NAMES:
        return KIND_NAMES[key]
    return next((row.name.split(" (")[0] for row in rows if row.id == key), key)


def fastest_rank(row: LinkReach) -> tuple:
    """The order in which links compete for "fastest": the smallest key wins.

    The highest rate; among equally fast links the fewer watts per port at one end (a link with no
    power figure last); then the shorter reach (the link that only just reaches is the usual
    choice); then the id. This is the order of
    :func:`~interconnect.hardware.wires.media_reaching`, so the Reach page, its live chart and
    ``interconnect reach`` all name the same link.
    """
    power = row.power_w_per_port
    return (-row.rate_gbps, math.inf if power is None else power, row.reach_m, row.id)


@expects(distance_m="m")
def fastest_by_kind(rows: Sequence[LinkReach], distance_m: float,
                    kinds: Mapping[str, str] | None = None) -> dict[str, LinkReach | None]:
    """For each kind of link, the fastest member that reaches a distance (None where none does).

    Parameters
    ----------
    rows : sequence of LinkReach
        The page's rows (:func:`reach_rows`).
    distance_m : float
        Distance in m (or a length Quantity).
    kinds : mapping of str to str, optional
        The ``wires.toml`` kind of each row that is a medium there (``{medium id: kind}``); rows
        without one are grouped by :func:`kind_key`.

    Returns
    -------
    dict of str to LinkReach or None
        Keyed by kind (:func:`kind_key`) in the rows' order. Among the members that reach, the
        first by :func:`fastest_rank`: highest rate, then fewer watts per port (unknown last), then
        the shorter reach, then the id.

    Examples
    --------
    >>> ecp = LinkReach("ecp", "ECP", "historical", 2.5e-3, 10.0, "spec", "copper-cable", False, 5e-9)
    >>> lpt = LinkReach("lpt", "LapLink", "historical", 5e-5, 15.0, "spec", "copper-cable", False, 5e-9)
    >>> fastest_by_kind([ecp, lpt], 5.0)["historical"].id, fastest_by_kind([ecp, lpt], 11.0)["historical"].id
    ('ecp', 'lpt')
    >>> fastest_by_kind([ecp, lpt], 20.0)
    {'historical': None}
    """
    kinds = kinds or {}
    best: dict[str, LinkReach | None] = {}
    for row in rows:
        key = kind_key(row, kinds)
        best.setdefault(key, None)
        if row.reaches(distance_m) and (best[key] is None or fastest_rank(row) < fastest_rank(best[key])):
            best[key] = row
    return best


@expects(distance_m="m")
def fastest_reaching(media: Sequence[LinkReach], distance_m: float) -> LinkReach | None:
    """Find the fastest link whose reach covers a distance: the fastest of :func:`fastest_by_kind`.

    Parameters
    ----------
    media : sequence of LinkReach
        Candidate links (from :func:`reach_rows` or :func:`media_with_reach`).
    distance_m : float
        Distance in m (or a length Quantity).

    Returns
    -------
    LinkReach or None
        The first by :func:`fastest_rank` among the links that reach (highest rate, then fewer
        watts per port, then the shorter reach), or None when nothing catalogued reaches.

    Examples
    --------
    >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 1.5, "spec", "copper-twinax", False, 4.5e-9)
    >>> fibre = LinkReach("lr", "LR", "cable", 12.5, 10_000, "spec", "fibre", False, 4.9e-6 / 1000)
    >>> fastest_reaching([dac, fibre], 1.5).id, fastest_reaching([dac, fibre], 30).id
    ('dac', 'lr')
    >>> fastest_reaching([dac, fibre], 20_000) is None
    True
    """
    best = [row for row in fastest_by_kind(media, distance_m).values() if row is not None]
    return min(best, key=fastest_rank, default=None)


def option_of(row: LinkReach | None, wires: Any = None) -> Any:
    """The (protocol, medium) pair a ``wires.toml`` row stands for: its medium at its fastest protocol.

    Returns an :class:`~interconnect.hardware.wires.Option`, or None for a catalog link outside
    ``wires.toml`` (or no row).

    >>> rows = {row.id: row for row in reach_rows()}
    >>> option_of(rows["sr8-800g"]).id, option_of(rows["metrox"]), option_of(None)
    ('eth-800g@sr8-800g', None, None)
    """
    from interconnect.hardware.wires import Option, get_wires

    data = wires or get_wires()
    if row is None or row.id not in data.media:
        return None
    return Option(data.fastest_carried(row.id), data.media[row.id])


@expects(distance_m="m")
def long_haul_links(family: str, distance_m: float, wires: Any = None, catalog: Any = None) -> list[LinkReach]:
    """The catalog's links outside ``wires.toml`` of one protocol family that reach a distance.

    A protocol whose media all stop short may still be carried further by an appliance pair the
    catalog lists as a link of its own: NVIDIA MetroX stretches InfiniBand to 40 km.

    Parameters
    ----------
    family : str
        A protocol family (``"InfiniBand"``, ``"Ethernet"``...).
    distance_m : float
        Distance in m (or a length Quantity).
    wires, catalog : optional
        The packaged ``wires.toml`` and catalog by default.

    Returns
    -------
    list of LinkReach
        Fastest first (:func:`fastest_rank`).

    Examples
    --------
    >>> [row.id for row in long_haul_links("InfiniBand", 40_000)], long_haul_links("InfiniBand", 41_000)
    (['metrox'], [])
    """
    from interconnect.catalog import get_catalog
    from interconnect.hardware.wires import get_wires

    data = wires or get_wires()
    catalog = catalog or get_catalog()
    covered = data.catalog_link_ids()
    links = [link for link in catalog.links.values() if link.id not in covered and link.family == family]
    return sorted((row for row in media_with_reach(links, catalog) if row.reaches(distance_m)), key=fastest_rank)


@dataclass(frozen=True)
class LeashStep:
    """One step of the leash: up to ``reach_m`` the fastest link that still reaches is ``link``.

    ``lost_factor`` is how many times slower this step is than the one inside it (1 for the first).
    """

    reach_m: float
    link: LinkReach
    lost_factor: float


def leash_steps(media: Sequence[LinkReach]) -> list[LeashStep]:
    r"""List the fastest rate available at each distance, as steps going outwards.

    Parameters
    ----------
    media : sequence of LinkReach
        Candidate links (from :func:`media_with_reach`).

    Returns
    -------
    list of LeashStep
        One step per link that is ever the fastest, ordered by reach (m), with the factor of rate
        lost against the step inside it.

    Notes
    -----
    The envelope

    .. math:: R(d) = \max \{ R_i : \mathrm{reach}_i \ge d \}

    falls in steps; each step ends at the reach of the link that was fastest inside it. A slower
    link that never wins (a 15 m parallel cable) does not appear. This construction is ours.

    Examples
    --------
    >>> fast = LinkReach("nv", "NVLink", "scale-up", 900.0, 2.0, "spec", "copper-cable", False, 5e-9)
    >>> optic = LinkReach("zr", "800ZR", "long-reach", 100.0, 120_000, "spec", "fibre", False, 4.9e-9)
    >>> slow = LinkReach("lpt", "LapLink", "historical", 1.2e-5, 15.0, "spec", "copper-cable", False, 5e-9)
    >>> [(s.link.id, s.reach_m, round(s.lost_factor)) for s in leash_steps([fast, optic, slow])]
    [('nv', 2.0, 1), ('zr', 120000, 9)]
    """
    steps: list[LeashStep] = []
    inner = 0.0
    while True:
        candidates = [row for row in media if row.reach_m > inner * (1 + 1e-9)]
        if not candidates:
            return steps
        # Among links as fast as the best, the one that reaches farthest ends the step.
        best = max(candidates, key=lambda row: (row.rate_gbps, row.reach_m))
        lost = steps[-1].link.rate_gbps / best.rate_gbps if steps else 1.0
        steps.append(LeashStep(best.reach_m, best, lost))
        inner = best.reach_m
