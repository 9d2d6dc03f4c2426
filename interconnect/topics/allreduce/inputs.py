"""The allreduce page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.inputs.cluster import cluster_specs
from interconnect.inputs.links import PageViews, view_spec
from interconnect.inputs.params import (
    ChoiceParam,
    QuantityParam,
)

ALLREDUCE_VIEWS = PageViews({"time": "Time by message size", "busbw": "busbw by message size",
                             "nodes": "By cluster size", "traffic": "Bytes that leave the node"},
                            {"time": ("allreduce-time",), "busbw": ("allreduce-busbw",),
                             "nodes": ("allreduce-nodes",), "traffic": ("allreduce-traffic",)},
                            {"time": ("coll", "overlay")})


#: The message size per GPU (``size=256 MiB``); the CLI's ``--size`` default is its default.
SIZE = QuantityParam("size", "256 MiB", "Message size", dimension="size", minimum="8 B", maximum="16 GiB")


def allreduce_specs() -> list:
    from interconnect.hardware.collectives import ALLREDUCE_ALGORITHMS, OTHER_COLLECTIVES, load_measurements

    return [
        *cluster_specs(),
        SIZE,
        ChoiceParam("algo", "auto", "Algorithm", choices=("auto", *ALLREDUCE_ALGORITHMS)),
        ChoiceParam("proto", "auto", "Protocol", choices=PROTOCOL_CHOICES),
        ChoiceParam("overlay", "none", "Published measurement", choices=("none", *[m.id for m in load_measurements()])),
        ChoiceParam("coll", "all_reduce", "Collective", choices=("all_reduce", *OTHER_COLLECTIVES)),
        view_spec(ALLREDUCE_VIEWS),
    ]


#: NCCL's protocols as the page and the URL name them (``proto=ll128`` works too: choices match in any case).
PROTOCOL_CHOICES = ("auto", "LL", "LL128", "Simple")
