"""The fabric model: closed forms of a folded Clos, and published designs rebuilt from their inputs.

The published counts are written here beside their source (and kept in data/fabric.toml, which the
page shows); a test rebuilds each design from the inputs the publication states.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from interconnect.catalog import get_catalog
from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.fabric import (
    FabricDataError,
    FabricError,
    FabricInputs,
    FabricTopology,
    apply_topology,
    build_fabric,
    design_inputs,
    get_fabric_data,
    load_fabric_data,
    network_share,
    server_inputs,
)
from interconnect.hardware.media import medium_for

DATA = get_fabric_data()
QM9700 = DATA.switches["quantum-2-qm9700"]


def _counts(fabric):
    return [t.switches for t in fabric.tiers], [t.links_down for t in fabric.tiers]


# --- published designs --------------------------------------------------------------------------

# NVIDIA DGX SuperPOD reference architecture (H100 edition RA-11333-001 for the 4-SU design of 127
# DGX H100; the larger-configuration table as printed in the B200 edition, same NDR fabric):
# SU = 32 DGX, 8 x 400 Gb/s NICs each, Quantum-2 QM9700 (64 x 400G), non-blocking, rail-optimised.
SUPERPOD_TABLE = [
    # (SU, nodes, leaf, spine, core, node-leaf, leaf-spine, spine-core)
    (2, 64, 16, 8, None, 512, 512, None),
    (4, 128, 32, 16, None, 1024, 1024, None),
    (8, 256, 64, 32, None, 2048, 2048, None),
    (16, 512, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize("row", SUPERPOD_TABLE, ids=lambda row: f"{row[0]}su")
def test_superpod_table_rebuilt_from_its_inputs(row):
    su, nodes, leaf, spine, core, node_leaf, leaf_spine, spine_core = row
    inputs, warnings = server_inputs("dgx-h100", nodes * 8, "quantum-2-qm9700")
    assert warnings == []
    fabric = build_fabric(inputs)
    switches, links = _counts(fabric)
    assert switches == [n for n in (leaf, spine, core) if n is not None]
    assert links == [n for n in (node_leaf, leaf_spine, spine_core) if n is not None]
    assert fabric.servers_per_group == 32  # the scalable unit: 32 DGX under 8 rail leaves
    assert fabric.groups == su


def test_superpod_h100_four_su_with_127_nodes():
    # RA-11333-001: 4 SU hold 127 DGX H100 (a UFM appliance takes the 128th place); 32 leaves,
    # 16 spines; 1016 node-leaf cables (127 x 8); every leaf's 32 uplinks cabled: 1024.
    fabric = build_fabric(design_inputs("superpod-h100-4su"))
    assert _counts(fabric) == ([32, 16], [1016, 1024])


@pytest.mark.parametrize("design_id", sorted(DATA.designs))
def test_every_published_design_in_the_data_is_reproduced(design_id):
    design = DATA.designs[design_id]
    fabric = build_fabric(design.inputs)
    assert design.published_counts(fabric) == (design.expected_switches, design.expected_links)
    assert design.reproduced_by(fabric)


# Meta's RoCE training fabric (Gangidi et al., "RDMA over Ethernet for Distributed AI Training at
# Meta Scale", SIGCOMM 2024; the cluster's counts from "The Llama 3 Herd of Models", 3.3.1): an AI
# Zone is a two-stage Clos; each rack holds two 8-GPU servers (one 400G NIC per GPU) under one RTSW;
# 192 racks make a zone of 3,072 GPUs; eight zones (24K GPUs) meet at the ATSWs at 1:7. The paper's
# RTSWs carry 1:1.125 more uplink than downlink (16 NIC ports, 18 uplinks). What the publications
# state is compared; the CTSW and ATSW counts are stated by no source read here.
def test_meta_ai_zone_rtsw_tier_from_its_stated_inputs():
    zone = build_fabric(design_inputs("meta-ai-zone"))
    rtsw = zone.tiers[0]
    assert zone.inputs.gpus == 192 * 16 == 3_072  # GPUs per AI Zone (Llama 3 report)
    assert rtsw.switches == 192  # one RTSW per rack
    assert (rtsw.down_ports, rtsw.up_ports) == (16, 18)  # 1 : 1.125
    assert rtsw.oversubscription == pytest.approx(1 / 1.125)
    assert (rtsw.links_down, rtsw.links_up) == (3_072, 3_456)
    assert rtsw.medium.kind == "dac" and zone.tiers[1].medium.kind == "single-mode"  # copper in the rack, SMF up
    # Eight zones: the 24K-GPU cluster (24,576 GPUs) has 1,536 RTSWs and the same taper per RTSW.
    cluster = build_fabric(replace(design_inputs("meta-ai-zone"), servers=8 * 384))
    assert cluster.inputs.gpus == 24_576 and cluster.tiers[0].switches == 8 * 192
    assert cluster.tiers[0].links_up == 8 * 3_456
    # A top-of-rack leaf belongs to a fat tree, and only it may carry more uplink than downlink.
    with pytest.raises(FabricError, match="servers per leaf"):
        build_fabric(replace(design_inputs("meta-ai-zone"), topology="rail-leaf-spine"))
    with pytest.raises(FabricError, match="oversubscription"):
        build_fabric(replace(design_inputs("meta-ai-zone"), servers_per_leaf=0))
    with pytest.raises(FabricError, match="servers per leaf"):
        build_fabric(replace(design_inputs("meta-ai-zone"), servers_per_leaf=200))


def test_alibaba_hpn_pod():
    # Qian et al., Alibaba HPN, SIGCOMM 2024: 51.2 Tb/s single-chip switches; per segment 16 ToRs
    # (8 rails x 2 planes), each ToR 136 x 200G down (128 hosts + 8 backup) and 60 x 400G up;
    # 15 segments per Pod; per plane 60 aggregation switches of 120 down and 8 up (15:1).
    fabric = build_fabric(design_inputs("alibaba-hpn-pod"))
    leaf, agg = fabric.tiers
    assert (leaf.switches, leaf.down_ports, leaf.up_ports) == (240, 136, 60)
    # The paper's ToR ratio, 1.067:1, counts the 128 active host ports; the 8 backup ports are outside it.
    assert leaf.oversubscription == pytest.approx(128 * 200 / (60 * 400))
    assert (agg.switches, agg.down_ports, agg.up_ports) == (120, 120, 8)
    assert agg.links_up == 960  # toward the core, 15:1 below
    assert fabric.groups == 15  # segments
    assert fabric.inputs.gpus == 15 * 136 * 8  # 15,360 GPUs in service plus the backup hosts'


# --- closed forms -------------------------------------------------------------------------------


def _inputs(servers, gpus_per_server=1, nics=1, **kwargs):
    return FabricInputs(servers=servers, gpus_per_server=gpus_per_server, nics_per_server=nics, nic_gbit_s=400.0,
                        switch=QM9700, **kwargs)


def test_two_tiers_reach_k_squared_over_two_and_three_tiers_k_cubed_over_four():
    k = QM9700.ports  # Al-Fares et al., SIGCOMM 2008: non-blocking limits of a folded Clos
    two = build_fabric(_inputs(k * k // 2, topology="fat-tree"))
    assert len(two.tiers) == 2 and [t.switches for t in two.tiers] == [k, k // 2]
    assert len(build_fabric(_inputs(k * k // 2 + 1, topology="fat-tree")).tiers) == 3
    three = build_fabric(_inputs(k**3 // 4, topology="fat-tree"))
    assert [t.switches for t in three.tiers] == [k * k // 2, k * k // 2, k * k // 4]
    with pytest.raises(FabricError, match="more than three tiers"):
        build_fabric(_inputs(k**3 // 4 + k, topology="fat-tree"))


def test_oversubscription_splits_the_leaf_ports_and_halves_bisection():
    full = build_fabric(_inputs(64, nics=8, topology="fat-tree"))
    tapered = build_fabric(_inputs(64, nics=8, topology="fat-tree", oversubscription=(3.0,)))
    assert (tapered.tiers[0].down_ports, tapered.tiers[0].up_ports) == (48, 16)  # 3:1 of 64 ports
    assert tapered.tiers[0].oversubscription == pytest.approx(3.0)
    assert full.bisection_gbit_s == pytest.approx(64 * 8 * 400 / 2)  # half the end ports, per direction
    assert tapered.bisection_gbit_s < full.bisection_gbit_s / 2.5


def test_hops_by_placement():
    rail = build_fabric(_inputs(64, nics=8))
    tor = build_fabric(_inputs(64, nics=8, topology="fat-tree"))
    assert rail.hops() == {"same_rail": 1, "cross_rail": 3, "cross_group": 3}
    assert tor.hops()["cross_rail"] == 1  # every NIC of a server on one top-of-rack leaf
    big = build_fabric(design_inputs("superpod-16su"))
    assert big.hops()["cross_pod"] == 5


def test_media_follow_distance_and_count_transceivers_and_power():
    # The media are the Reach page's (wires.toml): least power per port at one end among the media
    # that reach and carry the ports' protocol (NDR for 400G InfiniBand ports).
    assert medium_for(2.0, 400.0).link_id == "dac-100g-pam4"
    assert medium_for(4.0, 400.0).link_id == "acc-100g-pam4"
    assert medium_for(40.0, 400.0).link_id == "sr8-800g"  # 8.5 W per port beats the 9 W single-port SR4
    assert medium_for(400.0, 400.0).link_id == "dr8-800g"
    assert medium_for(400.0, 800.0, "infiniband").power_per_end_w is None  # XDR optics: no power figure read
    assert medium_for(1_000.0, 400.0).power_per_end_w is None  # beyond 500 m: the 2 km FR4 has no figure
    assert medium_for(4.0, 300.0, "ethernet") is None  # no protocol at that rate
    fabric = build_fabric(design_inputs("superpod-h100-4su"))
    leaf = fabric.tiers[0]
    assert leaf.transceivers == leaf.modules == 1016  # twin-port modules: 508 at each end for 1016 links
    assert leaf.cables == 1016  # one fibre per link
    # NVIDIA's twin-port 800G multimode OSFP: 17 W at most, two 400G ports, 8.5 W per port end.
    assert leaf.media_power_w == pytest.approx(2 * 1016 * 17.0 / 2)
    copper = build_fabric(_inputs(16, nics=8, topology="fat-tree", distances=("rack",)))
    # Passive copper: '<0.1 Watts' per twin-port plug (NVIDIA), 0.05 W per 400G port end.
    assert copper.tiers[0].transceivers == 0
    assert copper.tiers[0].cables == copper.tiers[0].links_down / 2  # a twin-port cable carries two links
    assert copper.tiers[0].media_power_w == pytest.approx(2 * copper.tiers[0].links_down * 0.05)
    ethernet = medium_for(40.0, 800.0, "ethernet")
    assert (ethernet.link_id, ethernet.ports_per_plug, ethernet.power_per_port_end_w) == ("sr8-800g", 1, 17.0)


def test_bad_inputs_name_the_input():
    with pytest.raises(FabricError, match="topology"):
        build_fabric(_inputs(4, topology="torus"))
    with pytest.raises(FabricError, match="oversubscription"):
        build_fabric(_inputs(4, oversubscription=(0.5,)))
    with pytest.raises(FabricError, match="faster than the switch"):
        build_fabric(FabricInputs(4, 8, 8, 800.0, QM9700))
    inputs, warnings = server_inputs("dgx-h100", 1001, "quantum-2-qm9700")
    assert inputs.servers == 126 and "1001" in warnings[0]


def test_data_loader_rejects_unknown_keys_and_sources(tmp_path: Path):
    text = Path(__file__).resolve().parents[2].joinpath("interconnect", "data", "fabric.toml").read_text()
    bad = tmp_path / "fabric.toml"
    bad.write_text(text.replace('ports = 64\n', 'ports = 64\nradix = 64\n', 1))
    with pytest.raises(FabricDataError, match=r"^fabric.toml: switch 'quantum-2-qm9700': unknown key\(s\) radix$"):
        load_fabric_data(bad)
    bad.write_text(text.replace('"nvidia-qm97xx-manual"', '"no-such-source"', 1))
    with pytest.raises(FabricDataError, match="no-such-source"):
        load_fabric_data(bad, frozenset(get_catalog().sources))
    bad.write_text(text.replace('ports = 64\n', 'ports = 64\npower = "9 m"\npower_sources = ["mle-network"]\n', 1))
    with pytest.raises(FabricDataError, match="'power': expected a power like '9 W', got '9 m'"):
        load_fabric_data(bad)
    bad.write_text(text.replace('ports = 64\n', 'ports = "64"\n', 1))
    with pytest.raises(FabricDataError, match="'ports' has the wrong type"):
        load_fabric_data(bad)
    first = text.index("\n[[design]]\n")
    bad.write_text(text + text[first:text.index("\n[[design]]\n", first + 1)])
    with pytest.raises(FabricDataError, match="design 'superpod-h100-4su': duplicate id"):
        load_fabric_data(bad)


# --- what the topology does to collectives ------------------------------------------------------


def test_no_topology_leaves_the_cluster_untouched():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=64)
    same, why = apply_topology(cluster, None)
    assert same is cluster and why == ""


def test_ring_stays_in_a_rail_group_all_to_all_never_does():
    topology = FabricTopology("rail-leaf-spine", servers_per_group=32, oversubscription=2.0)
    assert network_share(topology, 32)[0] == 1.0
    assert network_share(topology, 33)[0] == 0.5
    assert network_share(topology, 2, "alltoall")[0] == 0.5
    tor = FabricTopology("fat-tree", servers_per_group=4, oversubscription=2.0)
    assert network_share(tor, 4, "alltoall")[0] == 1.0  # under one top-of-rack leaf
    shared = FabricTopology("rail-leaf-spine", 32, oversubscription=1.0, shared=0.25)
    assert network_share(shared, 64)[0] == pytest.approx(0.75)


def test_topology_slows_the_allreduce_only_past_the_leaf_group():
    from interconnect.hardware.collectives import allreduce

    topology = FabricTopology("rail-leaf-spine", servers_per_group=4, oversubscription=4.0)
    small, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    big, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=16)
    size = 2**30
    assert allreduce(apply_topology(small, topology)[0], size).time_us[0] == allreduce(small, size).time_us[0]
    slowed = allreduce(apply_topology(big, topology)[0], size).time_us[0]
    assert slowed > 2.0 * allreduce(big, size).time_us[0]
    assert math.isfinite(slowed)


def test_cluster_topology_is_optional_and_changes_nothing_when_absent():
    from interconnect.hardware.collectives import allreduce
    from interconnect.hardware.collectives.others import alltoall
    from interconnect.hardware.fabric import TopologySpec

    plain, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=64)
    assert plain.topology is None and plain.fabric_share == 1.0 and plain.seen_by("alltoall") is plain
    tapered, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=64,
                                 topology=TopologySpec("rail-leaf-spine", "quantum-2-qm9700", 2.0))
    assert tapered.topology.servers_per_group == 42  # 2:1 leaves: 42 of 64 ports face the servers
    assert tapered.fabric_share == 0.5 and "2:1 at the leaves" in tapered.describe()
    size = 2**28
    assert allreduce(tapered, size).busbw_gbps[0] < allreduce(plain, size).busbw_gbps[0]
    small, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4,
                               topology=TopologySpec("rail-leaf-spine", "quantum-2-qm9700", 2.0))
    small_plain, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    # A ring of 4 servers stays in its rail group; all-to-all crosses rails through the spine.
    assert allreduce(small, size).time_us[0] == allreduce(small_plain, size).time_us[0]
    assert alltoall(small, size).time_us[0] > alltoall(small_plain, size).time_us[0]
