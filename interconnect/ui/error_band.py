"""How right an estimate is, on a page: the error band's line and the table of the published cases it comes from.

The band itself is computed below the UI (:mod:`interconnect.hardware.accuracy` and each model's accuracy
module); this draws it: one caption ("published runs like this: the model reads -8 % to +21 % (14 runs,
median +6 %)", then what a measurement would likely read in the estimate's own unit, or "extrapolation: no
published run like this") and, when there are neighbours, a pop-over
with their table, drawn only while it is open. Every word of the basis and the table is escaped; nothing is
rendered as HTML.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from interconnect.hardware.accuracy import ErrorBand
from interconnect.ui.markdown import escape_markdown, markdown_table

__all__ = ["NO_BREAK_PERCENT", "keep_percents", "show_error_band"]

#: A no-break space before a percent sign.
NO_BREAK_PERCENT = "\u00a0%"


def keep_percents(text: str) -> str:
    """The text with a no-break space before each percent sign, so that a percentage never wraps away from its
    number ("+122" at a line's end, "%" on the next).

    >>> keep_percents("-70 % to +122 %") == "-70\u00a0% to +122\u00a0%"
    True
    """
    return text.replace(" %", NO_BREAK_PERCENT)


def show_error_band(band: ErrorBand, rows: list[dict[str, str]], what: str, *, key: str, after: str = "",
                    expected: str = "") -> None:
    """Draw a band under the estimate it qualifies.

    Parameters
    ----------
    band : ErrorBand
        The band.
    rows : list of dict
        Its neighbours, one row each (shown in a pop-over).
    what : str
        What the ratios are of, in words ("TFLOP/s and MFU; step time the inverse").
    key : str
        The pop-over's key.
    after : str
        Markdown (already escaped) for the caption's next paragraph: a page's caption that follows the band, in
        the same element (one render in the browser on every change, where two captions took two).
    expected : str
        The band read the other way, in the estimate's own unit (:func:`~interconnect.hardware.accuracy.
        expected_text`: "a measurement would likely read ..."); it follows the band's line. Empty for an
        extrapolation.
    """
    then = f"; {escape_markdown(expected)}" if expected and not band.extrapolation else ""
    st.caption(f"**How right:** {escape_markdown(keep_percents(band.text()))}{then} — {escape_markdown(what)}; "
               f"{escape_markdown(band.basis)}." + (f"\n\n{after}" if after else ""))
    if rows:
        # drawn only while open (a first load sends no table); the rows name the published cases
        popover = st.popover(f"The {band.n} published {band.noun} of this band", key=key, on_change="rerun")
        if popover.open:
            with popover:
                st.markdown(markdown_table(pd.DataFrame(rows)))
