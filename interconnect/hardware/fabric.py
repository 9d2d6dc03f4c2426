"""The scale-out fabric: from GPUs to switches, links, optics and their power.

A folded Clos (fat tree) of identical switches, built from the leaves up:

* **Leaves.** Each leaf gives a share ``o / (1 + o)`` of its capacity to the servers below it and
  the rest to the tier above (``o`` is the leaf's oversubscription, down : up). In a
  **rail-optimised** fabric (``rail-leaf-spine``), NIC *i* of every server of a group goes to the
  same leaf, the rail leaf *i*: a group holds as many servers as a leaf has down ports, and there
  are ``rails x groups`` leaves. In a plain **fat tree** (``fat-tree``), all the NICs of a server go
  to one leaf (top of rack), which holds ``down ports / NICs`` servers.
* **Spines**, and **cores** when two tiers are not enough. Two tiers reach as long as every leaf can
  meet every top switch: leaves (per plane) <= the top switch's down ports. Otherwise a third tier
  is added; its pods are as many leaves as a spine has down ports. The switches of a tier are the
  links coming into it divided by the down ports of one switch (Al-Fares et al., SIGCOMM 2008: with
  radix k and no oversubscription, two tiers reach k^2/2 end ports and three k^3/4).
* The **top tier** has no uplinks unless ``top_oversubscription`` reserves some (Alibaba HPN keeps
  8 of 128 aggregation ports, 15:1, for a core above the Pod).
* **Planes**: with NICs of several ports going to separate switches (HPN's dual ToR, dual plane),
  each plane is its own fabric; the counts add up.

Every tier's links get a medium from :func:`interconnect.hardware.media.medium_for` (the Reach
page's media catalogue, ``data/wires.toml``) for the distance class of that tier (rack, row, hall)
and the protocol its ports speak, with the modules and cables as bought and their power: an optical
link has a module at each end, but a twin-port module (an 800G OSFP with two 400G ports) carries two
links, so each end of a tier needs ``ceil(links / ports per module)`` modules, each link its own fibre
cable; a copper cable has its plugs built in, and a twin-port copper cable carries as many links as
its plugs have ports. Power is counted per plug bought.

The counts are checked against NVIDIA's DGX SuperPOD reference architectures and Alibaba HPN in
``tests/hardware/test_fabric.py`` (the designs and their sources are in ``data/fabric.toml``, read
and checked by :mod:`interconnect.datafiles.fabric`, whose records and loader are re-exported here).

What the topology does to collectives (:func:`network_share`): a ring or tree of NCCL stays within
a rail, so it crosses the spine only when the job spans more servers than one leaf group; all-to-all
is never rail-local on a rail-optimised fabric (NIC *i* reaches only rail *i*, so GPU *i* talking to
GPU *j != i* of another server goes through a spine), and whatever crosses the spine gets at most
``1 / oversubscription`` of the NIC rate, less any share other traffic takes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from interconnect.datafiles.fabric import (
    DISTANCE_IDS,
    Design,
    DistanceClass,
    FabricData,
    FabricDataError,
    FabricInputs,
    Switch,
    get_fabric_data,
    load_fabric_data,
)
from interconnect.units import InterconnectError

__all__ = [
    "DISTANCE_IDS",
    "FABRIC_TOPOLOGIES",
    "Design",
    "DistanceClass",
    "Fabric",
    "FabricData",
    "FabricDataError",
    "FabricError",
    "FabricInputs",
    "FabricTopology",
    "Switch",
    "Tier",
    "TopologySpec",
    "apply_topology",
    "build_fabric",
    "design_inputs",
    "get_fabric_data",
    "load_fabric_data",
    "media_bought",
    "network_share",
    "server_inputs",
]

#: The topologies the model builds (the link and the CLI use these names).
FABRIC_TOPOLOGIES = ("rail-leaf-spine", "fat-tree")
TOPOLOGY_LABELS = {"rail-leaf-spine": "Rail-optimised leaf-spine", "fat-tree": "Fat tree (top-of-rack leaves)"}
#: Tier names from the servers up.
TIER_NAMES = ("leaf", "spine", "core")
#: Default distance class of the links into each tier: servers to rail leaves sit in one row (the
#: SuperPOD puts a scalable unit's leaves in its own rack), top-of-rack leaves in the rack itself;
#: links to spines and cores cross the hall.
DEFAULT_DISTANCES = {"rail-leaf-spine": ("row", "hall", "hall"), "fat-tree": ("rack", "row", "hall")}
MAX_OVERSUBSCRIPTION = 64.0
#: A top-of-rack leaf (``servers_per_leaf``) may carry more uplink than downlink, down to 1 : 2
#: (Meta's RTSWs ran 1 : 2, then 1 : 1.125; Gangidi et al., SIGCOMM 2024).
MIN_LEAF_OVERSUBSCRIPTION = 0.5
MAX_GPUS = 1_000_000
_EPS = 1e-9


class FabricError(InterconnectError, ValueError):
    """A fabric that cannot be built from the inputs; the message names the input."""


# --- the topology -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Tier:
    """One tier of switches and the links that come into it from below."""

    name: str
    switches: int
    down_ports: int
    up_ports: int
    links_down: int
    links_up: int
    down_gbit_s: float
    up_gbit_s: float
    oversubscription: float
    distance: str
    medium: Any  # MediumChoice | None
    transceivers: int
    cables: int
    media_power_w: float | None
    switch_power_w: float | None

    @property
    def modules(self) -> int:
        """Transceiver modules bought for this tier's links (none for copper); the same as ``transceivers``."""
        return self.transceivers

    def as_dict(self) -> dict[str, object]:
        """Return the tier as JSON-ready values (the CLI's ``tiers`` entries)."""
        medium = self.medium
        return {
            "name": self.name,
            "switches": self.switches,
            "ports_down_per_switch": self.down_ports,
            "ports_up_per_switch": self.up_ports,
            "links_down": self.links_down,
            "links_up": self.links_up,
            "link_rate_down_gbit_s": self.down_gbit_s,
            "link_rate_up_gbit_s": self.up_gbit_s,
            "oversubscription": round(self.oversubscription, 4) if self.up_ports else None,
            "distance": self.distance,
            "medium": None if medium is None else {
                "id": medium.link_id, "name": medium.name, "kind": medium.kind, "protocol": medium.protocol_id,
                "reach_m": medium.reach_m, "ends_per_port": medium.ends_per_port,
                "ports_per_plug": medium.ports_per_plug, "power_per_end_w": medium.power_per_port_end_w,
                "power_per_plug_w": medium.power_per_end_w, "sources": list(medium.sources)},
            "transceivers": self.transceivers,
            "modules": self.modules,
            "cables": self.cables,
            "media_power_w": self.media_power_w,
            "switch_power_w": self.switch_power_w,
        }


@dataclass(frozen=True)
class Fabric:
    """A built fabric: its tiers from the leaves up and what follows from them."""

    inputs: FabricInputs
    tiers: tuple[Tier, ...]
    servers_per_group: int
    rails: int
    pods: int
    bisection_gbit_s: float
    notes: tuple[str, ...] = field(default=())

    @property
    def switches(self) -> int:
        """Switches in every tier."""
        return sum(t.switches for t in self.tiers)

    @property
    def links(self) -> int:
        """Links in every tier (servers to leaves included)."""
        return sum(t.links_down for t in self.tiers)

    @property
    def transceivers(self) -> int:
        """Transceiver modules bought for every tier (none for copper; a twin-port module counts once)."""
        return sum(t.transceivers for t in self.tiers)

    @property
    def modules(self) -> int:
        """Transceiver modules bought for every tier: the same as :attr:`transceivers`."""
        return self.transceivers

    @property
    def cables(self) -> int:
        """Cables bought for every tier: a fibre per optical link, a copper cable per plug's worth of links."""
        return sum(t.cables for t in self.tiers)

    @property
    def media_power_w(self) -> float | None:
        """Power of every cable end and module (W); ``None`` if one tier's medium has no figure."""
        powers = [t.media_power_w for t in self.tiers]
        return None if any(p is None for p in powers) else float(sum(powers))

    @property
    def switch_power_w(self) -> float | None:
        """Power of every switch (W); ``None`` when the switch's power was not found."""
        powers = [t.switch_power_w for t in self.tiers]
        return None if any(p is None for p in powers) else float(sum(powers))

    @property
    def bisection_per_gpu_gbit_s(self) -> float:
        """Bisection bandwidth per GPU of one half (Gbit/s per direction)."""
        return self.bisection_gbit_s / max(1, self.inputs.gpus / 2)

    @property
    def groups(self) -> int:
        """Leaf groups: scalable units (rail-optimised) or top-of-rack leaves (fat tree) per plane."""
        return math.ceil(self.inputs.servers / self.servers_per_group)

    def hops(self) -> dict[str, int]:
        """Switches a message crosses between two GPUs of different servers, by where they sit.

        ``same_rail``: same leaf group, same NIC index; ``cross_rail``: same group, other NIC index
        (on a rail-optimised fabric it goes up to a spine and back, unless NCCL's PXN first moves it
        over NVLink to the GPU on the right rail); ``cross_group``: another leaf group (scalable unit)
        of the same pod; ``cross_pod``: another pod (three tiers only).
        """
        rail = self.inputs.topology == "rail-leaf-spine"
        hops = {"same_rail": 1, "cross_rail": 3 if rail else 1, "cross_group": 3}
        if len(self.tiers) == 3:
            hops["cross_pod"] = 5
        return hops

    def as_dict(self) -> dict[str, object]:
        """Return the fabric as JSON-ready values (the CLI's ``--json`` output)."""
        i = self.inputs
        return {
            "gpus": i.gpus,
            "servers": i.servers,
            "server": i.server,
            "gpus_per_server": i.gpus_per_server,
            "nics_per_server": i.nics_per_server,
            "nic_rate_gbit_s": i.nic_gbit_s,
            "planes": i.planes,
            "switch": i.switch.id,
            "topology": i.topology,
            "tiers": [t.as_dict() for t in self.tiers],
            "totals": {
                "switches": self.switches,
                "links": self.links,
                "transceivers": self.transceivers,
                "modules": self.modules,
                "cables": self.cables,
                "media_power_w": self.media_power_w,
                "switch_power_w": self.switch_power_w,
            },
            "servers_per_group": self.servers_per_group,
            "rails": self.rails if self.inputs.topology == "rail-leaf-spine" else None,
            "pods": self.pods,
            "bisection_bandwidth": {"gbit_s_per_direction": self.bisection_gbit_s,
                                    "per_gpu_gbit_s": round(self.bisection_per_gpu_gbit_s, 3)},
            "hops": self.hops(),
            "notes": list(self.notes),
        }


def _ports(capacity_gbit_s: float, share: float, rate_gbit_s: float) -> int:
    return int(math.floor(capacity_gbit_s * share / rate_gbit_s + _EPS))


def _split(switch: Switch, down_gbit_s: float, up_gbit_s: float, oversubscription: float | None,
           spare: int = 0) -> tuple[int, int]:
    """Down and up ports of one switch for a down : up ratio (``None``: all ports face down).

    ``spare`` down ports (standby hosts' ports) are set aside first and counted in the down ports;
    the ratio is kept between the other, active down ports and the up ports.
    """
    capacity = switch.capacity_gbit_s - spare * down_gbit_s
    if oversubscription is None:
        return _ports(capacity, 1.0, down_gbit_s) + spare, 0
    down = _ports(capacity, oversubscription / (1.0 + oversubscription), down_gbit_s)
    up = _ports(capacity - down * down_gbit_s, 1.0, up_gbit_s)
    return down + spare, up


def media_bought(medium: Any, links: int) -> tuple[int, int, int]:
    """Modules, cables and plugs bought for ``links`` links of ``medium`` (a :class:`MediumChoice`).

    Optics: at each end, one module per ``ports_per_plug`` links (a twin-port 800G module carries two
    400G links, each on its own fibre cable); copper: one cable per ``ports_per_plug`` links, with its
    two plugs built in, and no module. Plugs are what draw power: the modules, or the copper cables' ends.

    >>> from interconnect.hardware.media import medium_for
    >>> media_bought(medium_for(50.0, 400.0), 1024)  # twin-port 2 x SR4: 512 modules at each end
    (1024, 1024, 1024)
    >>> media_bought(medium_for(2.0, 400.0), 1024)  # twin-port passive copper: 512 cables, two plugs each
    (0, 512, 1024)
    """
    per_plug = max(1, int(medium.ports_per_plug))
    if medium.copper:
        cables = math.ceil(links / per_plug)
        return 0, cables, 2 * cables
    modules = 2 * math.ceil(links / per_plug)
    return modules, links, modules


def _tier(name: str, switches: int, down: int, up: int, links_down: int, down_gbit_s: float, up_gbit_s: float,
          distance: str, switch: Switch, spare: int = 0) -> Tier:
    from interconnect.hardware.media import medium_for

    length_m = get_fabric_data().distances[distance].length_m
    medium = medium_for(length_m, down_gbit_s, switch.fabric)
    if medium is None:
        transceivers, cables, power = 0, links_down, None
    else:
        transceivers, cables, plugs = media_bought(medium, links_down)
        power = None if medium.power_per_end_w is None else plugs * medium.power_per_end_w
    return Tier(
        name=name, switches=switches, down_ports=down, up_ports=up, links_down=links_down,
        links_up=switches * up, down_gbit_s=down_gbit_s, up_gbit_s=up_gbit_s,
        oversubscription=((down - spare) * down_gbit_s) / (up * up_gbit_s) if up else math.inf,
        distance=distance, medium=medium, transceivers=transceivers, cables=cables, media_power_w=power,
        switch_power_w=None if switch.power_w is None else switches * switch.power_w,
    )


def build_fabric(inputs: FabricInputs, tiers: int = 0) -> Fabric:
    """Build the fabric ``inputs`` describe: two tiers if they reach, else three.

    ``tiers`` forces 2 or 3 (0: the fewest that reach). Raises :class:`FabricError`, naming the
    input, when the switch cannot build it (a leaf too small for one server in a fat tree, more
    than three tiers needed, an oversubscription out of range).

    >>> data = get_fabric_data()
    >>> fabric = build_fabric(data.designs["superpod-h100-4su"].inputs)
    >>> [(t.name, t.switches, t.links_down) for t in fabric.tiers]
    [('leaf', 32, 1016), ('spine', 16, 1024)]
    """
    i = inputs
    if i.topology not in FABRIC_TOPOLOGIES:
        raise FabricError(f"topology {i.topology!r} is not one of {', '.join(FABRIC_TOPOLOGIES)}")
    if i.servers < 1 or i.gpus_per_server < 1 or i.nics_per_server < 1 or i.planes < 1:
        raise FabricError("servers, GPUs per server, NICs per server and planes must be at least 1")
    if i.servers_per_leaf < 0:
        raise FabricError(f"servers per leaf: got {i.servers_per_leaf}; give a whole number of at least 1 (or 0)")
    if i.servers_per_leaf and i.topology != "fat-tree":
        raise FabricError("servers per leaf: only a fat tree has a leaf per rack; a rail leaf serves every "
                          "server of its group")
    for n, value in enumerate((*i.oversubscription, *([i.top_oversubscription] if i.top_oversubscription else []))):
        low = MIN_LEAF_OVERSUBSCRIPTION if (n == 0 and i.servers_per_leaf and i.oversubscription) else 1.0
        if not low <= value <= MAX_OVERSUBSCRIPTION:
            raise FabricError(f"oversubscription {value:g} must be between {low:g} and {MAX_OVERSUBSCRIPTION:g}")
    if tiers not in (0, 2, 3):
        raise FabricError(f"tiers must be 2 or 3 (or 0 for the fewest that reach), got {tiers}")
    switch, r_n, r_up = i.switch, i.nic_gbit_s, i.up_gbit_s
    if r_n > switch.port_gbit_s * 1.0001 or r_up > switch.port_gbit_s * 1.0001:
        raise FabricError(f"a {r_n:g} Gbit/s NIC or {r_up:g} Gbit/s uplink is faster than the switch's "
                          f"{switch.port_gbit_s:g} Gbit/s ports")
    distances = tuple(i.distances) or DEFAULT_DISTANCES[i.topology]
    distances = (*distances, *DEFAULT_DISTANCES[i.topology][len(distances):])
    notes: list[str] = []

    if i.spare_leaf_ports and (i.spare_leaf_ports < 0 or i.servers_per_leaf
                               or i.spare_leaf_ports * r_n >= switch.capacity_gbit_s):
        raise FabricError(f"spare leaf ports: {i.spare_leaf_ports} must be fewer than the leaf's ports, and only "
                          "without servers per leaf")
    leaf_down, leaf_up = _split(switch, r_n, r_up, i.oversubscription_at(0), i.spare_leaf_ports)
    if i.servers_per_leaf:
        # A top-of-rack leaf: its server ports are the rack's NICs, its uplinks what the ratio asks.
        leaf_down = i.servers_per_leaf * i.nics_per_server
        leaf_up = math.ceil(leaf_down * r_n / (i.oversubscription_at(0) * r_up) - _EPS)
        if leaf_down * r_n + leaf_up * r_up > switch.capacity_gbit_s * (1 + _EPS):
            raise FabricError(f"servers per leaf: {i.servers_per_leaf} servers need {leaf_down} ports down and "
                              f"{leaf_up} up, more than {switch.name} has")
    if i.topology == "rail-leaf-spine":
        rails = i.rail_count
        if i.nics_per_server % rails:
            raise FabricError(f"rails: {rails} does not divide the {i.nics_per_server} NICs of a server")
        per_group = leaf_down // (i.nics_per_server // rails)
        if per_group < 1:
            raise FabricError(f"a rail leaf has {leaf_down} server ports, fewer than the "
                              f"{i.nics_per_server // rails} links one server puts on each rail: use more rails")
        groups = math.ceil(i.servers / per_group)
        leaves_per_plane = rails * groups
    else:
        rails = 1
        per_group = i.servers_per_leaf or leaf_down // i.nics_per_server
        if per_group < 1:
            raise FabricError(f"a leaf has {leaf_down} server ports, fewer than the {i.nics_per_server} NICs of one "
                              "server: use the rail-optimised topology or fewer NICs per server")
        leaves_per_plane = math.ceil(i.servers / per_group)
    end_ports = i.servers * i.nics_per_server * i.planes
    top_down_2, top_up_2 = _split(switch, r_up, r_up, i.top_oversubscription)
    needs = 2 if leaves_per_plane <= top_down_2 else 3
    if tiers and tiers < needs:
        raise FabricError(f"two tiers cannot reach {leaves_per_plane} leaves per plane with "
                          f"{top_down_2} down ports per spine; three tiers are needed")
    count = tiers or needs
    leaves = leaves_per_plane * i.planes
    built = [_tier("leaf", leaves, leaf_down, leaf_up, end_ports, r_n, r_up, distances[0], switch,
                   i.spare_leaf_ports)]
    leaf_links_up = leaves * leaf_up
    pods = 1
    if count == 2:
        spines = i.planes * math.ceil(leaf_links_up / i.planes / top_down_2)
        built.append(_tier("spine", spines, top_down_2, top_up_2, leaf_links_up, r_up, r_up, distances[1], switch))
        bisection = 0.5 * min(end_ports * r_n, leaf_links_up * r_up)
    else:
        spine_down, spine_up = _split(switch, r_up, r_up, i.oversubscription_at(1))
        spines_per_plane = math.ceil(leaf_links_up / i.planes / spine_down)
        pods = math.ceil(leaves_per_plane / spine_down)
        core_down, core_up = _split(switch, r_up, r_up, i.top_oversubscription)
        if pods > core_down:
            raise FabricError(f"{pods} pods of {spine_down} leaves need more than three tiers of {switch.name} "
                              f"({core_down} down ports per core switch): fewer GPUs or a larger switch")
        spine_links_up = spines_per_plane * i.planes * spine_up
        cores = i.planes * math.ceil(spine_links_up / i.planes / core_down)
        built.append(_tier("spine", spines_per_plane * i.planes, spine_down, spine_up, leaf_links_up, r_up, r_up,
                           distances[1], switch))
        built.append(_tier("core", cores, core_down, core_up, spine_links_up, r_up, r_up, distances[2], switch))
        bisection = 0.5 * min(end_ports * r_n, leaf_links_up * r_up, spine_links_up * r_up)
    if any(t.medium is None for t in built):
        notes.append("No medium in the catalogue reaches one of the distance classes; its power is not counted.")
    if any(t.medium is not None and t.medium.power_per_end_w is None for t in built):
        notes.append("A medium without a power figure in the catalogue is used; its power is not counted.")
    if switch.power_w is None:
        notes.append(f"{switch.name}: switch power not found in a maker's document read; not counted.")
    return Fabric(i, tuple(built), per_group, rails, pods, bisection, tuple(notes))


def server_inputs(server: str, gpus: int, switch_id: str, *, topology: str = "rail-leaf-spine",
                  oversubscription: float | tuple[float, ...] = 1.0, nic_gbit_s: float | None = None,
                  nics_per_server: int | None = None, distances: tuple[str, ...] = (),
                  rails: int = 0, catalog: Any = None) -> tuple[FabricInputs, list[str]]:
    """:class:`FabricInputs` for ``gpus`` GPUs in catalog servers (``dgx-h100``), with warnings.

    The GPU count is rounded up to whole servers (the warning says so); the NIC rate and count are
    the server's own unless given. ``oversubscription`` is one ratio for every tier below the top
    or one per tier.
    """
    from interconnect.catalog import get_catalog

    catalog = catalog or get_catalog()
    data = get_fabric_data()
    node = catalog.node(server)
    if switch_id not in data.switches:
        from interconnect.catalog import UnknownIdError

        raise UnknownIdError("switch", switch_id, data.switches)
    warnings: list[str] = []
    if not 1 <= gpus <= MAX_GPUS:
        raise FabricError(f"GPUs: got {gpus}; give between 1 and {MAX_GPUS:,}")
    servers = math.ceil(gpus / node.gpus)
    if servers * node.gpus != gpus:
        warnings.append(f"GPUs: {gpus} is not a whole number of {node.name} servers ({node.gpus} GPUs each); "
                        f"using {servers} server{'' if servers == 1 else 's'}, {servers * node.gpus} GPUs")
    rate = nic_gbit_s or float(catalog.nic(node.nic).bandwidth.per_direction().to("Gbit/s").magnitude)
    ratios = (oversubscription,) if isinstance(oversubscription, (int, float)) else tuple(oversubscription)
    ratios = tuple(float(r) for r in ratios)
    return FabricInputs(servers=servers, gpus_per_server=node.gpus, nics_per_server=nics_per_server or node.nics,
                        nic_gbit_s=rate, switch=data.switches[switch_id], topology=topology,
                        oversubscription=ratios * 2 if len(ratios) == 1 else ratios, distances=distances,
                        server=server, rails=rails), warnings


def design_inputs(design_id: str) -> FabricInputs:
    """Return the stated inputs of a published design of ``fabric.toml``."""
    return get_fabric_data().designs[design_id].inputs


# --- what the topology does to collectives -------------------------------------------------------


@dataclass(frozen=True)
class FabricTopology:
    """The part of a fabric the collective models need (kept small: it rides on a cluster).

    ``servers_per_group``: servers under one set of leaves (a scalable unit on a rail-optimised
    fabric, one top-of-rack leaf on a plain fat tree); ``oversubscription``: the taper between the
    leaves and the tier above; ``shared``: the share of the spine's capacity other traffic takes.
    """

    topology: str
    servers_per_group: int
    oversubscription: float = 1.0
    shared: float = 0.0

@dataclass(frozen=True)
class TopologySpec:
    """A fabric as a cluster's link gives it: topology, switch, leaf oversubscription, shared share.

    ``shared`` is the share (0..0.9) of the spine's capacity other traffic takes.
    """

    topology: str = "rail-leaf-spine"
    switch: str = "quantum-2-qm9700"
    oversubscription: float = 1.0
    shared: float = 0.0

    def for_servers(self, nics_per_server: int, nic_gbit_s: float) -> FabricTopology:
        """Return the :class:`FabricTopology` of this fabric under servers of ``nics_per_server`` NICs.

        >>> TopologySpec().for_servers(8, 400.0).servers_per_group
        32
        """
        data = get_fabric_data()
        switch = data.switches.get(self.switch) or data.switches["quantum-2-qm9700"]
        rate = min(nic_gbit_s, switch.port_gbit_s)
        down, _ = _split(switch, rate, switch.port_gbit_s, max(1.0, self.oversubscription))
        probe = FabricInputs(servers=1, gpus_per_server=1, nics_per_server=nics_per_server, nic_gbit_s=rate,
                             switch=switch, topology=self.topology)
        if self.topology == "rail-leaf-spine":
            per_group = down // max(1, nics_per_server // probe.rail_count)
        else:
            per_group = down // nics_per_server
        return FabricTopology(self.topology, max(1, per_group), max(1.0, self.oversubscription),
                              min(0.9, max(0.0, self.shared)))


def network_share(topology: FabricTopology | None, servers: int, collective: str = "all_reduce") -> tuple[float, str]:
    """Return the share of each NIC's rate a collective over ``servers`` servers gets, and why.

    1.0 with no topology (the models then behave exactly as without one), or when the collective's
    traffic stays under one leaf group. A ring or tree of NCCL follows the rails, so all-reduce,
    all-gather, reduce-scatter and broadcast cross the spine only beyond one group; all-to-all on a
    rail-optimised fabric crosses it as soon as two servers take part. Crossing the spine gets
    ``(1 - shared) / oversubscription`` of the rate (never more than 1).

    >>> network_share(None, 64)
    (1.0, '')
    >>> t = FabricTopology("rail-leaf-spine", 32, oversubscription=2.0)
    >>> network_share(t, 16)[0], network_share(t, 64)[0], network_share(t, 2, "alltoall")[0]
    (1.0, 0.5, 0.5)
    """
    if topology is None or servers <= 1:
        return 1.0, ""
    key = collective.lower().replace("-", "_")
    crosses_rails = key in ("alltoall", "all_to_all") and topology.topology == "rail-leaf-spine"
    if servers <= topology.servers_per_group and not crosses_rails:
        return 1.0, f"stays under one leaf group ({servers} of {topology.servers_per_group} servers)"
    share = min(1.0, (1.0 - topology.shared) / topology.oversubscription)
    why = ("all-to-all is never rail-local: it crosses the spine" if crosses_rails
           else f"{servers} servers span more than one leaf group of {topology.servers_per_group}: "
                "the traffic crosses the spine")
    if share < 1.0:
        why += f", which gives it {share:.0%} of the NIC rate"
        parts = []
        if topology.oversubscription > 1:
            parts.append(f"{topology.oversubscription:g}:1 oversubscription")
        if topology.shared > 0:
            parts.append(f"{topology.shared:.0%} taken by other traffic")
        why += " (" + ", ".join(parts) + ")"
    return share, why


def apply_topology(cluster: Any, topology: FabricTopology | None, collective: str = "all_reduce") -> tuple[Any, str]:
    """Return the cluster as a collective sees it through the fabric (NIC rate scaled by :func:`network_share`).

    With no topology the very same cluster object comes back (so every model behaves exactly as
    before).
    """
    if topology is None:
        return cluster, ""
    share, why = network_share(topology, cluster.domains, collective)
    if share >= 1.0:
        return cluster, why
    return replace(cluster, nic_achieved_gbps=cluster.nic_achieved_gbps * share), why


# --- the Ultra-Scale Playbook's 256 MB curve: a hypothesis, not a fit ----------------------------------
