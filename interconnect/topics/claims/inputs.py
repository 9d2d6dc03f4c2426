"""The claims page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.inputs.params import (
    ChoiceParam,
)


def claims_specs() -> list:
    from interconnect.catalog import VERDICTS

    return [ChoiceParam("verdict", "all", "Verdict", choices=("all", *VERDICTS))]
