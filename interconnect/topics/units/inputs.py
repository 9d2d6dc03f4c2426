"""The units page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.inputs.params import (
    ChoiceParam,
    QuantityParam,
)


def units_specs() -> list:

    return [QuantityParam("q", "900 GB/s", "A figure to convert", dimension="bandwidth"),
            ChoiceParam("qdir", "both", "Quoted as", choices=("both", "per"))]
