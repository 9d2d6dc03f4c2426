"""The app's pages: their table (:data:`PAGES`), whether each is present, and links to them.

``PAGES`` maps a page's short name (used in tour steps, claims and tests) to its script and its
title in the sidebar. Everything that reaches another page (the sidebar, the footer, the tour's
Previous/Next links, a mistyped address) looks the page up here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import streamlit as st
from streamlit.errors import StreamlitAPIException

from interconnect.site import page_exists, page_for_path, pages

__all__ = ["PAGES", "link_to", "page_exists", "page_for_path", "redirect_mistyped_page"]

#: Short name -> (script, sidebar title), home first: from the list of topics (:mod:`interconnect.site`).
PAGES = pages()

def redirect_mistyped_page() -> None:
    """On the home page: if the address names a page in the wrong case (``/all_reduce``), open that page.

    Streamlit matches page paths exactly and runs the home page for anything else.
    """
    try:
        path = urlsplit(st.context.url or "").path
    except Exception:  # no browser context (AppTest)
        return
    if path.rstrip("/") in ("", "/"):
        return
    target = page_for_path(path)
    if target is not None:
        st.switch_page(target)


def link_to(name: str, label: str, **options: Any) -> None:
    """``st.page_link`` to one of our pages (``options`` go to it: ``icon``, ``width``); a plain link
    when run outside the multipage app."""
    path = PAGES[name][0]
    try:
        st.page_link(path, label=label, **options)
    except StreamlitAPIException:
        slug = Path(path).stem.split("_", 1)[-1] if name != "home" else ""
        st.markdown(f"[{label}](./{slug})")
