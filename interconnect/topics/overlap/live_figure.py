"""The Overlap page's live chart: compute share against bucket size while the tokens per GPU are dragged."""

from __future__ import annotations

import numpy as np

from interconnect.figures.live import LiveAxis, LiveMarker, LiveSeries, live_spec
from interconnect.topics.overlap.figures import MODE_COLOURS
from interconnect.topics.overlap.model import MODE_LABELS
from interconnect.topics.overlap.sweep import TokenBucketFamily
from interconnect.units import Q_, format_seconds, format_size

__all__ = ["token_family_spec"]

_SHARE_TICKS = tuple((v, f"{v:.0%}") for v in (0.0, 0.25, 0.5, 0.75, 1.0))


def _duration(seconds: float) -> str:
    return format_seconds(float(seconds)) if seconds > 0 else "0 s"


def _size_ticks(low: float, high: float) -> tuple[tuple[float, str], ...]:
    """Every second octave (256 KiB, 1 MiB, 4 MiB ...) inside the axis."""
    first, last = int(np.ceil(np.log2(low))), int(np.floor(np.log2(high)))
    return tuple((float(2**p), format_size(Q_(2**p, "B"))) for p in range(first, last + 1) if p % 2 == 0)


def token_family_spec(family: TokenBucketFamily, current_tokens: int, current_bucket_bytes: float, mode: str,
                      *, present: bool = False) -> dict:
    """The live chart of :func:`~interconnect.topics.overlap.sweep.token_bucket_family`.

    One line per overlap mode, the page's mode thick; a dashed line marks the page's bucket size.
    The sentence beside the slider gives the page's step at its bucket size for each token count,
    and the bucket size on the chart's grid with the highest compute share.

    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.topics.overlap.model import ModelShape
    >>> from interconnect.topics.overlap.sweep import token_bucket_family
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> family = token_bucket_family(cluster, ModelShape.from_params(8e9, 32), [1024, 4096], [2**20, 25 * 2**20])
    >>> spec = token_family_spec(family, 4096, 25 * 2**20, "overlap")
    >>> spec["slider"]["labels"], spec["slider"]["index"]
    (['1,024 tokens', '4,096 tokens'], 1)
    >>> print(spec["readouts"][1])  # doctest: +NORMALIZE_WHITESPACE
    4,096 tokens per GPU: step 352 ms, 86.7 ms of it exposed communication; compute share 75% (611 buckets
    of 25 MiB). Best on this chart: 25 MiB buckets, 75%.

    (352 ms and 86.7 ms: :func:`~interconnect.topics.overlap.model.step_schedule`'s example.)
    """
    tokens = [int(round(t)) for t in family.tokens]
    index = tokens.index(int(current_tokens)) if int(current_tokens) in tokens else 0
    sizes = family.bucket_bytes.astype(float)
    at = int(np.argmin(np.abs(np.log2(sizes) - np.log2(max(float(current_bucket_bytes), 1.0)))))
    shown = family.modes.index(mode) if mode in family.modes else 0
    series = []
    for m, name in enumerate(family.modes):
        chosen = m == shown
        series.append(LiveSeries(MODE_LABELS.get(name, name), MODE_COLOURS.get(name, "#374151"), family.utilization[m],
                                 width=4.0 if chosen else 2.0, dash="solid" if chosen else "dot"))
    x_axis = LiveAxis("bucket size", True, sizes[0] / 1.15, sizes[-1] * 1.15, _size_ticks(sizes[0], sizes[-1]))
    y_axis = LiveAxis("compute share", False, 0.0, 1.04, _SHARE_TICKS)
    size_text = format_size(Q_(sizes[at], "B"))
    marker = LiveMarker(float(sizes[at]), f"your buckets: {size_text}")
    readouts = []
    for i, count in enumerate(tokens):
        step, exposed = family.step_s[shown, i, at], family.exposed_s[shown, i, at]
        share = family.utilization[shown, i, at]
        best = int(np.nanargmax(family.utilization[shown, i]))
        readouts.append(
            f"{count:,} tokens per GPU: step {_duration(step)}, {_duration(exposed)} of it exposed communication; "
            f"compute share {share:.0%} ({int(family.bucket_count[at]):,} buckets of {size_text}). Best on this "
            f"chart: {format_size(Q_(sizes[best], 'B'))} buckets, {family.utilization[shown, i, best]:.0%}.")
    labels = [f"{t:,} tokens" for t in tokens]
    return live_spec(title=f"compute share against bucket size ({MODE_LABELS.get(mode, mode)} thick), as the tokens "
                           "per GPU change", slider_label="Tokens per GPU", slider_values=tokens,
                     slider_labels=labels, index=index, x_axis=x_axis, x_values=sizes, y_axis=y_axis, series=series,
                     readouts=readouts, present=present, height_px=320, markers=[marker])
