"""The drawing's data: which GPUs, connections, NICs and nodes are drawn and which are marked as carrying traffic,
for collected logs of one node, two nodes, many nodes, sockets only and RCCL; and the figures escape log text."""

from __future__ import annotations

from pathlib import Path

from interconnect.io.nccl_debug import read_nccl_debug
from interconnect.topics.explain.figures import fabric_figure, node_figure
from interconnect.topics.explain.model import explain, explain_source
from interconnect.topics.explain.topology import MAX_NODES_DRAWN

DATA = Path(__file__).resolve().parents[2] / "data" / "nccl_debug_logs"


def _topo(name: str):
    return explain_source((DATA / name).read_bytes()).topology


def _texts(figure) -> str:
    parts = [str(a.text) for a in figure.layout.annotations] + [str(figure.layout.title.text)]
    for trace in figure.data:
        for key in ("text", "hovertext"):
            value = getattr(trace, key, None)
            parts.extend(value if isinstance(value, list | tuple) else [value] if value else [])
    return "\n".join(str(p) for p in parts)


def test_mixed_node_marks_each_pair_by_its_transport():
    # deepspeed#2931, host PHLRR3088 (ranks 8-15): lines 9-10 SHM, 10-11 P2P, 11-12 over IBext, two NICs used
    topo = _topo("deepspeed-2931-shm-p2p-ibext-gdr-mix.log")
    assert topo.node.host == "PHLRR3088" and topo.node.ranks == tuple(range(8, 16))
    pairs = {(e.a, e.b): e.kind for e in topo.intra}
    assert pairs[(9, 10)] == "shm" and pairs[(10, 11)] == "p2p" and pairs[(11, 12)] == "net"
    assert [g.device for g in topo.gpus] == list(range(8))
    assert {n.label for n in topo.nics if n.used} == {"NET/IBext/0", "NET/IBext/1"}
    assert topo.domain_used and "NVLink or PCIe" in topo.domain
    # the far ends of its network lines are other nodes whose hosts the excerpt does not give
    assert {e.b for e in topo.inter} == {"rank 0 (host not in the log)", "rank 7 (host not in the log)"}


def test_two_nodes_over_infiniband():
    topo = _topo("nv-peer-memory-56-ib-gdr-distance.log")
    assert [n.host for n in topo.nodes] == ["master_node", "secondary_node"]
    assert [(e.a, e.b, e.transport) for e in topo.inter] == [("master_node", "secondary_node", "NET/IB")]
    assert [n.used for n in topo.nics] == [True] and topo.fabric == "InfiniBand"
    gpus_on_net = {g.rank for g in topo.gpus if "net" in g.kinds}
    assert gpus_on_net == {2, 3}


def test_sockets_only_one_of_two_interfaces():
    topo = _topo("nccl-278-socket-one-of-two-nics.log")
    assert topo.fabric == "TCP/IP sockets"
    assert [(n.name, n.used) for n in topo.nics] == [("enP1p1s0f0", True), ("enP1p1s0f1", False)]
    assert {e.transport for e in topo.inter} == {"NET/Socket"} and not topo.intra


def test_single_node_without_p2p_goes_through_the_nics():
    topo = _topo("nccl-707-a100-single-node-gdrdma.log")
    assert len(topo.nodes) == 1 and "One node" in topo.notes[0]
    assert topo.intra and all(e.kind == "net" for e in topo.intra)
    assert "through the NICs" in topo.domain and not topo.domain_used
    assert sorted(n.label for n in topo.nics if n.used) == ["NET/IB/0", "NET/IB/2", "NET/IB/4", "NET/IB/5"]


def test_rccl_node_says_xgmi_and_no_nvls():
    topo = _topo("rccl-419-ib-4nics-p2p-ipc.log")
    assert topo.vendor == "amd" and topo.domain.startswith("xGMI") and topo.nvls is False
    assert "NVLS is NVIDIA's" in _texts(node_figure(topo))
    assert len(topo.nics) == 4 and not any(n.used for n in topo.nics)


def test_nvls_available_names_the_nvswitch():
    topo = _topo("nccl-1538-roce-ibext-nvls-cumem.log")
    assert topo.domain == "NVLink through NVSwitch" and topo.nvls_available


def _ring_log(nodes: int, gpn: int = 8, nvls: int = 16) -> str:
    """All ranks' lines of a ring over ``nodes`` nodes: P2P inside a node, rank gpn-1 of each node sends to the
    next node over NIC 7 and rank 0 receives on NIC 0."""
    ranks = nodes * gpn
    out = ["NCCL version 2.21.5+cuda12.4"]
    for n in range(nodes):
        for g in range(gpn):
            r = n * gpn + g
            head = f"n{n:03d}:10:{g} [{g}] NCCL INFO"
            out.append(f"{head} comm 0x1 rank {r} nRanks {ranks} nNodes {nodes} localRanks {gpn} localRank {g}")
            if g < gpn - 1:
                out.append(f"{head} Channel 00/0 : {r}[{g}] -> {r + 1}[{g + 1}] via P2P/CUMEM/read")
            else:
                out.append(f"{head} Channel 00/0 : {r}[{g}] -> {(r + 1) % ranks}[0] [send] via NET/IB/7/GDRDMA")
        out.append(f"n{n:03d}:10:0 [0] NCCL INFO Channel 00/0 : {(n * gpn - 1) % ranks}[{gpn - 1}] -> {n * gpn}[0] "
                   "[receive] via NET/IB/0/GDRDMA")
    out.append("n000:10:0 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB "
               "[4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB ; OOB eth0:10.0.0.1<0>")
    out.append(f"n000:10:0 [0] NCCL INFO 32 coll channels, {nvls} nvls channels, 32 p2p channels, 32 p2p channels "
               "per peer")
    return "\n".join(out) + "\n"


def test_many_nodes_ring_rails_and_nvls():
    topo = explain(read_nccl_debug(_ring_log(32))).topology
    assert topo.node.host == "n000" and len(topo.gpus) == 8 and topo.nvls is True
    assert [n.label for n in topo.nics if n.used] == ["NET/IB/0", "NET/IB/7"]
    assert all(e.kind == "p2p" for e in topo.intra) and len(topo.intra) == 7
    assert len(topo.nodes) == MAX_NODES_DRAWN and topo.nodes_not_drawn == 32 - MAX_NODES_DRAWN
    assert topo.ranks_not_drawn == 8 * (32 - MAX_NODES_DRAWN)
    assert all(n.nics_used == 2 and n.nics_listed == 8 for n in topo.nodes)
    assert ("n000", "n001", "NET/IB") in {(e.a, e.b, e.transport) for e in topo.inter}
    fig = fabric_figure(topo)
    assert f"+{32 - MAX_NODES_DRAWN} nodes" in _texts(fig)
    assert "NVLS used" in _texts(node_figure(topo))
    no_nvls = explain(read_nccl_debug(_ring_log(2, nvls=0))).topology
    assert no_nvls.nvls is False and "NVLS not used" in _texts(node_figure(no_nvls))


def test_log_text_is_escaped_and_text_is_readable():
    log = _ring_log(2).replace("n000", "<b>evil</b>")
    topo = explain(read_nccl_debug(log)).topology
    for figure in (node_figure(topo), fabric_figure(topo)):
        text = _texts(figure)
        assert "<b>evil" not in text and "&lt;b&gt;evil" in text
        sizes = [a.font.size for a in figure.layout.annotations] + [figure.layout.font.size]
        sizes += [t.textfont.size for t in figure.data if getattr(t, "textfont", None) and t.textfont.size]
        assert min(sizes) >= 14


def test_every_collected_log_draws():
    for path in sorted(DATA.glob("*.log")):
        topo = explain_source(path.read_bytes()).topology
        node_figure(topo)
        fabric_figure(topo)


def test_nodes_unlike_their_peers_are_marked_and_drawn():
    out = explain_source((DATA / "synthetic" / "per-node-links.log").read_bytes())
    odd = {node.host: node.odd for node in out.topology.nodes}
    assert odd == {"gpu-a": "", "gpu-b": "no GDRDMA", "gpu-c": "fewer NICs listed, fewer NICs used",
                   "gpu-d": "SHM, not P2P"}
    figure = fabric_figure(out.topology)
    boxes = next(t for t in figure.data if t.mode == "markers+text")
    assert list(boxes.marker.line.width) == [2 if not odd[n.host] else 4 for n in out.topology.nodes]
    assert sum("<b>unlike</b><br><b>its peers</b>" in label for label in boxes.text) == 3
    assert any(t.name == "node unlike its peers (see the findings)" for t in figure.data)


def test_a_node_unlike_its_peers_is_drawn_even_past_the_seventh():
    text = "\n".join(f"n{h:02d}:1:1 [{d}] NCCL INFO Init timings: rank {h * 2 + d} nranks 20 total "
                     f"{9.5 if h == 9 else 1.1:.2f} (kernels 0.5, bootstrap {8.9 if h == 9 else 0.5:.2f})"
                     for h in range(10) for d in range(2))
    out = explain_source(text)
    assert [v["host"] for v in out.facts["node_outliers"]] == ["n09"]
    drawn = [node.host for node in out.topology.nodes]
    assert len(drawn) == MAX_NODES_DRAWN and "n09" in drawn and out.topology.nodes_not_drawn == 3
