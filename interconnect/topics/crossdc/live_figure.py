"""The Across-sites page's live chart: utilisation against inner steps H while the WAN bandwidth is dragged."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from interconnect.figures.live import LiveAxis, LiveMarker, LiveSeries, live_spec
from interconnect.topics.crossdc.figures import METHOD_COLOURS
from interconnect.topics.crossdc.sweep import BandwidthFamily
from interconnect.units import Q_, format_bandwidth

__all__ = ["bandwidth_family_spec", "bandwidth_label"]

_SHARE_TICKS = tuple((v, f"{v:.0%}") for v in (0.0, 0.25, 0.5, 0.75, 1.0))
#: Methods whose line is flat in H because they cross the WAN on every step, said in words in the legend.
_EVERY_STEP = {"dp": " (syncs gradients every step, so H does not apply)",
               "crosspipe": " (sends activations every step, so H does not apply)"}


def bandwidth_label(bytes_per_s: float) -> str:
    """A bandwidth per site as the page's box writes it: ``10 Gbit/s``.

    >>> bandwidth_label(1.25e9), bandwidth_label(2.5e6)
    ('10 Gbit/s', '20 Mbit/s')
    """
    return format_bandwidth(Q_(float(bytes_per_s), "B/s"), "bit/s")


def bandwidth_family_spec(family: BandwidthFamily, current_bytes_per_s: float, method: str, current_inner_steps: int,
                          labels: Mapping[str, str], *, present: bool = False) -> dict:
    """The live chart of :func:`~interconnect.topics.crossdc.sweep.bandwidth_family`.

    One line per method, the page's method thick; a dashed line marks the page's H. Data parallel
    synchronises every step, so its line is a level (the same at every H) to compare against. The
    sentence beside the slider gives the page's method at its H, and data parallel, at each bandwidth.

    >>> from interconnect.topics.crossdc.model import Scenario, make_method
    >>> from interconnect.topics.crossdc.sweep import bandwidth_family
    >>> s = Scenario(1e9, 2, step_s=1.0, wan_bytes_per_s=1.25e9, rtt_s=0.02, method=make_method("diloco"))
    >>> family = bandwidth_family(s, [1.25e8, 1.25e9], [1, 500])
    >>> spec = bandwidth_family_spec(family, 1.25e9, "diloco", 500, {"diloco": "DiLoCo", "dp": "Data parallel"})
    >>> spec["slider"]["labels"], spec["slider"]["index"]
    (['1 Gbit/s', '10 Gbit/s'], 1)
    >>> print(spec["readouts"][1])
    10 Gbit/s per site: DiLoCo at H = 500 keeps the GPUs 99.8% busy; data parallel 51.2%.
    """
    bandwidths = [float(b) for b in family.bandwidths_bytes_per_s]
    index = int(np.argmin(np.abs(np.log(bandwidths) - np.log(float(current_bytes_per_s)))))
    steps = family.inner_steps.astype(float)
    at = int(np.argmin(np.abs(steps - float(current_inner_steps))))
    series = []
    for method_id, table in family.utilization.items():
        chosen = method_id == method
        name = labels.get(method_id, method_id) + _EVERY_STEP.get(method_id, "")
        series.append(LiveSeries(name, METHOD_COLOURS.get(method_id, "#374151"), table, width=4.0 if chosen else 2.0,
                                 dash="solid" if chosen else "dot"))
    ticks = tuple((10.0**p, f"{10**p:,}") for p in range(0, 7) if steps[0] <= 10.0**p <= steps[-1])
    x_axis = LiveAxis("inner steps H between synchronisations", True, steps[0] / 1.2, steps[-1] * 1.2, ticks)
    y_axis = LiveAxis("GPU utilisation", False, 0.0, 1.04, _SHARE_TICKS)
    name = labels.get(method, method)
    h = int(steps[at])
    marker = LiveMarker(float(steps[at]), f"your H = {h:,}" if method != "dp" else "data parallel: a sync every step")
    readouts = []
    for i, bandwidth in enumerate(bandwidths):
        head = f"{bandwidth_label(bandwidth)} per site: {name} at H = {h:,} keeps the GPUs " \
               f"{family.utilization[method][i, at]:.1%} busy"
        tail = "" if method == "dp" else f"; data parallel {family.utilization['dp'][i, 0]:.1%}"
        readouts.append(f"{head}{tail}.")
    return live_spec(title="GPU utilisation against inner steps H, as the WAN bandwidth per site changes",
                     slider_label="WAN bandwidth per site", slider_values=bandwidths,
                     slider_labels=[bandwidth_label(b) for b in bandwidths], index=index, x_axis=x_axis,
                     x_values=steps, y_axis=y_axis, series=series, readouts=readouts, present=present,
                     height_px=320, markers=[marker])
