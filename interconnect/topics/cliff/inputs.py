"""The cliff page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.catalog import get_catalog
from interconnect.inputs.cluster import custom_gpu_specs, gpu_spec, nic_bw_spec
from interconnect.inputs.links import PageViews, view_spec
from interconnect.inputs.params import (
    AutoIntParam,
    ChoiceParam,
)

DIRECTIONS = {"per": "per_direction", "both": "both_directions"}


UNITS = ("GBps", "Gbitps", "bluray")


BASES = ("spec", "achieved")

#: The most NICs a server may have on this page (Gaudi 3's 24 on-chip ports and GB200's 72 fit well inside).
MAX_NICS_PER_SERVER = 144

#: This page's ``nics``: NICs per *server*, empty (``auto``) for as many as the GPU's own server has. The
#: cluster pages' ``nics`` is NICs per *node* (``interconnect.inputs.cluster``, 0 for one per GPU): the same
#: link key, its meaning kept per page, so the code names the two apart.
NICS_PER_SERVER = AutoIntParam("nics", None, "NICs per server", minimum=1, maximum=MAX_NICS_PER_SERVER)


def cliff_specs() -> list:
    catalog = get_catalog()
    return [
        gpu_spec(),
        *custom_gpu_specs(),
        # "auto": the GPU's own reference server (Gaudi 3: 24 on-chip 200 GbE ports); an explicit
        # nic=ib-ndr&nics=8 (every link written before "auto" existed) keeps meaning exactly that.
        ChoiceParam("nic", "auto", "Network card", choices=("auto", *catalog.nics(), "custom")),
        nic_bw_spec(when=("nic", "custom")),  # the cluster pages have always written nic_bw; this page only in use
        NICS_PER_SERVER,
        ChoiceParam("dir", "per", "Direction", choices=tuple(DIRECTIONS)),
        ChoiceParam("unit", "GBps", "Unit", choices=UNITS),
        ChoiceParam("basis", "spec", "Spec or achieved", choices=BASES),
        view_spec(CLIFF_VIEWS),
    ]


CLIFF_VIEWS = PageViews({"bars": "The cliff in bars", "generations": "Across GPU generations"},
                        {"bars": ("cliff-chart",), "generations": ("generation-chart",)},
                        {"bars": ("dir", "unit", "basis")})
