"""Reading one NCCL message (the text after ``NCCL INFO``, or a bare message a poster left without prefix).

Each function takes the message and returns what it says, or ``None`` if the message is not of its kind.
Patterns are anchored and have no nested repetition, and the messages they see are at most
:data:`~.limits.MAX_LINE_CHARS` long, so each call is linear in the message. The forms are those of
``tests/data/nccl_debug_logs/FORMAT.md`` (NCCL 2.4 to 2.25, RCCL 2.x) and those of
:mod:`.forms`, taken from NCCL's and RCCL's source (2.18 to 2.28).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "Connection",
    "NicEntry",
    "channel_counts",
    "coll_line",
    "comm_line",
    "connection",
    "env_setting",
    "ib_devices",
    "topology_link",
    "init_timing",
    "inspector_fields",
    "interfaces",
    "normalize_transport",
    "ring_listing",
    "version",
    "collnet_line",
    "ib_device_speed",
]

_VERSION_RE = re.compile(r"NCCL version (\d{1,3})\.(\d{1,3})\.(\d{1,4})(?:\+cuda(\d{1,3}\.\d{1,3}))?")
_RCCL_VERSION_RE = re.compile(r"RCCL version\s{0,8}:?\s{0,8}(\d{1,3})\.(\d{1,3})\.(\d{1,4})")
_CONNECTION_RE = re.compile(
    r"(?:Ring|Channel) (\d{1,4})(?:/(\d{1,4}))? : (\d{1,7})(?:\[([0-9a-fA-F]{1,16})\])? -> (\d{1,7})"
    r"(?:\[([0-9a-fA-F]{1,16})\])? (?:\[(send|receive)\] )?via (\S[^\n]{0,200})")
_COMM_RE = re.compile(r"(?:\w{1,40} )?comm (0x[0-9a-fA-F]{1,16}) rank (\d{1,7}) n[Rr]anks (\d{1,7})")
_NNODES_RE = re.compile(r"nNodes (\d{1,7}) localRanks (\d{1,7})")
_COMMID_RE = re.compile(r"commId (0x[0-9a-fA-F]{1,16})")
_COLL_RE = re.compile(
    r"(\w{1,40}): opCount ([0-9a-fA-F]{1,16}) sendbuff (\S{1,40}) recvbuff (\S{1,40}) count (\d{1,20}) "
    r"datatype (\d{1,3}) op (\d{1,3}) root (-?\d{1,7}) comm (0x[0-9a-fA-F]{1,16}) \[nranks=(\d{1,7})\]")
_CHANNELS_RE = re.compile(r"(\d{1,4}) coll channels,")
_NVLS_CHANNELS_RE = re.compile(r"(\d{1,4}) nvls channels")
_ENV_RE = re.compile(r"([A-Z][A-Z0-9_]{2,60}) set (?:by environment )?to (.{0,200})$")
_IB_ENTRY_RE = re.compile(r"\[(\d{1,4})\] ?([\w.\-]{1,64}):(\d{1,3})/(IB|RoCE|ETH|UNSPECIFIED)(/SHARP)?")
_IF_ENTRY_RE = re.compile(r"(?:\[(\d{1,4})\])?([\w.\-]{1,64}):([0-9a-fA-F.:%\w\-]{0,80})<\d{1,6}>")
_TREES_NRANKS_RE = re.compile(r"nRanks (\d{1,7})")
_INIT_TIMING_RE = re.compile(r"rank (\d{1,7}) nranks (\d{1,7}) total (\d{1,6}(?:\.\d{1,6})?)")
_TIMING_PART_RE = re.compile(r"([a-z]{1,20}) (\d{1,6}(?:\.\d{1,6})?)")
#: The NCCL Inspector plugin's JSON keys this reader uses (ext-profiler/inspector/README.md of NVIDIA/nccl).
INSPECTOR_KEYS = ("rank", "n_ranks", "nnodes", "hostname", "coll", "coll_msg_size_bytes", "coll_exec_time_us",
                  "coll_busbw_gbs")
_INSPECTOR_RE = re.compile(r'"(rank|n_ranks|nnodes|hostname|coll|coll_msg_size_bytes|coll_exec_time_us|'
                           r'coll_busbw_gbs)"\s{0,8}:\s{0,8}("[^"\\]{0,200}"|-?\d{1,20}(?:\.\d{1,12})?(?:[eE][-+]?\d{1,3})?)')

#: ncclDataType_t (nccl.h): bytes per element.
DATATYPE_BYTES = {0: 1, 1: 1, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2, 10: 1, 11: 1}
DATATYPE_NAMES = {0: "int8", 1: "uint8", 2: "int32", 3: "uint32", 4: "int64", 5: "uint64", 6: "float16",
                  7: "float32", 8: "float64", 9: "bfloat16", 10: "fp8_e4m3", 11: "fp8_e5m2"}
OP_NAMES = {0: "sum", 1: "prod", 2: "max", 3: "min", 4: "avg"}


def version(message: str) -> tuple[str, str | None, str] | None:
    """Read ``(version, CUDA it was built for, vendor)`` from ``NCCL version 2.11.4+cuda11.4`` or RCCL's banner.

    >>> version("NCCL version 2.11.4+cuda11.4"), version("RCCL version : 2.21.5-HEAD:9a0e6a1")
    (('2.11.4', '11.4', 'nvidia'), ('2.21.5', None, 'amd'))
    >>> version("RCCL version 2.20.5+hip6.2 HEAD:d380693+")  # RCCL before 2.21: no colon
    ('2.20.5', None, 'amd')
    """
    if message.startswith("RCCL version"):
        match = _RCCL_VERSION_RE.match(message)
        return (".".join(match.group(1, 2, 3)), None, "amd") if match else None
    at = message.find("NCCL version ", 0, 200)
    if at < 0:
        return None
    match = _VERSION_RE.match(message, at)
    if not match:
        return None
    return ".".join(match.group(1, 2, 3)), match.group(4), "nvidia"


@dataclass(frozen=True)
class Connection:
    """One ``Channel``/``Ring`` connection line: ranks, direction, transport (normalised), NIC and GDR."""

    channel: int
    sender: int
    receiver: int
    direction: str  # "send", "receive" or "" (not a network connection)
    transport: str  # normalised: "P2P/IPC", "P2P/CUMEM", "P2P/direct", "SHM", "NET/IB", "NET/Socket", ...
    raw: str  # as printed after "via"
    nic: int | None  # the NIC's index in the NET/<x> list, for network connections
    gdr: bool
    bracket_is_bus_id: bool  # the [..] after a rank held a PCI bus id (older NCCL), not a device
    sender_device: int | None = None  # the local GPU number in the [..] after the sender (None: a bus id or none)
    receiver_device: int | None = None
    comm_nranks: int | None = None  # RCCL appends " comm 0x.. nRanks 08" after the transport: that rank count


def normalize_transport(raw: str) -> tuple[str, int | None, bool]:
    """Return ``(transport, NIC index, GDR)`` from what follows ``via``.

    >>> normalize_transport("NET/IB/9/GDRDMA"), normalize_transport("P2P/CUMEM/read")
    (('NET/IB', 9, True), ('P2P/CUMEM', None, False))
    >>> normalize_transport("NET/IB/0(1)/GDRDMA(PCI)/Shared")  # PXN's proxy rank, 2.27's GDR mode
    ('NET/IB', 0, True)
    >>> normalize_transport("NET/AWS Libfabric/0"), normalize_transport("direct shared memory")
    (('NET/AWS Libfabric', 0, False), ('SHM', None, False))
    """
    text = raw.strip()
    if text.startswith("NET/"):
        parts = text[4:].split("/")
        name = parts[0]
        # the NIC index, with the proxy rank NCCL appends when another GPU's NIC is used (PXN): "0(1)"
        index = parts[1].split("(", 1)[0] if len(parts) > 1 else ""
        nic = int(index) if index.isascii() and index.isdigit() and len(index) <= 4 else None
        # "/GDRDMA", or "/GDRDMA(PCI)" from NCCL 2.27 (GDR through PCIe rather than the C2C link)
        return f"NET/{name}", nic, any(part.startswith("GDRDMA") for part in parts[1:])
    if text.startswith("P2P/"):
        kind = text[4:].split("/")[0]
        if kind.startswith("direct"):
            return "P2P/direct", None, False
        return f"P2P/{kind.split()[0] if kind else ''}", None, False
    if text.startswith("SHM") or "shared memory" in text:
        return "SHM", None, False
    return text.split("/")[0].split()[0] if text else "", None, False


def _is_bus_id(text: str | None) -> bool:
    return text is not None and (len(text) > 3 or any(c in "abcdefABCDEF" for c in text))


def _device(text: str | None) -> int | None:
    return int(text) if text is not None and text.isascii() and text.isdigit() and not _is_bus_id(text) else None


def connection(message: str) -> Connection | None:
    """Read a connection line in any of its three forms.

    >>> c = connection("Channel 00/0 : 0[0] -> 9[1] [send] via NET/IB/9/GDRDMA")
    >>> c.sender, c.receiver, c.direction, c.transport, c.nic, c.gdr
    (0, 9, 'send', 'NET/IB', 9, True)
    >>> c = connection("Channel 02/0 : 1[c6000] -> 4[c1000] [receive] via NET/Socket/1 comm 0x95cdeb0 nRanks 08")
    >>> c.transport, c.nic, c.raw, c.comm_nranks  # RCCL's suffix
    ('NET/Socket', 1, 'NET/Socket/1', 8)
    """
    if not (message.startswith("Channel ") or message.startswith("Ring ")) or " via " not in message:
        return None
    match = _CONNECTION_RE.match(message)
    if not match:
        return None
    raw = match.group(8).strip()
    nranks = None
    suffix = raw.find(" comm 0x")
    if suffix >= 0:  # RCCL: "via P2P/IPC comm 0xfb16e30 nRanks 08"
        found = _TREES_NRANKS_RE.search(raw, suffix, suffix + 60)
        nranks = int(found.group(1)) if found else None
        raw = raw[:suffix].strip()
    transport, nic, gdr = normalize_transport(raw)
    return Connection(int(match.group(1)), int(match.group(3)), int(match.group(5)), match.group(7) or "",
                      transport, raw, nic, gdr, _is_bus_id(match.group(4)) or _is_bus_id(match.group(6)),
                      _device(match.group(4)), _device(match.group(6)), nranks)


def ring_listing(message: str) -> tuple[int, int, list[int]] | None:
    """Read ``Channel 01/16 :    0   8  15 ...`` (rank 0's ring order): ``(channel, channels, ranks)``.

    >>> ring_listing("Channel 00/02 :    0   1   2   3")
    (0, 2, [0, 1, 2, 3])
    """
    if not message.startswith("Channel ") or " via " in message or " -> " in message:
        return None
    head, sep, tail = message[8:].partition(" :")
    channel, slash, count = head.partition("/")
    if not sep or not slash or not (channel + count).isascii() or not channel.isdigit() or not count.isdigit() \
            or len(channel) + len(count) > 8:
        return None
    ranks = tail.split()
    if not ranks or not all(r.isascii() and r.isdigit() and len(r) <= 7 for r in ranks):
        return None
    return int(channel), int(count), [int(r) for r in ranks]


@dataclass(frozen=True)
class CommLine:
    comm: str
    rank: int
    nranks: int
    comm_id: str | None
    nnodes: int | None
    local_ranks: int | None


def comm_line(message: str) -> CommLine | None:
    """Read an ``Init START``/``Init COMPLETE``/``nNodes`` line: communicator, rank, rank count (and node count).

    >>> comm_line("comm 0x564531f27c80 rank 2 nRanks 3 nNodes 3 localRanks 1 localRank 0 MNNVL 0")
    CommLine(comm='0x564531f27c80', rank=2, nranks=3, comm_id=None, nnodes=3, local_ranks=1)
    """
    at = message.find("comm 0x", 0, 60)
    if at < 0 or " rank " not in message:
        return None
    match = _COMM_RE.search(message, max(0, at - 41), at + 200)
    if not match:
        return None
    nodes = _NNODES_RE.search(message, match.end(), match.end() + 80)
    comm_id = _COMMID_RE.search(message, match.end())
    return CommLine(match.group(1), int(match.group(2)), int(match.group(3)),
                    comm_id.group(1) if comm_id else None,
                    int(nodes.group(1)) if nodes else None, int(nodes.group(2)) if nodes else None)


@dataclass(frozen=True)
class CollLine:
    op: str
    op_count: int
    count: int
    datatype: int
    red_op: int
    comm: str
    nranks: int

    @property
    def size_bytes(self) -> int | None:
        size = DATATYPE_BYTES.get(self.datatype)
        return None if size is None else self.count * size


def coll_line(message: str) -> CollLine | None:
    """Read a collective trace line (``NCCL_DEBUG_SUBSYS=COLL``).

    >>> coll_line("AllReduce: opCount 139d sendbuff 0x1 recvbuff 0x1 count 7382228 datatype 7 op 0 root 0 "
    ...           "comm 0x78cf [nranks=128] stream 0x78d0").size_bytes
    29528912
    """
    colon = message.find(": opCount ", 0, 42)
    if colon < 0:
        return None
    match = _COLL_RE.match(message)
    if not match:
        return None
    op, op_count, _, _, count, datatype, red_op, _, comm, nranks = match.groups()
    return CollLine(op, int(op_count, 16), int(count), int(datatype), int(red_op), comm, int(nranks))


def channel_counts(message: str) -> tuple[int, int | None] | None:
    """Read ``16 coll channels, 0 nvls channels, ...``: ``(coll channels, nvls channels or None)``.

    >>> channel_counts("16 coll channels, 0 nvls channels, 16 p2p channels, 16 p2p channels per peer")
    (16, 0)
    """
    if " coll channels," not in message[:30]:
        return None
    match = _CHANNELS_RE.match(message)
    if not match:
        return None
    nvls = _NVLS_CHANNELS_RE.search(message, match.end(), match.end() + 120)
    return int(match.group(1)), int(nvls.group(1)) if nvls else None


def env_setting(message: str) -> tuple[str, str] | None:
    """Read ``NCCL_IB_DISABLE set by environment to 1.`` -> ``("NCCL_IB_DISABLE", "1")``."""
    if " set " not in message[:70]:
        return None
    match = _ENV_RE.match(message)
    if not match:
        return None
    return match.group(1), match.group(2).strip().rstrip(".")


@dataclass(frozen=True)
class NicEntry:
    """One entry of a ``NET/IB : Using`` list: its index, its devices (several when NICs are fused), link layer."""

    index: int
    devices: tuple[str, ...]
    link_layer: str
    sharp: bool


def ib_devices(message: str) -> tuple[list[NicEntry], bool, str | None] | None:
    """Read a ``NET/IB : Using`` list: its entries, relaxed ordering, and the out-of-band interface.

    The interface is ``""`` when NCCL printed it empty (``; OOB :``).

    >>> text = "NET/IB : Using [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [RO]; OOB bond0:1.2.3.4<0>"
    >>> entries, ro, oob = ib_devices(text)
    >>> entries, ro, oob
    ([NicEntry(index=0, devices=('mlx5_2', 'mlx5_3'), link_layer='RoCE', sharp=False)], True, 'bond0')
    """
    if not (message.startswith("NET/IB : Using") or message.startswith("NET/IB: Using")):
        return None
    body = message[message.find("Using") + 5:]
    oob_at = body.find("; OOB")
    oob = None
    if oob_at >= 0:
        rest = body[oob_at + 5:].strip()
        oob = rest.split(":", 1)[0] if rest else ""
        body = body[:oob_at]
    relaxed = "[RO]" in body
    entries: list[NicEntry] = []
    position = 0
    while True:
        start = body.find("[", position)
        if start < 0:
            break
        close = body.find("]", start, start + 8)
        if close < 0:
            break
        label = body[start + 1:close]
        if not (label.isascii() and label.isdigit()):
            position = close + 1
            continue
        if body.startswith("={", close + 1):  # fused NICs
            end = body.find("}", close)
            end = len(body) if end < 0 else end
            inner = [_IB_ENTRY_RE.search(part) for part in body[close + 2:end].split(",")]
            found = [m for m in inner if m]
            if found:
                entries.append(NicEntry(int(label), tuple(m.group(2) for m in found), found[0].group(4),
                                        any(m.group(5) for m in found)))
            position = end + 1
            continue
        match = _IB_ENTRY_RE.match(body, start)
        if match:
            entries.append(NicEntry(int(label), (match.group(2),), match.group(4), bool(match.group(5))))
            position = match.end()
        else:
            position = close + 1
    return entries, relaxed, oob


def interfaces(message: str) -> list[tuple[int, str]]:
    """Read the socket interfaces after ``Using``: ``[0]eth0:10.0.0.1<0> [1]ib0:...`` -> ``[(0, "eth0"), (1, "ib0")]``.

    >>> interfaces("NET/Socket : Using [0]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0> [1]veth0:2a02:6b8::1<0>")
    [(0, 'ip6tnl0'), (1, 'veth0')]
    """
    at = message.find("Using")
    if at < 0:
        return []
    found = []
    for number, word in enumerate(message[at + 5:].split()):
        if number >= 256:
            break
        match = _IF_ENTRY_RE.match(word)
        if match:
            found.append((int(match.group(1)) if match.group(1) else len(found), match.group(2)))
    return found


def trees_nranks(message: str) -> int | None:
    """Read RCCL's ``Trees ... comm 0x... nRanks 08 busId ce000``: the rank count."""
    at = message.find(" nRanks ")
    if at < 0:
        return None
    match = _TREES_NRANKS_RE.match(message, at + 1)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class InitTiming:
    """NCCL's ``Init timings`` line (2.2x): a rank's communicator set-up time in seconds, and its parts."""

    rank: int
    nranks: int
    total_s: float
    parts: tuple[tuple[str, float], ...]


def init_timing(message: str) -> InitTiming | None:
    """Read ``Init timings: rank 2 nranks 16 total 1.08 (kernels 0.51, bootstrap 0.22, ...)``.

    NCCL 2.23 and later name the call first (``Init timings - ncclCommInitRank: rank 0 ...``).

    >>> t = init_timing("Init timings: rank 2 nranks 16 total 1.08 (kernels 0.51, bootstrap 0.22, topo 0.28)")
    >>> t.rank, t.nranks, t.total_s, t.parts[-1]
    (2, 16, 1.08, ('topo', 0.28))
    """
    if not message.startswith("Init timings"):
        return None
    at = message.find("rank ", 12, 80)
    if at < 0:
        return None
    match = _INIT_TIMING_RE.match(message, at)
    if not match:
        return None
    parts: list[tuple[str, float]] = []
    open_at = message.find("(", match.end(), match.end() + 8)
    if open_at >= 0:
        close = message.find(")", open_at)
        body = message[open_at + 1:close if close > 0 else len(message)]
        for piece in body.split(",")[:16]:
            part = _TIMING_PART_RE.match(piece.strip())
            if part:
                parts.append((part.group(1), float(part.group(2))))
    return InitTiming(int(match.group(1)), int(match.group(2)), float(match.group(3)), tuple(parts))


def inspector_fields(line: str) -> list[tuple[str, str | float]]:
    """Find the NCCL Inspector keys on one line of its JSON output, in order (a record a line, or a key a line).

    Strings lose their quotes; numbers become floats.

    >>> inspector_fields('{"header": {"rank": 2, "n_ranks": 8}, "metadata": {"hostname": "node-7"}}')
    [('rank', 2.0), ('n_ranks', 8.0), ('hostname', 'node-7')]
    """
    found: list[tuple[str, str | float]] = []
    for match in _INSPECTOR_RE.finditer(line):
        key, value = match.group(1), match.group(2)
        if value.startswith('"'):
            found.append((key, value[1:-1]))
        else:
            try:
                found.append((key, float(value)))
            except ValueError:
                continue
        if len(found) >= 64:
            break
    return found


_TOPO_RE = re.compile(r"\+ ([A-Z]{2,8})\[(\d{1,6}(?:\.\d{1,6})?)\] - ([A-Z]{2,8})/([0-9A-Fa-f]{1,16})"
                      r"(?:-([0-9A-Fa-f]{1,16}))?")


def topology_link(message: str) -> tuple[str, float, str, str] | None:
    """Read a line of the topology dump (``NCCL_DEBUG_SUBSYS=GRAPH``): ``(link kind, GB/s, node kind, node id)``.

    >>> topology_link("+ NET[12.5] - NET/0 (64300003fd7010/1/12.500000)")
    ('NET', 12.5, 'NET', '0')
    >>> topology_link("+ XGMI[24.0] - GPU/4C000")
    ('XGMI', 24.0, 'GPU', '4C000')

    NCCL 2.23 and later print a node as ``<system id>-<local id>`` in lower-case hex; the local id is kept:

    >>> topology_link("+ NET[50.0] - NET/0-b")
    ('NET', 50.0, 'NET', 'b')
    """
    if not message.startswith("+ "):
        return None
    match = _TOPO_RE.match(message)
    if not match:
        return None
    return match.group(1), float(match.group(2)), match.group(3), match.group(5) or match.group(4)


_COLLNET_RE = re.compile(r"Coll(?:Net)? (\d{1,4})(?:/(\d{1,4}))? : (\d{1,7}) \[(send|receive)\] "
                         r"via COLLNET/([^/\s]{1,40})/(\d{1,4})(\S{0,60})")


def collnet_line(message: str) -> tuple[int, str, str, int, bool] | None:
    """Read a CollNet connection line (NCCL_COLLNET_ENABLE=1): ``(rank, direction, plugin, NIC, GDR)``.

    >>> collnet_line("CollNet 00/0 : 3 [send] via COLLNET/SHARP/1/GDRDMA comm 0x5f nRanks 16")
    (3, 'send', 'SHARP', 1, True)
    >>> collnet_line("Coll 01 : 3 [receive] via COLLNET/SHARP/0")  # NCCL 2.7 and 2.8
    (3, 'receive', 'SHARP', 0, False)
    """
    if not message.startswith(("CollNet ", "Coll ")):
        return None
    match = _COLLNET_RE.match(message)
    if not match:
        return None
    return (int(match.group(3)), match.group(4), match.group(5), int(match.group(6)),
            match.group(7).startswith("/GDRDMA"))


_IB_SPEED_RE = re.compile(r"NET/IB: \[(\d{1,4})\] ([\w.\-]{1,64}):[\w.\-]{0,64}:(\d{1,3})/(\w{1,12}) "
                          r".{0,80}?speed=(\d{1,9})")
_IB_VIRTUAL_RE = re.compile(r"NET/IB : Made virtual device \[(\d{1,4})\] name=(\S{1,200}) speed=(\d{1,9}) "
                            r"ndevs=(\d{1,3})")


def ib_device_speed(message: str) -> tuple[int, str, int] | None:
    """Read NCCL 2.27's per-NIC line (``NCCL_DEBUG_SUBSYS=NET``) or 2.25's merged NIC: ``(index, name, Mbit/s)``.

    >>> ib_device_speed("NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 context=0x55 ar=1")
    (0, 'mlx5_0', 400000)
    >>> ib_device_speed("NET/IB : Made virtual device [0] name=mlx5_0+mlx5_1 speed=800000 ndevs=2")
    (0, 'mlx5_0+mlx5_1', 800000)
    """
    if message.startswith("NET/IB: ["):
        match = _IB_SPEED_RE.match(message)
        return (int(match.group(1)), match.group(2), int(match.group(5))) if match else None
    if message.startswith("NET/IB : Made virtual device"):
        match = _IB_VIRTUAL_RE.match(message)
        return (int(match.group(1)), match.group(2), int(match.group(3))) if match else None
    return None
