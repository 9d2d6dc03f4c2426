"""AppTest: a custom GPU and NIC typed into a link open on every page that has a GPU or a cluster.

The link of a hypothetical system, "a GPU with 3.6 TB/s scale-up per direction and 4 x 800G NICs":
``gpu=custom&gpu_bw=3.6 TB/s&gpu_name=...&nic=custom&nic_bw=800 Gbit/s&nics=4``. Every number on the
page must follow the typed figures, and its sources must say they are the viewer's input.
"""

import re

import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import allreduce
from interconnect.topics.overlap.model import ModelShape, load_bucket_costs, step_schedule
from interconnect.topics.overlap.page_parts import duration
from interconnect.ui.pages import PAGES
from interconnect.ui.pickers import CUSTOM_GPU_LABEL
from interconnect.ui.sources import CUSTOM_SOURCE_TEXT
from interconnect.units import Q_, format_bandwidth
from interconnect.workloads.presets import load_model_presets
from tests.app.conftest import chart_specs, live_charts, run_page

NEXT = {"gpu": "custom", "gpu_base": "h100-sxm", "gpu_bw": "3.6 TB/s", "gpu_name": "Next GPU", "nic": "custom",
        "nic_bw": "800 Gbit/s", "nics": "4"}
CLUSTER_PAGES = ["allreduce", "overlap", "seating", "reach"]
GPU_PAGES = ["cliff", *CLUSTER_PAGES, "crossdc"]


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def texts(at) -> str:
    return "\n".join([block.value for block in at.markdown] + [block.value for block in at.caption])


def custom_cluster(**extra):
    cluster, warnings = resolve_cluster("custom", gpu_base="h100-sxm", scaleup_bandwidth="3.6 TB/s",
                                        gpu_name="Next GPU", nic="800 Gbit/s", nics_per_node=4, **extra)
    assert not warnings
    return cluster


@pytest.mark.parametrize("name", GPU_PAGES)
def test_the_custom_gpu_opens_on_every_page_with_a_gpu_picker(name):
    at = run_page(PAGES[name][0], NEXT)
    assert not at.exception and not at.warning
    prefix = name + "."
    picker = at.selectbox(key=prefix + "gpu")
    assert picker.value == "custom" and CUSTOM_GPU_LABEL in picker.options
    assert at.text_input(key=prefix + "gpu_bw").value == "3.6 TB/s"
    assert at.text_input(key=prefix + "gpu_name").value == "Next GPU"
    assert at.selectbox(key=prefix + "gpu_base").value == "h100-sxm"
    # per direction, and the both-directions sum beside it
    assert "**Next GPU**: 3.6 TB/s per direction = 7.2 TB/s both directions" in texts(at), name
    query = dict(at.query_params)
    expected = NEXT if name != "crossdc" else {key: NEXT[key] for key in ("gpu", "gpu_base", "gpu_bw", "gpu_name")}
    assert {key: query[key] for key in expected} == expected  # the hypothetical system stays in the link
    assert chart_specs(at) or live_charts(at)  # the page's main chart is drawn


def test_the_cliff_ratio_is_the_custom_scaleup_over_the_custom_nics():
    at = run_page(PAGES["cliff"][0], {**NEXT, "view": "bars"})
    # 3,600 GB/s per direction against 4 x 100 GB/s shared by the 8 GPUs of the H100's server: 72 : 1.
    assert metric(at, "Like for like") == f"{3600 / (4 * 100 / 8):.3g} : 1"
    assert metric(at, "As often quoted") == f"{7200 / (4 * 100 / 8):.3g} : 1"
    assert metric(at, "Whole server out") == "400 GB/s"
    chart = chart_specs(at)[0]
    bars = {label: x for trace in chart["data"] for label, x in zip(trace["y"], trace["x"], strict=True)}
    assert any(x == pytest.approx(3600) for label, x in bars.items() if "GPU to GPU" in label)
    assert CUSTOM_SOURCE_TEXT in texts(at)  # not a catalogued source: the viewer's own figure
    # The base's NVLink claims ("18:1 for H100") are not about this GPU.
    assert not any(block.value.startswith("**Often quoted** (") and "NVLink" in block.value for block in at.markdown)
    base = run_page(PAGES["cliff"][0], {"gpu": "h100-sxm"})
    assert any(block.value.startswith("**Often quoted** (") and "NVLink" in block.value for block in base.markdown)


def test_a_custom_nic_alone_on_the_cliff():
    at = run_page(PAGES["cliff"][0], {"gpu": "b200", "nic": "custom", "nic_bw": "1.6 Tbit/s", "nics": "8"})
    assert not at.exception and not at.warning
    # B200: 900 GB/s per direction against one 1.6 Tbit/s (200 GB/s) NIC per GPU.
    assert metric(at, "Like for like") == "4.5 : 1"
    assert dict(at.query_params)["nic_bw"] == "1.6 Tbit/s"
    assert CUSTOM_SOURCE_TEXT in texts(at)


def test_the_allreduce_follows_the_custom_cluster():
    at = run_page(PAGES["allreduce"][0], {**NEXT, "nodes": "4"})
    result = allreduce(custom_cluster(nodes=4), [float(256 * 2**20)])
    assert metric(at, "busbw") == format_bandwidth(Q_(float(result.busbw_gbps[0]), "GB/s"))
    assert metric(at, "Server egress") == format_bandwidth(Q_(4 * 100 * 0.96, "GB/s"))  # InfiniBand's 96 %
    assert "Next GPU" in texts(at) and CUSTOM_SOURCE_TEXT in texts(at)


def test_one_node_allreduce_is_faster_with_more_scaleup():
    base = run_page(PAGES["allreduce"][0], {"nodes": "1"})
    custom = run_page(PAGES["allreduce"][0], {**NEXT, "nodes": "1"})
    result = allreduce(custom_cluster(nodes=1), [float(256 * 2**20)])
    assert metric(custom, "busbw") == format_bandwidth(Q_(float(result.busbw_gbps[0]), "GB/s"))
    assert metric(custom, "busbw") != metric(base, "busbw")


def test_the_overlap_step_follows_the_custom_cluster():
    at = run_page(PAGES["overlap"][0], NEXT)
    costs = load_bucket_costs()  # the Overlap page's default costs per bucket
    step = step_schedule(custom_cluster(nodes=4), ModelShape.from_preset(load_model_presets()["llama3-8b"]), 4096,
                         sm_contention=costs.contention, bucket_launch_s=costs.launch_s, speed_spread=costs.spread)
    assert metric(at, "Step time") == duration(step.step_s)
    assert metric(at, "Exposed comm") == duration(step.exposed_comm_s)


def test_the_seating_chart_uses_the_custom_scaleup_and_the_bases_memory():
    base = run_page(PAGES["seating"][0], {"gpu": "h100-sxm", "nic": "custom", "nic_bw": "800 Gbit/s", "nics": "4"})
    custom = run_page(PAGES["seating"][0], NEXT)
    # TP=8 inside the node runs on the custom scale-up: a faster step.
    assert metric(custom, "Step time") != metric(base, "Step time")
    # the custom GPU keeps its base's memory: what the driver reports for an "80 GB" H100, 81,559 MiB = 85.5 GB
    for page in (custom, base):
        assert metric(page, "Memory per GPU").endswith("/ 85.5 GB")


def test_the_reach_page_splits_the_custom_cluster():
    base = run_page(PAGES["reach"][0], {"nic": "custom", "nic_bw": "800 Gbit/s", "nics": "4"})
    custom = run_page(PAGES["reach"][0], NEXT)
    assert metric(custom, "Hierarchical, per step") != metric(base, "Hierarchical, per step")


def test_across_sites_takes_the_bases_compute():
    at = run_page(PAGES["crossdc"][0], {**NEXT, "step": "derived"})
    assert not at.exception and not at.warning
    assert "989" in texts(at) or "989" in " ".join(m.value for m in at.metric) or any(
        "989" in block.value for block in at.markdown)  # H100 SXM: 989 TFLOP/s dense BF16


def test_the_custom_gpu_travels_between_pages_in_the_session():
    at = run_page(PAGES["allreduce"][0], NEXT)
    for key in list(at.query_params):
        del at.query_params[key]
    at.switch_page(PAGES["cliff"][0])
    at.run()
    assert not at.exception
    assert at.selectbox(key="cliff.gpu").value == "custom"
    assert at.text_input(key="cliff.gpu_bw").value == "3.6 TB/s"
    assert metric(at, "Like for like") == "72 : 1"
    for key in list(at.query_params):
        del at.query_params[key]
    at.switch_page(PAGES["crossdc"][0])
    at.run()
    assert at.selectbox(key="crossdc.gpu").value == "custom"
    assert at.query_params["gpu_name"] == "Next GPU"


def test_no_custom_keys_in_a_catalog_gpus_link():
    at = run_page(PAGES["allreduce"][0], {"gpu": "b200", "gpu_bw": "3.6 TB/s"})
    assert not at.exception and not at.warning
    assert "gpu_bw" not in dict(at.query_params)  # in the link only while the GPU is custom


@pytest.mark.parametrize("name", ["cliff", "allreduce", "crossdc"])
@pytest.mark.parametrize(("key", "raw", "used"), [
    ("gpu_bw", "-5 GB/s", "900 GB/s"),
    ("gpu_bw", "5 parsecs", "900 GB/s"),
    ("gpu_bw", "9^9^8", "900 GB/s"),
    ("gpu_bw", "1e300 TB/s", "100 TB/s"),
    ("gpu_bw", "x" * 10_000, "900 GB/s"),
    ("gpu_name", "<script>alert(1)</script>", "Custom GPU"),
    ("gpu_name", "a" * 60, "Custom GPU"),
    ("gpu_base", "h9000", "h100-sxm"),
])
def test_hostile_custom_values_fall_back_with_one_warning(name, key, raw, used):
    at = run_page(PAGES[name][0], {"gpu": "custom", key: raw})
    assert not at.exception
    assert len(at.warning) == 1
    warning = at.warning[0].value
    label = {"gpu_bw": "Custom GPU: scale-up per direction", "gpu_name": "Custom GPU: name",
             "gpu_base": "Custom GPU: compute, memory and server of"}[key]
    assert warning.startswith(f"{label} (link parameter `{key}`)") and f"using `{used}`" in warning
    assert "(got `" in warning
    assert "<script" not in re.sub(r"`[^`]*`", "", warning)
    assert at.query_params[key] == used
    assert chart_specs(at) or live_charts(at)  # the page's main chart is drawn
