"""A link of more than 1,000 parameters: Streamlit ignores all of it; the page says so and cleans the address."""

from __future__ import annotations

import pytest
from browser_helpers import assert_healthy, open_page, poll, query_of, wait_settled

pytestmark = pytest.mark.browser

JUNK = "&".join(f"junk{i}=x" for i in range(1_200))


@pytest.mark.parametrize("path", ["/", "/All_reduce"])
def test_a_link_streamlit_ignored_is_reported_and_cleaned(streamlit_server, page, path):
    open_page(page, streamlit_server, f"{path}?nodes=7&{JUNK}")
    warning = page.get_by_text("This link had 1,201 parameters, more than the 1,000 Streamlit reads")
    warning.wait_for(state="visible", timeout=60_000)
    wait_settled(page)
    assert_healthy(page, streamlit_server)
    assert poll(page, lambda: "junk" not in page.url and "too_many" not in page.url or None, timeout_s=20), page.url
    assert query_of(page.url).get("nodes") != "7"  # none of the link was used, its nodes=7 included
