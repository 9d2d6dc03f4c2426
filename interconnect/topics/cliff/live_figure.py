"""The Bandwidth cliff page's live chart: time to send a payload, inside and out of the server, as NICs are dragged."""

from __future__ import annotations

import numpy as np

from interconnect.figures.live import LiveAxis, LiveMarker, LiveSeries, live_spec, log_axis_ticks
from interconnect.topics.cliff.figures import CHASSIS_RED
from interconnect.topics.cliff.sweep import NicFamily
from interconnect.units import Q_, format_bandwidth, format_quantity, format_seconds

__all__ = ["BLURAY_BYTES", "nic_family_spec"]

#: One 50 GB Blu-ray disc, the page's unit of human-sized data (the catalog's ``bluray`` unit).
BLURAY_BYTES = float(Q_(1, "bluray").to("B").magnitude)


def _time_tick(seconds: float) -> str:
    """A decade of seconds as a tick: '10 ms', '1 s', '1,000 s' (no '16.7 min' on a decade grid)."""
    return format_seconds(float(seconds)) if seconds < 10 else f"{seconds:,.0f} s"


def nic_family_spec(family: NicFamily, current_nics: int, scaleup_name: str, host_name: str, nic_name: str,
                    *, present: bool = False, unit: str = "B/s", library: str = "NCCL") -> dict:
    """The live chart of :func:`~interconnect.topics.cliff.sweep.nic_family`.

    Three lines: the scale-up link, the host link, and this GPU's share of the server's NICs (thick,
    red: the one the slider moves), at the family's basis (spec, or what ``library`` achieves). A
    transfer goes one way, so the times are per direction whatever the page's Direction; the sentence
    beside the slider gives the rates in the page's direction and ``unit`` (``"B/s"``, ``"bit/s"`` or
    ``"bluray/s"``), the like-for-like cliff and one Blu-ray's time at each NIC count.

    >>> from interconnect.catalog import get_catalog
    >>> from interconnect.topics.cliff.sweep import nic_family
    >>> family = nic_family(get_catalog(), "h100-sxm", "ib-ndr", [8, 16])
    >>> spec = nic_family_spec(family, 8, "NVLink 4", "PCIe 5.0 x16", "InfiniBand NDR")
    >>> spec["slider"]["labels"], spec["slider"]["index"]
    (['8 NICs', '16 NICs'], 0)
    >>> print(spec["readouts"][0])  # doctest: +NORMALIZE_WHITESPACE
    8 InfiniBand NDR NICs for 8 GPUs: 50 GB/s per GPU per direction against 450 GB/s of NVLink 4, 9 to 1.
    One Blu-ray (50 GB) leaves the server in 1 s and reaches a GPU beside it in 111 ms.
    """
    counts = [int(n) for n in family.nic_counts]
    index = counts.index(int(current_nics)) if int(current_nics) in counts else 0
    payload = family.payload_bytes.astype(float)
    rows = len(counts)
    achieved = family.basis == "achieved"
    tag = f" ({library}, achieved)" if achieved else ""
    series = [
        LiveSeries(f"Inside the server: {scaleup_name}{tag}", "#1565c0", np.tile(family.scaleup_s, (rows, 1)),
                   width=2.5),
        LiveSeries(f"To the CPU: {host_name}{tag}", "#6b7280", np.tile(family.host_s, (rows, 1)), width=2.0,
                   dash="dot"),
        LiveSeries(f"Out of the server: this GPU's share of the {nic_name} NICs{tag}", CHASSIS_RED, family.network_s,
                   width=4.0),
    ]
    values = np.concatenate([s.y_by_position.ravel() for s in series])
    low, high, ticks = log_axis_ticks(values, _time_tick)
    x_ticks = tuple((10.0**p, format_quantity(Q_(10.0**p, "B"))) for p in range(0, 16)
                    if payload[0] <= 10.0**p <= payload[-1])
    x_axis = LiveAxis("data one GPU sends", True, payload[0] / 1.3, payload[-1] * 1.3, x_ticks)
    y_axis = LiveAxis("time to send it", True, low, high, ticks)
    both = family.direction == "both_directions"
    network_shown = family.network_bytes_per_s if family.network_shown is None else family.network_shown
    up_shown = family.scaleup_bytes_per_s if family.scaleup_shown is None else family.scaleup_shown
    up = format_bandwidth(Q_(float(up_shown), "B/s"), unit)
    neighbour = format_seconds(BLURAY_BYTES / family.scaleup_bytes_per_s)
    how = ", both directions summed," if both else " per direction"
    as_achieved = f", as {library} achieves them" if achieved else ""
    readouts = []
    for i, n in enumerate(counts):
        share = format_bandwidth(Q_(float(network_shown[i]), "B/s"), unit)
        out = format_seconds(BLURAY_BYTES / float(family.network_bytes_per_s[i]))
        readouts.append(f"{n} {nic_name} NIC{'s' if n != 1 else ''} for {family.gpus_per_server} GPUs: {share} per GPU"
                        f"{how} against {up} of {scaleup_name}{as_achieved}, {family.ratio_like_for_like[i]:.3g} to 1. "
                        f"One Blu-ray (50 GB) leaves the server in {out} and reaches a GPU beside it in {neighbour}"
                        + (" (one way: summing both directions does not speed up a transfer)." if both else "."))
    basis_words = f"what {library} achieves" if achieved else "spec figures"
    return live_spec(title=f"time for one GPU to send data inside and out of its server, as the NIC count changes "
                           f"({basis_words}, one way)",
                     slider_label="NICs per server", slider_values=counts,
                     slider_labels=[f"{n} NIC{'s' if n != 1 else ''}" for n in counts], index=index, x_axis=x_axis,
                     x_values=payload, y_axis=y_axis, series=series, readouts=readouts, present=present,
                     height_px=320, markers=[LiveMarker(BLURAY_BYTES, "one Blu-ray, 50 GB", dash="dot")])
