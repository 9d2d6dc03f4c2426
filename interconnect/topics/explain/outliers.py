"""The node that differs from its peers: per-node verdicts from what a log holds per host or per rank.

Pure. Each check compares every node with the median of the *other* nodes (its peers), so with two nodes each is
judged against the other, and with many the odd one out stands against the majority. A node is named only when
the difference points one way (fewer NICs, a slower path, less busbw, a longer set-up), never merely "different".
The checks, each on the lines of the host that printed them:

* its RDMA NIC list is shorter than its peers' (``NET/IB : Using``), or of another link layer;
* a NIC port of its topology dump (``+ NET[12.5] - NET/0``) runs under :data:`OUTLIER_RATIO` of its peers' rate;
* its network connection lines use another transport (sockets where peers use InfiniBand);
* its GPUs talk through host shared memory (SHM) where its peers' use P2P;
* its network lines lack ``/GDRDMA`` where its peers' have it;
* its network lines use fewer NICs than its peers' (only when it printed about as many lines as they did);
* its ranks' ``Init timings`` total is over :data:`SLOW_INIT_RATIO` times its peers' (and a second longer);
* it alone (or with a minority of nodes) prints the NCCL WARN lines that report a failure;
* its nccl-tests run (one run per node, or per group of nodes, in one file) measured under :data:`OUTLIER_RATIO`
  of the other runs' busbw at the largest size they share;
* its ranks' NCCL Inspector records (communicators of one node each) measured under :data:`OUTLIER_RATIO` of
  the other nodes' busbw for the same collective and size.

Every verdict names the line it rests on and a peer's line to compare with.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from interconnect.io.nccl_debug import DebugLog

__all__ = ["MAX_TABLE_ROWS", "OUTLIER_RATIO", "SLOW_INIT_RATIO", "NodeVerdict", "node_table", "node_verdicts"]

#: A node measuring under this fraction of its peers' median busbw is named (a rule of this page, not a
#: published figure: run-to-run spread of nccl-tests on a healthy fabric is a few per cent, a lost NIC or a link
#: trained at a lower rate costs a quarter or more).
OUTLIER_RATIO = 0.8
#: A node whose ranks' communicator set-up takes over this many times its peers' median (and 1 s more) is named.
SLOW_INIT_RATIO = 2.0
_SLOW_INIT_EXTRA_S = 1.0
_MAX_NAMED = 8
#: Rows of the per-node table (the nodes named by a verdict first, then by host name).
MAX_TABLE_ROWS = 64


@dataclass(frozen=True)
class NodeVerdict:
    """One node that differs from its peers: what, by how much, and the lines it rests on."""

    host: str
    # "nic_list", "link_layer", "link_rate", "network", "intra", "gdr", "nics_used", "init", "busbw", "warnings"
    kind: str
    text: str
    line: int
    peer_line: int
    ratio: float | None = None  # the node's value over its peers' median, where the check is a measure

    def as_dict(self) -> dict[str, Any]:
        """The verdict for JSON output."""
        return {"host": self.host, "kind": self.kind, "text": self.text, "line": self.line,
                "peer_line": self.peer_line or None, "ratio": self.ratio}


def _peers_median(values: dict[str, float], host: str) -> float | None:
    others = [v for h, v in values.items() if h != host]
    return statistics.median(others) if others else None


def _names(items: list[str]) -> str:
    shown = items[:_MAX_NAMED]
    return ", ".join(shown) + (f" and {len(items) - len(shown)} more" if len(items) > len(shown) else "")


def _size(size: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size:,} B"


def _nic_lists(log: DebugLog) -> list[NodeVerdict]:
    lists = {h: links.nic_list for h, links in log.host_links.items() if links.nic_list is not None}
    if len(lists) < 2:
        return []
    found = []
    counts = {h: float(len(at.value)) for h, at in lists.items()}
    layers = {h: tuple(sorted({e.link_layer for e in at.value})) for h, at in lists.items()}
    for host, at in lists.items():
        ref = _peers_median(counts, host)
        peer = next(a for h, a in lists.items() if h != host)
        if ref and counts[host] < ref:
            mine = {d for e in at.value for d in e.devices}
            theirs = sorted({d for h, a in lists.items() if h != host for e in a.value for d in e.devices} - mine)
            missing = f"; not in its list: {_names(theirs)}" if theirs else ""
            found.append(NodeVerdict(host, "nic_list", (
                f"Node {host} lists {len(at.value)} RDMA NIC(s) where its peers list {ref:g} (median){missing}: "
                f"a port down, a NIC not found or left out of NCCL_IB_HCA there (line {at.line}; a peer's list: "
                f"line {peer.line})."), at.line, peer.line, counts[host] / ref))
        others = [layers[h] for h in layers if h != host]
        common = max(set(others), key=others.count) if others else None
        if common is not None and layers[host] != common and others.count(common) > len(others) / 2:
            found.append(NodeVerdict(host, "link_layer", (
                f"Node {host}'s NICs are {'/'.join(layers[host])} where its peers' are {'/'.join(common)} "
                f"(line {at.line}; a peer's list: line {peer.line})."), at.line, peer.line))
    return found


def _link_rates(log: DebugLog) -> list[NodeVerdict]:
    """A NIC port whose rate in the topology dump is under :data:`OUTLIER_RATIO` of its peers' (a link trained at a
    lower rate, or another NIC)."""
    rates = {h: links.net_speeds for h, links in log.host_links.items() if links.net_speeds}
    if len(rates) < 2:
        return []
    found = []
    for host, ports in rates.items():
        ref = statistics.median(at.value for h, p in rates.items() if h != host for at in p.values())
        slow = sorted((i, at) for i, at in ports.items() if ref and at.value < OUTLIER_RATIO * ref)
        if not slow:
            continue
        peer = next(at for h, p in rates.items() if h != host for at in p.values())
        names = _names([f"NET/{i} at {at.value:g} GB/s" for i, at in slow])
        worst = min(at.value for _, at in slow)
        found.append(NodeVerdict(host, "link_rate", (
            f"Node {host}'s topology dump gives {names} where its peers' NIC ports run at {ref:g} GB/s "
            f"({ref * 8:g} Gbit/s, median): a link trained at a lower rate, a cable or optic, or another NIC "
            f"(line {slow[0][1].line}; a peer's port: line {peer.line})."), slow[0][1].line, peer.line, worst / ref))
    return found


def _first_line(counts: dict[str, list[int]], names: list[str]) -> int:
    return min(counts[n][1] for n in names)


def _paths(log: DebugLog) -> list[NodeVerdict]:
    hosts = {h: links for h, links in log.host_links.items() if links.transports}
    if len(hosts) < 2:
        return []
    found = []
    net = {h: sorted(n for n in links.transports if n.startswith("NET/")) for h, links in hosts.items()}
    intra = {h: sorted(n for n in links.transports if not n.startswith("NET/")) for h, links in hosts.items()}
    for host, links in hosts.items():
        peers = [h for h in hosts if h != host]
        # sockets on this node where every peer with network lines uses RDMA
        peer_net = [h for h in peers if net[h]]
        if "NET/Socket" in net[host] and peer_net and all("NET/Socket" not in net[h] for h in peer_net):
            peer = peer_net[0]
            line = links.transports["NET/Socket"][1]
            peer_line = _first_line(hosts[peer].transports, net[peer])
            found.append(NodeVerdict(host, "network", (
                f"Node {host} sends over sockets (NET/Socket) where its peers use {', '.join(net[peer])}: its RDMA "
                f"NICs were not usable there (line {line}; a peer's line: {peer_line})."), line, peer_line))
        # host shared memory on this node where its peers' GPUs talk peer to peer
        peer_intra = [h for h in peers if intra[h]]
        p2p_peers = [h for h in peer_intra if any(n.startswith("P2P/") for n in intra[h]) and "SHM" not in intra[h]]
        if "SHM" in intra[host] and not any(n.startswith("P2P/") for n in intra[host]) and peer_intra \
                and len(p2p_peers) == len(peer_intra):
            peer = p2p_peers[0]
            line = links.transports["SHM"][1]
            kinds = [n for n in intra[peer] if n.startswith("P2P/")]
            peer_line = _first_line(hosts[peer].transports, kinds)
            found.append(NodeVerdict(host, "intra", (
                f"Node {host}'s GPUs talk through host shared memory (SHM, {links.transports['SHM'][0]} line(s)) "
                f"where its peers' use {', '.join(kinds)}: peer-to-peer is off or unavailable on that node "
                f"(NCCL_P2P_DISABLE or NCCL_P2P_LEVEL set there, the IOMMU or ACS in the way, or NVLink down) "
                f"(line {line}; a peer's line: {peer_line})."), line, peer_line))
        # GPUDirect RDMA off here only
        gdr_peers = [h for h in peers if hosts[h].gdr_on or hosts[h].gdr_off]
        if links.gdr_off and not links.gdr_on and gdr_peers and all(
                hosts[h].gdr_on and not hosts[h].gdr_off for h in gdr_peers):
            peer = gdr_peers[0]
            peer_line = _first_line(hosts[peer].transports, net[peer])
            found.append(NodeVerdict(host, "gdr", (
                f"GPUDirect RDMA is off on node {host} only: none of its {links.gdr_off} network line(s) ends in "
                f"/GDRDMA, every peer's does (the nvidia-peermem module not loaded there, or its GPUs further from "
                f"their NICs) (line {links.first_gdr_off}; a peer's line: {peer_line})."),
                links.first_gdr_off, peer_line))
    found += _nics_used(log, hosts, net)
    return found


def _nics_used(log: DebugLog, hosts: dict, net: dict[str, list[str]]) -> list[NodeVerdict]:
    with_net = {h: links for h, links in hosts.items() if links.nics_used}
    if len(with_net) < 2:
        return []
    used = {h: float(len(links.nics_used)) for h, links in with_net.items()}
    lines = {h: float(sum(links.transports[n][0] for n in net[h])) for h, links in with_net.items()}
    found = []
    for host, links in with_net.items():
        ref, ref_lines = _peers_median(used, host), _peers_median(lines, host)
        # only a node that printed about as many network lines as its peers: an excerpt with fewer lines shows
        # fewer NICs without using fewer
        if not ref or used[host] >= ref or ref_lines is None or lines[host] < 0.8 * ref_lines:
            continue
        line = min(links.nics_used.values())
        peer = next(h for h in with_net if h != host)
        peer_line = min(with_net[peer].nics_used.values())
        found.append(NodeVerdict(host, "nics_used", (
            f"Node {host}'s network lines use {len(links.nics_used)} NIC(s) ({_names(sorted(links.nics_used))}) "
            f"where its peers' use {ref:g} (median), over as many lines: its traffic shares fewer NICs "
            f"(line {line}; a peer's line: {peer_line})."), line, peer_line, used[host] / ref))
    return found


def _init(log: DebugLog) -> list[NodeVerdict]:
    by_host: dict[str, list] = {}
    for stat in log.init_timings.values():
        if stat.host:
            by_host.setdefault(stat.host, []).append(stat)
    if len(by_host) < 2:
        return []
    medians = {h: statistics.median(s.total_s for s in stats) for h, stats in by_host.items()}
    found = []
    for host, stats in by_host.items():
        ref = _peers_median(medians, host)
        if not ref or medians[host] <= SLOW_INIT_RATIO * ref or medians[host] - ref < _SLOW_INIT_EXTRA_S:
            continue
        slowest = max(stats, key=lambda s: s.total_s)
        peer = min((s for h, ss in by_host.items() if h != host for s in ss), key=lambda s: s.line)
        parts = dict(slowest.parts)
        peer_parts = dict(peer.parts)
        grown = max(parts, key=lambda k: parts[k] - peer_parts.get(k, 0.0)) if parts else None
        why = (f"; most of the difference is its {grown} step ({parts[grown]:.3g} s against "
               f"{peer_parts.get(grown, 0):.3g} s on a peer's rank)" if grown is not None else "")
        ranks = sorted(s.rank for s in stats)
        found.append(NodeVerdict(host, "init", (
            f"Node {host} (rank(s) {_names([str(r) for r in ranks])}) took {medians[host]:.3g} s to set up its "
            f"communicator, {medians[host] / ref:.2g}x its peers' {ref:.3g} s (median){why} (line {slowest.line}; a "
            f"peer's line: {peer.line})."), slowest.line, peer.line, medians[host] / ref))
    return found


def _run_lines(log: DebugLog, runs: list) -> list[int]:
    """The line of each nccl-tests run's header, in order (0 where it cannot be told)."""
    headers = [n for n, text in log.table_lines if text.lstrip().startswith("# nThread")]
    if len(headers) == len(runs):
        return headers
    first_rank_line: dict[str, int] = {}  # host -> its first "# Rank ... on <host> device" line (one pass)
    for n, text in log.table_lines:
        words = text.lstrip("#").split()
        if words[:1] == ["Rank"] and "on" in words[:8]:
            at = words.index("on")
            if at + 1 < len(words):
                first_rank_line.setdefault(words[at + 1], n)
    return [min((first_rank_line[h] for h in set(run.hostnames) if h in first_rank_line), default=0) for run in runs]


def _busbw_at(run: Any, size: int) -> float | None:
    for s, out, inplace in zip(run.size_bytes, run.busbw_gbps, run.inplace_busbw_gbps, strict=True):
        if int(s) == size:
            value = float(out) if not math.isnan(float(out)) else float(inplace)
            return None if math.isnan(value) else value
    return None


def _tests_runs(log: DebugLog, runs: list) -> list[NodeVerdict]:
    placed = [(run, line) for run, line in zip(runs, _run_lines(log, runs), strict=True)
              if run.hostnames and run.size_bytes.size]
    groups: dict[str, list] = {}
    for run, line in placed:
        groups.setdefault(run.collective or "?", []).append((run, line))
    found = []
    for collective, members in groups.items():
        if len(members) < 2:
            continue
        shared = set.intersection(*({int(s) for s in run.size_bytes} for run, _ in members))
        if not shared:
            continue
        size = max(shared)
        values = {i: _busbw_at(run, size) for i, (run, _) in enumerate(members)}
        if any(v is None for v in values.values()):
            continue
        keyed = {str(i): float(v) for i, v in values.items()}
        slow = []
        for i in range(len(members)):
            ref = _peers_median(keyed, str(i))
            if ref and keyed[str(i)] < OUTLIER_RATIO * ref:
                slow.append((i, ref))
        fast_hosts = {h for i, (run, _) in enumerate(members) if i not in {s for s, _ in slow} for h in run.hostnames}
        name = collective.replace("_perf", "") + " " if collective != "?" else ""
        for i, ref in slow:
            run, line = members[i]
            hosts = sorted(set(run.hostnames))
            peer_line = next(ln for j, (_, ln) in enumerate(members) if j != i)
            ratio = keyed[str(i)] / ref
            measured = (f"its {name}run measured {keyed[str(i)]:.3g} GB/s busbw at {_size(size)} where the other "
                        f"{len(members) - 1} run(s) measured {ref:.3g} (median)")
            if len(hosts) == 1:
                found.append(NodeVerdict(hosts[0], "busbw", (
                    f"Node {hosts[0]} is {ratio:.2g}x its peers: {measured} (line {line}; a peer's run: line "
                    f"{peer_line})."), line, peer_line, ratio))
                continue
            suspects = [h for h in hosts if h not in fast_hosts]
            who = (f"; of its nodes only {_names(suspects)} is in no full-speed run" if len(suspects) == 1 else
                   "; every one of its nodes also ran at full speed elsewhere, which points at the path between "
                   "them (a switch or cable) more than at one node" if not suspects else "")
            found.append(NodeVerdict(suspects[0] if len(suspects) == 1 else ", ".join(hosts), "busbw", (
                f"The run on nodes {_names(hosts)} is {ratio:.2g}x the others: {measured}{who} (line {line}; "
                f"another run: line {peer_line})."), line, peer_line, ratio))
    return found


def _inspector(log: DebugLog) -> list[NodeVerdict]:
    groups: dict[tuple[str, int], list] = {}
    for stat in log.inspector.values():
        if stat.nnodes == 1:  # one node's own communicator: its busbw is that node's
            groups.setdefault((stat.coll, stat.size_bytes), []).append(stat)
    ranked = sorted(groups.items(), key=lambda kv: (-len({s.host for s in kv[1]}), -kv[0][1]))
    for (coll, size), stats in ranked:
        per_host: dict[str, list] = {}
        for stat in stats:
            per_host.setdefault(stat.host, []).append(stat)
        if len(per_host) < 2:
            return []
        medians = {h: statistics.median(s.busbw_mean for s in ss) for h, ss in per_host.items()}
        found = []
        for host, ss in per_host.items():
            ref = _peers_median(medians, host)
            if not ref or medians[host] >= OUTLIER_RATIO * ref:
                continue
            worst = min(ss, key=lambda s: s.busbw_mean)
            peer = min((s for h, s2 in per_host.items() if h != host for s in s2), key=lambda s: s.first_line)
            ratio = medians[host] / ref
            records = sum(s.count for s in ss)
            found.append(NodeVerdict(host, "busbw", (
                f"Node {host} is {ratio:.2g}x its peers in the NCCL Inspector records: {coll} of {_size(size)} on its "
                f"own communicator measured {medians[host]:.3g} GB/s busbw (median of its ranks, {records} record(s); "
                f"rank {worst.rank} lowest at {worst.busbw_mean:.3g}) where the other {len(per_host) - 1} node(s) "
                f"measured {ref:.3g} (line {worst.first_line}; a peer's record: line {peer.first_line})."),
                worst.first_line, peer.first_line, ratio))
        return found  # the collective and size most nodes ran: one comparison, not one per size
    return []


def _failures(log: DebugLog) -> list[NodeVerdict]:
    """A minority of nodes printing every failure WARN (NVIDIA/nccl#905: "look at which node reports those link
    errors")."""
    failing = {h: links for h, links in log.host_links.items() if links.failures}
    quiet = [h for h in log.hosts if h not in failing]
    if not failing or not quiet or len(failing) * 2 >= len(failing) + len(quiet):
        return []
    peer_line = min(log.hosts[h].first_line for h in quiet)
    found = []
    for host, links in failing.items():
        first = links.first_failure
        found.append(NodeVerdict(host, "warnings", (
            f"Node {host} printed {links.failures} NCCL WARN line(s) reporting a failure (first: \"{first.value}\"); "
            f"its {len(quiet)} peer(s) in the log printed none: look at that node first (its NIC, link, driver), or "
            f"at the peer its message names (line {first.line}; a peer's line: {peer_line})."), first.line, peer_line))
    return found


def node_verdicts(log: DebugLog, runs: list | None = None) -> list[NodeVerdict]:
    """Every node that differs from its peers, the measured ones (busbw, set-up time) first."""
    return (_tests_runs(log, runs or []) + _inspector(log) + _init(log) + _failures(log) + _nic_lists(log)
            + _link_rates(log) + _paths(log))


def node_table(log: DebugLog, verdicts: list[NodeVerdict]) -> list[dict[str, Any]]:
    """One row per host of what its own lines show, the values the per-node checks compare: NICs listed and used,
    NIC port rates, connection lines by transport, GDR on and off, set-up time, failure WARNs, and the verdicts'
    kinds. Nodes named by a verdict come first; at most :data:`MAX_TABLE_ROWS` rows."""
    odd: dict[str, list[str]] = {}
    for verdict in verdicts:
        odd.setdefault(verdict.host, []).append(verdict.kind)
    init: dict[str, list[float]] = {}
    for stat in log.init_timings.values():
        if stat.host:
            init.setdefault(stat.host, []).append(stat.total_s)
    hosts = sorted(set(log.host_links) | set(init), key=lambda h: (h not in odd, h))
    rows = []
    for host in hosts[:MAX_TABLE_ROWS]:
        links = log.host_links.get(host)
        rows.append({
            "host": host,
            "nics_listed": len(links.nic_list.value) if links and links.nic_list else None,
            "nics_used": len(links.nics_used) if links else 0,
            "nic_port_gbytes": sorted({at.value for at in links.net_speeds.values()}) if links else [],
            "transports": {t: c[0] for t, c in sorted(links.transports.items())} if links else {},
            "gdr_on": links.gdr_on if links else 0,
            "gdr_off": links.gdr_off if links else 0,
            "init_s": statistics.median(init[host]) if host in init else None,
            "failure_warns": links.failures if links else 0,
            "unlike_peers": odd.get(host, []),
        })
    return rows
