"""AppTest of the Claims page and the Unit traps page, including hostile links."""

import pytest

from interconnect.catalog import get_catalog, load_claims
from interconnect.inputs.params import parse_state
from interconnect.site import page_specs
from interconnect.ui.pages import PAGES, page_exists
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


#: Each page's link parameters (the home page has only ``view``).
PAGE_SPECS = page_specs()
CROSS_SITE = [claim for claim in load_claims() if claim.page == "crossdc"]


def test_every_claims_link_opens_an_existing_page_with_parameters_it_accepts():
    assert set(PAGE_SPECS) == set(PAGES)
    for claim in load_claims():
        assert page_exists(claim.page), claim.id
        specs = PAGE_SPECS[claim.page]()
        params = dict(claim.params)
        assert set(params) <= {spec.key for spec in specs}, claim.id
        _, warnings = parse_state(specs, params)
        assert not warnings, (claim.id, [w.message() for w in warnings])


def test_the_episodes_cross_site_claims_are_on_the_claims_page():
    assert len(CROSS_SITE) >= 6
    assert {claim.verdict for claim in CROSS_SITE} >= {"wrong", "unsourced", "roughly right", "right"}


@pytest.mark.parametrize("claim", CROSS_SITE, ids=lambda claim: claim.id)
def test_a_cross_site_claims_link_opens_the_view_that_shows_its_sources(claim):
    at = run_page(PAGES[claim.page][0], dict(claim.params))
    assert not at.exception and not at.warning
    for key, value in claim.params:
        assert at.query_params[key] == value  # the view the claim points at, not a default
    text = " ".join(block.value for block in at.markdown)
    catalog = get_catalog()
    shown = [source_id for source_id in claim.source_ids if catalog.source(source_id).url in text]
    assert shown, f"{claim.id}: none of its sources is on the page"


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


def test_unit_traps_do_not_credit_nccl_tests_with_an_in_switch_factor():
    # issue: the page said "nccl-tests documents (n-1)/(n+1) as the factor" for NVLS and SHARP; nccl-tests keeps
    # 2(n-1)/n for every algorithm (its maintainers, nccl-tests #366)
    at = run_page(UNITS)
    assert not at.exception
    text = " ".join(block.value for block in at.markdown)
    assert "(n−1)/(n+1)" not in text and "(n-1)/(n+1)" not in text
    assert "keeps busbw = algbw × 2(n−1)/n" in text
