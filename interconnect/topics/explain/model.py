"""What a NCCL_DEBUG=INFO log says, in words, each verdict citing the line it rests on; and the log's busbw
against the collective model on the cluster the log describes.

Pure: takes the reader's :class:`~interconnect.io.nccl_debug.DebugLog` (and any nccl-tests rows it held) and
returns an :class:`Explanation`. The page and ``interconnect explain`` both call :func:`explain_source`, so they
say the same things.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import compare_collective
from interconnect.hardware.collectives.accuracy import collective_band, size_band
from interconnect.inputs.cluster import CLUSTER_KEYS, cluster_inputs, cluster_specs
from interconnect.inputs.params import parse_state
from interconnect.io.nccl_debug import DATATYPE_NAMES, OP_NAMES, DebugLog, read_nccl_debug, tests_runs
from interconnect.io.nccl_debug.collect import FAILURE_WORDS
from interconnect.topics.explain.outliers import OUTLIER_RATIO, node_table, node_verdicts
from interconnect.topics.explain.topology import Topology, topology

__all__ = ["Explanation", "Finding", "explain", "explain_source", "link_cluster"]

#: NVLS (NVLink SHARP) first shipped in NCCL 2.17.
NVLS_FIRST_VERSION = (2, 17)
#: Interface names of virtual or tunnel devices: a NCCL socket list holding them often picks a slow path.
_VIRTUAL_IFS = ("flannel", "docker", "veth", "cni", "ip6tnl", "tun", "virbr", "lo", "cali", "weave")
_NETWORK_WORDS = {"IB": "InfiniBand verbs (NCCL's internal NET/IB)",
                  "IBext": "InfiniBand verbs through the HPC-X plugin (NET/IBext)",
                  "IBext_v8": "InfiniBand verbs through the HPC-X plugin (NET/IBext_v8)",
                  "Socket": "sockets (TCP, NET/Socket)",
                  "Libfabric": "AWS EFA through the aws-ofi-nccl plugin (Libfabric)",
                  "AWS Libfabric": "AWS EFA through the aws-ofi-nccl plugin (Libfabric)"}
#: GPU names as nccl-tests prints them -> catalog ids (longest match first).
_GPU_NAMES = (("H100", "h100-sxm"), ("H800", "h800"), ("H200", "h200"), ("A100", "a100-sxm"), ("GB200", "gb200"),
              ("B200", "b200"), ("B300", "b300"), ("V100", "v100"), ("P100", "p100"), ("MI300X", "mi300x"),
              ("MI325X", "mi325x"), ("MI355X", "mi355x"))
_DEFAULT_GPU = {"nvidia": "h100-sxm", "amd": "mi300x"}
_MAX_SHOWN = 12
#: NCCL's source files that name the transport a WARN came from (as printed before "NCCL WARN").
_TRANSPORT_FILES = (("transport/p2p", ": raised while setting up the GPU-to-GPU (P2P) transport"),
                    ("transport/shm", ": raised in the host shared memory (SHM) transport"),
                    ("transport/net", ": raised in the network transport"),
                    ("net_ib", ": raised in the InfiniBand/RoCE transport"),
                    ("transport/nvls", ": raised while setting up NVLS"),
                    ("graph/", ": raised while NCCL searched the node's topology"))
_MAX_WARNINGS_KEPT = 50  # the reader keeps this many WARN lines (collect._MAX_WARNINGS)


#: How much a warning weighs when the findings are ranked, most likely cause first: 3 a cause of a slow or failed
#: job by itself (sockets between nodes, GDR off, host memory instead of P2P, a node unlike its peers, a hang,
#: separate jobs), 2 a warning that may matter (fewer NICs in use, a NCCL WARN line, a setting), 0 not a warning.
CAUSE, WARNING = 3, 2


@dataclass(frozen=True)
class Finding:
    """One verdict: its topic, the sentence, the line it rests on (0: none), whether it is a warning, and how much
    it weighs in the ranking (:data:`CAUSE`, :data:`WARNING`, 0)."""

    topic: str
    text: str
    line: int
    warn: bool = False
    severity: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The finding for JSON output."""
        return {"topic": self.topic, "text": self.text, "line": self.line or None, "warn": self.warn,
                "severity": self.severity}


@dataclass
class Explanation:
    """Every finding in order, and the facts behind them for tables and JSON."""

    findings: list[Finding] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    transports: list[dict[str, Any]] = field(default_factory=list)
    nics: list[dict[str, Any]] = field(default_factory=list)
    cluster_query: dict[str, str] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)
    topology: Topology | None = None
    measured: dict[str, Any] | None = None  # the log's busbw and the model's curve with its band (see _measured)

    def add(self, topic: str, text: str, line: int = 0, warn: bool = False, severity: int | None = None) -> None:
        """Append a finding (a warning weighs :data:`WARNING` unless ``severity`` says otherwise)."""
        weight = severity if severity is not None else (WARNING if warn else 0)
        self.findings.append(Finding(topic, text, line, warn or weight > 0, weight))

    def ranked(self) -> list[Finding]:
        """The warnings, most likely cause first (by weight; in the log's topic order within one weight)."""
        return sorted((f for f in self.findings if f.warn), key=lambda f: -f.severity)

    def as_dict(self) -> dict[str, Any]:
        """Everything for ``--json``."""
        return {"ranked": [f.as_dict() for f in self.ranked()], "findings": [f.as_dict() for f in self.findings],
                "facts": self.facts,
                "transports": self.transports, "nics": self.nics, "cluster_query": self.cluster_query,
                "assumptions": self.assumptions,
                "topology": self.topology.as_dict() if self.topology is not None else None,
                "measured": self.measured}


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:3] if p.isdigit())


def _list(items: list[str]) -> str:
    shown = items[:_MAX_SHOWN]
    more = f" and {len(items) - len(shown)} more" if len(items) > len(shown) else ""
    return ", ".join(shown) + more


def explain_source(source: object) -> Explanation:
    """Read ``source`` (text, bytes, an open file) and explain it; raises the reader's NcclDebugError."""
    log = read_nccl_debug(source)
    return explain(log, tests_runs(log))


def explain(log: DebugLog, runs: list | None = None) -> Explanation:
    """Explain a read log; ``runs`` are nccl-tests result tables found in it (:func:`tests_runs`)."""
    out = Explanation()
    vendor = _version(log, out)
    ranks, nodes, gpn = _shape(log, out)
    network = _network(log, out, nodes)
    _gdr(log, out, network)
    nics_per_node = _nics(log, out)
    _intra(log, out, nodes)
    _channels(log, out)
    _nvls(log, out, vendor)
    _collectives(log, out)
    _inspector(log, out)
    _nodes(log, out, runs or [])
    _cluster(log, out, vendor, network, nodes, gpn, nics_per_node, runs or [])
    _noise(log, out)
    out.facts.update({"ranks": ranks, "nodes": nodes, "gpus_per_node": gpn, "network": network,
                      "hosts": sorted(log.hosts)[:50], "lines": log.lines, "nccl_lines": log.nccl_lines})
    out.topology = topology(log, out.facts)
    return out


# -- the verdicts, one topic each ------------------------------------------------------------------------------

def _version(log: DebugLog, out: Explanation) -> str:
    vendor = log.vendor.value if log.vendor else "nvidia"
    library = "RCCL" if vendor == "amd" else "NCCL"
    if log.version:
        cuda = f", built for CUDA {log.cuda.value}" if log.cuda else ""
        out.add("version", f"{library} {log.version.value}{cuda}.", log.version.line)
    else:
        why = f" (AMD RCCL, line {log.vendor.line})" if log.vendor else ""
        out.add("version", f"The log does not print the {library} version{why}: on NCCL before about 2.20 only "
                "rank 0 prints it, without prefix, at the first collective.", log.vendor.line if log.vendor else 0)
    if len(log.versions) > 1:
        seen = ", ".join(f"{v} (line {n})" for v, n in list(log.versions.items())[:6])
        out.add("version", f"Several versions in one file: {seen}. The findings merge every run.",
                min(log.versions.values()), warn=True)
    elif log.runs > 1:
        out.add("version", f"The version banner appears {log.runs} times: several runs (or processes) in one "
                "file; the findings merge them.", log.version.line if log.version else 0)
    out.facts.update({"version": log.version.value if log.version else None,
                      "cuda": log.cuda.value if log.cuda else None, "vendor": vendor})
    return vendor


def _shape(log: DebugLog, out: Explanation) -> tuple[dict, dict, dict]:
    exact = [at for at in (log.nnodes and log.comm_nranks, log.comm_nranks, log.coll_nranks, log.trees_nranks,
                           log.ring_ranks) if at]
    ranks: dict[str, Any] = {"value": None, "exact": False, "line": 0}
    if exact:
        best = max(exact, key=lambda at: at.value)
        ranks = {"value": best.value, "exact": True, "line": best.line}
        out.add("ranks", f"{best.value} ranks in the job's communicator.", best.line)
    else:
        bounds = []
        if log.max_rank:
            bounds.append((log.max_rank.value + 1, log.max_rank.line, "the highest rank number in the log"))
        if log.launcher_max_rank:
            bounds.append((log.launcher_max_rank.value + 1, log.launcher_max_rank.line,
                           "the launcher's rank labels"))
        local = sum(max(s.devices) + 1 for s in log.hosts.values() if s.devices)
        if local:
            bounds.append((local, min(s.first_line for s in log.hosts.values()),
                           "the local GPU numbers on each host"))
        if bounds:
            value, line, why = max(bounds)
            ranks = {"value": value, "exact": False, "line": line}
            out.add("ranks", f"At least {value} ranks (from {why}); the log has no line with the rank count.",
                    line)
        else:
            out.add("ranks", "The log does not show how many ranks the job has.")
    if len(log.comm_ids) > 1 and all(at.value == 1 for at in log.comm_ids.values()):
        first = min(at.line for at in log.comm_ids.values())
        out.add("ranks", f"{len(log.comm_ids)} separate communicators of 1 rank each: the processes did not join "
                "one job (each rank is alone in its communicator).", first, severity=CAUSE)
    _separate_runs(log, out)
    gpn_at = log.gpus_per_node
    gpn = {"value": gpn_at.value if gpn_at else None, "exact": log.local_ranks is not None,
           "line": gpn_at.line if gpn_at else 0}
    hosts = len(log.hosts)
    if log.nnodes:
        nodes = {"value": log.nnodes.value, "exact": True, "line": log.nnodes.line}
        out.add("nodes", f"{log.nnodes.value} nodes, {log.local_ranks.value if log.local_ranks else '?'} GPU(s) "
                "each (NCCL's own count).", log.nnodes.line)
    elif hosts:
        value, how = hosts, f"{hosts} host name(s) in the prefixes"
        if ranks["value"] and gpn["value"] and hosts == 1 and ranks["value"] > gpn["value"]:
            value = math.ceil(ranks["value"] / gpn["value"])
            how = (f"{ranks['value']} ranks over {gpn['value']} GPUs per node; only one host name appears "
                   "(one node's lines, or names hidden)")
        first = min(s.first_line for s in log.hosts.values())
        nodes = {"value": value, "exact": False, "line": first}
        out.add("nodes", f"{value} node(s) (from {how}); GPUs per node: at least {gpn['value'] or '?'} "
                "(the highest local GPU number + 1, or the GPUs of a host's topology dump).", first)
    else:
        nodes = {"value": None, "exact": False, "line": 0}
        out.add("nodes", "The lines carry no host names, so the node count cannot be told.")
    return ranks, nodes, gpn


def _separate_runs(log: DebugLog, out: Explanation) -> None:
    """nccl-tests prints its ``# nThread`` header once per run: twice in one file is two runs of the test."""
    headers = [n for n, text in log.table_lines if text.lstrip().startswith("# nThread")]
    out.facts["separate_runs"] = len(headers)
    if len(headers) < 2:
        return
    where = ", ".join(str(n) for n in headers[:6])
    # runs one after another (each header's table before the next header: a sweep, e.g. one run per node) are
    # not the processes of one launch running apart (their headers come together, tables after)
    followed: list[bool] = []  # per header: did a result row come before the next header (one pass)
    for _, text in log.table_lines:
        if text.lstrip().startswith("# nThread"):
            followed.append(False)
        elif followed and text.strip()[:1].isdigit():
            followed[-1] = True
    if all(followed):
        out.add("ranks", f"nccl-tests printed its header {len(headers)} times (lines {where}), each run's table "
                f"before the next header: {len(headers)} runs one after another (for example one per node); each "
                "is compared with the others below.", headers[0])
        out.facts["sequential_runs"] = True
        return
    if any(name.startswith("NET/") for name in log.transports) or log.network:
        out.add("ranks", f"nccl-tests printed its header {len(headers)} times (lines {where}): {len(headers)} runs in "
                "one file; the findings merge them.", headers[0])
        return
    out.add("ranks", f"nccl-tests printed its header {len(headers)} times (lines {where}) and no line of the log "
            "crosses the network: the processes ran as separate jobs, each on its own GPUs, instead of one job "
            "across nodes (nccl-tests built without MPI=1, or started by a different MPI than it was built with).",
            headers[0], severity=CAUSE)


def _network_in_use(log: DebugLog) -> tuple[str | None, int]:
    if log.network:
        return log.network.value, log.network.line
    used = [(stat.first_line, name[4:]) for name, stat in log.transports.items() if name.startswith("NET/")]
    if used:
        line, name = min(used)
        return name, line
    disabled = log.env.get("NCCL_IB_DISABLE")
    if log.ib_nics and not (disabled and disabled.value.startswith("1")):
        return "IB", log.ib_nics.line  # before NCCL 2.6 there is no "Using network": the IB list decides
    if log.efa:
        return "Libfabric", log.efa.line
    if log.socket_nics and (log.ib_absent or log.no_verbs or "NCCL_IB_DISABLE" in log.env):
        return "Socket", log.socket_nics.line
    if log.ib_absent or log.no_verbs:  # no RDMA device or stack: NCCL falls back to sockets
        return "Socket", log.ib_absent or log.no_verbs
    return None, 0


def _network(log: DebugLog, out: Explanation, nodes: dict) -> str | None:
    network, line = _network_in_use(log)
    if network is None:
        out.add("network", "The log does not show which network transport NCCL chose.")
        return None
    words = _NETWORK_WORDS.get(network, f"NET/{network}")
    single = nodes.get("value") == 1
    if network == "Socket":
        reasons = []
        if log.ib_absent:
            reasons.append(f"NCCL found no InfiniBand device (line {log.ib_absent})")
        if log.no_verbs:
            reasons.append(f"libibverbs is missing (line {log.no_verbs})")
        for key in ("NCCL_IB_DISABLE", "NCCL_NET"):
            if key in log.env:
                reasons.append(f"{key}={log.env[key].value} (line {log.env[key].line})")
        because = f" Because: {'; '.join(reasons)}." if reasons else ""
        tail = " This run is on one node, where the network carries nothing between GPUs." if single else ""
        out.add("network", f"The network transport is sockets: InfiniBand was not used.{because}{tail}", line,
                severity=0 if single else CAUSE)
        if log.plugin and "IB" in log.plugin.value:
            out.add("network", f"An InfiniBand plugin ({log.plugin.value}) is installed, yet traffic goes over "
                    "TCP: the RDMA devices were not usable.", log.plugin.line, severity=CAUSE)
    else:
        layers = sorted({e.link_layer for e in log.ib_nics.value}) if log.ib_nics else []
        layer = f", link layer {' and '.join(layers)}" if layers else ""
        out.add("network", f"The network transport is {words}{layer}.", line)
        if len(layers) > 1:
            counts = {ll: sum(e.link_layer == ll for e in log.ib_nics.value) for ll in layers}
            mix = ", ".join(f"{n} {ll}" for ll, n in counts.items())
            out.add("network", f"The NIC list mixes link layers ({mix}): NCCL may pair an InfiniBand port with a "
                    "RoCE one.", log.ib_nics.line, warn=True)
        disabled = log.env.get("NCCL_IB_DISABLE")
        if disabled and disabled.value.startswith("1") and network.startswith("IBext"):
            out.add("network", "NCCL_IB_DISABLE=1 turns off NCCL's internal IB transport only; the HPC-X plugin "
                    f"(NET/{network}) carried the traffic anyway.", disabled.line, warn=True)
    if log.collnet:
        gdr = f", {log.collnet_gdr} of them with GPUDirect RDMA" if log.collnet_gdr else ""
        out.add("network", f"CollNet is on: {log.collnet_count} connection line(s) to the in-network reduction "
                f"({log.collnet.value}{gdr}).", log.collnet.line)
    if log.oob is not None and log.oob.value == "":
        out.add("network", "The IB out-of-band interface is empty (\"OOB :\"): NCCL found no socket interface "
                "for the connection handshake.", log.oob.line, warn=True)
    out.facts["network_line"] = line
    return network


def _gdr(log: DebugLog, out: Explanation, network: str | None) -> None:
    net = {k: v for k, v in log.transports.items() if k.startswith("NET/") and k != "NET/Socket"}
    on = sum(v.gdr_on for v in net.values())
    off = sum(v.gdr_off for v in net.values())
    verdict: object = "unknown"
    if on and not off:
        verdict = True
        line = min(v.first_gdr_line for v in net.values() if v.first_gdr_line)
        out.add("gdr", f"GPUDirect RDMA is on: the NICs read and write GPU memory directly (all {on} network "
                "connections shown end in /GDRDMA).", line)
    elif on and off:
        verdict = "partial"
        line = min(v.first_no_gdr_line for v in net.values() if v.first_no_gdr_line)
        out.add("gdr", f"GPUDirect RDMA is only partly on: {on} of {on + off} network connections use it; the "
                "others stage every byte through host memory.", line, warn=True)
    elif off:
        verdict = False
        line = min(v.first_no_gdr_line for v in net.values() if v.first_no_gdr_line)
        out.add("gdr", f"GPUDirect RDMA is off: every byte crosses host memory (none of the {off} network "
                "connections shown ends in /GDRDMA).", line, severity=CAUSE)
    elif network == "Socket" or ("NET/Socket" in log.transports):
        verdict = False
        out.add("gdr", "GPUDirect RDMA does not apply: the socket transport always copies through host memory.",
                out.facts.get("network_line", 0))
    else:
        out.add("gdr", "The log shows no network connection lines, so GPUDirect RDMA cannot be told.")
    if verdict == "unknown" and log.gdr_enabled and not log.gdr_disabled:
        verdict = True  # NCCL's own GPU-NIC check passed, and no pair failed it
        out.add("gdr", f"NCCL says: \"{log.gdr_enabled.value}\": GPUDirect RDMA is on for that GPU and NIC.",
                log.gdr_enabled.line)
    if log.gdr_disabled:
        if verdict == "unknown":
            verdict = "partial" if log.gdr_enabled else False
        out.add("gdr", f"NCCL says: \"{log.gdr_disabled.value}\" (a GPU too far from its NIC in PCIe terms, "
                "above NCCL_NET_GDR_LEVEL, or the nvidia-peermem module missing).", log.gdr_disabled.line,
                severity=CAUSE)
    if log.ring_gdr:
        out.add("gdr", f"NCCL's ring summary says GDR {log.ring_gdr.value}.", log.ring_gdr.line)
    out.facts["gdr"] = verdict


def _nic_name(log: DebugLog, transport: str, index: int) -> str:
    if transport == "NET/Socket" and log.socket_nics:
        for number, name in log.socket_nics.value:
            if number == index:
                return name
    elif transport != "NET/Socket" and log.ib_nics:
        for entry in log.ib_nics.value:
            if entry.index == index:
                return "+".join(entry.devices)
    return ""


def _nics(log: DebugLog, out: Explanation) -> int | None:
    listed: list[str] = []
    line = 0
    if log.ib_nics and not (log.network and log.network.value == "Socket"):
        listed = ["+".join(e.devices) + f":{e.link_layer}" for e in log.ib_nics.value]
        line = log.ib_nics.line
    elif log.socket_nics:
        listed = [name for _, name in log.socket_nics.value]
        line = log.socket_nics.line
    elif log.ib_speeds:  # NCCL 2.25+ per-NIC lines, when the "NET/IB : Using" list is not in the text
        listed = [at.value[0] for _, at in sorted(log.ib_speeds.items())]
        line = min(at.line for at in log.ib_speeds.values())
    elif log.topo_nets:  # only the topology dump names the NIC ports
        listed = [f"NET/{index}" for index in sorted(log.topo_nets)]
        line = min(at.line for at in log.topo_nets.values())
    used = sorted(log.nic_use.values(), key=lambda u: (u.transport, u.index))
    for use in used:
        out.nics.append({"nic": use.label, "name": _nic_name(log, use.transport, use.index) or None,
                         "connections": use.count, "ranks": sorted(use.ranks)[:64], "hosts": sorted(use.hosts)[:16],
                         "line": use.first_line})
    if log.efa:
        provider, found = log.efa.value
        out.add("nics", f"The {provider} provider found {found if found is not None else 'an unknown number of'} "
                "NICs.", log.efa.line)
    if used:
        labels = [u.label + (f" ({_nic_name(log, u.transport, u.index)})" if _nic_name(log, u.transport, u.index)
                             else "") for u in used]
        first = min(u.first_line for u in used)
        if listed:
            out.add("nics", f"{len(used)} of the {len(listed)} NICs listed carry traffic: {_list(labels)}.", first,
                    warn=len(used) < len(listed))
        else:
            out.add("nics", f"{len(used)} NIC(s) carry traffic in the lines shown: {_list(labels)} (the NIC list is "
                    "not in the log).", first)
        for use in used[:_MAX_SHOWN]:
            ranks = sorted(use.ranks)
            out.add("nics", f"{use.label} is used by rank(s) {_list([str(r) for r in ranks])} "
                    f"({use.count} connection line(s)).", use.first_line)
    elif listed:
        out.add("nics", f"{len(listed)} NIC(s) listed: {_list(listed)}; no network connection line shows which "
                "carry traffic.", line)
    else:
        out.add("nics", "The log lists no NICs.")
    if log.socket_nics:
        virtual = [name for _, name in log.socket_nics.value if name.startswith(_VIRTUAL_IFS)]
        if virtual:
            out.add("nics", f"The socket interface list holds virtual or tunnel interfaces ({_list(virtual)}): set "
                    "NCCL_SOCKET_IFNAME to the real NIC.", log.socket_nics.line, warn=True)
    if log.topo_nets:
        rates = sorted({at.value for at in log.topo_nets.values()})
        first = min(at.line for at in log.topo_nets.values())
        words = " and ".join(f"{r:g} GB/s ({r * 8:g} Gbit/s)" for r in rates)
        each = " each" if len(rates) == 1 else ""
        out.add("nics", f"The topology dump lists {len(log.topo_nets)} NIC port(s) at {words}{each}: the port rate "
                "NCCL reads from the NIC.", first)
        out.facts["nic_port_gbytes"] = rates
    if any(kind in log.topo_links for kind in ("PCI", "NVL", "XGMI")):
        first = min(log.topo_links[k] for k in ("PCI", "NVL", "XGMI") if k in log.topo_links)
        out.add("nics", "The bracketed figures of the topology dump's PCI, NVLink and xGMI links are the library's "
                "fixed values for its topology search, not measurements (as RCCL's maintainers answer in "
                "ROCm/rccl#901); only the NET figures are the NICs' port rates.", first)
    if log.ib_speeds:
        first = min(at.line for at in log.ib_speeds.values())
        ports = ", ".join(f"[{i}] {at.value[0]} {at.value[1] / 1000:g} Gbit/s"
                          for i, at in sorted(log.ib_speeds.items()))
        out.add("nics", f"NCCL's NIC lines give the port speeds: {ports}.", first)
        out.facts["nic_speeds_gbits"] = {str(i): at.value[1] / 1000 for i, at in sorted(log.ib_speeds.items())}
    if log.relaxed_ordering and log.ib_nics:
        out.add("nics", "PCIe relaxed ordering is on for the RDMA NICs ([RO]).", log.ib_nics.line)
    out.facts["nics_listed"] = listed
    out.facts["nics_listed_count"] = len(listed) or (log.efa.value[1] if log.efa and log.efa.value[1] else 0)
    out.facts["nics_used"] = [u.label for u in used]
    return len(listed) if listed else (len(used) or None)


def _intra(log: DebugLog, out: Explanation, nodes: dict) -> None:
    for name, stat in sorted(log.transports.items(), key=lambda kv: kv[1].first_line):
        out.transports.append({"transport": name, "connections": stat.count, "read_mode": stat.read_mode,
                               "gdr_on": stat.gdr_on if name.startswith("NET/") else None,
                               "gdr_off": stat.gdr_off if name.startswith("NET/") else None,
                               "line": stat.first_line, "as_printed": stat.raw})
    p2p = [n for n in log.transports if n.startswith("P2P/")]
    if p2p:
        first = min(log.transports[n].first_line for n in p2p)
        out.add("intra", f"Inside a node GPUs talk peer to peer ({', '.join(sorted(p2p))}: NVLink, xGMI or PCIe "
                "directly between GPUs).", first)
    if "SHM" in log.transports:
        stat = log.transports["SHM"]
        env = [f"{k}={log.env[k].value} (line {log.env[k].line})" for k in ("NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE")
               if k in log.env]
        why = f" The environment sets {', '.join(env)}." if env else ""
        out.add("intra", f"{stat.count} connection(s) go through host shared memory (SHM) instead of peer to peer: "
                f"a copy through the CPU's memory, much slower than NVLink.{why}", stat.first_line, severity=CAUSE)
    net = [n for n in log.transports if n.startswith("NET/")]
    if net and not p2p and "SHM" not in log.transports and nodes.get("value") == 1:
        first = min(log.transports[n].first_line for n in net)
        out.add("intra", "GPUs of a single node reach each other through the NICs (no P2P or SHM connection): "
                "peer-to-peer and shared memory look disabled.", first, severity=CAUSE)
    if "NCCL_P2P_LEVEL" in log.env and "SHM" not in log.transports:
        env = log.env["NCCL_P2P_LEVEL"]
        out.add("intra", f"NCCL_P2P_LEVEL is set to {env.value}.", env.line, warn=env.value in ("LOC", "0"))


def _channels(log: DebugLog, out: Explanation) -> None:
    if log.rings:
        out.add("channels", f"{log.rings.value} ring channel(s) (rank 0's ring listing).", log.rings.line)
    if log.trees:
        out.add("channels", f"{log.trees.value} tree channel(s) on the first Trees line.", log.trees.line)
    if log.coll_channels:
        out.add("channels", f"{log.coll_channels.value} collective channel(s).", log.coll_channels.line)
    if log.tuning:
        out.add("tuning", f"{len(log.tuning)} tuning line(s) printed (thread thresholds or the algorithm/protocol "
                "table).", log.tuning[0].line)
    out.facts.update({"rings": log.rings.value if log.rings else None,
                      "trees": log.trees.value if log.trees else None,
                      "coll_channels": log.coll_channels.value if log.coll_channels else None,
                      "tuning_lines": [at.line for at in log.tuning]})


def _nvls(log: DebugLog, out: Explanation, vendor: str) -> None:
    verdict: object = "unknown"
    algo = log.env.get("NCCL_ALGO")
    asked = f" although NCCL_ALGO asks for it (line {algo.line})" if algo and "NVLS" in algo.value.upper() else ""
    version = _version_tuple(log.version.value) if log.version else ()
    if (log.nvls_channels and log.nvls_channels.value > 0) or log.nvls_used:
        verdict = True
        line = log.nvls_used or log.nvls_channels.line
        count = f" ({log.nvls_channels.value} NVLS channels)" if log.nvls_channels else ""
        out.add("nvls", f"NVLS (NVLink SHARP, reduction in the NVSwitch) is used{count}.", line)
    elif log.nvls_channels is not None:
        verdict = False
        extra = (f" NCCL reported multicast not available (line {log.nvls_unavailable})."
                 if log.nvls_unavailable else "")
        out.add("nvls", f"NVLS is not used: 0 NVLS channels{asked}.{extra}", log.nvls_channels.line, warn=bool(asked))
    elif log.nvls_unavailable:
        verdict = False
        out.add("nvls", f"NVLS is unavailable: NCCL says multicast support is not available{asked}.",
                log.nvls_unavailable, warn=bool(asked))
    elif vendor == "amd":
        verdict = False
        out.add("nvls", "NVLS is unavailable: it is NVIDIA's (NVSwitch); RCCL has none.",
                log.vendor.line if log.vendor else 0)
    elif version and version < NVLS_FIRST_VERSION:
        verdict = False
        out.add("nvls", f"NVLS is unavailable: NCCL {log.version.value} predates it (NVLS came in 2.17).",
                log.version.line)
    elif log.old_forms:
        verdict = False
        out.add("nvls", f"NVLS is unavailable: this log's {log.old_forms.value} date it before NCCL 2.17, "
                "which brought NVLS.", log.old_forms.line)
    elif log.local_ranks and log.local_ranks.value == 1:
        verdict = False
        out.add("nvls", "NVLS is unavailable: one GPU per node, and NVLS reduces among the GPUs of one "
                "NVSwitch.", log.local_ranks.line)
    elif log.nvls_available:
        out.add("nvls", "NVLS multicast is available on this node; whether NVLS channels were built is not in "
                "the log.", log.nvls_available)
    else:
        out.add("nvls", "The log does not say whether NVLS was available or used.")
    out.facts["nvls"] = verdict
    out.facts["nvls_available"] = bool(log.nvls_available) or verdict is True


def _collectives(log: DebugLog, out: Explanation) -> None:
    # Every rank prints its own communicator handle; one collective of one communicator size is one group.
    groups: dict[tuple[str, int], dict[str, Any]] = {}
    for stat in log.collectives.values():
        g = groups.setdefault((stat.op, stat.nranks), {"op": stat.op, "nranks": stat.nranks, "calls": 0,
                                                        "handles": 0, "min": None, "max": None, "dtypes": set(),
                                                        "ops": set(), "line": stat.first_line})
        g["calls"] += stat.calls
        g["handles"] += 1
        if stat.min_bytes is not None:
            g["min"] = stat.min_bytes if g["min"] is None else min(g["min"], stat.min_bytes)
            g["max"] = stat.max_bytes if g["max"] is None else max(g["max"], stat.max_bytes)
        g["dtypes"] |= stat.datatypes
        g["ops"] |= stat.red_ops
        g["line"] = min(g["line"], stat.first_line)
    rows = []
    for g in sorted(groups.values(), key=lambda g: g["line"])[:_MAX_SHOWN]:
        dtypes = "/".join(DATATYPE_NAMES.get(d, str(d)) for d in sorted(g["dtypes"]))
        ops = "/".join(OP_NAMES.get(o, str(o)) for o in sorted(g["ops"]))
        size = (f"{g['min']:,} B" if g["min"] == g["max"] else
                f"{g['min']:,} to {g['max']:,} B") if g["min"] is not None else "size unknown"
        seen = (f"{g['calls']} COLL lines from {g['handles']} ranks' handles (about "
                f"{g['calls'] / g['handles']:.3g} calls each)" if g["handles"] > 1 else f"{g['calls']} call(s) seen")
        out.add("collectives", f"{g['op']} on a {g['nranks']}-rank communicator: {seen}, {size}, {dtypes} {ops}.",
                g["line"])
        rows.append({"op": g["op"], "nranks": g["nranks"], "calls": g["calls"], "handles": g["handles"],
                     "min_bytes": g["min"], "max_bytes": g["max"], "datatypes": sorted(g["dtypes"]),
                     "line": g["line"]})
    # A hang shows as handles of one collective whose last opCounts differ: some ranks are a collective ahead.
    # (One handle printing several opCounts is a job running collectives one after another.)
    lasts: dict[tuple[str, int], dict[str, int]] = {}
    for stat in log.collectives.values():
        lasts.setdefault((stat.op, stat.nranks), {})[stat.comm] = stat.last_op_count
    for (op, _), by_handle in lasts.items():
        ends = sorted(set(by_handle.values()))
        if len(by_handle) > 1 and len(ends) > 1:
            behind = sum(1 for v in by_handle.values() if v < ends[-1])
            line = min(s.first_line for s in log.collectives.values() if s.op == op)
            out.add("collectives", f"Ranks print different last {op} opCounts ({ends[0]:x} to {ends[-1]:x}; "
                    f"{behind} of the {len(by_handle)} handles seen are behind): if these are the last lines, some "
                    "ranks are a collective ahead, the usual picture of a hang.", line, severity=CAUSE)
    out.facts["collectives"] = rows


def _inspector(log: DebugLog, out: Explanation) -> None:
    """What the NCCL Inspector plugin's JSON records hold: ranks, nodes, collectives and sizes, busbw range."""
    if not log.inspector:
        return
    stats = list(log.inspector.values())
    first = min(s.first_line for s in stats)
    hosts = {s.host for s in stats}
    ranks = {(s.host, s.rank) for s in stats}
    records = sum(s.count for s in stats)
    colls = sorted({s.coll for s in stats})
    low, high = min(s.busbw_min for s in stats), max(s.busbw_max for s in stats)
    out.add("inspector", f"{records:,} NCCL Inspector record(s) from {len(ranks)} rank(s) on {len(hosts)} host(s): "
            f"{_list(colls)}, busbw {low:.3g} to {high:.3g} GB/s.", first)
    spanning = [s for s in stats if s.nnodes is not None and s.nnodes > 1]
    if spanning and not any(s.nnodes == 1 for s in stats):
        line = min(s.first_line for s in spanning)
        out.add("inspector", "Every Inspector record comes from a communicator spanning several nodes, where each "
                "rank waits for the slowest: per-rank busbw there does not single out a node (run each node's own "
                "communicator, e.g. nccl-tests on one node at a time, to compare nodes).", line)
    out.facts["inspector"] = {"records": records, "ranks": len(ranks), "hosts": len(hosts), "collectives": colls}


def _nodes(log: DebugLog, out: Explanation, runs: list) -> None:
    """Per-node verdicts: the node that differs from its peers, with the lines it rests on."""
    verdicts = node_verdicts(log, runs)
    for verdict in verdicts[:_MAX_SHOWN]:
        out.add("nodes", verdict.text, verdict.line, severity=CAUSE)
    if len(verdicts) > _MAX_SHOWN:
        out.add("nodes", f"{len(verdicts) - _MAX_SHOWN} more node verdict(s) in the JSON output.", verdicts[0].line)
    compared = len(log.host_links) > 1 or len({s.host for s in log.init_timings.values() if s.host}) > 1 or len(
        {s.host for s in log.inspector.values()}) > 1 or sum(1 for r in runs if r.hostnames) > 1
    if compared and not verdicts:
        out.add("nodes", f"No node stands out from its peers in what the lines show per host (NIC lists, transports, "
                f"GPUDirect RDMA, set-up time, and busbw where runs or records are per node; a node is named under "
                f"{OUTLIER_RATIO:.0%} of its peers' busbw).", 0)
    out.facts["node_outliers"] = [v.as_dict() for v in verdicts]
    out.facts["per_node"] = node_table(log, verdicts) if compared else []


def _gpu_id(log: DebugLog, vendor: str) -> tuple[str, str]:
    if log.gpu_name:
        name = log.gpu_name.value.upper().replace(" ", "")
        for key, gpu in sorted(_GPU_NAMES, key=lambda kv: -len(kv[0])):
            if key in name:
                return gpu, f"the GPU named on line {log.gpu_name.line} ({log.gpu_name.value})"
    gpu = _DEFAULT_GPU.get(vendor, "h100-sxm")
    named = f" (line {log.gpu_name.line} names {log.gpu_name.value}, not in the catalog)" if log.gpu_name else ""
    return gpu, f"assumed {gpu}: the log does not name a GPU the catalog knows{named}"


def link_cluster(query: dict[str, str]) -> Any:
    """The cluster a link's cluster keys describe, read exactly as a page reads its link (the cluster parameters'
    own readers and defaults), so the model here and the All-reduce page opened with ``query`` agree."""
    values, _ = parse_state(cluster_specs(), query)
    cluster, _ = resolve_cluster(values["gpu"], **cluster_inputs(values))
    return cluster


def _fabric(log: DebugLog, network: str | None) -> str:
    if network == "Socket":
        return "ethernet"
    if network and "Libfabric" in network:
        return "efa"
    if log.ib_nics and any(e.link_layer == "RoCE" for e in log.ib_nics.value):
        return "roce"
    if network and network.startswith("IB"):
        return "infiniband"
    return "auto"


def _cluster(log: DebugLog, out: Explanation, vendor: str, network: str | None, nodes: dict, gpn: dict,
             nics_per_node: int | None, runs: list) -> None:
    gpu, gpu_how = _gpu_id(log, vendor)
    query = {"gpu": gpu}
    if gpn["value"]:
        query["gpn"] = str(gpn["value"])
    query["nodes"] = str(nodes["value"] or 1)  # always: the All-reduce page's own default is 4 nodes
    per_run = {len(set(r.hostnames)) for r in runs if r.hostnames}
    if out.facts.get("sequential_runs") and len(per_run) == 1:
        query["nodes"] = str(per_run.pop())  # runs one after another, each on its own node(s): one run's cluster
    fabric = _fabric(log, network)
    if fabric != "auto":
        query["fabric"] = fabric
    if nics_per_node and network != "Socket" and log.ib_nics:
        query["nics"] = str(nics_per_node)
    out.cluster_query = {k: v for k, v in query.items() if k in CLUSTER_KEYS}
    out.assumptions.append(f"GPU: {gpu_how}.")
    out.facts["gpu"] = gpu
    job = _job_sizes(log)
    if not runs and not job:
        return
    if runs:
        run = max(runs, key=lambda r: r.size_bytes.size)
        collective = run.collective or "all_reduce"
    else:
        collective = job[0]["collective"]
    try:
        cluster = link_cluster(out.cluster_query)
        comparison = compare_collective(cluster, collective, run.size_bytes, run.time_us) if runs else None
    except (ValueError, KeyError, ArithmeticError) as exc:
        out.add("model", f"The log's nccl-tests rows could not be compared with the model ({exc}).", warn=True)
        return
    line = log.table_lines[0][0] if log.table_lines else 0
    out.measured = _measured(cluster, collective, comparison, line, [j for j in job if j["collective"] == collective])
    if comparison is None:
        return
    index = int(comparison.size_bytes.argmax())
    measured = float(comparison.measured_busbw_gbps[index])
    model = float(comparison.model_busbw_gbps[index])
    ratio = measured / model if model > 0 else math.nan
    size = int(comparison.size_bytes[index])
    band = out.measured["bands"].get(size_band(size))
    inside = ""
    if band and band["low"] is not None:
        verdict = "inside" if band["low"] <= ratio <= band["high"] else "outside"
        share = f"{round(band['coverage'] * 100)} % of " if band.get("coverage") else ""
        inside = (f" The model's band there (where {share}published tables like this fall): {band['low']:.0%} to "
                  f"{band['high']:.0%} of the model; this run is {verdict} it.")
    out.add("model", f"At the largest size in the log ({size:,} B), {collective.replace('_', '-')} busbw is "
            f"{measured:.3g} GB/s; the model gives {model:.3g} GB/s on {cluster.describe()} "
            f"({ratio:.0%} of the model).{inside} {gpu_how[0].upper() + gpu_how[1:]}.", line,
            severity=CAUSE if ratio < 0.5 else 0)
    if size < 1 << 20:
        out.add("model", "Only small messages are in the log: busbw there measures latency, not bandwidth.", line)
    out.facts["comparison"] = {"collective": collective, "size_bytes": size, "measured_busbw_gbps": measured,
                               "model_busbw_gbps": model, "rows": int(comparison.size_bytes.size)}


#: COLL trace names -> the model's collective keys.
_COLL_OPS = {"AllReduce": "all_reduce", "AllGather": "all_gather", "ReduceScatter": "reduce_scatter",
             "AlltoAll": "alltoall", "Send": "sendrecv", "Recv": "sendrecv"}


def _job_sizes(log: DebugLog) -> list[dict[str, Any]]:
    """The sizes the job's COLL lines name, per collective the model knows (largest number of calls first)."""
    merged: dict[tuple[str, int], dict[str, Any]] = {}
    for stat in log.collectives.values():
        key = _COLL_OPS.get(stat.op)
        if key is None or stat.max_bytes is None or stat.max_bytes <= 0:
            continue
        for size in {stat.min_bytes or stat.max_bytes, stat.max_bytes}:
            entry = merged.setdefault((key, int(size)), {"collective": key, "op": stat.op, "size_bytes": int(size),
                                                         "calls": 0, "nranks": stat.nranks, "line": stat.first_line})
            entry["calls"] += stat.calls
            entry["line"] = min(entry["line"], stat.first_line)
    found = sorted(merged.values(), key=lambda j: (-j["calls"], j["size_bytes"]))
    return found[:_MAX_SHOWN]


def _measured(cluster: Any, collective: str, comparison: Any, line: int, job: list[dict[str, Any]]) -> dict[str, Any]:
    """The model's busbw curve over message size on the log's cluster, shaded by its band (the model's error on
    the published tables like this case, per size band), with the log's measured rows and the job's sizes."""
    top = 2.0 ** 30
    if comparison is not None and comparison.size_bytes.size:
        top = max(top, float(comparison.size_bytes.max()) * 2)
    top = max([top, *(2.0 * j["size_bytes"] for j in job)])
    sizes = 2.0 ** np.arange(3, math.ceil(math.log2(top)) + 1)
    curve = compare_collective(cluster, collective, sizes, np.ones_like(sizes))  # the model's side only
    bands = {}
    for name, at in (("small", 8.0), ("middle", float(2**20)), ("large", float(2**30))):
        band = collective_band(cluster, collective, at)
        # time ratios model / measured: measured busbw / model busbw is the same ratio
        bands[name] = {"low": band.low, "high": band.high, "median": band.median, "n": band.n,
                       "coverage": band.coverage, "text": band.text(), "basis": band.basis}
    low = [None if bands[size_band(s)]["low"] is None else float(m) * bands[size_band(s)]["low"]
           for s, m in zip(sizes, curve.model_busbw_gbps, strict=True)]
    high = [None if bands[size_band(s)]["high"] is None else float(m) * bands[size_band(s)]["high"]
            for s, m in zip(sizes, curve.model_busbw_gbps, strict=True)]
    rows = []
    if comparison is not None:
        rows = [{"size_bytes": int(s), "measured_busbw_gbps": float(b), "model_busbw_gbps": float(m)}
                for s, b, m in zip(comparison.size_bytes, comparison.measured_busbw_gbps,
                                   comparison.model_busbw_gbps, strict=True)]
    model_at = {}
    if job:
        at = compare_collective(cluster, collective, np.array([j["size_bytes"] for j in job], dtype=float),
                                np.ones(len(job)))
        model_at = {j["size_bytes"]: float(b) for j, b in zip(job, at.model_busbw_gbps, strict=True)}
    return {"collective": collective, "cluster": cluster.describe(), "line": line, "rows": rows,
            "curve": {"size_bytes": [int(s) for s in sizes], "busbw_gbps": [float(b) for b in curve.model_busbw_gbps],
                      "band_low": low, "band_high": high},
            "bands": bands,
            "job": [{**j, "model_busbw_gbps": model_at.get(j["size_bytes"])} for j in job]}


def _noise(log: DebugLog, out: Explanation) -> None:
    # the same WARN from many ranks (or repeated by one) is one finding with its count and first line
    seen: dict[str, list[int]] = {}
    for warning in log.warnings:
        seen.setdefault(warning.value, []).append(warning.line)
    for text, lines in list(seen.items())[:5]:
        # a WARN that reports a failure is the job's error; the others are advice ("Missing ... which can lead to")
        failed = any(word in text.lower() for word in FAILURE_WORDS)
        where = next((words for part, words in _TRANSPORT_FILES if part in text), "")
        more = " or more" if len(log.warnings) >= _MAX_WARNINGS_KEPT else ""
        times = f" ({len(lines)} times{more}, lines {_list([str(n) for n in lines])})" if len(lines) > 1 else ""
        out.add("warnings", f"NCCL WARN: {text}{times}{where}", lines[0], severity=CAUSE if failed else WARNING)
    if log.other_errors:
        first = log.other_errors[0]
        lines = _list([str(at.line) for at in log.other_errors])
        out.add("warnings", f"Another library on the communication path reports an error ({log.other_error_count} "
                f"line(s), lines {lines}): \"{first.value}\". Not a NCCL line: the failure may be below NCCL (its "
                "network plugin's transport, the NIC driver) or above it (the framework's process group).",
                first.line, severity=CAUSE)
    if log.skipped_count:
        shown = ", ".join(str(n) for n in log.skipped[:10])
        more = "…" if log.skipped_count > 10 else ""
        out.add("skipped", f"{log.skipped_count} line(s) are not NCCL output and were skipped (lines {shown}{more}).",
                log.skipped[0] if log.skipped else 0)
    if log.cut_lines:
        out.add("skipped", f"{len(log.cut_lines)} line(s) were longer than the reader's limit and were cut.",
                log.cut_lines[0], warn=True)
    if log.stopped_at:
        out.add("skipped", f"Reading stopped at line {log.stopped_at:,} (the reader's limit).", log.stopped_at,
                warn=True)
    out.facts["skipped"] = {"count": log.skipped_count, "lines": log.skipped[:200], "cut": log.cut_lines[:200]}
