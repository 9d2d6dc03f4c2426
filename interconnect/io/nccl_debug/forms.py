"""The NCCL and RCCL log lines the Explain verdicts rest on, taken from the libraries' own source, by release.

Each :class:`LineForm` names a format string as it stands in the source (``INFO(...)``/``WARN(...)`` or the
``snprintf`` that builds the line), the file that prints it, and the releases whose source holds it; then a line
written from it with plausible values and what :func:`~interconnect.io.nccl_debug.read_nccl_debug` must read from
that line. ``tests/topics/explain/test_line_forms.py`` reads every example; ``docs/explain.md`` shows the table
(:func:`markdown_table`).

Releases looked at: NVIDIA/nccl tags v2.18.6-1, v2.19.4-1, v2.21.5-1, v2.23.4-1, v2.25.1-1, v2.27.7-1 and v2.28.9-1;
ROCm/rccl tags rocm-6.1.0 and rocm-6.2.2 and the develop branch at commit 0cbce2a7 (RCCL 2.2x). A release is
listed for a form when the format string (the literal text, not only its meaning) is in that release's ``src/``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FORMS", "NCCL_RELEASES", "RCCL_REFS", "LineForm", "markdown_table"]

NCCL_RELEASES = ("2.18", "2.19", "2.21", "2.23", "2.25", "2.27", "2.28")
#: The tag read for each release (https://github.com/NVIDIA/nccl/tree/<tag>).
NCCL_TAGS = dict(zip(NCCL_RELEASES, ("v2.18.6-1", "v2.19.4-1", "v2.21.5-1", "v2.23.4-1", "v2.25.1-1", "v2.27.7-1",
                                     "v2.28.9-1"), strict=True))
#: RCCL's references (https://github.com/ROCm/rccl/tree/<ref>).
RCCL_REFS = ("rocm-6.1.0", "rocm-6.2.2", "develop@0cbce2a7")
#: Older NVIDIA/nccl tags also read, for the forms that changed before 2.18 (v<release>-1).
OLDER_TAGS = ("2.4.8", "2.5.7", "2.7.8", "2.8.4", "2.10.3", "2.12.12", "2.14.3", "2.16.5", "2.17.1")
_ALL = NCCL_RELEASES
_P = "host-7:4021:4090 [3] NCCL INFO "  # a prefix as NCCL prints it: host, pid, thread, local GPU


@dataclass(frozen=True)
class LineForm:
    """One line form: where NCCL/RCCL prints it, from which releases, an example and what must be read from it."""

    key: str
    library: str  # "NCCL" or "RCCL"
    verdict: str  # the verdict it feeds: version, shape, transport, gdr, nics, nvls, channels, tuning, timing
    path: str  # under src/ of the repository; "a -> b" when the file changed between releases
    releases: tuple[str, ...]  # NCCL releases (or RCCL refs) whose source holds the format string
    fmt: str  # the format string as written in the source (the part that matters)
    example: str  # a line written from the format with plausible values
    reads: tuple[tuple[str, object], ...]  # (what, expected) -- see tests/topics/explain/test_line_forms.py
    older: tuple[str, ...] = ()  # releases before 2.18 (of OLDER_TAGS) whose source holds the format string


FORMS: tuple[LineForm, ...] = (
    # -- version banner ------------------------------------------------------------------------------------------
    LineForm("version", "NCCL", "version", "init.cc", _ALL,
             '"NCCL version " STR(NCCL_MAJOR) "." STR(NCCL_MINOR) "." STR(NCCL_PATCH) NCCL_SUFFIX "+cuda" ...',
             _P + "NCCL version 2.27.7+cuda12.9", (("version", "2.27.7"), ("cuda", "12.9"))),
    LineForm("version-bare", "NCCL", "version", "init.cc (VERSION(...), rank 0, no prefix)", _ALL,
             '"NCCL version " STR(NCCL_MAJOR) ...', "NCCL version 2.18.6+cuda12.2", (("version", "2.18.6"),)),
    # -- ranks, nodes, GPUs per node -----------------------------------------------------------------------------
    LineForm("comm-nnodes", "NCCL", "shape", "init.cc", ("2.21", "2.23", "2.25", "2.27", "2.28"),
             "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",
             _P + "comm 0x55d0c8a1b2c0 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0",
             (("ranks", 16), ("nnodes", 2), ("local_ranks", 8))),
    LineForm("init-start-218", "NCCL", "shape", "init.cc", ("2.18", "2.19"),
             "comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START",
             _P + "comm 0x55d0c8a1b2c0 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 4c000 commId 0x8f2a1b3c4d5e6f70 - "
                  "Init START", (("ranks", 16),)),
    LineForm("init-start-221", "NCCL", "shape", "init.cc", ("2.21",),
             "ncclCommInitRank comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START",
             _P + "ncclCommInitRank comm 0x55d0c8a1b2c0 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 4c000 "
                  "commId 0x8f2a1b3c4d5e6f70 - Init START", (("ranks", 16),)),
    LineForm("init-complete-223", "NCCL", "shape", "init.cc", ("2.23", "2.25", "2.27", "2.28"),
             "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE",
             _P + "ncclCommInitRankConfig comm 0x55d0c8a1b2c0 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 4c000 "
                  "commId 0x8f2a1b3c4d5e6f70 - Init COMPLETE", (("ranks", 16),)),
    LineForm("init-timings", "NCCL", "timing", "init.cc", ("2.23", "2.25", "2.27", "2.28"),
             "Init timings - %s: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, bootstrap %.2f, ...",
             _P + "Init timings - ncclCommInitRank: rank 3 nranks 16 total 1.42 (kernels 0.31, alloc 0.02, "
                  "bootstrap 0.40, allgathers 0.01, topo 0.35, graphs 0.02, connections 0.28, rest 0.03)",
             (("init_total", 1.42),)),
    # -- transport per connection ----------------------------------------------------------------------------------
    LineForm("net-send", "NCCL", "transport", "transport/net.cc", _ALL,
             "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s (2.27+: %s%s%s)",
             _P + "Channel 02/0 : 3[3] -> 11[3] [send] via NET/IB/3/GDRDMA",
             (("transport", ("NET/IB",)), ("nics", ("NET/IB/3",)), ("gdr", (1, 0)))),
    LineForm("net-send-pxn", "NCCL", "transport", "transport/net.cc", _ALL,
             "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d(%d)%s%s (PXN: the NIC of rank %d)",
             _P + "Channel 02/0 : 3[3] -> 11[3] [send] via NET/IB/1(1)/GDRDMA/Shared",
             (("transport", ("NET/IB",)), ("nics", ("NET/IB/1",)), ("gdr", (1, 0)))),
    LineForm("net-recv", "NCCL", "transport", "transport/net.cc", _ALL,
             "Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s",
             _P + "Channel 02/0 : 11[3] -> 3[3] [receive] via NET/IB/3",
             (("transport", ("NET/IB",)), ("nics", ("NET/IB/3",)), ("gdr", (0, 1)))),
    LineForm("net-gdr-pci", "NCCL", "gdr", "transport/net.cc", ("2.27", "2.28"),
             'req.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModePci ? "(PCI)" : ""',
             _P + "Channel 05/1 : 3[3] -> 11[3] [receive] via NET/IB/3/GDRDMA(PCI)",
             (("transport", ("NET/IB",)), ("nics", ("NET/IB/3",)), ("gdr", (1, 0)))),
    LineForm("net-plugin-name", "NCCL", "transport", "transport/net.cc (ncclNet->name)", _ALL,
             "... via NET/%s/%d ... (a plugin's name, e.g. IBext_v8, AWS Libfabric)",
             _P + "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IBext_v8/0/GDRDMA",
             (("transport", ("NET/IBext_v8",)), ("nics", ("NET/IBext_v8/0",)), ("gdr", (1, 0)))),
    LineForm("net-socket", "NCCL", "transport", "transport/net.cc", _ALL,
             "... via NET/%s/%d%s%s with the internal Socket transport",
             _P + "Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/1",
             (("transport", ("NET/Socket",)), ("nics", ("NET/Socket/1",)))),
    LineForm("p2p-direct", "NCCL", "transport", "transport/p2p.cc", _ALL,
             "Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/direct pointer%s",
             _P + "Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer/read", (("transport", ("P2P/direct",)),)),
    LineForm("p2p-cumem", "NCCL", "transport", "transport/p2p.cc", ("2.18", "2.19"),
             "Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/CUMEM%s%s",
             _P + "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", (("transport", ("P2P/CUMEM",)),)),
    LineForm("p2p-cumem-mnnvl", "NCCL", "transport", "transport/p2p.cc", ("2.21", "2.23", "2.25", "2.27", "2.28"),
             'Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/%s%s%s ("MNNVL" or "CUMEM", "/read", "/CE")',
             _P + "Channel 00/0 : 0[0] -> 1[1] via P2P/MNNVL/read", (("transport", ("P2P/MNNVL",)),)),
    LineForm("p2p-ipc", "NCCL", "transport", "transport/p2p.cc", _ALL,
             "Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/IPC%s%s",
             _P + "Channel 00/1 : 0[0] -> 1[1] via P2P/IPC/CE", (("transport", ("P2P/IPC",)),)),
    LineForm("p2p-indirect", "NCCL", "transport", "transport/p2p.cc", _ALL,
             "Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/indirect/%d[%d]%s",
             _P + "Channel 00/0 : 0[0] -> 5[5] via P2P/indirect/1[1]", (("transport", ("P2P/indirect",)),)),
    LineForm("shm", "NCCL", "transport", "transport/shm.cc", _ALL,
             "Channel %02d : %d[%d] -> %d[%d] via SHM/%s/%s",
             _P + "Channel 00 : 0[0] -> 1[1] via SHM/direct/direct", (("transport", ("SHM",)),)),
    LineForm("collnet", "NCCL", "transport", "transport/coll_net.cc", _ALL,
             "CollNet %02d/%1d : %d [send] via COLLNET/%s/%d%s",
             _P + "CollNet 00/0 : 3 [send] via COLLNET/SHARP/1/GDRDMA",
             (("collnet", "COLLNET/SHARP"), ("transport", ()))),
    # -- NIC listing -------------------------------------------------------------------------------------------------
    LineForm("using-network", "NCCL", "transport", "init.cc", _ALL, "Using network %s",
             _P + "Using network IB", (("network", "IB"),)),
    LineForm("ib-list", "NCCL", "nics", "transport/net_ib.cc", _ALL,
             'NET/IB : Using%s %s; OOB %s:%s, each NIC " [%d]%s:%d/%s"',
             _P + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/RoCE [RO]; OOB ibp12s0:10.0.0.7<0>",
             (("ib_nics", (("mlx5_0", "IB"), ("mlx5_3", "IB"), ("mlx5_4", "RoCE"))),)),
    LineForm("ib-list-merged", "NCCL", "nics", "transport/net_ib.cc", ("2.21", "2.23", "2.25", "2.27", "2.28"),
             'NET/IB : Using%s ..., a merged NIC " [%d]={" "[%d] %s:%d/%s" ... "}"',
             _P + "NET/IB : Using [0]={[0] mlx5_0:1/RoCE, [1] mlx5_1:1/RoCE} "
                  "[1]={[2] mlx5_2:1/RoCE, [3] mlx5_3:1/RoCE} ; OOB eth0:10.0.0.7<0>",
             (("ib_nics", (("mlx5_0+mlx5_1", "RoCE"), ("mlx5_2+mlx5_3", "RoCE"))),)),
    LineForm("ib-list-unspecified", "NCCL", "nics", "transport/net_ib.cc", ("2.27", "2.28"),
             'NCCL_IB_LLSTR(ll): "IB", "RoCE" or "UNSPECIFIED"',
             _P + "NET/IB : Using [0]mlx5_0:1/UNSPECIFIED ; OOB eth0:10.0.0.7<0>",
             (("ib_nics", (("mlx5_0", "UNSPECIFIED"),)),)),
    LineForm("ib-none", "NCCL", "transport", "transport/net_ib.cc", _ALL, "NET/IB : No device found.",
             _P + "NET/IB : No device found.", (("ib_absent", True),)),
    LineForm("ib-device-speed", "NCCL", "nics", "transport/net_ib.cc", ("2.27", "2.28"),
             "NET/IB: [%d] %s:%s:%d/%s provider=%s speed=%d context=%p pciPath=%s ar=%d",
             _P + "NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 context=0x55d0c8a1c000 "
                  "pciPath=/sys/devices/pci0000:00/0000:00:01.0 ar=1", (("ib_speeds", {0: ("mlx5_0", 400000)}),)),
    LineForm("ib-virtual", "NCCL", "nics", "transport/net_ib.cc", ("2.25", "2.27", "2.28"),
             "NET/IB : Made virtual device [%d] name=%s speed=%d ndevs=%d",
             _P + "NET/IB : Made virtual device [1] name=mlx5_2+mlx5_3 speed=200000 ndevs=2",
             (("ib_speeds", {1: ("mlx5_2+mlx5_3", 200000)}),)),
    LineForm("socket-list", "NCCL", "nics", "transport/net_socket.cc", _ALL,
             'NET/Socket : Using%s, each interface " [%d]%s:%s"',
             _P + "NET/Socket : Using [0]eth0:10.0.0.7<0> [1]eth1:10.0.1.7<0>", (("socket_nics", ("eth0", "eth1")),)),
    LineForm("plugin-none-218", "NCCL", "transport", "net.cc", ("2.18",),
             "NET/Plugin : No plugin found, using internal implementation",
             _P + "NET/Plugin : No plugin found, using internal implementation", (("plugin", None),)),
    LineForm("plugin-internal", "NCCL", "transport", "net.cc", ("2.21", "2.23", "2.25"),
             "NET/Plugin: Could not find:%s. Using internal network plugin.",
             _P + "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.", (("plugin", None),)),
    LineForm("plugin-loaded", "NCCL", "transport", "net.cc -> plugin/net/net_v*.cc (2.27)", _ALL,
             "NET/Plugin: Loaded net plugin %s (v%d)",
             _P + "NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)", (("plugin", "NCCL RDMA Plugin v8"),)),
    # -- GPUDirect RDMA decisions --------------------------------------------------------------------------------------
    LineForm("gdr-pair-on", "NCCL", "gdr", "graph/paths.cc", _ALL,
             "GPU Direct RDMA Enabled for GPU %lx / HCA %d (distance %d <= %d), read %d (2.28: GPU %d / HCA %lx ... "
             "mode %s)", _P + "GPU Direct RDMA Enabled for GPU 3 / HCA 3 (distance 3 <= 4), read 1 mode Default",
             (("gdr_enabled", True), ("gdr_verdict", True)),
             ("2.7.8", "2.8.4", "2.10.3", "2.12.12", "2.14.3", "2.16.5", "2.17.1")),
    LineForm("gdr-pair-off", "NCCL", "gdr", "graph/paths.cc", _ALL,
             "GPU Direct RDMA Disabled for GPU %lx / HCA %d (distance %d > %d)",
             _P + "GPU Direct RDMA Disabled for GPU 4c000 / HCA 0 (distance 5 > 4)",
             (("gdr_disabled", True), ("gdr_verdict", False))),
    LineForm("gdr-hca", "NCCL", "gdr", "graph/topo.cc", _ALL, "NET/%s : GPU Direct RDMA %s for HCA %d '%s'",
             _P + "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'", (("gdr_disabled", True),)),
    LineForm("rings-gdr", "NCCL", "gdr", "transport/generic.cc", ("2.25", "2.27", "2.28"),
             "Connected all rings, use ring PXN %d GDR %d",
             _P + "Connected all rings, use ring PXN 0 GDR 1", (("ring_gdr", 1),)),
    # -- NVLS ------------------------------------------------------------------------------------------------------
    LineForm("nvls-support", "NCCL", "nvls", "transport/nvls.cc", _ALL,
             "NVLS multicast support is %savailable on dev %d (2.27+: ... (NVLS_NCHANNELS %d))",
             _P + "NVLS multicast support is available on dev 3 (NVLS_NCHANNELS 16)", (("nvls_available", True),)),
    LineForm("nvls-no-support", "NCCL", "nvls", "transport/nvls.cc", _ALL,
             "NVLS multicast support is %savailable on dev %d", _P + "NVLS multicast support is not available on dev 3",
             (("nvls_unavailable", True), ("nvls_available", False))),
    LineForm("nvls-comm", "NCCL", "nvls", "transport/nvls.cc", _ALL,
             "NVLS comm %p headRank %d nHeads %d buffSize %zu ...",
             _P + "NVLS comm 0x55d0c8a1b2c0 headRank 3 nHeads 8 nvlsRanks 8 buffSize 1048576 nvlsPerRankSize "
                  "201326592 nvlsTotalSize 1610612736", (("nvls_used", True),)),
    LineForm("nvls-connected", "NCCL", "nvls", "init.cc -> transport/nvls.cc (2.23)", _ALL, "Connected NVLS tree",
             _P + "Connected NVLS tree", (("nvls_used", True),)),
    LineForm("channels-218", "NCCL", "nvls", "init.cc", ("2.18", "2.19"),
             "%d coll channels, %d nvls channels, %d p2p channels, %d p2p channels per peer",
             _P + "32 coll channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer",
             (("coll_channels", 32), ("nvls_channels", 16))),
    LineForm("channels-221", "NCCL", "nvls", "init.cc", ("2.21", "2.23", "2.25", "2.27", "2.28"),
             "%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer",
             _P + "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
             (("coll_channels", 24), ("nvls_channels", 0))),
    # -- rings, trees, tuning --------------------------------------------------------------------------------------
    LineForm("ring-listing", "NCCL", "channels", "graph/rings.cc", _ALL,
             '"Channel %02d/%02d : " then the ranks (2.23+: "Channel %02d/%02d :")',
             _P + "Channel 01/04 :    0   1   2   3   4   5   6   7", (("rings", 4), ("ring_ranks", 8))),
    LineForm("trees", "NCCL", "channels", "init.cc", _ALL, 'Trees%s, each channel " [%d] %d/%d/%d->%d->%d"',
             _P + "Trees [0] 4/-1/-1->3->2 [1] 4/-1/-1->3->2", (("trees", 2),)),
    LineForm("thread-thresholds", "NCCL", "tuning", "graph/tuning.cc", _ALL,
             "threadThresholds %ld/%ld/%ld | %ld/%ld/%ld | %ld | %ld",
             _P + "threadThresholds 8/8/64 | 128/8/64 | 512 | 512", (("tuning", 1),)),
    LineForm("tuning-row", "NCCL", "tuning", "graph/tuning.cc", _ALL,
             '"%13s |" then per algorithm and protocol "%8.1f/%6.1f |" (NCCL_DEBUG_SUBSYS=TUNING)',
             _P + "    AllReduce |    14.4/  43.6 |    21.4/ 164.0 |    56.0/ 384.0 |     8.6/  21.8 |",
             (("tuning", 1),)),
    LineForm("env", "NCCL", "transport", "misc/param.cc", _ALL, "%s set by environment to %lld.",
             _P + "NCCL_IB_DISABLE set by environment to 1.", (("env", ("NCCL_IB_DISABLE", "1")),)),
    LineForm("bootstrap-218", "NCCL", "nics", "bootstrap.cc", ("2.18", "2.19", "2.21", "2.23"),
             "Bootstrap : Using%s", _P + "Bootstrap : Using eth0:10.0.0.7<0>", (("bootstrap", "eth0"),)),
    LineForm("bootstrap-225", "NCCL", "nics", "bootstrap.cc", ("2.25", "2.27", "2.28"),
             "Bootstrap: Using%s", _P + "Bootstrap: Using [0]eth0:10.0.0.7<0>", (("bootstrap", "eth0"),)),
    LineForm("topo-link", "NCCL", "nics", "graph/topo.cc", ("2.18", "2.19", "2.21"),
             '"+ %s[%2.1f] - " then the node "%s/%lX" (NCCL_DEBUG_SUBSYS=GRAPH)',
             _P + "+ NET[50.0] - NET/1", (("topo_nets", {1: 50.0}),)),
    LineForm("topo-link-ids", "NCCL", "nics", "graph/topo.cc", ("2.23", "2.25", "2.27", "2.28"),
             '"+ %s[%2.1f] - " then the node "%s/%lx-%lx" (system id, local id)',
             _P + "+ NET[50.0] - NET/0-b", (("topo_nets", {11: 50.0}),)),
    # -- NCCL before 2.18 ------------------------------------------------------------------------------------------
    LineForm("ring-p2p-24", "NCCL", "transport", "transport/p2p.cc", (), "Ring %02d : %d[%d] -> %d[%d] via P2P/IPC",
             _P + "Ring 00 : 0[0] -> 1[1] via P2P/IPC", (("transport", ("P2P/IPC",)),), ("2.4.8",)),
    LineForm("p2p-common", "NCCL", "transport", "transport/p2p.cc", (), "Ring %02d : %d -> %d via P2P/common device",
             _P + "Ring 00 : 0 -> 1 via P2P/common device", (("transport", ("P2P/common",)),),
             ("2.4.8", "2.5.7", "2.7.8")),
    LineForm("ring-net-24", "NCCL", "transport", "transport/net.cc", (),
             "Ring %02d : %d -> %d [send] via NET/%s/%d%s", _P + "Ring 00 : 3 -> 4 [send] via NET/IB/0/GDRDMA",
             (("transport", ("NET/IB",)), ("nics", ("NET/IB/0",)), ("gdr", (1, 0))), ("2.4.8",)),
    LineForm("channel-net-busid", "NCCL", "transport", "transport/net.cc", (),
             "Channel %02d : %d[%lx] -> %d[%lx] [send] via NET/%s/%d%s",
             _P + "Channel 00 : 0[3d000] -> 8[3d000] [send] via NET/IB/0",
             (("transport", ("NET/IB",)), ("nics", ("NET/IB/0",)), ("gdr", (0, 1))), ("2.7.8", "2.8.4", "2.10.3")),
    LineForm("channel-net-busid-slash", "NCCL", "transport", "transport/net.cc", (),
             "Channel %02d/%d : %d[%lx] -> %d[%lx] [send] via NET/%s/%d%s%s",
             _P + "Channel 01/0 : 0[3d000] -> 8[3d000] [send] via NET/IB/2/GDRDMA",
             (("transport", ("NET/IB",)), ("nics", ("NET/IB/2",)), ("gdr", (1, 0))),
             ("2.12.12", "2.14.3", "2.16.5", "2.17.1")),
    LineForm("shm-old", "NCCL", "transport", "transport/shm.cc", (),
             "Channel %02d : %d[%lx] -> %d[%lx] via direct shared memory",
             _P + "Channel 00 : 0[3d000] -> 1[3e000] via direct shared memory", (("transport", ("SHM",)),),
             ("2.4.8", "2.5.7", "2.7.8", "2.8.4", "2.10.3", "2.12.12")),
    LineForm("collnet-27", "NCCL", "transport", "transport/coll_net.cc", (),
             "Coll %02d : %d [send] via COLLNET/%s/%d%s", _P + "Coll 01 : 3 [receive] via COLLNET/SHARP/0",
             (("collnet", "COLLNET/SHARP"),), ("2.7.8", "2.8.4")),
    LineForm("collnet-210", "NCCL", "transport", "transport/coll_net.cc", (),
             "CollNet %02d : %d [send] via COLLNET/%s/%d%s", _P + "CollNet 01 : 3 [send] via COLLNET/SHARP/0/GDRDMA",
             (("collnet", "COLLNET/SHARP"),), ("2.10.3", "2.12.12")),
    LineForm("gdr-pair-on-24", "NCCL", "gdr", "transport/net.cc", (),
             "NET/%s : GPU Direct RDMA Enabled for GPU %d[%d] / HCA %d (distance %d < %d), read %d",
             _P + "NET/IB : GPU Direct RDMA Enabled for GPU 0[0] / HCA 0 (distance 2 < 4), read 0",
             (("gdr_enabled", True), ("gdr_verdict", True)), ("2.4.8",)),
    LineForm("gdr-pair-off-24", "NCCL", "gdr", "transport/net.cc", (),
             "NET/%s : GPU Direct RDMA Disabled for GPU %d[%d] / HCA %d (distance %d >= %d)",
             _P + "NET/IB : GPU Direct RDMA Disabled for GPU 0[0] / HCA 0 (distance 4 >= 4)",
             (("gdr_disabled", True), ("gdr_verdict", False)), ("2.4.8",)),
    LineForm("ib-gdr-no-module", "NCCL", "gdr", "transport/net_ib.cc", (),
             "NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (no module)",
             _P + "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)", (("gdr_disabled", True),),
             ("2.5.7", "2.7.8", "2.8.4", "2.10.3", "2.12.12")),
    LineForm("channels-old", "NCCL", "nvls", "graph/paths.cc", (),
             "%d coll channels, %d p2p channels, %d p2p channels per peer (no NVLS count before 2.17)",
             _P + "2 coll channels, 2 p2p channels, 2 p2p channels per peer",
             (("coll_channels", 2), ("nvls_channels", None)),
             ("2.7.8", "2.8.4", "2.10.3", "2.12.12", "2.14.3", "2.16.5")),
    # -- RCCL --------------------------------------------------------------------------------------------------------
    LineForm("rccl-version", "RCCL", "version", "init.cc", ("develop@0cbce2a7",),
             '"RCCL version : " STR(NCCL_MAJOR) "." STR(NCCL_MINOR) "." STR(NCCL_PATCH) NCCL_SUFFIX',
             "RCCL version : 2.22.3-develop:0cbce2a7", (("version", "2.22.3"), ("vendor", "amd"))),
    LineForm("rccl-version-62", "RCCL", "version", "init.cc", ("rocm-6.1.0", "rocm-6.2.2"),
             '"RCCL version " STR(NCCL_MAJOR) "." ... NCCL_SUFFIX "+hip" STR(HIP_VERSION_MAJOR) ...',
             "RCCL version 2.20.5+hip6.2 HEAD:d380693+", (("version", "2.20.5"), ("vendor", "amd"))),
    LineForm("rccl-net", "RCCL", "transport", "transport/net.cc", RCCL_REFS,
             "Channel %02d/%d : %d[%lx] -> %d[%lx] [send] via NET/%s/%d%s%s comm %p nRanks %02d",
             _P + "Channel 00/0 : 0[c000] -> 8[c000] [send] via NET/IB/0/GDRDMA comm 0x5593e1a0 nRanks 16",
             (("transport", ("NET/IB",)), ("nics", ("NET/IB/0",)), ("gdr", (1, 0)), ("vendor", "amd"))),
    LineForm("rccl-p2p-ipc", "RCCL", "transport", "transport/p2p.cc", RCCL_REFS,
             "Channel %02d/%01d : %d[%lx] -> %d[%lx] via P2P/IPC%s%s comm %p nRanks %02d",
             _P + "Channel 00/0 : 0[c000] -> 1[22000] via P2P/IPC/read comm 0x5593e1a0 nRanks 08",
             (("transport", ("P2P/IPC",)), ("trees_nranks", 8), ("vendor", "amd"))),
    LineForm("rccl-shm", "RCCL", "transport", "transport/shm.cc", RCCL_REFS,
             "Channel %02d : %d[%lx] -> %d[%lx] via SHM/%s/%s comm %p nRanks %02d",
             _P + "Channel 00 : 0[c000] -> 1[22000] via SHM/direct/direct comm 0x5593e1a0 nRanks 08",
             (("transport", ("SHM",)), ("trees_nranks", 8))),
    LineForm("rccl-trees", "RCCL", "channels", "init.cc", RCCL_REFS, "Trees%s comm %p nRanks %02d busId %lx",
             _P + "Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1 comm 0x5593e1a0 nRanks 08 busId c000",
             (("trees", 2), ("trees_nranks", 8), ("vendor", "amd"))),
    LineForm("rccl-rings", "RCCL", "channels", "init.cc", RCCL_REFS,
             "Connected all rings comm %p nRanks %02d busId %lx",
             _P + "Connected all rings comm 0x5593e1a0 nRanks 08 busId c000", (("vendor", "amd"),)),
    LineForm("rccl-comm-nnodes", "RCCL", "shape", "init.cc", ("rocm-6.2.2", "develop@0cbce2a7"),
             "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",
             _P + "comm 0x5593e1a0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
             (("ranks", 16), ("nnodes", 2))),
    LineForm("rccl-ib-list", "RCCL", "nics", "transport/net_ib.cc", RCCL_REFS, "NET/IB : Using%s %s; OOB %s:%s",
             _P + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ens50f0:10.0.0.7<0>",
             (("ib_nics", (("mlx5_0", "IB"), ("mlx5_1", "IB"))),)),
    LineForm("rccl-gdr-pair-on", "RCCL", "gdr", "graph/paths.cc", RCCL_REFS,
             "GPU Direct RDMA Enabled for GPU %lx / HCA %lx (distance %d <= %d), read %d",
             _P + "GPU Direct RDMA Enabled for GPU c000 / HCA 0 (distance 4 <= 4), read 0", (("gdr_enabled", True),)),
    LineForm("rccl-xgmi", "RCCL", "nics", "graph/topo.cc", RCCL_REFS,
             '"+ %s[%2.1f] - " with topoLinkTypeStr "XGMI"', _P + "+ XGMI[36.0] - GPU/C1000",
             (("topo_xgmi", True), ("vendor", "amd"))),
)


def markdown_table() -> str:
    """Return the forms as a Markdown table: what, where in the source, which releases, an example.

    >>> table = markdown_table().splitlines()
    >>> table[0].split(" | ")[3:5], len(table) == len(FORMS) + 2
    (['NCCL 2.18', '2.19'], True)
    """
    head = ("| form | feeds | source file | NCCL " + " | ".join(NCCL_RELEASES)
            + " | before 2.18 | example (after the prefix) |")
    rows = [head, "|" + "---|" * (len(NCCL_RELEASES) + 5)]
    for form in FORMS:
        example = form.example[len(_P):] if form.example.startswith(_P) else form.example
        example = example.replace("|", "\\|")
        if form.library == "NCCL":
            marks = ["yes" if r in form.releases else "" for r in NCCL_RELEASES]
        else:
            marks = [("RCCL " + ", ".join(form.releases))] + [""] * (len(NCCL_RELEASES) - 1)
        older = ", ".join(form.older)
        rows.append(f"| {form.key} | {form.verdict} | `{form.path}` | " + " | ".join(marks)
                    + f" | {older} | `{example}` |")
    return "\n".join(rows)
