"""The line loop: each line once, its prefixes removed, its message read and added to a :class:`DebugLog`.

A line holding ``NCCL INFO``/``NCCL WARN`` is split by :func:`~.prefix.split_line`; any other line is cleaned of
launcher prefixes and read only if it starts like a message NCCL prints (posters often strip the prefix), else
it is kept as a candidate nccl-tests table line (``#`` or a digit first) or counted as skipped. Every step is a
bounded string operation on a line of at most :data:`~.limits.MAX_LINE_CHARS`, so the pass is linear in the input.
"""

from __future__ import annotations

from interconnect.io.nccl_debug import messages as msg
from interconnect.io.nccl_debug.limits import MAX_KEPT, MAX_SKIPPED_LISTED, MAX_TABLE_LINES
from interconnect.io.nccl_debug.prefix import Prefix, split_line, strip_launcher
from interconnect.io.nccl_debug.result import (
    At,
    CollectiveStat,
    DebugLog,
    HostLinks,
    HostStat,
    InitStat,
    InspectorStat,
    NicUse,
    PeerStat,
    Place,
    TransportStat,
)

__all__ = ["FAILURE_WORDS", "OTHER_ERROR_MARKERS", "Collector"]

#: How bare messages (no ``NCCL INFO`` before them) start. Only these are read from unprefixed lines.
_BARE_STARTS = ("NCCL version", "RCCL version", "Bootstrap", "NET/", "Using network", "Using internal Network",
                "Channel ", "Ring ", "Trees ",
                "CollNet ", "Coll ", "GPU Direct RDMA", "comm 0x", "ncclCommInit", "NVLS ", "MNNVL ", "P2P plugin",
                "Plugin Path", "Connected all", "Connected NVLS", "threadThresholds", "Init COMPLETE",
                "Init timings")
#: Words that make a NCCL WARN line a report of a failure rather than advice ("Missing ... which can lead to").
FAILURE_WORDS = ("fail", "error", "timeout", "timed out", "abort", "unhandled", "port error")
#: Markers of an error reported by a library on the communication path rather than by NCCL: UCX (a network
#: plugin's transport), the mlx5 driver, libfabric, and PyTorch's NCCL process group.
OTHER_ERROR_MARKERS = ("UCX  ERROR", "UCX ERROR", "mlx5: ", "libfabric:", "NCCL error", "DistBackendError",
                       "Watchdog caught collective operation timeout", "ncclInternalError", "ncclSystemError",
                       "ncclUnhandledCudaError", "ncclRemoteError")
_MAX_TUNING = 60
_MAX_WARNINGS = 50


_HEX = frozenset("0123456789abcdefABCDEF")
_SOURCE_SUFFIXES = (".cc:", ".cu:", ".c:", ".cpp:", ".h:")


def _source_file(line: str) -> str:
    """`` (in transport/p2p.cc:228)`` when NCCL printed the source file of its WARN (``.../p2p.cc:228 NCCL WARN``)."""
    at = line.find(" NCCL WARN")
    words = line[max(0, at - 200):at].split() if at > 0 else []
    word = words[-1] if words else ""
    if not any(suffix in word for suffix in _SOURCE_SUFFIXES):
        return ""
    tail = "/".join(word.split("/")[-2:])[:80]
    return f" (in {tail})"


def _first(current: At | None, value: object, line: int) -> At:
    return current if current is not None else At(value, line)


class Collector:
    """Reads lines in order into :attr:`log` (call :meth:`add` per line)."""

    def __init__(self) -> None:
        self.log = DebugLog()
        self._rccl_banner = False
        self._heads: dict[str, Prefix] = {}  # a line's text up to its level marker -> its prefix, read once
        self._record: dict[str, str | float] = {}  # the NCCL Inspector record being read (its keys so far)

    # -- per line --------------------------------------------------------------------------------------

    def add(self, number: int, line: str, cut: bool) -> None:
        """Read line ``number`` (``cut``: it was longer than the limit and was cut)."""
        log = self.log
        log.lines = number
        if cut:
            log.cut_lines.append(number) if len(log.cut_lines) < MAX_SKIPPED_LISTED else None
        if line.startswith(("# source:", "# what:", "# trimmed:")):
            return
        split = self._split(line) if "NCCL " in line else None
        if split is not None:
            prefix, message, new = split
            log.nccl_lines += 1
            if new:
                self._prefix(prefix, number)
            if prefix.level == "WARN":
                if len(log.warnings) < _MAX_WARNINGS:
                    log.warnings.append(At(message.strip()[:300] + _source_file(line), number))
                lowered = message[:300].lower()
                if any(word in lowered for word in FAILURE_WORDS):
                    links = self._links(prefix)
                    if links is not None:
                        links.failures += 1
                        if links.first_failure is None:
                            links.first_failure = At(message.strip()[:200], number)
            self._message(message.strip(), number, prefix)
            return
        text, rank = strip_launcher(line)
        if text.startswith(_BARE_STARTS) or (text[:1].isdigit() and " coll channels," in text[:30]) \
                or (text.startswith("+ ") and msg.topology_link(text) is not None) \
                or (": opCount " in text[:50]) or (" set by environment to " in text[:90]) \
                or (self._rccl_banner and text.startswith(("HIP version", "ROCm version", "Hostname", "Librccl"))):
            log.nccl_lines += 1
            if rank is not None:
                self._launcher_rank(rank, number)
            self._message(text.strip(), number, None)
            return
        if "NCCL version " in text or text.startswith("RCCL version"):  # in an error message
            self._version(text, number, bare=False)
            log.nccl_lines += 1
            return
        stripped = text.strip()
        if not stripped:
            return
        if stripped[0] in '{}"[]' and self._json_line(stripped, number):
            return
        if stripped[0] == "#" or stripped[0].isdigit():
            if stripped.startswith("#  Rank") or stripped.startswith("# Rank"):
                self._tests_rank(stripped, number)
            if len(log.table_lines) < MAX_TABLE_LINES:
                log.table_lines.append((number, text))
            return
        log.skipped_count += 1
        if len(log.skipped) < MAX_SKIPPED_LISTED:
            log.skipped.append(number)
        head = stripped[:400]
        if any(marker in head for marker in OTHER_ERROR_MARKERS) and (
                "ERROR" in head or "rror" in head or "timeout" in head):
            log.other_error_count += 1
            if len(log.other_errors) < 20:
                log.other_errors.append(At(head[:200], number))

    def _split(self, line: str) -> tuple[Prefix, str, bool] | None:
        """:func:`split_line`, the prefix of a head already seen taken from a bounded cache.

        Every thread of a job repeats its ``host:pid:tid [dev] NCCL INFO`` on each line; ``new``: first time seen.
        """
        info, warn = line.find(" NCCL INFO "), line.find(" NCCL WARN ")
        at = info if warn < 0 or (0 <= info < warn) else warn
        if at < 0:
            split = split_line(line)
            return None if split is None else (split[0], split[1], True)
        head = line[:at + 11]
        prefix = self._heads.get(head)
        if prefix is not None:
            return prefix, line[at + 11:], False
        split = split_line(line)
        if split is None:
            return None
        if len(self._heads) >= MAX_KEPT:
            self._heads.clear()
        self._heads[head] = split[0]
        return split[0], split[1], True

    def _json_line(self, text: str, number: int) -> bool:
        """Read a line of the NCCL Inspector plugin's JSON output (a record a line, or pretty-printed).

        Returns ``True`` when the line belongs to such output (other keys and braces pass once records started).
        """
        log = self.log
        fields = msg.inspector_fields(text) if '"' in text else []
        if not fields:
            if '"header"' in text:
                log.nccl_lines += 1
                log.inspector_lines += 1
                self._record = {}
                return True
            return log.inspector_lines > 0
        log.nccl_lines += 1
        log.inspector_lines += 1
        record = self._record
        for key, value in fields:
            if key == "rank":  # a record's header starts with its rank: what came before belongs to another
                record.clear()
            record[key] = value
            if key == "coll_busbw_gbs":
                self._inspector_record(record, number)
                for done in ("coll", "coll_msg_size_bytes", "coll_exec_time_us", "coll_busbw_gbs"):
                    record.pop(done, None)
        return True

    def _inspector_record(self, record: dict[str, str | float], number: int) -> None:
        rank, host, coll = record.get("rank"), record.get("hostname"), record.get("coll")
        size, busbw = record.get("coll_msg_size_bytes"), record.get("coll_busbw_gbs")
        if not (isinstance(rank, float) and isinstance(host, str) and isinstance(coll, str)
                and isinstance(size, float) and isinstance(busbw, float)) or not host:
            return
        # a rank, a size and a busbw a real record can hold (finite, in range): anything else is skipped
        if not (0 <= rank < 1e7 and 0 < size < 1e18 and 0 <= busbw < 1e6):
            return
        log = self.log
        key = (host[:80], int(rank), coll[:40], int(size))
        if key[0] not in log.hosts and len(log.hosts) < MAX_KEPT:  # the record's host is a node of the job
            log.hosts[key[0]] = HostStat(number)
        stat = log.inspector.get(key)
        if stat is None:
            if len(log.inspector) >= MAX_KEPT:
                return
            nnodes = record.get("nnodes")
            nodes = int(nnodes) if isinstance(nnodes, float) and 0 < nnodes < 1e7 else None
            stat = log.inspector[key] = InspectorStat(key[0], key[1], key[2], key[3], nodes, number)
        stat.count += 1
        stat.busbw_sum += busbw
        stat.busbw_min = min(stat.busbw_min, busbw)
        stat.busbw_max = max(stat.busbw_max, busbw)
        self._rank(int(rank), number)

    def _links(self, prefix: Prefix | None) -> HostLinks | None:
        """Return the per-host record of ``prefix``'s host (None without a host, or past the cap)."""
        if prefix is None or not prefix.host:
            return None
        links = self.log.host_links.get(prefix.host)
        if links is None and len(self.log.host_links) < MAX_KEPT:
            links = self.log.host_links[prefix.host] = HostLinks()
        return links

    # -- pieces ----------------------------------------------------------------------------------------

    def _launcher_rank(self, rank: int, number: int) -> None:
        log = self.log
        if log.launcher_max_rank is None or rank > log.launcher_max_rank.value:
            log.launcher_max_rank = At(rank, number)

    def _rank(self, rank: int, number: int) -> None:
        log = self.log
        if log.max_rank is None or rank > log.max_rank.value:
            log.max_rank = At(rank, number)

    def _prefix(self, prefix: Prefix, number: int) -> None:
        log = self.log
        if prefix.launcher_rank is not None:
            self._launcher_rank(prefix.launcher_rank, number)
        if prefix.host is not None:
            stat = log.hosts.get(prefix.host)
            if stat is None and len(log.hosts) < MAX_KEPT:
                stat = log.hosts[prefix.host] = HostStat(number)
            if stat is not None:
                if prefix.device is not None and len(stat.devices) < 4096:
                    stat.devices.add(prefix.device)
                if prefix.pid is not None and len(stat.pids) < MAX_KEPT:
                    stat.pids.add(prefix.pid)
        if prefix.pid is not None and len(log.processes) < MAX_KEPT:
            log.processes.add(prefix.pid)

    def _version(self, message: str, number: int, *, bare: bool) -> bool:
        found = msg.version(message)
        if found is None:
            return False
        log = self.log
        name, cuda, vendor = found
        log.version = _first(log.version, name, number)
        if cuda:
            log.cuda = _first(log.cuda, cuda, number)
        if vendor == "amd":
            log.vendor = _first(log.vendor, "amd", number)
            self._rccl_banner = True
        log.versions.setdefault(name, number) if len(log.versions) < 100 else None
        if bare:
            log.runs += 1
        return True

    def _tests_rank(self, text: str, number: int) -> None:
        """nccl-tests' ``#  Rank  0 Group  0 Pid  33347 on host device  0 [0x0f] NVIDIA H800``."""
        words = text.lstrip("#").split()
        if len(words) >= 2 and words[1].isascii() and words[1].isdigit() and len(words[1]) <= 7:
            self._rank(int(words[1]), number)
        if "on" in words[:8] and "device" in words:  # "... Pid 4021 on h100-1 device 7 [0x1f] ...": a GPU of that host
            at, dev = words.index("on"), words.index("device")
            host, device = words[at + 1] if at + 1 < len(words) else "", words[dev + 1] if dev + 1 < len(words) else ""
            if dev == at + 2 and device.isascii() and device.isdigit() and len(device) <= 4 and 0 < len(host) <= 80:
                stat = self.log.hosts.get(host)
                if stat is None and len(self.log.hosts) < MAX_KEPT:
                    stat = self.log.hosts[host] = HostStat(number)
                if stat is not None and len(stat.devices) < 4096:
                    stat.devices.add(int(device))
        close = text.rfind("] ")
        if close > 0 and " device " in text and self.log.gpu_name is None:
            name = text[close + 2:].strip()
            if 0 < len(name) <= 80:
                self.log.gpu_name = At(name, number)

    def _message(self, message: str, number: int, prefix: Prefix | None) -> None:  # noqa: C901 - one dispatch
        log = self.log
        if ": opCount " in message[:50]:  # COLL trace lines: most of a long job's log, so tested first
            self._coll(message, number)
            return
        first = message[:1]
        if first in "NR" and (message.startswith("NCCL version") or message.startswith("RCCL version")):
            self._version(message, number, bare=prefix is None)
            return
        if first == "+":
            self._topology(message, number, prefix)
            return
        if first == "I" and message.startswith("Init timings"):
            timing = msg.init_timing(message)
            if timing is not None and 0 <= timing.total_s < 1e6 and (
                    timing.rank in log.init_timings or len(log.init_timings) < MAX_KEPT):
                log.init_timings.setdefault(timing.rank, InitStat(
                    timing.rank, prefix.host if prefix is not None else None, timing.total_s, timing.parts, number))
            return
        if first == "C":
            if message.startswith(("Channel ", "Connected")):
                self._channel(message, number, prefix)
                return
            if message.startswith(("CollNet ", "Coll ")):
                self._collnet(message, number)
                return
        if first == "G" and message.startswith("GPU Direct RDMA "):
            self._gdr_pair(message, number)
            return
        if first == "R" and message.startswith("Ring "):
            self._channel(message, number, prefix)
            return
        if message.startswith("Using network") or message.startswith("Using internal Network"):
            name = message.split()[-1] if message.split() else ""
            if name and len(name) <= 40:
                if message.startswith("Using network AWS"):
                    name = "AWS Libfabric"
                log.network = _first(log.network, name, number)
                log.networks.setdefault(name, number) if len(log.networks) < 20 else None
            return
        if message.startswith("NET/"):
            self._net(message, number, prefix)
            return
        if message.startswith("Bootstrap"):
            found = msg.interfaces(message)
            if found:
                log.bootstrap = _first(log.bootstrap, found[0][1], number)
            return
        if message.startswith("Trees "):
            self._trees(message, number)
            return
        if message.startswith(("P2P plugin ", "NET/Plugin")) or message.startswith("Plugin Path"):
            if message.startswith("P2P plugin "):
                log.plugin = _first(log.plugin, message[11:].strip()[:40], number)
            return
        if message.startswith("NVLS multicast support is "):
            if " not available" in message:
                log.nvls_unavailable = log.nvls_unavailable or number
            elif " available" in message:
                log.nvls_available = log.nvls_available or number
            return
        if message.startswith("NVLS comm") or message.startswith("Connected NVLS"):
            log.nvls_used = log.nvls_used or number
            return
        if "GPU Direct RDMA Disabled" in message[:60]:
            log.gdr_disabled = _first(log.gdr_disabled, message[:200], number)
            return
        if message.startswith("Failed to open libibverbs") or "libibverbs" in message[:40]:
            log.no_verbs = log.no_verbs or number
            return
        if first.isdigit():
            counts = msg.channel_counts(message)
            if counts is not None:
                log.coll_channels = _first(log.coll_channels, counts[0], number)
                if counts[1] is not None:
                    if log.nvls_channels is None or (counts[1] > 0 and log.nvls_channels.value == 0):
                        log.nvls_channels = At(counts[1], number)
                return
        if message.startswith("threadThresholds") or message.startswith("Latency/AlgBw") or (
                " |" in message[:20] and "/" in message[:40]):
            if len(log.tuning) < _MAX_TUNING:
                log.tuning.append(At(message[:400], number))
            return
        if "comm 0x" in message[:60]:
            self._comm(message, number, prefix)
            return
        if ": opCount " in message[:50]:
            self._coll(message, number)
            return
        if " set " in message[:70]:
            setting = msg.env_setting(message)
            if setting is not None and setting[0] not in log.env and len(log.env) < 200:
                log.env[setting[0]] = At(setting[1][:120], number)
                if setting[0] == "NCCL_P2P_LEVEL" and setting[1].upper().startswith("XGMI"):  # AMD's link
                    log.vendor = _first(log.vendor, "amd", number)
            return
        if message.startswith("ROCr version") or "librccl" in message[:80]:
            log.vendor = _first(log.vendor, "amd", number)

    def _topology(self, message: str, number: int, prefix: Prefix | None) -> None:
        """Read a line of the topology dump: its link kind, its GPUs, and for a NIC port its rate (GB/s), per host."""
        found = msg.topology_link(message)
        if found is None:
            return
        kind, rate, node, ident = found
        log = self.log
        if kind not in log.topo_links and len(log.topo_links) < 32:
            log.topo_links[kind] = number
        if kind == "XGMI":  # AMD's GPU link
            log.vendor = _first(log.vendor, "amd", number)
        if node == "GPU":
            links = self._links(prefix)
            if links is not None and ident not in links.topo_gpus and len(links.topo_gpus) < 4096:
                links.topo_gpus[ident] = number
        # a port at 0 GB/s is no rate NCCL can use (a damaged line): it is not a NIC port's rate
        if kind == "NET" and node == "NET" and rate > 0 and len(ident) <= 4 and all(c in _HEX for c in ident):
            index = int(ident, 16)  # NCCL prints node ids in hex ("%lX", "%lx" from 2.23)
            if index not in log.topo_nets and len(log.topo_nets) < 256:
                log.topo_nets[index] = At(rate, number)
            links = self._links(prefix)
            if links is not None and index not in links.net_speeds and len(links.net_speeds) < 256:
                links.net_speeds[index] = At(rate, number)

    def _net(self, message: str, number: int, prefix: Prefix | None) -> None:
        log = self.log
        if message.startswith(("NET/IB : Using", "NET/IB: Using")):
            found = msg.ib_devices(message)
            if found is not None:
                entries, relaxed, oob = found
                if entries and log.ib_nics is None:
                    log.ib_nics = At(tuple(entries), number)
                links = self._links(prefix)
                if links is not None and links.nic_list is None:
                    links.nic_list = At(tuple(entries), number)
                log.relaxed_ordering = log.relaxed_ordering or relaxed
                if oob is not None:
                    log.oob = _first(log.oob, oob, number)
            return
        if message.startswith(("NET/Socket : Using", "NET/Socket: Using")):
            found = msg.interfaces(message)
            if found and log.socket_nics is None:
                log.socket_nics = At(tuple(found), number)
            return
        if message.startswith("NET/IB") and "No device found" in message:
            log.ib_absent = log.ib_absent or number
            return
        if "GPU Direct RDMA Disabled" in message:
            log.gdr_disabled = _first(log.gdr_disabled, message[:200], number)
            return
        if "GPU Direct RDMA Enabled for GPU" in message[:60]:  # NCCL 2.4's "NET/IB : GPU Direct RDMA Enabled for GPU"
            log.gdr_enabled = _first(log.gdr_enabled, message[:200], number)
            return
        speed = msg.ib_device_speed(message)
        if speed is not None:
            index, name, mbits = speed
            if index not in log.ib_speeds and len(log.ib_speeds) < 256:
                log.ib_speeds[index] = At((name[:80], mbits), number)
            return
        if message.startswith("NET/Plugin") and "Loaded net plugin " in message:
            name = message.split("Loaded net plugin ", 1)[1].strip()[:60]
            if name.endswith(")") and " (v" in name:  # "... (v8)": the plugin API version NCCL loaded
                name = name[:name.rfind(" (v")].strip()
            if name:
                log.plugin = _first(log.plugin, name, number)
        if message.startswith("NET/OFI") and "Selected Provider is " in message:
            words = message.split("Selected Provider is ", 1)[1].split()
            nics = None
            if "(found" in words:
                after = words[words.index("(found") + 1] if words.index("(found") + 1 < len(words) else ""
                nics = int(after) if after.isascii() and after.isdigit() and len(after) <= 5 else None
            if words:
                log.efa = _first(log.efa, (words[0], nics), number)
            return
        if message.startswith("NET/Plugin") and "librccl" in message:
            log.vendor = _first(log.vendor, "amd", number)

    def _gdr_pair(self, message: str, number: int) -> None:
        """``GPU Direct RDMA Enabled|Disabled for GPU <id> / HCA <id> (distance d <= | > level)``: one GPU-NIC pair."""
        log = self.log
        if message.startswith("GPU Direct RDMA Enabled"):
            log.gdr_enabled = _first(log.gdr_enabled, message[:200], number)
        elif message.startswith("GPU Direct RDMA Disabled"):
            log.gdr_disabled = _first(log.gdr_disabled, message[:200], number)

    def _collnet(self, message: str, number: int) -> None:
        """Count a CollNet (in-network reduction, e.g. SHARP) connection line, apart from the peer transports."""
        found = msg.collnet_line(message)
        if found is None:
            return
        log = self.log
        rank, _, plugin, _, gdr = found
        log.collnet = _first(log.collnet, f"COLLNET/{plugin}", number)
        log.collnet_count += 1
        log.collnet_gdr += int(gdr)
        self._rank(rank, number)

    def _channel(self, message: str, number: int, prefix: Prefix | None) -> None:
        log = self.log
        if message.startswith("Connected all rings"):
            if " comm 0x" in message and " nRanks " in message:  # RCCL's suffix, as on its Trees line
                log.vendor = _first(log.vendor, "amd", number)
            at = message.find(" GDR ")
            if at > 0 and message[at + 5:at + 6].isascii() and message[at + 5:at + 6].isdigit():
                log.ring_gdr = _first(log.ring_gdr, int(message[at + 5]), number)
            return
        if message.startswith("Connected"):
            if "NVLS" in message[:20]:
                log.nvls_used = log.nvls_used or number
            return
        connection = msg.connection(message)
        if connection is not None:
            self._connection(connection, number, prefix, message)
            return
        listing = msg.ring_listing(message)
        if listing is not None:
            _, channels, ranks = listing
            log.rings = _first(log.rings, channels, number)
            if log.ring_ranks is None or len(ranks) > log.ring_ranks.value:
                log.ring_ranks = At(len(ranks), number)
            self._rank(max(ranks), number)

    def _connection(self, c: msg.Connection, number: int, prefix: Prefix | None, message: str) -> None:
        log = self.log
        log.connections += 1
        if c.comm_nranks is not None:  # only RCCL appends "comm 0x.. nRanks NN" to its connection lines
            log.vendor = _first(log.vendor, "amd", number)
            log.trees_nranks = _first(log.trees_nranks, c.comm_nranks, number)
        if message.startswith("Ring ") and log.old_forms is None:
            log.old_forms = At("Ring NN : connection lines (NCCL 2.6 or older)", number)
        elif c.transport.startswith("NET/") and log.old_forms is None and "/" not in message[8:16].split(" :")[0]:
            # NCCL 2.9 added the connection index ("Channel 00/0 :"); only SHM lines and RCCL's P2P lines kept
            # the old form, never a network connection
            log.old_forms = At("network connection lines without the /N connection index (NCCL 2.8 or older)",
                               number)
        if c.bracket_is_bus_id:
            log.bus_id_brackets += 1
        self._rank(max(c.sender, c.receiver), number)
        stat = log.transports.get(c.transport)
        if stat is None:
            if len(log.transports) >= 64:
                return
            stat = log.transports[c.transport] = TransportStat(first_line=number, raw=c.raw[:60])
        self._peer(c, number, prefix)
        self._host_link(c, number, prefix)
        stat.count += 1
        stat.read_mode = stat.read_mode or c.raw.endswith("/read")
        if c.transport.startswith("NET/"):
            if c.gdr:
                stat.gdr_on += 1
                stat.first_gdr_line = stat.first_gdr_line or number
            else:
                stat.gdr_off += 1
                stat.first_no_gdr_line = stat.first_no_gdr_line or number
            if c.nic is not None:
                key = (c.transport, c.nic)
                use = log.nic_use.get(key)
                if use is None and len(log.nic_use) < 1024:
                    use = log.nic_use[key] = NicUse(c.transport, c.nic, first_line=number)
                if use is not None:
                    use.count += 1
                    own = c.sender if c.direction == "send" else c.receiver
                    if len(use.ranks) < MAX_KEPT:
                        use.ranks.add(own)
                    if prefix is not None and prefix.host and len(use.hosts) < MAX_KEPT:
                        use.hosts.add(prefix.host)

    def _host_link(self, c: msg.Connection, number: int, prefix: Prefix | None) -> None:
        """Count the connection under the host that printed it."""
        links = self._links(prefix)
        if links is None:
            return
        count = links.transports.get(c.transport)
        if count is None:
            if len(links.transports) >= 64:
                return
            count = links.transports[c.transport] = [0, number]
        count[0] += 1
        if c.transport.startswith("NET/"):
            if c.gdr:
                links.gdr_on += 1
            else:
                links.gdr_off += 1
                links.first_gdr_off = links.first_gdr_off or number
            if c.nic is not None and len(links.nics_used) < 256:
                links.nics_used.setdefault(f"{c.transport}/{c.nic}", number)

    def _place(self, rank: int, host: str | None, device: int | None, number: int) -> None:
        """Note where ``rank`` runs; a later line fills in what an earlier one left unknown."""
        places = self.log.places
        place = places.get(rank)
        if place is None:
            if len(places) < MAX_KEPT and (host is not None or device is not None):
                places[rank] = Place(host, device, number)
            return
        if place.host is None and host is not None:
            place.host = host
        if place.device is None and device is not None:
            place.device = device

    def _peer(self, c: msg.Connection, number: int, prefix: Prefix | None) -> None:
        """Record the connection for the drawing: the rank pair's transports, NICs, and where its ranks run."""
        log = self.log
        own = c.receiver if c.direction == "receive" else c.sender
        own_device = c.receiver_device if own == c.receiver else c.sender_device
        host = prefix.host if prefix is not None else None
        device = prefix.device if prefix is not None and prefix.device is not None else own_device
        self._place(own, host, device, number)
        other = c.sender if own == c.receiver else c.receiver
        other_device = c.sender_device if own == c.receiver else c.receiver_device
        if other != own and other_device is not None:
            # a peer over P2P or SHM shares the node; its host is the printing rank's
            intra = not c.transport.startswith("NET/")
            self._place(other, host if intra else None, other_device, number)
        key = (c.sender, c.receiver) if c.sender <= c.receiver else (c.receiver, c.sender)
        peer = log.peers.get(key)
        if peer is None:
            if len(log.peers) >= MAX_KEPT:
                return
            peer = log.peers[key] = PeerStat(number)
        peer.transports[c.transport] = peer.transports.get(c.transport, 0) + 1
        if c.nic is not None and c.transport.startswith("NET/"):
            label = f"{c.transport}/{c.nic}"
            if len(peer.nics) < 64:
                peer.nics.add(label)
            if c.gdr:
                peer.gdr_on += 1
            nic_key = (own, label)
            if nic_key in log.rank_nics or len(log.rank_nics) < MAX_KEPT:
                log.rank_nics[nic_key] = log.rank_nics.get(nic_key, 0) + 1

    def _trees(self, message: str, number: int) -> None:
        log = self.log
        if "|" in message and log.old_forms is None:
            log.old_forms = At("Trees with up|down halves (NCCL 2.7 or older)", number)
        channels = message.count("[")
        log.trees = _first(log.trees, channels, number)
        nranks = msg.trees_nranks(message)
        if nranks is not None:  # "Trees ... comm 0x.. nRanks 08 busId ..": RCCL's form
            log.trees_nranks = _first(log.trees_nranks, nranks, number)
            log.vendor = _first(log.vendor, "amd", number)
        # ranks named in the tree: numbers around "->"
        body = message[6:message.find(" comm ")] if " comm " in message else message[6:]
        for word in body.replace("->", " ").replace("|", " ").replace("/", " ").split()[:4096]:
            if word.isascii() and word.isdigit() and len(word) <= 7:
                self._rank(int(word), number)

    def _comm(self, message: str, number: int, prefix: Prefix | None) -> None:
        log = self.log
        found = msg.comm_line(message)
        if found is None:
            return
        if prefix is not None:
            self._place(found.rank, prefix.host, prefix.device, number)
        if found.comm_id is not None and found.comm_id not in log.comm_ids and len(log.comm_ids) < MAX_KEPT:
            log.comm_ids[found.comm_id] = At(found.nranks, number)
        if log.comm_nranks is None or found.nranks > log.comm_nranks.value:
            log.comm_nranks = At(found.nranks, number)
        self._rank(found.rank, number)
        if found.nnodes is not None:
            log.nnodes = _first(log.nnodes, found.nnodes, number)
            log.local_ranks = _first(log.local_ranks, found.local_ranks, number)

    def _coll(self, message: str, number: int) -> None:
        log = self.log
        found = msg.coll_line(message)
        if found is None:
            return
        log.coll_nranks = _first(log.coll_nranks, found.nranks, number)
        key = (found.op, found.comm)
        stat = log.collectives.get(key)
        if stat is None:
            if len(log.collectives) >= MAX_KEPT:
                return
            stat = log.collectives[key] = CollectiveStat(found.op, found.comm, found.nranks, number)
        stat.calls += 1
        size = found.size_bytes
        if size is not None:
            stat.min_bytes = size if stat.min_bytes is None else min(stat.min_bytes, size)
            stat.max_bytes = size if stat.max_bytes is None else max(stat.max_bytes, size)
        if len(stat.datatypes) < 16:
            stat.datatypes.add(found.datatype)
        if len(stat.red_ops) < 16:
            stat.red_ops.add(found.red_op)
        if len(stat.op_counts) < 64:
            stat.op_counts.add(found.op_count)
        if found.op_count > stat.last_op_count:
            stat.last_op_count = found.op_count
