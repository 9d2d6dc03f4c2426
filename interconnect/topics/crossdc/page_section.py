"""What the Across sites page's optional sections share: a toggle that opens them, and their time format."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

from interconnect.ui.state import PageState
from interconnect.units import Q_, format_duration


@contextmanager
def open_section(state: PageState, key: str, label: str, help_text: str,
                 controls: Callable[[PageState], None]) -> Iterator[dict | None]:
    """The section's toggle (link key ``key``); while it is open, a bordered box holding its controls.

    Yields the page's values once the controls are drawn and the link written, with the box as the current
    container for the rest of the section; yields None while the section is closed (its widgets are not drawn,
    the link keeps their values).
    """
    if not st.toggle(label, key=state.key(key), help=help_text):
        state.sync_url()
        yield None
        return
    with st.container(border=True):
        controls(state)
        state.sync_url()
        yield state.values()


def short_time(seconds: float) -> str:
    """A duration as the sections print it: "0 s" for nothing, else in the unit that reads best."""
    return format_duration(Q_(seconds, "s")) if seconds > 0 else "0 s"
