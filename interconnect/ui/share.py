"""The share link: a copyable address of the exact view, in the slot beside the page's title."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

__all__ = ["LINK_OPEN_KEY", "hold_share_slot", "share_url", "show_share_link"]

_LINK_SLOT = "talk.link_slot"
#: The pop-over's key (not a link key): whether it is open.
LINK_OPEN_KEY = "share-link-open"


def hold_share_slot(container: Any) -> None:
    """Draw the pop-over "Link to this view" in ``container`` (beside the title), its address left empty for
    :func:`show_share_link` to fill.

    The pop-over and its caption belong to the page's frame, drawn once per full run: a fragment's own
    run then replaces only the address (one element, not the pop-over's five). The caption and the address
    are drawn only while the pop-over is open (opening it reruns the page): every control change otherwise
    sent the address, two elements (three on the Seating chart, whose two fragments both write it), for a
    pop-over nobody had open. The address bar holds the same link at all times.
    """
    with container:
        popover = st.popover("Link to this view", key=LINK_OPEN_KEY, on_change="rerun")
        slot = None
        if popover.open:
            with popover:
                st.caption("Copy it (the icon on the right); it reopens exactly this view, settings included.")
                slot = st.empty()
    st.session_state[_LINK_SLOT] = slot


def share_url(base_url: str, query: dict[str, str]) -> str:
    """The address of the current view: the page's URL with every parameter that defines it.

    >>> share_url("http://localhost:8501/All_reduce?old=1", {"gpu": "b200", "size": "256 MiB"})
    'http://localhost:8501/All_reduce?gpu=b200&size=256+MiB'
    """
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def show_share_link(query: dict[str, str]) -> None:
    """Write a copyable link to this exact view into the pop-over beside the title."""
    slot = st.session_state.get(_LINK_SLOT)
    if slot is None:
        return
    try:
        base = st.context.url or ""
    except Exception:  # no browser context (AppTest)
        base = ""
    slot.code(share_url(base or "http://localhost:8501/", query), language=None, wrap_lines=True)
