"""A page's live control: the slider of a live chart that sets one of the page's values, declared once.

Every live chart of the app works the same way: the chart redraws in the browser while the slider
moves (:func:`~interconnect.ui.live.live_chart`), and when the movement ends the chosen value becomes
one of the page's own values, so the rest of the page and the link follow. A topic's ``page_live.py``
declares only what differs, as a :class:`LiveControl`: which chart, which page value it sets, how the
slider's value is read and written, and how to read the chart; it keeps its own cached family of
curves (what each chart draws is the topic's). What they share is here:

>>> control = LiveControl("hello.live_rate", "rate", reading="Thick: the rate as set above.")
>>> control.caption_text().startswith("Drag the slider") and control.caption_text().endswith("set above.")
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from interconnect.inputs.params import FloatParam, IntParam
from interconnect.ui.live import live_chart
from interconnect.ui.state import PageState
from interconnect.ui.talk import talk_state

__all__ = ["HOW_TO_DRAG", "LiveControl", "presenting"]

#: How every live chart is used, said the same way under each of them.
HOW_TO_DRAG = ("Drag the slider, or focus it and use the arrow keys: the chart follows at once in your browser; the "
               "rest of the page and the link follow when you let go.")


def presenting() -> bool:
    """Whether the page is shown in presentation mode (the live charts then draw larger)."""
    return talk_state().present


@dataclass(frozen=True)
class LiveControl:
    """One live chart's slider and the page value it sets.

    Attributes
    ----------
    key : str
        The chart's widget key, ``"<topic>.live_<value>"``.
    sets : str
        The page's link key that the slider sets (``"nodes"``).
    reader : IntParam or FloatParam, optional
        How the slider's value is read (its range). Default: the page's own record of ``sets``; a page
        whose link value is text or may be ``auto`` gives a numeric record of the slider's own.
    written_as : callable, optional
        How the chosen number goes into the page's widget (a text box takes ``"10 Gbit/s"``); default as is.
    also : tuple of (str, object)
        Other page values set with it (the Seating chart's DP goes back to "the rest").
    lead, reading : str
        The caption's words before and after :data:`HOW_TO_DRAG`: what the chart shows and how to read it.
    """

    key: str
    sets: str
    reader: IntParam | FloatParam | None = None
    written_as: Callable[[Any], object] | None = None
    also: tuple[tuple[str, object], ...] = ()
    lead: str = ""
    reading: str = ""

    def setter(self, state: PageState) -> Callable[[Any], None]:
        """The callback that writes a chosen value into the page's widgets (it runs before the next run)."""

        def set_value(chosen: Any) -> None:
            st.session_state[state.key(self.sets)] = chosen if self.written_as is None else self.written_as(chosen)
            for key, value in self.also:
                st.session_state[state.key(key)] = value

        return set_value

    def show(self, spec: dict, state: PageState | None = None, *,
             on_value: Callable[[Any], None] | None = None) -> None:
        """Mount the chart; the chosen value goes to the page (``state``) or to ``on_value`` when given."""
        if on_value is None:
            if state is None:
                raise TypeError(f"{self.key}: give the page's state or an on_value callback")
            on_value = self.setter(state)
        reader = self.reader if self.reader is not None else state.specs_by_key[self.sets]  # type: ignore[union-attr]
        live_chart(self.key, spec, on_value, reader)

    def caption_text(self, reading: str | None = None) -> str:
        """The words under the chart: the lead, how to drag, how to read it (``reading`` replaces the declared)."""
        parts = (self.lead, HOW_TO_DRAG, self.reading if reading is None else reading)
        return " ".join(part for part in parts if part)

    def caption(self, reading: str | None = None) -> None:
        """Draw :meth:`caption_text` under the chart."""
        st.caption(self.caption_text(reading))
