"""Plotly builders: pure functions from model results to ``go.Figure``, in one projector-readable look.

Each page's charts live in the module of the same name (:mod:`~interconnect.figures.cliff`,
:mod:`~interconnect.figures.allreduce`, :mod:`~interconnect.figures.overlap`, ...). The package
exports the entry points a notebook or a script reaches for first: the theme
(:func:`apply_theme`), the headline charts (:func:`cliff_figure`, :func:`reach_figure`,
:func:`time_figure`, :func:`timeline_figure`, :func:`gpu_grid_figure`) and the offline export
(:func:`figure_html`). Names load on first use, so importing the package does not import Plotly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from interconnect import lazy_exports

if TYPE_CHECKING:  # for type checkers and editors; at run time the names load lazily
    from interconnect.figures.allreduce import time_figure
    from interconnect.figures.cliff import cliff_figure
    from interconnect.figures.export import figure_html
    from interconnect.figures.overlap import timeline_figure
    from interconnect.figures.reach import reach_figure
    from interconnect.figures.seating import gpu_grid_figure
    from interconnect.figures.theme import apply_theme

_EXPORTS: dict[str, str] = {
    "apply_theme": "theme",
    "cliff_figure": "cliff",
    "figure_html": "export",
    "gpu_grid_figure": "seating",
    "reach_figure": "reach",
    "time_figure": "allreduce",
    "timeline_figure": "overlap",
}

__all__ = [
    "apply_theme",
    "cliff_figure",
    "figure_html",
    "gpu_grid_figure",
    "reach_figure",
    "time_figure",
    "timeline_figure",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
