"""Streamlit glue shared by the pages: URL state, pickers, the cluster box and each page's sections.

Page scripts stay thin and call into this package. It exports the pieces every page uses:
:class:`PageState` (widgets bound to URL parameters), :func:`page_setup` (title and chrome) and
:func:`cluster_controls` (the shared cluster box). Names load on first use, so importing the package
does not import Streamlit.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers and editors; at run time the names load lazily
    from interconnect.ui.cluster import cluster_controls
    from interconnect.ui.page import PageState, page_setup

_EXPORTS: dict[str, str] = {"PageState": "page", "cluster_controls": "cluster", "page_setup": "page"}

__all__ = ["PageState", "cluster_controls", "page_setup"]


def __getattr__(name: str) -> Any:
    """Import an exported name from its module on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """List the exported names with the module's own attributes."""
    return sorted(set(globals()) | set(__all__))
