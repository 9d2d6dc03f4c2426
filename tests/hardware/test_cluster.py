"""Cluster resolution: defaults from the catalog, clamping with warnings, derived bandwidths."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect.catalog import UnknownIdError, get_catalog
from interconnect.hardware.cluster import FABRICS, MAX_NODES, MAX_RANKS, fabric_from_family, resolve_cluster


def test_h100_defaults_come_from_the_dgx_h100_preset():
    cluster, warnings = resolve_cluster("h100-sxm")
    preset = get_catalog().node("dgx-h100")
    assert warnings == []
    assert (cluster.gpus_per_node, cluster.nodes, cluster.ranks) == (preset.gpus, 1, 8)
    assert cluster.nic == preset.nic == "ib-ndr"
    assert cluster.nics_per_node == preset.nics
    assert cluster.fabric == "infiniband"
    assert cluster.domain_size == 8 and cluster.domains == 1
    assert cluster.nvls_enabled  # NVSwitch 3 has reduction engines (catalog nvlink4.in_network_reduction)


def test_gb200_scaleup_domain_defaults_to_the_nvl72_rack():
    preset = get_catalog().node("gb200-nvl72")
    cluster, _ = resolve_cluster("gb200", gpus_per_node=4, nodes=36)
    assert cluster.scaleup_domain == preset.scaleup_domain == 72
    assert cluster.domain_size == 72 and cluster.domains == 2
    small, _ = resolve_cluster("gb200", gpus_per_node=4, nodes=1)
    assert small.domain_size == 4  # a job on one tray only spans 4 GPUs of the domain


def test_board_level_domain_follows_gpus_per_node():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=1, nodes=4)
    assert cluster.domain_size == 1 and cluster.domains == 4


@pytest.mark.parametrize(
    ("kwargs", "expected_field", "expected_value", "warning_start"),
    [
        ({"nodes": 0}, "nodes", 1, "nodes: 0 is not allowed"),
        ({"nodes": -5}, "nodes", 1, "nodes: -5 is not allowed"),
        ({"gpus_per_node": 10**9}, "gpus_per_node", 1024, "gpus_per_node: 1,000,000,000 is more than"),
        ({"nodes": 10**9}, "nodes", MAX_NODES, "nodes: 1,000,000,000 is more than"),
        ({"nodes": 2.5}, "nodes", 2, "nodes: 2.5 is not a whole number"),
        ({"nodes": "many"}, "nodes", 1, "nodes: 'many' is not a number"),
        ({"nics_per_node": 0}, "nics_per_node", 1, "nics_per_node: 0 is not allowed"),
        ({"fabric": "carrier pigeon"}, "fabric", "infiniband", "fabric: 'carrier pigeon' is not one of"),
    ],
)
def test_absurd_inputs_are_clamped_with_a_warning(kwargs, expected_field, expected_value, warning_start):
    cluster, warnings = resolve_cluster("h100-sxm", **kwargs)
    assert getattr(cluster, expected_field) == expected_value
    assert len(warnings) == 1 and warnings[0].startswith(warning_start), warnings


def test_a_nic_in_parsecs_is_replaced_by_the_default_with_a_reason():
    cluster, warnings = resolve_cluster("h100-sxm", nic="5 parsecs")
    assert cluster.nic == "ib-ndr"
    assert len(warnings) == 1 and "got a length" in warnings[0]


@pytest.mark.parametrize(("text", "gbit_s"), [("0.001 Gbit/s", 1.0), ("1e9 Gbit/s", 12_800.0)])
def test_nic_bandwidth_is_clamped_to_a_sane_range(text, gbit_s):
    cluster, warnings = resolve_cluster("h100-sxm", nic=text)
    assert cluster.nic_line_gbps * 8 == pytest.approx(gbit_s)
    assert len(warnings) == 1


def test_negative_bandwidth_is_refused_with_a_warning():
    cluster, warnings = resolve_cluster("h100-sxm", nic="-400 Gbit/s")
    assert cluster.nic == "ib-ndr" and warnings and "positive" in warnings[0]


def test_too_many_ranks_are_capped():
    cluster, warnings = resolve_cluster("h100-sxm", gpus_per_node=1024, nodes=MAX_NODES)
    assert cluster.ranks <= MAX_RANKS
    assert any("GPUs is more than" in w for w in warnings)


def test_unknown_gpu_and_unknown_nic_id_raise():
    with pytest.raises(UnknownIdError):
        resolve_cluster("h9000")
    with pytest.raises(UnknownIdError):
        resolve_cluster("h100-sxm", nic="ib-zdr")


def test_user_bandwidth_nic_uses_the_fabric_efficiency():
    # 16 x 100 Gbit/s RoCE per node: 12.5 GB/s line, x0.92 achievable (cluster.FABRICS)
    cluster, warnings = resolve_cluster(
        "a100-sxm", gpus_per_node=8, nodes=2, nic="100 Gbit/s", nics_per_node=16, fabric="roce"
    )
    assert warnings == []
    assert cluster.nic_line_gbps == pytest.approx(12.5)
    assert cluster.nic_achieved_gbps == pytest.approx(12.5 * FABRICS["roce"].efficiency)
    assert cluster.node_egress_gbps == pytest.approx(16 * 12.5 * 0.92)
    assert cluster.nic_bw_per_gpu_gbps == pytest.approx(2 * 12.5 * 0.92)


def test_catalog_nic_uses_its_achieved_figure():
    # ib-ndr: "up to 48-49 GB/s per NIC" (nccl-tests #267), catalog achieved 48 GB/s
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    achieved = get_catalog().nic("ib-ndr").achieved.per_direction().to("GB/s").magnitude
    assert cluster.nic_achieved_gbps == pytest.approx(achieved)
    assert cluster.node_egress_gbps == pytest.approx(8 * achieved)
    assert cluster.intra_bw_gbps == pytest.approx(370.8)  # NCCL topo.h: 18 x 20.6 GB/s


def test_mesh_scaleup_shrinks_with_the_group():
    # MI300X: one xGMI link to each of 7 peers. ml-engineering: 2 GPUs reach 47.7 GB/s busbw
    # against 312.9 with 8, i.e. about 1/7 (ml-engineering network/README.md, catalog note).
    full, _ = resolve_cluster("mi300x", gpus_per_node=8)
    pair, _ = resolve_cluster("mi300x", gpus_per_node=2)
    assert not full.scaleup_switched
    assert pair.intra_bw_gbps == pytest.approx(full.intra_bw_gbps / 7)
    assert not full.nvls_enabled


@pytest.mark.parametrize(("gpu", "gpus", "expected"), [
    ("h100-sxm", 4, False), ("h100-sxm", 5, True),  # "above 4 GPUs on 8xH200" (MLE, §1.2)
    ("b200", 5, False), ("b200", 6, True),  # "above 5 GPUs on 8xB200"
    ("a100-sxm", 8, False),  # NVSwitch 2 has no reduction engines
])
def test_nvls_thresholds(gpu, gpus, expected):
    cluster, _ = resolve_cluster(gpu, gpus_per_node=gpus)
    assert cluster.nvls_enabled is expected


def test_fabric_defaults_from_the_nic_family():
    assert resolve_cluster("h100-sxm", nic="roce-400g")[0].fabric == "roce"
    assert resolve_cluster("h100-sxm", nic="efa-v3")[0].fabric == "efa"
    assert resolve_cluster("mi300x")[0].fabric == "roce"  # mi300x-platform preset: roce-400g
    assert fabric_from_family("Ethernet (GPUDirect-TCPX)") == "ethernet"


def test_sharp_needs_infiniband():
    cluster, warnings = resolve_cluster("h100-sxm", nodes=2, nic="roce-400g", in_network_reduction=True)
    assert not cluster.in_network_reduction and warnings
    cluster, warnings = resolve_cluster("h100-sxm", nodes=2, in_network_reduction=True)
    assert cluster.in_network_reduction and warnings == []


def test_cluster_is_frozen_and_serialisable():
    cluster, _ = resolve_cluster("h100-sxm", nodes=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cluster.nodes = 3  # type: ignore[misc]
    payload = cluster.as_dict()
    assert payload["ranks"] == 16 and payload["node_egress_gbps"] == pytest.approx(384.0)
    assert resolve_cluster("h100-sxm", nodes=2)[0] == cluster


@settings(max_examples=60, deadline=None)
@given(
    gpus=st.one_of(st.none(), st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True)),
    nodes=st.one_of(st.none(), st.integers(-10**12, 10**12), st.text(max_size=8)),
    nic=st.one_of(st.none(), st.sampled_from(["200 Gbit/s", "5 parsecs", "-3 GB/s", "", "400 Gbps", "1e99 Gbit/s"])),
    nics=st.one_of(st.none(), st.integers(-100, 10**9)),
)
def test_resolution_never_raises_on_numbers_and_stays_in_range(gpus, nodes, nic, nics):
    cluster, warnings = resolve_cluster("h100-sxm", gpus_per_node=gpus, nodes=nodes, nic=nic, nics_per_node=nics)
    assert 1 <= cluster.ranks <= MAX_RANKS
    assert 1 <= cluster.nics_per_node
    assert 0 < cluster.nic_achieved_gbps <= 12_800 / 8
    assert all(isinstance(w, str) and w for w in warnings)


def test_hop_latency_is_typed_checked_and_clamped():
    cluster, warnings = resolve_cluster("h100-sxm", nodes=2, hop_latency="25 us")
    assert cluster.net_hop_latency_us == 25.0 and warnings == []
    assert "25 µs extra per network hop" in cluster.describe()
    assert resolve_cluster("h100-sxm", hop_latency="0 us")[0].net_hop_latency_us == 0.0
    assert resolve_cluster("h100-sxm", hop_latency="")[0].hop_latency_override_us is None
    assert resolve_cluster("h100-sxm", hop_latency=0.2)[0].net_hop_latency_us == 0.2  # a number is µs
    cluster, warnings = resolve_cluster("h100-sxm", hop_latency="5 parsecs")
    assert cluster.hop_latency_override_us is None and warnings[0].startswith("hop_latency:")
    cluster, warnings = resolve_cluster("h100-sxm", hop_latency="1 h")
    assert cluster.net_hop_latency_us == 100_000.0 and "100 ms" in warnings[0]


def test_fabric_constants_per_gpu_family_and_efa_generation():
    # aws-ofi-nccl platform-aws.cpp: p4d/p5 report 75 us per hop to NCCL, p5en/p6-b200 35 us.
    assert resolve_cluster("h100-sxm", nic="efa-v2", nics_per_node=32)[0].fabric_model.plugin_latency_us == 75.0
    assert resolve_cluster("b200", nic="efa-v4")[0].fabric_model.plugin_latency_us == 35.0
    assert resolve_cluster("h100-sxm")[0].fabric_model.plugin_latency_us == 0.0  # NCCL's IB plugin: "Not set"
    p4d = resolve_cluster("a100-sxm", nic="100 Gbit/s", nics_per_node=4, fabric="efa")[0]
    assert p4d.net_hop_latency_us == 75.0 and p4d.fabric_model.nvls_chunk_bytes == 0


def test_nic_devices_as_nccl_sees_them():
    assert resolve_cluster("h100-sxm", nic="efa-v2", nics_per_node=32)[0].nic_devices_per_domain == 8
    assert resolve_cluster("h100-sxm", nics_per_node=8)[0].nic_devices_per_domain == 8
    assert resolve_cluster("a100-sxm", nic="100 Gbit/s", nics_per_node=4)[0].nic_devices_per_domain == 4
    gcp = resolve_cluster("h100-sxm", nic="200 Gbit/s", nics_per_node=16, fabric="roce")[0]
    assert gcp.nic_devices_per_domain == 8 and gcp.nic_device_gbps == pytest.approx(2 * 25 * 0.92)
