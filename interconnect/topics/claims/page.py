"""The page: every popular figure of the episode beside what the sources say, the verdict and where to see it."""

from __future__ import annotations

import streamlit as st

from interconnect.catalog import VERDICTS, get_catalog, load_claims
from interconnect.topics.claims.inputs import claims_specs
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.pages import PAGES, page_exists
from interconnect.ui.state import PageState

# Coloured badges drawn by Streamlit itself: no emoji, which a browser without an emoji font shows as boxes.
VERDICT_COLOURS = {"wrong": "red", "misleading": "orange", "unsourced": "gray", "roughly right": "green",
                   "right": "green"}
VERDICT_BADGES = {verdict: f":{colour}-badge[{verdict}]" for verdict, colour in VERDICT_COLOURS.items()}


def render() -> None:
    """Draw the page (its script in ``pages/`` calls this)."""
    page_setup("Claims, checked", "Popular interconnect figures beside what the sources say, and why they differ.")
    catalog = get_catalog()
    state = PageState("claims", claims_specs())
    state.show_warnings()
    verdict = st.segmented_control("Verdict", ["all", *VERDICTS], key=state.key("verdict"),
                                   format_func=lambda v: "All" if v == "all" else v.capitalize())
    state.sync_url()
    verdict = state["verdict"]

    claims = [c for c in load_claims(catalog) if verdict == "all" or c.verdict == verdict]
    st.caption(f"{len(claims)} claim{'s' if len(claims) != 1 else ''}. A claim is shown as it is usually quoted; "
               "the correction uses the sources listed under it.")
    for claim in claims:
        with st.container(border=True):
            left, right = st.columns([5, 1])
            left.markdown(f"**Often quoted:** {escape_markdown(claim.claim)}  \n*({escape_markdown(claim.by)})*")
            right.markdown(VERDICT_BADGES[claim.verdict])
            st.markdown(f"**What the sources say:** {claim.correction}")
            st.markdown(f"**Why:** {claim.why}")
            sources = [catalog.source(source_id) for source_id in claim.source_ids]
            st.caption("Sources: " + " · ".join(f"[{escape_markdown(s.title)}]({s.url})" for s in sources))
            if claim.page in PAGES and page_exists(claim.page):
                st.page_link(PAGES[claim.page][0], label=f"See it on the {PAGES[claim.page][1]} page →",
                             query_params=dict(claim.params))
    footer()
