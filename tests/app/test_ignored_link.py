"""A link Streamlit ignored whole (over 1,000 parameters): the page's script marks it, the page says so.

The marking itself runs in the browser (tests/browser/test_too_many_link_params.py); these runs start from
the mark it leaves, ``too_many=N``.
"""

import pytest

from tests.app.conftest import run_page


@pytest.mark.parametrize("page", [None, "pages/2_All_reduce.py"])
def test_the_mark_gives_one_warning_and_leaves_the_address(page):
    at = run_page(page, {"too_many": "1234"})
    assert not at.exception
    assert [w.value for w in at.warning] == [
        "This link had 1,234 parameters, more than the 1,000 Streamlit reads; none was used, so the page shows "
        "its defaults and the address bar was cleared."]
    assert "too_many" not in at.query_params


@pytest.mark.parametrize("mark", ["<script>", "77", "9" * 5000, ""])
def test_a_pasted_mark_is_never_echoed(mark):
    at = run_page(None, {"too_many": mark})
    assert not at.exception and len(at.warning) == 1
    assert at.warning[0].value.startswith("This link was longer than Streamlit reads")
    assert mark not in at.warning[0].value or not mark


def test_the_script_that_looks_is_there_only_when_the_page_saw_no_link():
    def scripts(at):
        return [block for block in at.get("html") if "too_many" in block.proto.body]

    assert len(scripts(run_page(None))) == 1
    assert not scripts(run_page(None, {"view": "reach"}))
