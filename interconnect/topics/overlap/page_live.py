"""The Overlap page's live chart: drag the tokens per GPU and the compute share against bucket size follows.

The family over every offered token count and bucket size is computed once per step's other
inputs (cached, shared between sessions); the browser redraws from it while the slider moves. When
the movement ends, the chosen count becomes the page's ``tokens`` value, so the metrics, the
timeline, the other charts and the link all follow.
"""

from __future__ import annotations

import streamlit as st

from interconnect.topics.overlap.live_figure import token_family_spec
from interconnect.topics.overlap.page_parts import StepInputs
from interconnect.topics.overlap.sweep import (
    TokenBucketFamily,
    live_bucket_sizes,
    live_token_counts,
    token_bucket_family,
)
from interconnect.ui.live_control import LiveControl, presenting
from interconnect.ui.state import PageState

__all__ = ["LIVE_TOKENS", "live_caption", "live_tokens"]

TOKENS_MAXIMUM = 100_000_000

LIVE_TOKENS = LiveControl(
    "overlap.live_tokens", "tokens",
    reading="Too small a bucket pays its launch and latency many times; too big a one leaves the last bucket's "
            "all-reduce with nothing to hide behind. Where the bucketed and ideal lines meet, communication alone "
            "sets the step: the buckets' all-reduces, each paying its latency, outlast the backward pass however "
            "well they overlap.")


@st.cache_resource(max_entries=32, show_spinner=False)
def _family(key: tuple, _inputs: StepInputs, tokens: tuple[int, ...], sizes: tuple[float, ...]) -> TokenBucketFamily:
    i = _inputs
    return token_bucket_family(i.cluster, i.workload, tokens, sizes, gradient_dtype=i.dtype, efficiency=i.eff,
                               algorithm=i.algo, **i.costs)


@st.cache_resource(max_entries=64, show_spinner=False)
def _spec(key: tuple, tokens: int, mode: str, present: bool, _family: TokenBucketFamily, bucket_bytes: float) -> dict:
    """The chart's numbers at the page's token count: built once per family and count (a change of the node count
    back to one seen before, or another session's same view, sends the same chart without formatting its labels
    again). ``key`` (the family's, with its bucket size) determines ``_family`` and ``bucket_bytes``."""
    return token_family_spec(_family, tokens, bucket_bytes, mode, present=present)


def live_tokens(state: PageState, inputs: StepInputs) -> None:
    """The live chart beside the step's controls; its slider sets the page's tokens per GPU (its caption:
    :func:`live_caption`)."""
    tokens = live_token_counts(inputs.tokens, TOKENS_MAXIMUM)
    sizes = live_bucket_sizes(inputs.bucket_bytes)
    # Keyed by the grid, not the page's count: every count on the grid shares one family.
    key = (*inputs.identity, inputs.bucket_bytes, inputs.dtype, inputs.sm, inputs.eff, inputs.launch_us,
           inputs.spread_pct, inputs.algo)
    family = _family(key, inputs, tokens, sizes)
    LIVE_TOKENS.show(_spec((key, tokens, sizes), inputs.tokens, inputs.mode, presenting(), family, inputs.bucket_bytes),
                     state)


def live_caption() -> None:
    """How to use the live chart and how to read it, under it (the same for every step)."""
    LIVE_TOKENS.caption()
