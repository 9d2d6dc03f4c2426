"""URL parameters of every page: their keys are the public schema of shared links.

Kept in the core (not in the page scripts) so the CLI, tests and the browser test agree on them.
"""

from __future__ import annotations

from interconnect.catalog import get_catalog
from interconnect.urlstate import ChoiceParam, IntParam

DIRECTIONS = {"per": "per_direction", "both": "both_directions"}
UNITS = ("GBps", "Gbitps", "bluray")
BASES = ("spec", "achieved")


def cliff_specs() -> list:
    catalog = get_catalog()
    return [
        ChoiceParam("gpu", "h100-sxm", "GPU", choices=tuple(catalog.gpus)),
        ChoiceParam("nic", "ib-ndr", "Network card", choices=tuple(catalog.nics())),
        IntParam("nics", 8, "NICs per server", minimum=1, maximum=144),
        ChoiceParam("dir", "per", "Direction", choices=tuple(DIRECTIONS)),
        ChoiceParam("unit", "GBps", "Unit", choices=UNITS),
        ChoiceParam("basis", "spec", "Spec or achieved", choices=BASES),
    ]
