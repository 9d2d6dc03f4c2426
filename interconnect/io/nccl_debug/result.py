"""What the NCCL_DEBUG reader returns: :class:`DebugLog`, every value beside the line number it rests on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["At", "CollectiveStat", "DebugLog", "HostLinks", "HostStat", "InitStat", "InspectorStat", "NicUse",
           "PeerStat", "Place", "TransportStat"]

T = TypeVar("T")


@dataclass(frozen=True)
class At(Generic[T]):
    """A value read from the log and the (1-based) line it was read on."""

    value: T
    line: int


@dataclass
class TransportStat:
    """Connection lines of one transport: how many, where the first was, and GPUDirect RDMA on them."""

    count: int = 0
    first_line: int = 0
    gdr_on: int = 0
    gdr_off: int = 0
    first_gdr_line: int = 0
    first_no_gdr_line: int = 0
    read_mode: bool = False  # "/read" (P2P read mode)
    raw: str = ""  # the first form as printed after "via"


@dataclass
class NicUse:
    """One NIC (``NET/<x>/<n>``) in connection lines: how often, first line, the ranks and hosts using it."""

    transport: str
    index: int
    count: int = 0
    first_line: int = 0
    ranks: set[int] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)

    @property
    def label(self) -> str:
        """The NIC as connection lines name it: ``NET/IB/9``."""
        return f"{self.transport}/{self.index}"


@dataclass
class PeerStat:
    """Connection lines between one pair of ranks (either direction).

    Lines per transport, the first line, and the NICs (``NET/IB/3``) the pair's network lines name.
    """

    first_line: int
    transports: dict[str, int] = field(default_factory=dict)
    nics: set[str] = field(default_factory=set)
    gdr_on: int = 0


@dataclass
class Place:
    """Where one rank runs, as far as the log says.

    Its host (from the prefix of a line it printed) and its local GPU number (the prefix's ``[dev]`` or the
    ``rank[dev]`` of a connection line), each possibly unknown.
    """

    host: str | None
    device: int | None
    line: int


@dataclass
class HostStat:
    """One host (node) of the log: its first line, the local devices and processes seen on it."""

    first_line: int
    devices: set[int] = field(default_factory=set)
    pids: set[int] = field(default_factory=set)


@dataclass
class HostLinks:
    """What one host's own lines say about its links: its NIC list, and its connection lines by transport.

    ``transports`` maps a normalised transport to ``[lines, first line]``; ``nics_used`` holds the
    ``NET/<x>/<n>`` its network lines name; ``gdr_on``/``gdr_off`` count its network lines with and without
    ``/GDRDMA``.
    """

    nic_list: At[tuple] | None = None  # NicEntry tuple of the host's first NET/IB list
    transports: dict[str, list[int]] = field(default_factory=dict)
    nics_used: dict[str, int] = field(default_factory=dict)  # "NET/IB/3" -> first line
    gdr_on: int = 0
    gdr_off: int = 0
    first_gdr_off: int = 0
    failures: int = 0  # NCCL WARN lines of this host that report a failure (fail, error, timeout, abort...)
    first_failure: At[str] | None = None
    net_speeds: dict[int, At[float]] = field(default_factory=dict)  # topology dump: NET/<n> -> its rate, GB/s
    topo_gpus: dict[str, int] = field(default_factory=dict)  # topology dump: GPU/<bus id> -> its first line


@dataclass
class InitStat:
    """One rank's ``Init timings`` line: seconds in all and by part, its host, the line."""

    rank: int
    host: str | None
    total_s: float
    parts: tuple[tuple[str, float], ...]
    line: int


@dataclass
class InspectorStat:
    """NCCL Inspector records of one rank for one collective and message size (busbw in GB/s)."""

    host: str
    rank: int
    coll: str
    size_bytes: int
    nnodes: int | None
    first_line: int
    count: int = 0
    busbw_sum: float = 0.0
    busbw_min: float = float("inf")
    busbw_max: float = 0.0

    @property
    def busbw_mean(self) -> float:
        """Mean busbw over the records."""
        return self.busbw_sum / self.count if self.count else float("nan")


@dataclass
class CollectiveStat:
    """COLL trace lines of one operation on one communicator."""

    op: str
    comm: str
    nranks: int
    first_line: int
    calls: int = 0
    min_bytes: int | None = None
    max_bytes: int | None = None
    datatypes: set[int] = field(default_factory=set)
    red_ops: set[int] = field(default_factory=set)
    op_counts: set[int] = field(default_factory=set)
    last_op_count: int = -1  # the highest opCount this handle printed


@dataclass
class DebugLog:
    """Everything read from one NCCL_DEBUG=INFO log (one rank's or all ranks', any launcher).

    Each finding is an :class:`At` (value and line number) or a record holding its first line. Counts of lines
    are over the whole input; lists of line numbers stop at a cap (``skipped_count`` keeps counting).
    """

    lines: int = 0
    nccl_lines: int = 0
    version: At[str] | None = None
    cuda: At[str] | None = None
    vendor: At[str] | None = None
    versions: dict[str, int] = field(default_factory=dict)  # every version seen -> its first line
    runs: int = 0  # version banners printed without prefix (rank 0 of each run)
    network: At[str] | None = None
    networks: dict[str, int] = field(default_factory=dict)
    plugin: At[str] | None = None
    env: dict[str, At[str]] = field(default_factory=dict)
    ib_absent: int = 0  # line of "NET/IB : No device found"
    no_verbs: int = 0  # line of "Failed to open libibverbs"
    ib_nics: At[tuple] | None = None  # NicEntry tuple of the first NET/IB list
    relaxed_ordering: bool = False
    oob: At[str] | None = None
    socket_nics: At[tuple] | None = None  # ((index, name), ...) of the first NET/Socket list
    bootstrap: At[str] | None = None
    efa: At[tuple] | None = None  # (provider, NICs found)
    transports: dict[str, TransportStat] = field(default_factory=dict)
    nic_use: dict[tuple[str, int], NicUse] = field(default_factory=dict)
    peers: dict[tuple[int, int], PeerStat] = field(default_factory=dict)  # (lower rank, higher rank) -> lines
    places: dict[int, Place] = field(default_factory=dict)  # rank -> its host and local GPU, where printed
    rank_nics: dict[tuple[int, str], int] = field(default_factory=dict)  # (own rank, "NET/IB/3") -> lines
    connections: int = 0
    bus_id_brackets: int = 0  # connection lines whose [..] held a PCI bus id (NCCL before about 2.19)
    old_forms: At[str] | None = None  # a line form only NCCL <= 2.8 prints ("Ring NN :", "Trees ..|..")
    max_rank: At[int] | None = None  # highest rank number in connection, ring, tree or comm lines
    launcher_max_rank: At[int] | None = None
    comm_ids: dict[str, At[int]] = field(default_factory=dict)  # commId -> its nranks (a job-wide id)
    comm_nranks: At[int] | None = None  # the largest nranks of any communicator's Init line
    coll_nranks: At[int] | None = None
    ring_ranks: At[int] | None = None  # ranks in rank 0's ring listing
    nnodes: At[int] | None = None
    local_ranks: At[int] | None = None
    trees_nranks: At[int] | None = None
    hosts: dict[str, HostStat] = field(default_factory=dict)
    processes: set[int] = field(default_factory=set)
    rings: At[int] | None = None  # channel count of the ring listing
    trees: At[int] | None = None  # tree channels on the first Trees line
    coll_channels: At[int] | None = None
    nvls_channels: At[int] | None = None
    nvls_available: int = 0
    nvls_unavailable: int = 0
    nvls_used: int = 0  # "NVLS comm" or "Connected NVLS tree"
    gdr_disabled: At[str] | None = None
    gdr_enabled: At[str] | None = None  # "GPU Direct RDMA Enabled for GPU .. / HCA .." (one GPU-NIC pair)
    collnet: At[str] | None = None  # "COLLNET/<plugin>" of the first CollNet connection line
    collnet_count: int = 0
    collnet_gdr: int = 0  # CollNet lines ending in /GDRDMA
    ib_speeds: dict[int, At[tuple]] = field(default_factory=dict)  # NIC index -> (name, Mbit/s), NCCL 2.25+ lines
    ring_gdr: At[int] | None = None  # "Connected all rings, use ring PXN 0 GDR 1"
    tuning: list[At[str]] = field(default_factory=list)
    collectives: dict[tuple[str, str], CollectiveStat] = field(default_factory=dict)
    warnings: list[At[str]] = field(default_factory=list)
    other_errors: list[At[str]] = field(default_factory=list)  # errors of libraries on the path (UCX, PyTorch...)
    other_error_count: int = 0
    host_links: dict[str, HostLinks] = field(default_factory=dict)  # per host, from that host's own lines
    topo_nets: dict[int, At[float]] = field(default_factory=dict)  # topology dump "+ NET[12.5] - NET/0": GB/s
    topo_links: dict[str, int] = field(default_factory=dict)  # link kinds of the topology dump -> first line
    init_timings: dict[int, InitStat] = field(default_factory=dict)  # rank -> its first Init timings line
    inspector: dict[tuple[str, int, str, int], InspectorStat] = field(default_factory=dict)
    inspector_lines: int = 0  # lines holding NCCL Inspector JSON keys
    gpu_name: At[str] | None = None  # from nccl-tests' "#  Rank  0 ... device 0 [0x0f] NVIDIA H800"
    table_lines: list[tuple[int, str]] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    skipped_count: int = 0
    cut_lines: list[int] = field(default_factory=list)
    stopped_at: int = 0  # the line where reading stopped (MAX_LINES), 0 if read to the end

    @property
    def gpus_per_node(self) -> At[int] | None:
        """GPUs per node: ``localRanks`` when printed, else the most of any host's GPUs.

        A host's GPUs: the highest local device number + 1 of its prefixes, or the GPUs its topology dump lists.
        """
        if self.local_ranks is not None:
            return self.local_ranks
        best: At[int] | None = None
        for stat in self.hosts.values():
            if stat.devices and (best is None or max(stat.devices) + 1 > best.value):
                best = At(max(stat.devices) + 1, stat.first_line)
        for links in self.host_links.values():  # the GPUs a host's topology dump lists
            if links.topo_gpus and (best is None or len(links.topo_gpus) > best.value):
                best = At(len(links.topo_gpus), min(links.topo_gpus.values()))
        return best
