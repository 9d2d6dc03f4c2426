"""The catalog page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.catalog import get_catalog
from interconnect.inputs.params import (
    ChoiceParam,
)


def catalog_specs() -> list:
    from interconnect.catalog import LAYERS
    from interconnect.hardware.fabric import get_fabric_data

    catalog = get_catalog()
    switches = tuple(get_fabric_data().switches)  # the Fabric page's switches, listed as kind=switch
    return [ChoiceParam("kind", "gpu", "Kind", choices=("gpu", *LAYERS, "node", "switch")),
            ChoiceParam("entry", "", "Entry", choices=("", *[e.id for e in catalog.entries()], *switches))]
