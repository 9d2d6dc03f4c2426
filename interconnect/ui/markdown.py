"""Markdown helpers for text the pages draw: escaping, static tables, quiet catalog notes.

Pure text functions (no Streamlit): everything a page shows that came from a user or a data file goes
through :func:`escape_markdown` before Streamlit renders it.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["escape_markdown", "markdown_table", "quiet_text"]


def escape_markdown(text: str) -> str:
    """Backslash-escape Markdown syntax so text renders literally (no links, no HTML, no LaTeX)."""
    return "".join("\\" + char if char in "\\`*_{}[]()#+-.!|<>$~" else char for char in text)


def markdown_table(frame: pd.DataFrame) -> str:
    """A table as Markdown, every cell escaped: a static table drawn by the text element.

    Cheaper for the browser than ``st.table`` (about 0.5 s less to a cold page's first chart for the
    Bandwidth cliff's five tables in headless Chromium) and wraps long text the same way.

    >>> print(markdown_table(pd.DataFrame({"Link": ["a|b"], "Reach": ["3 m"]})))
    | Link | Reach |
    |---|---|
    | a\\|b | 3 m |
    """
    def cell(value: Any) -> str:
        return escape_markdown(" ".join(str(value).split()))

    lines = ["| " + " | ".join(cell(name) for name in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def quiet_text(text: str) -> str:
    """Catalog text in grey, as a caption reads; in italics where brackets would end the grey early.

    >>> quiet_text("NCCL's plan"), quiet_text("see [1]")
    (":gray[NCCL's plan]", '*see [1]*')
    """
    return f"*{text}*" if "[" in text or "]" in text else f":gray[{text}]"
