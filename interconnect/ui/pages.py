"""The app's pages: their table (:data:`PAGES`), whether each is present, and links to them.

``PAGES`` maps a page's short name (used in tour steps, claims and tests) to its script and its
title in the sidebar. Everything that reaches another page (the sidebar, the footer, the tour's
Previous/Next links, a mistyped address) looks the page up here.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import streamlit as st
from streamlit.errors import StreamlitAPIException

from interconnect.site import pages

__all__ = ["PAGES", "link_to", "page_exists", "page_for_path", "redirect_mistyped_page"]

#: Short name -> (script, sidebar title), home first: from the list of topics (:mod:`interconnect.site`).
PAGES = pages()

_ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def page_exists(name: str) -> bool:
    """Whether a page's script is present (pages land one issue at a time); asked once per process."""
    return (_ROOT / PAGES[name][0]).is_file()


def page_for_path(path: str) -> str | None:
    """The page script a mistyped URL path most likely meant (``/all_reduce`` -> the All-reduce page).

    Matches the page's URL name case-insensitively, ignoring ``-``/``_``/spaces; None if no page fits.

    >>> page_for_path("/ALL-REDUCE/")
    'pages/2_All_reduce.py'
    """
    def normal(text: str) -> str:
        return "".join(char for char in text.lower() if char.isalnum())

    wanted = normal(path.rstrip("/").rsplit("/", 1)[-1])
    if not wanted:
        return None
    for script, _ in PAGES.values():
        url_name = Path(script).stem.split("_", 1)[-1] if script.startswith("pages/") else ""
        if url_name and normal(url_name) == wanted and page_exists_path(script):
            return script
    return None


def page_exists_path(script: str) -> bool:
    return (_ROOT / script).is_file()


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
