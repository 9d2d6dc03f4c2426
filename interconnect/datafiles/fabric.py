"""``fabric.toml``, read and checked: switch models, the distance classes of a hall, published designs.

The records carry numbers with the unit in the field name (``port_gbit_s``, ``length_m``, ``power_w``).
A published design holds its stated inputs as a :class:`FabricInputs`, the record the fabric model
builds from; what it builds (tiers, links, optics, power) is :mod:`interconnect.hardware.fabric`, which
re-exports these names.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interconnect.catalog import CatalogError
from interconnect.datafiles.records import Field, Record
from interconnect.datafiles.tables import DataFile, packaged_data_file
from interconnect.units import Q_

__all__ = [
    "DISTANCE_IDS",
    "FABRIC_KINDS",
    "Design",
    "DistanceClass",
    "FabricData",
    "FabricDataError",
    "FabricInputs",
    "Switch",
    "get_fabric_data",
    "load_fabric_data",
]

#: The distance classes' ids, shortest first.
DISTANCE_IDS = ("rack", "row", "hall")
#: What a switch of the file speaks.
FABRIC_KINDS = ("infiniband", "ethernet")
_DATA_FILE = "fabric.toml"
SWITCH = Record("switch", (
    Field("id"), Field("name"), Field("vendor"), Field("fabric", choices=FABRIC_KINDS), Field("ports", int, minimum=2),
    Field("port_rate", quantity=("bandwidth", "Gbit/s"), to="port_gbit_s"), Field("sources", list, refs="source"),
    Field("note"), Field("power", required=False), Field("power_sources", list, required=False, refs="source"),
))
DISTANCE = Record("distance", (
    Field("id"), Field("name"), Field("length", quantity=("length", "m"), to="length_m"),
    Field("note", required=False, default=""),
))
DESIGN = Record("design", (
    Field("id"), Field("name"), Field("sources", list, refs="source"), Field("where"), Field("servers", int),
    Field("server"), Field("gpus_per_server", int), Field("nics_per_server", int),
    Field("nic_rate", quantity=("bandwidth", "Gbit/s"), to="nic_gbit_s"), Field("switch", refs="switch"),
    Field("topology"), Field("oversubscription", list, items=float), Field("planes", int),
    Field("expected_switches", list, items=int), Field("expected_links", list, items=int),
    Field("uplink_rate", required=False, quantity=("bandwidth", "Gbit/s"), to="uplink_gbit_s"),
    Field("top_oversubscription", float, required=False), Field("servers_per_leaf", int, required=False, default=0),
    Field("distances", list, required=False, default=()), Field("spare_leaf_ports", int, required=False, default=0),
))

class FabricDataError(CatalogError):
    """``fabric.toml`` is inconsistent; the message names the file, the table and the key."""


class _FabricFile(DataFile):
    error = FabricDataError


@dataclass(frozen=True)
class Switch:
    """A switch model: its port count at its native port rate, and its power where known."""

    id: str
    name: str
    vendor: str
    fabric: str
    ports: int
    port_gbit_s: float
    sources: tuple[str, ...]
    note: str = ""
    power_w: float | None = None
    power_sources: tuple[str, ...] = ()

    @property
    def capacity_gbit_s(self) -> float:
        """Switching capacity per direction (Gbit/s): ports x rate."""
        return self.ports * self.port_gbit_s


@dataclass(frozen=True)
class DistanceClass:
    """A class of run: in the rack, across a row, across a hall, with the longest run it stands for."""

    id: str
    name: str
    length_m: float
    note: str = ""


@dataclass(frozen=True)
class FabricInputs:
    """What defines a fabric: the servers, their NICs, the switch, the topology and its tapers.

    ``oversubscription`` holds down : up for each tier below the top, from the leaves up (a missing
    entry is 1, non-blocking); ``top_oversubscription`` reserves uplinks on the top tier (``None``:
    every top port faces down). ``uplink_gbit_s`` is the rate of switch-to-switch links (default: the
    switch's own port rate). ``distances`` are distance-class ids for the links into each tier.
    ``servers_per_leaf`` (fat tree only; 0: as many as the leaf's ports hold) gives each leaf a
    fixed number of servers, a top-of-rack switch for one rack: its uplinks then follow from the
    leaf oversubscription, which may go below 1 (more uplink than downlink) down to
    :data:`interconnect.hardware.fabric.MIN_LEAF_OVERSUBSCRIPTION`, and its spare ports stay unused.
    ``spare_leaf_ports`` are server ports each leaf keeps for standby hosts (Alibaba HPN's 8 backup
    hosts per ToR): they are cabled and counted, but carry no traffic in service, so the leaf's
    oversubscription counts only the other, active server ports.
    """

    servers: int
    gpus_per_server: int
    nics_per_server: int
    nic_gbit_s: float
    switch: Switch
    topology: str = "rail-leaf-spine"
    oversubscription: tuple[float, ...] = ()
    top_oversubscription: float | None = None
    planes: int = 1
    uplink_gbit_s: float | None = None
    distances: tuple[str, ...] = ()
    server: str = ""
    rails: int = 0
    servers_per_leaf: int = 0
    spare_leaf_ports: int = 0

    @property
    def rail_count(self) -> int:
        """Rails of a rail-optimised fabric: ``rails``, else the largest divisor of the NIC count up to 8.

        8 for a DGX; a 72-NIC NVL72 rack then puts 9 links on each rail leaf.
        """
        if self.rails:
            return self.rails
        return max(d for d in range(1, min(8, self.nics_per_server) + 1) if self.nics_per_server % d == 0)

    @property
    def gpus(self) -> int:
        """GPUs in all the servers."""
        return self.servers * self.gpus_per_server

    @property
    def up_gbit_s(self) -> float:
        """Rate of one switch-to-switch link (Gbit/s per direction)."""
        return self.uplink_gbit_s or self.switch.port_gbit_s

    def oversubscription_at(self, tier: int) -> float:
        """Down : up ratio of tier ``tier`` (0 = the leaves); 1 where none was given."""
        return self.oversubscription[tier] if tier < len(self.oversubscription) else 1.0


@dataclass(frozen=True)
class Design:
    """A published fabric: its stated inputs and counts (tiers from the leaves up)."""

    id: str
    name: str
    sources: tuple[str, ...]
    where: str
    inputs: FabricInputs
    expected_switches: tuple[int, ...]
    expected_links: tuple[int, ...]

    def published_counts(self, fabric: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return a built fabric's switch and link counts of the tiers the publication states (leaves first).

        ``fabric`` is an :class:`interconnect.hardware.fabric.Fabric`.
        """
        return (tuple(t.switches for t in fabric.tiers[:len(self.expected_switches)]),
                tuple(t.links_down for t in fabric.tiers[:len(self.expected_links)]))

    def reproduced_by(self, fabric: Any) -> bool:
        """Whether a built fabric has the stated counts in every tier the publication states."""
        return self.published_counts(fabric) == (self.expected_switches, self.expected_links)


@dataclass(frozen=True)
class FabricData:
    """Every switch, distance class and published design of ``fabric.toml``, by id in file order."""

    switches: Mapping[str, Switch]
    distances: Mapping[str, DistanceClass]
    designs: Mapping[str, Design]

    def source_ids(self) -> set[str]:
        """Every source id the file cites (switches, designs)."""
        ids = {s for sw in self.switches.values() for s in (*sw.sources, *sw.power_sources)}
        return ids | {s for d in self.designs.values() for s in d.sources}


def load_fabric_data(path: str | Path | None = None, source_ids: frozenset[str] | None = None) -> FabricData:
    """Read and check ``fabric.toml`` (switches, distance classes, published designs).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file by default.
    source_ids : frozenset of str, optional
        The ids a ``sources`` list may use; the packaged catalog's by default.

    Returns
    -------
    FabricData

    Raises
    ------
    FabricDataError
        For an unknown or missing table or key, a wrong type or dimension, an unknown source, switch or
        distance class, or a duplicate id; the message names the file, the table and the key.

    Examples
    --------
    >>> data = load_fabric_data()
    >>> data.switches["quantum-2-qm9700"].ports, data.distances["row"].length_m
    (64, 50.0)
    """
    if source_ids is None:
        from interconnect.catalog import get_catalog

        source_ids = frozenset(get_catalog().sources)
    data = _FabricFile(packaged_data_file(_DATA_FILE) if path is None else path, source_ids)
    data.only_tables(("switch", "distance", "design"))
    switches = {key: _switch(data, values) for key, values in SWITCH.read_all(data).items()}
    distances = {key: DistanceClass(**values) for key, values in DISTANCE.read_all(data).items()}
    if tuple(distances) != DISTANCE_IDS:
        data.fail(f"distance classes must be {', '.join(DISTANCE_IDS)} in that order")
    designs = {key: _design(data, values, switches)
               for key, values in DESIGN.read_all(data, {"switch": switches}).items()}
    return FabricData(switches, distances, designs)


@functools.cache
def get_fabric_data() -> FabricData:
    """Return the packaged ``fabric.toml``, read once per process."""
    return load_fabric_data()


# --- what a table's declaration cannot say ------------------------------------------------------


def _switch(data: DataFile, values: dict[str, Any]) -> Switch:
    power = values.pop("power")
    where = f"{data.name}: switch {values['id']!r}"
    if power is not None:
        values["power_w"] = _power_w(data, where, power)
        if values["power_sources"] is None:
            raise data.error(f"{where}: 'power_sources' must list known source ids, got None")
    elif values["power_sources"] is not None:
        raise data.error(f"{where}: 'power_sources' given without 'power'")
    else:
        values["power_sources"] = ()
    return Switch(**values)


def _design(data: DataFile, values: dict[str, Any], switches: Mapping[str, Switch]) -> Design:
    if any(d not in DISTANCE_IDS for d in values["distances"]):
        raise data.error(f"{data.name}: design {values['id']!r}: 'distances' must be among {', '.join(DISTANCE_IDS)}")
    inputs = FabricInputs(
        servers=values["servers"], gpus_per_server=values["gpus_per_server"],
        nics_per_server=values["nics_per_server"], nic_gbit_s=values["nic_gbit_s"],
        switch=switches[values["switch"]], topology=values["topology"],
        oversubscription=tuple(float(o) for o in values["oversubscription"]),
        top_oversubscription=values["top_oversubscription"], planes=values["planes"],
        uplink_gbit_s=values["uplink_gbit_s"], server=values["server"], servers_per_leaf=values["servers_per_leaf"],
        distances=tuple(values["distances"]), spare_leaf_ports=values["spare_leaf_ports"],
    )
    return Design(values["id"], values["name"], values["sources"], values["where"], inputs,
                  values["expected_switches"], values["expected_links"])


def _power_w(data: DataFile, where: str, text: object) -> float:
    try:
        watts = float(Q_(text).to("W").magnitude)
    except Exception as exc:  # noqa: BLE001 - any pint failure is a data error with a location
        raise data.error(f"{where}: 'power': expected a power like '9 W', got {text!r}") from exc
    if not (math.isfinite(watts) and watts > 0):
        raise data.error(f"{where}: 'power' must be a positive power, got {text!r}")
    return watts
