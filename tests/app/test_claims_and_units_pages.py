"""AppTest of the Claims page and the Unit traps page, including hostile links."""

import pytest

from interconnect.catalog import load_claims
from tests.app.conftest import run_page

CLAIMS = "pages/7_Claims.py"
UNITS = "pages/8_Unit_traps.py"


def test_claims_page_lists_every_claim_with_its_verdict_and_sources():
    at = run_page(CLAIMS)
    assert not at.exception and not at.warning
    text = " ".join(block.value for block in at.markdown)
    for claim in load_claims():
        assert claim.correction[:40] in text
    assert "18 to 1" in text and "9 to 1" in text


def test_claims_page_filters_by_verdict_from_the_link():
    at = run_page(CLAIMS, {"verdict": "wrong"})
    assert not at.exception
    wrong = [c for c in load_claims() if c.verdict == "wrong"]
    assert any(c.value.startswith(f"{len(wrong)} claim") for c in at.caption)


@pytest.mark.parametrize("query", [{"verdict": "<b>"}, {"verdict": "9^9^8"}])
def test_claims_page_hostile_links(query):
    at = run_page(CLAIMS, query)
    assert not at.exception and len(at.warning) == 1


@pytest.mark.parametrize(("q", "qdir", "per_gbps"), [("900 GB/s", "both", "450"), ("400 Gbps", "per", "50"),
                                                      ("1.8 TB/s", "both", "900")])
def test_converter_from_the_link(q, qdir, per_gbps):
    at = run_page(UNITS, {"q": q, "qdir": qdir})
    assert not at.exception
    assert at.metric[0].value == f"{per_gbps} GB/s"


@pytest.mark.parametrize("q", ["5 parsecs", "9^9^8 GB/s", "<script>alert(1)</script>", "1e999 GB/s"])
def test_converter_refuses_nonsense_with_a_reason(q):
    at = run_page(UNITS, {"q": q})
    assert not at.exception
    assert len(at.warning) == 1 and "link parameter `q`" in at.warning[0].value
    assert at.metric[0].value == "450 GB/s"  # the default, 900 GB/s both directions


def test_converter_typed_nonsense_is_an_error_box():
    at = run_page(UNITS)
    at.text_input(key="units.q").set_value("3 kg").run()
    assert not at.exception
    assert any("got a mass" in w.value for w in at.warning)
