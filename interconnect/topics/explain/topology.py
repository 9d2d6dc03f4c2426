"""What the log shows of the hardware, as a drawing's data: one node (its GPUs, the scale-up domain, its NICs) and
the fabric between nodes, each part marked with whether the log shows it carrying traffic.

Pure: reads the reader's :class:`~interconnect.io.nccl_debug.DebugLog` and the model's verdicts (NVLS, network)
and returns a :class:`Topology`; :mod:`interconnect.topics.explain.figures` draws it.

How ranks are placed on nodes: a rank's host is the host in the prefix of a line it printed (its own side of a
connection line, its ``comm ... rank N`` line); two ranks joined by a P2P or SHM connection share a node (those
transports never leave one); ranks left without a host form a node of their own, named by their ranks. So one
rank's excerpt still draws its node's peers beside it, and the far side of its network connections as another
node whose host the log does not give.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from interconnect.io.nccl_debug import DebugLog

__all__ = ["MAX_GPUS_DRAWN", "MAX_NODES_DRAWN", "FabricEdge", "GpuBox", "NicBox", "NodeBox", "PeerEdge", "Topology",
           "edge_kind", "topology"]

#: GPUs of the drawn node shown one by one (a 16-GCD MI250X node fits; beyond, the rest are counted).
MAX_GPUS_DRAWN = 16
#: Nodes shown one by one in the fabric drawing; the others are summed in one box.
MAX_NODES_DRAWN = 7
#: Short words for the per-node verdicts' kinds (topics/explain/outliers.py), shown on the node's box.
_ODD_WORDS = {"nic_list": "fewer NICs listed", "link_layer": "other link layer", "network": "sockets",
              "intra": "SHM, not P2P", "gdr": "no GDRDMA", "nics_used": "fewer NICs used", "init": "slow set-up",
              "busbw": "low busbw", "warnings": "failure WARNs", "link_rate": "slower NIC port"}
_MAX_NICS_DRAWN = 16

_FABRIC_WORDS = {"IB": "InfiniBand", "IBext": "InfiniBand (HPC-X plugin)", "IBext_v8": "InfiniBand (HPC-X plugin)",
                 "Socket": "TCP/IP sockets", "Libfabric": "AWS EFA", "AWS Libfabric": "AWS EFA"}


def edge_kind(transport: str) -> str:
    """The class of a connection's transport: ``p2p`` (GPU to GPU), ``shm`` (through host memory) or ``net``.

    >>> edge_kind("P2P/CUMEM"), edge_kind("SHM"), edge_kind("NET/IB")
    ('p2p', 'shm', 'net')
    """
    if transport.startswith("NET/"):
        return "net"
    return "shm" if transport == "SHM" else "p2p"


@dataclass(frozen=True)
class GpuBox:
    """One GPU of the drawn node: its rank (None when only its local number is known) and local GPU number."""

    rank: int | None
    device: int | None
    kinds: tuple[str, ...]  # edge kinds of its connection lines: "p2p", "shm", "net"
    nics: tuple[str, ...]  # NICs (``NET/IB/3``) its network lines name


@dataclass(frozen=True)
class PeerEdge:
    """A pair of ranks with connection lines between them, by transport."""

    a: int
    b: int
    transport: str  # the transport with most lines between them
    kind: str
    lines: int
    line: int  # the first


@dataclass(frozen=True)
class NicBox:
    """A NIC of the drawn node: as connection lines name it, its device name, link layer; used or only listed."""

    label: str
    name: str
    layer: str
    used: bool
    lines: int
    gdr: bool | None


@dataclass(frozen=True)
class NodeBox:
    """One node: its name (host, or its ranks when the host is not printed), its ranks, NICs listed and used."""

    name: str
    host: str | None
    ranks: tuple[int, ...]
    gpus: int
    nics_used: int
    nics_listed: int
    odd: str = ""  # how the node differs from its peers (the per-node verdicts' kinds), "" when it does not


@dataclass(frozen=True)
class FabricEdge:
    """Network connection lines between two nodes."""

    a: str
    b: str
    transport: str
    lines: int


@dataclass
class Topology:
    """The drawing's data. ``domain`` names the node's GPU-to-GPU path in the log's words; ``fabric`` the network."""

    vendor: str
    domain: str
    domain_used: bool
    nvls: object  # True, False or "unknown" (the model's verdict)
    nvls_available: bool
    node: NodeBox | None
    gpus: list[GpuBox] = field(default_factory=list)
    gpus_not_drawn: int = 0
    intra: list[PeerEdge] = field(default_factory=list)
    nics: list[NicBox] = field(default_factory=list)
    nics_not_drawn: int = 0
    network: str | None = None
    fabric: str = ""
    nodes: list[NodeBox] = field(default_factory=list)
    nodes_not_drawn: int = 0
    ranks_not_drawn: int = 0
    inter: list[FabricEdge] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Everything for JSON."""
        return asdict(self)


class _Groups:
    """Union-find over ranks: ranks that share a node end in one group."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, rank: int) -> int:
        parent = self.parent.setdefault(rank, rank)
        root = rank
        while parent != root:
            root, parent = parent, self.parent[parent]
        while self.parent[rank] != root:  # path compression
            self.parent[rank], rank = root, self.parent[rank]
        return root

    def join(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _span(ranks: list[int]) -> str:
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    if ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"ranks {ranks[0]}-{ranks[-1]}"
    return f"ranks {ranks[0]}, {ranks[1]}{'…' if len(ranks) > 2 else ''}"


def _node_groups(log: DebugLog) -> list[tuple[str | None, list[int]]]:
    """(host or None, sorted ranks) per node, the node with most ranks first."""
    groups = _Groups()
    for (a, b), peer in log.peers.items():
        groups.find(a)
        groups.find(b)
        if any(edge_kind(t) != "net" for t in peer.transports):
            groups.join(a, b)
    by_host: dict[str, int] = {}
    for rank, place in log.places.items():
        groups.find(rank)
        if place.host is not None:
            if place.host in by_host:
                groups.join(rank, by_host[place.host])
            else:
                by_host[place.host] = rank
    members: dict[int, list[int]] = {}
    for rank in list(groups.parent):
        members.setdefault(groups.find(rank), []).append(rank)
    found = []
    seen_hosts = set()
    for ranks in members.values():
        hosts = [log.places[r].host for r in ranks if r in log.places and log.places[r].host is not None]
        host = max(set(hosts), key=hosts.count) if hosts else None
        seen_hosts.add(host)
        found.append((host, sorted(ranks)))
    for host in log.hosts:  # hosts whose lines name no rank (no connection or comm line printed there)
        if host not in seen_hosts:
            found.append((host, []))
    found.sort(key=lambda g: (-len(g[1]), g[1][0] if g[1] else 1 << 30, g[0] or ""))
    return found


def _listed_nics(log: DebugLog, network: str | None) -> list[tuple[str, str, str]]:
    """The node's NIC list as (label as connection lines name it, device name, link layer)."""
    transport = f"NET/{network}" if network else None
    if log.ib_nics and network != "Socket":
        prefix = transport if transport and network != "Libfabric" else "NET/IB"
        return [(f"{prefix}/{e.index}", "+".join(e.devices), e.link_layer) for e in log.ib_nics.value]
    if log.socket_nics:
        return [(f"NET/Socket/{i}", name, "TCP") for i, name in log.socket_nics.value]
    return []


def _domain(log: DebugLog, vendor: str, kinds: set[str], nvls: object, nvls_available: bool) -> str:
    if "p2p" in kinds:
        if vendor == "amd":
            return "xGMI (Infinity Fabric) or PCIe, peer to peer"
        if nvls is True or nvls_available:
            return "NVLink through NVSwitch"
        return "peer to peer: NVLink or PCIe (the log does not say which)"
    if "shm" in kinds:
        return "host memory (SHM): PCIe and the CPU"
    if "net" in kinds:
        return "no P2P or SHM: GPUs of the node reach each other through the NICs"
    return "no connection inside the node in the log"


def topology(log: DebugLog, facts: dict[str, Any]) -> Topology:
    """The drawing's data for a read log and the model's facts (``vendor``, ``nvls``, ``nvls_available``,
    ``network``)."""
    vendor = facts.get("vendor") or "nvidia"
    nvls, nvls_available = facts.get("nvls", "unknown"), bool(facts.get("nvls_available"))
    network = facts.get("network")
    groups = _node_groups(log)
    anonymous = not groups and log.gpus_per_node is not None
    if anonymous:  # no rank placed and no host: one node of the GPUs NCCL counted
        groups = [(None, [])]
    group_of = {rank: index for index, (_, ranks) in enumerate(groups) for rank in ranks}
    names = [host if host is not None else (_span(ranks) + " (host not in the log)" if ranks else "a node (no host "
                                                                                                    "name in the log)")
             for host, ranks in groups]
    listed = _listed_nics(log, network)

    def nics_used_by(ranks: list[int], host: str | None) -> dict[str, int]:
        used: dict[str, int] = {}
        wanted = set(ranks)
        for (rank, label), count in log.rank_nics.items():
            if rank in wanted:
                used[label] = used.get(label, 0) + count
        if not used and host is not None:  # lines with a host but no rank of it placed
            for use in log.nic_use.values():
                if host in use.hosts:
                    used[use.label] = used.get(use.label, 0) + use.count
        return used

    odd: dict[str, list[str]] = {}
    for verdict in facts.get("node_outliers", []):
        odd.setdefault(verdict["host"], []).append(_ODD_WORDS.get(verdict["kind"], verdict["kind"]))
    nodes = []
    for (host, ranks), name in zip(groups, names, strict=True):
        devices = log.hosts[host].devices if host in log.hosts else set()
        used = nics_used_by(ranks, host)
        gpn = log.gpus_per_node.value if anonymous and log.gpus_per_node else 0
        nodes.append(NodeBox(name, host, tuple(ranks), max(len(ranks), len(devices), gpn), len(used),
                             len(listed) or len(used), ", ".join(dict.fromkeys(odd.get(host or "", [])))))
    if len(nodes) > MAX_NODES_DRAWN:  # a node unlike its peers is drawn, not summed with the rest
        nodes = nodes[:1] + sorted(nodes[1:], key=lambda n: not n.odd)
    out = Topology(vendor, "", False, nvls, nvls_available, nodes[0] if nodes else None, network=network,
                   fabric=_FABRIC_WORDS.get(network or "", f"NET/{network}" if network else "not shown"))
    if out.node is None:
        out.domain = "no connection inside the node in the log"
        out.notes.append("The log names no rank with its connections, so there is no node to draw.")
        return out
    node_ranks = set(out.node.ranks)
    kinds: set[str] = set()
    per_rank: dict[int, set[str]] = {}
    for (a, b), peer in log.peers.items():
        if a not in node_ranks and b not in node_ranks:
            continue
        for transport in peer.transports:
            for rank in (a, b):
                if rank in node_ranks:
                    per_rank.setdefault(rank, set()).add(edge_kind(transport))
        if a in node_ranks and b in node_ranks and a != b:
            transport = max(peer.transports, key=lambda t: (peer.transports[t], t))
            kind = edge_kind(transport)
            kinds.add(kind)
            out.intra.append(PeerEdge(a, b, transport, kind, sum(peer.transports.values()), peer.first_line))
    rank_nics: dict[int, list[str]] = {}
    for (rank, label), _ in log.rank_nics.items():
        if rank in node_ranks:
            rank_nics.setdefault(rank, []).append(label)
    ranks = sorted(node_ranks, key=lambda r: (log.places[r].device if r in log.places and
                                              log.places[r].device is not None else 1 << 20, r))
    gpus = [GpuBox(r, log.places[r].device if r in log.places else None, tuple(sorted(per_rank.get(r, ()))),
                   tuple(sorted(rank_nics.get(r, ())))) for r in ranks]
    if not gpus and out.node.host in log.hosts:  # only the local GPU numbers of the host's prefixes
        gpus = [GpuBox(None, d, (), ()) for d in sorted(log.hosts[out.node.host].devices)]
    if not gpus and anonymous:
        gpus = [GpuBox(None, d, (), ()) for d in range(min(log.gpus_per_node.value, MAX_GPUS_DRAWN + 1))]
    out.gpus, out.gpus_not_drawn = gpus[:MAX_GPUS_DRAWN], max(0, len(gpus) - MAX_GPUS_DRAWN)
    out.intra.sort(key=lambda e: (e.a, e.b))
    out.domain = _domain(log, vendor, kinds, nvls, nvls_available)
    out.domain_used = bool(kinds & {"p2p", "shm"}) or nvls is True
    used = nics_used_by(list(node_ranks), out.node.host)
    gdr: dict[str, bool] = {}
    for (a, b), peer in log.peers.items():
        if (a in node_ranks or b in node_ranks) and peer.nics:
            for label in peer.nics:
                gdr[label] = gdr.get(label, False) or peer.gdr_on > 0
    nics = [NicBox(label, name, layer, label in used, used.get(label, 0), gdr.get(label) if label in used else None)
            for label, name, layer in listed]
    known = {n.label for n in nics}
    for label in sorted(used):
        if label not in known:  # a NIC the lines use that the list (if any) did not hold
            nics.append(NicBox(label, "", "", True, used[label], gdr.get(label)))
    out.nics, out.nics_not_drawn = nics[:_MAX_NICS_DRAWN], max(0, len(nics) - _MAX_NICS_DRAWN)
    _fabric_edges(log, out, groups, group_of, names)
    out.nodes, out.nodes_not_drawn = nodes[:MAX_NODES_DRAWN], max(0, len(nodes) - MAX_NODES_DRAWN)
    out.ranks_not_drawn = sum(len(n.ranks) for n in nodes[MAX_NODES_DRAWN:])
    if len(nodes) == 1:
        out.notes.append("One node in the log: nothing crosses the network between nodes.")
    if not log.hosts:
        out.notes.append("No line carries a host name, so nodes are told apart only by which ranks reach each other "
                         "peer to peer.")
    return out


def _fabric_edges(log: DebugLog, out: Topology, groups: list, group_of: dict[int, int], names: list[str]) -> None:
    between: dict[tuple[int, int], dict[str, int]] = {}
    for (a, b), peer in log.peers.items():
        ga, gb = group_of.get(a), group_of.get(b)
        if ga is None or gb is None or ga == gb:
            continue
        key = (min(ga, gb), max(ga, gb))
        counts = between.setdefault(key, {})
        for transport, count in peer.transports.items():
            if edge_kind(transport) == "net":
                counts[transport] = counts.get(transport, 0) + count
    for (ga, gb), counts in sorted(between.items()):
        if counts:
            transport = max(counts, key=lambda t: (counts[t], t))
            out.inter.append(FabricEdge(names[ga], names[gb], transport, sum(counts.values())))
