"""AppTest of the Bandwidth cliff page: defaults, every parameter, and hostile links."""

import re

import pytest

from interconnect.catalog import get_catalog
from interconnect.models.cliff import cliff_summary
from tests.app.conftest import chart_specs, run_page

PAGE = "pages/1_Bandwidth_cliff.py"
CATALOG = get_catalog()


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def test_defaults_show_h100_against_ndr():
    at = run_page(PAGE)
    assert not at.exception
    assert not at.warning
    assert metric(at, "Like for like") == "9 : 1"
    assert metric(at, "As often quoted") == "18 : 1"
    assert len(at.get("plotly_chart")) == 2
    assert dict(at.query_params) == {"gpu": "h100-sxm", "nic": "ib-ndr", "nics": "8", "dir": "per",
                                     "unit": "GBps", "basis": "spec"}


@pytest.mark.parametrize("gpu_id", sorted(CATALOG.gpus))
def test_every_gpu_from_the_link(gpu_id):
    at = run_page(PAGE, {"gpu": gpu_id})
    assert not at.exception and not at.warning
    assert at.selectbox(key="cliff.gpu").value == gpu_id
    expected = cliff_summary(CATALOG, gpu_id, "ib-ndr").ratio_like_for_like
    assert metric(at, "Like for like") == f"{expected:.3g} : 1"


@pytest.mark.parametrize("nic_id", sorted(CATALOG.nics()))
def test_every_nic_from_the_link(nic_id):
    at = run_page(PAGE, {"nic": nic_id})
    assert not at.exception and not at.warning
    assert at.selectbox(key="cliff.nic").value == nic_id


def test_direction_unit_basis_and_nics_from_the_link():
    at = run_page(PAGE, {"dir": "both", "unit": "Gbitps", "basis": "achieved", "nics": "4"})
    assert not at.exception and not at.warning
    cliff = chart_specs(at)[0]
    assert "both directions" in cliff["layout"]["title"]["text"]
    assert cliff["layout"]["xaxis"]["title"]["text"].startswith("Gbit/s")
    assert metric(at, "Whole server out") == "1.6 Tbit/s"  # 4 x 400 Gbit/s
    scaleup = next(trace for trace in cliff["data"] if "GPU to GPU" in trace["y"][0])
    assert scaleup["x"][0] == pytest.approx(370.8 * 2 * 8)  # achieved, both directions, in Gbit/s


def test_bluray_unit():
    at = run_page(PAGE, {"unit": "bluray"})
    cliff = chart_specs(at)[0]
    scaleup = next(trace for trace in cliff["data"] if "GPU to GPU" in trace["y"][0])
    assert scaleup["x"][0] == pytest.approx(9.0)  # 450 GB/s / 50 GB per disc


def test_widget_change_reruns_with_new_state():
    at = run_page(PAGE)
    at.selectbox(key="cliff.gpu").set_value("b200").run()
    assert metric(at, "Like for like") == "18 : 1"
    at.radio(key="cliff.dir").set_value("both").run()
    assert "both directions" in chart_specs(at)[0]["layout"]["title"]["text"]
    assert at.query_params["gpu"] == "b200"
    assert at.query_params["dir"] == "both"


@pytest.mark.parametrize(
    "query",
    [
        {"gpu": "<script>alert(1)</script>"},
        {"nic": "x" * 10_000},
        {"nics": "-5"},
        {"nics": "1e12"},
        {"nics": "NaN"},
        {"dir": "sideways", "unit": "parsec", "basis": "vibes"},
        {"gpu": "h100\u202e\u0000", "nic": "ib-ndr\n<img src=x onerror=alert(1)>"},
        {"gpu": "🚀" * 50},
    ],
)
def test_hostile_links_warn_and_render(query):
    at = run_page(PAGE, query)
    assert not at.exception
    assert len(at.warning) >= 1
    assert len(at.warning) == 1  # every problem of a link in one box
    for warning in at.warning:
        assert "(link parameter `" in warning.value  # named by the control's label, then its URL key
        outside_code = re.sub(r"`[^`]*`", "", warning.value)
        assert "<" not in outside_code and ">" not in outside_code  # user text only inside code spans
    assert len(at.get("plotly_chart")) == 2
    assert metric(at, "Like for like")
