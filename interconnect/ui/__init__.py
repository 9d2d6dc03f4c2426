"""Streamlit glue shared by the pages: URL state, pickers, the cluster box and each page's sections.

Page scripts stay thin and call into this package. It exports the pieces every page uses:
:class:`PageState` (widgets bound to URL parameters), :func:`page_setup` (title and chrome) and
:func:`cluster_controls` (the shared cluster box). Names load on first use, so importing the package
does not import Streamlit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from interconnect import lazy_exports

if TYPE_CHECKING:  # for type checkers and editors; at run time the names load lazily
    from interconnect.ui.chrome import page_setup
    from interconnect.ui.cluster import cluster_controls
    from interconnect.ui.state import PageState

_EXPORTS: dict[str, str] = {"PageState": "state", "cluster_controls": "cluster", "page_setup": "chrome"}

__all__ = ["PageState", "cluster_controls", "page_setup"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
