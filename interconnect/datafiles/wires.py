"""``wires.toml``, read and checked: every protocol (what two ports speak) and medium (what joins them).

The records carry each figure as a catalog :class:`~interconnect.catalog.Figure` (unit, direction,
basis, sources); their properties give the numbers with the unit in the name (``rate_gbps`` in GB/s
per direction, ``reach_m`` in metres, ``power_w`` watts at one end). The questions a cluster's cabling
raises (what reaches a distance, the fastest option) are :mod:`interconnect.hardware.wires`, which
re-exports these names.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interconnect.catalog import BASES, CatalogError, Figure
from interconnect.catalog.schema import parse_figure
from interconnect.datafiles.tables import DataFile, packaged_data_file
from interconnect.units import Q_, expects

__all__ = ["MEDIUM_KINDS", "LinkMedium", "Option", "Power", "Protocol", "Wires", "WiresDataError", "get_wires",
           "load_wires", "within_reach"]

#: What joins two ports, from the shortest reach to the longest.
MEDIUM_KINDS = ("board", "nvlink-copper", "dac", "acc", "aoc", "multimode", "single-mode", "coherent")
_DATA_FILE = "wires.toml"
_PROPAGATION_IDS = ("fibre", "copper-twinax", "copper-cable", "vacuum")


class WiresDataError(CatalogError):
    """``wires.toml`` has an unknown or missing key, a wrong dimension or an unknown id."""


class _WiresFile(DataFile):
    error = WiresDataError


@dataclass(frozen=True)
class Protocol:
    """What two ports speak, and its rate per direction (per port, or per GPU for NVLink)."""

    id: str
    name: str
    family: str
    rate: Figure
    link: str | None = None
    notes: str = ""

    @property
    def rate_gbps(self) -> float:
        """Rate per direction in GB/s."""
        return float(self.rate.per_direction().to("GB/s").magnitude)


@dataclass(frozen=True)
class Power:
    """Watts at one end of a link (the whole plug), with its basis and sources."""

    watts: float
    basis: str
    source_ids: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class LinkMedium:
    """What joins two ports: its plug's rate, its reach, its power per end and what it carries."""

    id: str
    name: str
    kind: str
    rate: Figure
    reach: Figure
    carries: tuple[str, ...]
    propagation: str
    standard: str
    power: Power | None = None
    source_ids: tuple[str, ...] = ()
    notes: str = ""
    links: tuple[str, ...] = ()

    @property
    def rate_gbps(self) -> float:
        """The plug's rate per direction in GB/s."""
        return float(self.rate.per_direction().to("GB/s").magnitude)

    @property
    def reach_m(self) -> float:
        """Longest sourced (or estimated, see ``reach.basis``) length in m."""
        return float(self.reach.quantity.to("m").magnitude)

    @property
    def power_w(self) -> float | None:
        """Watts at one end (the plug), or None where no figure was found."""
        return None if self.power is None else self.power.watts

    @expects(distance_m="m")
    def reaches(self, distance_m: float) -> bool:
        """Say whether a distance is within the reach (the boundary counts as reached).

        Parameters
        ----------
        distance_m : float
            Distance in m (or a length Quantity).

        Returns
        -------
        bool

        Examples
        --------
        >>> dac = get_wires().media["dac-100g-pam4"]
        >>> dac.reaches(3.0), dac.reaches(Q_(11, "m"))
        (True, False)
        """
        return within_reach(distance_m, self.reach_m)


def within_reach(distance_m: float, reach_m: float) -> bool:
    """Say whether a distance is within a reach; the boundary counts as reached, within a relative 1e-9.

    >>> within_reach(2.0, 2.0), within_reach(2.1, 2.0)
    (True, False)
    """
    return distance_m <= reach_m * (1 + 1e-9)


@dataclass(frozen=True)
class Option:
    """One protocol carried by one medium: a link someone can build."""

    protocol: Protocol
    medium: LinkMedium

    @property
    def rate_gbps(self) -> float:
        """GB/s per direction: the protocol's rate (the medium carries it whole)."""
        return min(self.protocol.rate_gbps, self.medium.rate_gbps)

    @property
    def reach_m(self) -> float:
        """The medium's reach in m."""
        return self.medium.reach_m

    @property
    def ports_per_plug(self) -> int:
        """How many of the protocol's ports one plug carries (two 400G ports in an 800G twin-port plug)."""
        return max(1, math.floor(self.medium.rate_gbps / self.protocol.rate_gbps + 1e-9))

    @property
    def power_w_per_port(self) -> float | None:
        """Watts per port at one end: the plug's power shared by the ports it carries (None: not found)."""
        power = self.medium.power_w
        return None if power is None else power / self.ports_per_plug

    @property
    def id(self) -> str:
        """``protocol@medium``, e.g. ``eth-800g@sr8-800g``."""
        return f"{self.protocol.id}@{self.medium.id}"

    def label(self) -> str:
        """``800 Gigabit Ethernet over Multimode twin-port 2xSR4 ('SR8'), 800G (50 m)``."""
        return f"{self.protocol.name} over {self.medium.name}"


@dataclass(frozen=True)
class Wires:
    """Every protocol and medium of ``wires.toml``."""

    protocols: dict[str, Protocol]
    media: dict[str, LinkMedium]

    def options(self) -> list[Option]:
        """Every (protocol, medium) pair the data allows, in file order of the media."""
        return [Option(self.protocols[pid], medium) for medium in self.media.values() for pid in medium.carries]

    def catalog_link_ids(self) -> set[str]:
        """List the catalog links this file describes again, as a protocol or as a medium."""
        return ({p.link for p in self.protocols.values() if p.link}
                | {link for medium in self.media.values() for link in medium.links})

    def fastest_carried(self, medium_id: str) -> Protocol:
        """Return the fastest protocol a medium carries (its point on a rate-against-reach chart)."""
        medium = self.media[medium_id]
        return max((self.protocols[pid] for pid in medium.carries), key=lambda p: (p.rate_gbps, p.id))

    def source_ids(self) -> set[str]:
        """Every source id the file cites (figures and prose)."""
        ids: set[str] = set()
        for protocol in self.protocols.values():
            ids |= set(protocol.rate.source_ids)
        for medium in self.media.values():
            ids |= set(medium.rate.source_ids) | set(medium.reach.source_ids) | set(medium.source_ids)
            if medium.power is not None:
                ids |= set(medium.power.source_ids)
        return ids

    def media_of(self, protocol_id: str) -> list[LinkMedium]:
        """List the media that carry one protocol, shortest reach first."""
        return sorted((m for m in self.media.values() if protocol_id in m.carries), key=lambda m: m.reach_m)


# --- loading ------------------------------------------------------------------------------------


def _check(where: str, raw: Mapping[str, Any], required: Mapping[str, type], optional: Mapping[str, type]) -> None:
    unknown = sorted(set(raw) - set(required) - set(optional))
    if unknown:
        raise WiresDataError(f"{where}: unknown key(s) {', '.join(unknown)}")
    missing = sorted(set(required) - set(raw))
    if missing:
        raise WiresDataError(f"{where}: missing key(s) {', '.join(missing)}")
    for key, value in raw.items():
        kind = required.get(key, optional.get(key))
        if not isinstance(value, kind):
            raise WiresDataError(f"{where}: '{key}' has the wrong type ({type(value).__name__})")


def _figure(where: str, name: str, raw: Any, dimension: str, source_ids: set[str]) -> Figure:
    try:
        return parse_figure(where, name, raw, dimension, source_ids)
    except CatalogError as exc:
        raise WiresDataError(str(exc)) from exc


def _power(where: str, raw: Any, source_ids: set[str]) -> Power:
    here = f"{where}, figure 'power'"
    if not isinstance(raw, Mapping):
        raise WiresDataError(f"{here}: must be a table with value, direction, basis and sources")
    _check(here, raw, {"value": str, "direction": str, "basis": str, "sources": list}, {"note": str})
    try:
        watts = float(Q_(raw["value"]).to("W").magnitude)
    except Exception as exc:
        raise WiresDataError(f"{here}: {raw['value']!r} is not a power in watts") from exc
    if not (math.isfinite(watts) and watts > 0):
        raise WiresDataError(f"{here}: must be positive")
    if raw["direction"] != "n/a":
        raise WiresDataError(f"{here}: a power has no direction; use 'n/a'")
    if raw["basis"] not in BASES:
        raise WiresDataError(f"{here}: basis {raw['basis']!r} is not one of {', '.join(BASES)}")
    if not raw["sources"] or any(s not in source_ids for s in raw["sources"]):
        raise WiresDataError(f"{here}: 'sources' must list known source ids, got {raw['sources']!r}")
    return Power(watts, raw["basis"], tuple(raw["sources"]), raw.get("note", ""))


def load_wires(path: str | Path | None = None, source_ids: frozenset[str] | None = None,
               link_ids: frozenset[str] | None = None) -> Wires:
    """Read and check ``wires.toml``.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file by default.
    source_ids, link_ids : frozenset of str, optional
        The ids a ``sources`` list and a protocol's ``link`` may use; the packaged catalog's by default.

    Returns
    -------
    Wires

    Raises
    ------
    WiresDataError
        Naming the table and key: an unknown or missing key, a wrong type or dimension, an unknown
        source, link, protocol or propagation id, or a duplicate id.

    Examples
    --------
    >>> wires = load_wires()
    >>> wires.protocols["ib-ndr"].rate_gbps, wires.media["sr4-400g"].reach_m
    (50.0, 50.0)
    """
    path = packaged_data_file(_DATA_FILE) if path is None else Path(path)
    if source_ids is None or link_ids is None:
        from interconnect.catalog import get_catalog

        catalog = get_catalog()
        source_ids = frozenset(catalog.sources) if source_ids is None else source_ids
        link_ids = frozenset(catalog.links) if link_ids is None else link_ids
    wires_file = _WiresFile(path, source_ids)
    wires_file.only_tables(("protocol", "medium"))
    data, file = wires_file.data, wires_file.name
    ids = set(source_ids)
    protocols: dict[str, Protocol] = {}
    for raw in data.get("protocol", []):
        where = f"{file}: protocol '{raw.get('id', '?')}'"
        _check(where, raw, {"id": str, "name": str, "family": str, "rate": dict}, {"link": str, "notes": str})
        if raw["id"] in protocols:
            raise WiresDataError(f"{where}: duplicate id")
        if "link" in raw and raw["link"] not in link_ids:
            raise WiresDataError(f"{where}: unknown catalog link {raw['link']!r}")
        rate = _figure(where, "rate", raw["rate"], "bandwidth", ids)
        protocols[raw["id"]] = Protocol(raw["id"], raw["name"], raw["family"], rate, raw.get("link"),
                                        raw.get("notes", ""))
    media: dict[str, LinkMedium] = {}
    for raw in data.get("medium", []):
        where = f"{file}: medium '{raw.get('id', '?')}'"
        _check(where, raw, {"id": str, "name": str, "kind": str, "rate": dict, "reach": dict, "carries": list,
                            "propagation": str, "standard": str},
               {"power": dict, "sources": list, "notes": str, "links": list})
        if raw["id"] in media:
            raise WiresDataError(f"{where}: duplicate id")
        if raw["kind"] not in MEDIUM_KINDS:
            raise WiresDataError(f"{where}: kind {raw['kind']!r} is not one of {', '.join(MEDIUM_KINDS)}")
        if raw["propagation"] not in _PROPAGATION_IDS:
            raise WiresDataError(f"{where}: propagation {raw['propagation']!r} is not one of "
                                 f"{', '.join(_PROPAGATION_IDS)}")
        missing = [pid for pid in raw["carries"] if pid not in protocols]
        if not raw["carries"] or missing:
            raise WiresDataError(f"{where}: 'carries' must list protocol ids; unknown: {missing!r}")
        if any(link not in link_ids for link in raw.get("links", [])):
            raise WiresDataError(f"{where}: 'links' must list catalog link ids, got {raw['links']!r}")
        if any(s not in ids for s in raw.get("sources", [])):
            raise WiresDataError(f"{where}: 'sources' must list known source ids, got {raw['sources']!r}")
        rate = _figure(where, "rate", raw["rate"], "bandwidth", ids)
        reach = _figure(where, "reach", raw["reach"], "length", ids)
        power = _power(where, raw["power"], ids) if "power" in raw else None
        media[raw["id"]] = LinkMedium(raw["id"], raw["name"], raw["kind"], rate, reach, tuple(raw["carries"]),
                                      raw["propagation"], raw["standard"], power, tuple(raw.get("sources", ())),
                                      raw.get("notes", ""), tuple(raw.get("links", ())))
    if not protocols or not media:
        raise WiresDataError(f"{file}: needs at least one [[protocol]] and one [[medium]]")
    return Wires(protocols, media)


@functools.lru_cache(maxsize=1)
def get_wires() -> Wires:
    """Return the packaged ``wires.toml``, read once."""
    return load_wires()
