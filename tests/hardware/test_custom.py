"""A custom GPU and NIC: resolved through the same path as catalog hardware, hostile values refused."""

import pytest

from interconnect.catalog import get_catalog
from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import allreduce
from interconnect.hardware.custom import (
    CUSTOM_NIC_ID,
    CUSTOM_SOURCE,
    DEFAULT_NAME,
    catalog_with,
    clean_name,
    custom_gpu,
    custom_nic,
    read_scaleup,
)
from interconnect.topics.cliff.model import cliff_bars, cliff_summary

CATALOG = get_catalog()
SIZES = [8.0, 1 << 20, 1 << 28]


@pytest.mark.parametrize("base", ["h100-sxm", "b200", "mi300x", "gb200"])
def test_a_custom_gpu_with_its_bases_bandwidth_is_its_base(base):
    bandwidth = CATALOG.gpu(base).scaleup_bandwidth.per_direction()
    for nodes in (1, 4):
        catalog_cluster, _ = resolve_cluster(base, nodes=nodes)
        custom, warnings = resolve_cluster("custom", gpu_base=base, scaleup_bandwidth=f"{bandwidth.to('GB/s').m} GB/s",
                                           nodes=nodes)
        assert not warnings
        assert custom.gpu == base and custom.gpu_custom and custom.gpu_name == DEFAULT_NAME
        assert custom.intra_bw_gbps == pytest.approx(catalog_cluster.intra_bw_gbps)
        assert list(allreduce(custom, SIZES).time_us) == pytest.approx(list(allreduce(catalog_cluster, SIZES).time_us))


def test_custom_scaleup_keeps_the_bases_achieved_share():
    # H100: 450 GB/s per direction spec; the catalog's achieved figure is NCCL's 18 x 20.6 GB/s.
    h100, _ = resolve_cluster("h100-sxm")
    share = h100.intra_bw_full_gbps / h100.scaleup_spec_gbps
    cluster, warnings = resolve_cluster("custom", scaleup_bandwidth="3.6 TB/s", gpu_name="Next")
    assert not warnings
    assert cluster.scaleup_spec_gbps == 3600.0
    assert cluster.intra_bw_full_gbps == pytest.approx(3600.0 * share)
    assert cluster.gpu_name == "Next" and "3600 GB/s scale-up per direction" in cluster.describe()
    assert "7200 GB/s both directions" in cluster.describe()


def test_a_one_node_all_reduce_speeds_up_with_the_custom_scaleup():
    base, _ = resolve_cluster("h100-sxm", nodes=1)
    faster, _ = resolve_cluster("custom", gpu_base="h100-sxm", scaleup_bandwidth="900 GB/s", nodes=1)
    size = [float(1 << 30)]
    ratio = allreduce(base, size, algorithm="ring").time_us[0] / allreduce(faster, size, algorithm="ring").time_us[0]
    assert ratio == pytest.approx(2.0, rel=0.05)  # a bandwidth-bound ring inside the node: twice the rate


def test_four_800g_nics_reach_the_cluster():
    cluster, warnings = resolve_cluster("custom", scaleup_bandwidth="3.6 TB/s", nic="800 Gbit/s", nics_per_node=4)
    assert not warnings
    assert cluster.nic_line_gbps == 100.0 and cluster.nics_per_node == 4


@pytest.mark.parametrize(("text", "used"), [
    ("-5 GB/s", 450.0), ("5 parsecs", 450.0), ("9^9^8", 450.0), ("2**2**2**2 GB/s", 450.0), ("nan GB/s", 450.0),
    ("1e300 TB/s", 100_000.0), ("0.001 GB/s", 1.0), ("x" * 10_000, 450.0), ("900 GHz", 450.0),
])
def test_hostile_scaleup_falls_back_with_one_warning(text, used):
    cluster, warnings = resolve_cluster("custom", gpu_base="h100-sxm", scaleup_bandwidth=text)
    assert cluster.scaleup_spec_gbps == used
    assert len(warnings) == 1 and warnings[0].startswith("gpu_bw: ")


def test_read_scaleup_takes_a_number_of_gbps_and_refuses_a_bool():
    notes: list[str] = []
    assert read_scaleup(1800, 450.0, notes) == 1800.0 and not notes
    assert read_scaleup(True, 450.0, notes) == 450.0 and len(notes) == 1


@pytest.mark.parametrize("text", ["<script>alert(1)</script>", "<b>x</b>", "a" * 41, "x`y", "[link](http://e.vil)",
                                  "$\\frac{1}{2}$", "tab\there\x00", "&lt;b&gt;"])
def test_a_name_with_markup_or_too_long_is_refused(text):
    warnings: list[str] = []
    assert clean_name(text, warnings) == DEFAULT_NAME
    assert len(warnings) == 1


def test_plain_names_are_kept():
    assert clean_name("Rubin (hypothetical) #2, 3.6 TB/s") == "Rubin (hypothetical) #2, 3.6 TB/s"
    assert clean_name("Ascend 910C") == "Ascend 910C"


def test_custom_figures_say_they_are_the_users_input():
    gpu = custom_gpu(CATALOG.gpu("h100-sxm"), 3600.0, "Next")
    assert gpu.scaleup_bandwidth.source_ids == (CUSTOM_SOURCE,)
    assert CUSTOM_SOURCE in gpu.scaleup_achieved.source_ids and gpu.scaleup_achieved.basis == "estimate"
    assert gpu.memory == CATALOG.gpu("h100-sxm").memory  # the base's, with its sources
    assert CUSTOM_SOURCE not in CATALOG.sources  # never mistaken for a catalogued source
    nic = custom_nic(1600.0, CATALOG.nic("ib-ndr"))
    assert nic.bandwidth.source_ids == (CUSTOM_SOURCE,) and nic.quoted == ()


def test_the_cliff_of_a_custom_gpu_is_its_scaleup_over_its_nics():
    # 3.6 TB/s per direction against 4 x 800 Gbit/s (4 x 100 GB/s) shared by the 8 GPUs of a DGX H100 board.
    catalog = catalog_with(CATALOG, custom_gpu(CATALOG.gpu("h100-sxm"), 3600.0, "Next"),
                           custom_nic(800.0, CATALOG.nic("ib-ndr")))
    summary = cliff_summary(catalog, "custom", CUSTOM_NIC_ID, nics_per_node=4)
    assert summary.ratio_like_for_like == pytest.approx(3600 / (4 * 100 / 8))
    assert summary.ratio_as_quoted == pytest.approx(7200 / (4 * 100 / 8))
    bars = {bar.key: bar for bar in cliff_bars(catalog, "custom", CUSTOM_NIC_ID, nics_per_node=4)}
    assert bars["scaleup"].bandwidth.to("GB/s").m == pytest.approx(3600)
    assert bars["node"].bandwidth.to("GB/s").m == pytest.approx(400)
    assert "custom" not in CATALOG.gpus and CUSTOM_NIC_ID not in CATALOG.links  # the shared catalog is untouched


def test_across_sites_times_the_in_site_all_reduce_on_the_custom_scaleup():
    from interconnect.topics.crossdc.model import site_allreduce_algbw

    base = site_allreduce_algbw("h100-sxm", 8)
    assert site_allreduce_algbw("h100-sxm", 8, "450 GB/s") == pytest.approx(base)  # the base's own bandwidth
    faster = site_allreduce_algbw("h100-sxm", 8, "900 GB/s")
    assert faster / base == pytest.approx(2.0, rel=0.1)  # one server: the all-reduce runs on the scale-up links
