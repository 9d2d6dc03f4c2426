"""The "More settings" expanders: their widgets drawn only while open, their values kept while hidden.

A page's first load sends none of the widgets a first look does not need (issue 26: the browser's time
follows the number of elements). Each widget drawn in such an expander gets :data:`KEEP_HIDDEN`, so its
value stays in the session, the model and the link while the expander is closed and the widget is not
drawn. An expander starts open when the link a session started from set any of its values, so a shared
link shows what it changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import streamlit as st

from interconnect.ui.state import PageState

#: Given to every widget an expander of this module holds: it keeps its value while it is not drawn.
KEEP_HIDDEN: dict[str, Any] = {"persist_state": "page"}


def starts_open(state: PageState, name: str, keys: Iterable[str]) -> bool:
    """Whether the expander ``name`` of ``state``'s page starts open: decided once per session, from whether
    the values the session opened with set any of ``keys`` away from its default."""
    flag = f"_{state.page}.{name}_open"
    if flag not in st.session_state:
        st.session_state[flag] = any(state[key] != state.specs_by_key[key].default
                                     for key in keys if key in state.specs_by_key)
    return bool(st.session_state[flag])


def lazy_expander(state: PageState, label: str, *, key: str, keys: Iterable[str], name: str = "more_settings",
                  container: Any = None) -> Any | None:
    """A collapsed expander here (or in ``container``) whose opening or closing reruns what draws it; it, while
    open, for the caller to draw its widgets into (with :data:`KEEP_HIDDEN`); None while closed."""
    place = container if container is not None else st
    more = place.expander(label, expanded=starts_open(state, name, keys), key=key, on_change="rerun")
    return more if more.open else None
