r"""A static 1F1B pipeline whose stages sit in two sites: the schedule that pays the WAN on its critical path.

:mod:`~interconnect.topics.crossdc.model.pipeline` times each schedule as if enough micro-batches were in
flight to hide the round trip across a cut, so latency is paid only in the fill and the drain. A *static*
1F1B (every stage runs the same fixed order, warm-up forwards, then one forward and one backward in turn,
then the remaining backwards) keeps no more in flight than that order allows, and CrossPipe (arXiv
2507.00217 §3) shows its critical path then crosses the cut once per micro-batch or so: the delay is paid
:math:`O(m)` times. This module plays that order out, operation by operation:

* stage :math:`s` of :math:`p` runs :math:`w_s = \min(p-s-1, m)` forwards, then :math:`m - w_s` pairs
  (a forward, then the backward of its oldest micro-batch), then :math:`w_s` backwards;
* a forward needs the previous stage's forward of the same micro-batch, a backward the next stage's
  backward (the last stage's backward follows its own forward);
* each stage runs one operation at a time, :math:`T_F` for a forward and :math:`T_B` for a backward;
* inside a site a hand-over is free; across the cut (after stage :math:`c`) a message occupies the link for
  :math:`T_\text{bw}` and then arrives :math:`T_\text{lat}` later, and one direction of the link carries one
  message at a time, in the order they were sent ("latter messages need to wait for the previous ones to be
  placed on the link", CrossPipe §3's alpha-beta model with its queue).

Each operation starts at the later of its stage being free and its input having arrived, so the step is the
last operation's end. With no cut delay this is the textbook :math:`(m + p - 1)(T_F + T_B)`.

Pure: no file is read, nothing is drawn. CrossPipe's published comparison against it is case
``m70-schedule-gain`` of ``interconnect/data/crossdc_pipeline.toml``.
"""

from __future__ import annotations

import math

import numpy as np

from interconnect.topics.crossdc.model.methods import CrossDCInputError
from interconnect.units import expects

__all__ = ["MAX_OPERATIONS", "static_1f1b_order", "static_1f1b_step_s"]

#: The largest schedule played out (stages x micro-batches x 2 operations): the walk is linear in it.
MAX_OPERATIONS = 2_000_000


def static_1f1b_order(stages: int, micro_batches: int, stage: int) -> list[tuple[str, int]]:
    """The fixed order of one stage's operations: ``("F", i)`` forwards and ``("B", i)`` backwards.

    >>> static_1f1b_order(4, 4, 1)
    [('F', 0), ('F', 1), ('F', 2), ('B', 0), ('F', 3), ('B', 1), ('B', 2), ('B', 3)]
    """
    warm = min(stages - stage - 1, micro_batches)
    order = [("F", i) for i in range(warm)]
    for k in range(micro_batches - warm):
        order += [("F", warm + k), ("B", k)]
    return order + [("B", micro_batches - warm + k) for k in range(warm)]


def _check(stages: int, micro_batches: int, forward_s: float, backward_s: float, latency_s: float,
           transfer_s: float, cut_after: int) -> None:
    for name, value in (("stages", stages), ("micro-batches", micro_batches)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise CrossDCInputError(f"{name} must be a whole number >= 1, got {value!r}")
    if 2 * stages * micro_batches > MAX_OPERATIONS:
        raise CrossDCInputError(f"stages x micro-batches is too large to play out ({stages} x {micro_batches}; "
                                f"at most {MAX_OPERATIONS // 2:,})")
    for name, value in (("forward time", forward_s), ("backward time", backward_s)):
        if not (isinstance(value, (int, float, np.floating)) and math.isfinite(value) and value > 0):
            raise CrossDCInputError(f"{name} must be a positive number of seconds, got {value!r}")
    for name, value in (("latency", latency_s), ("transfer time", transfer_s)):
        if not (isinstance(value, (int, float, np.floating)) and math.isfinite(value) and value >= 0):
            raise CrossDCInputError(f"{name} must be >= 0 s, got {value!r}")
    if not (isinstance(cut_after, int) and -1 <= cut_after < stages - 1):
        raise CrossDCInputError(f"the cut must follow a stage other than the last (0 to {stages - 2}), "
                                f"or be -1 for one site; got {cut_after!r}")


@expects(forward_s="s", backward_s="s", latency_s="s", transfer_s="s")
def static_1f1b_step_s(stages: int, micro_batches: int, forward_s: float, backward_s: float,
                       latency_s: float = 0.0, transfer_s: float = 0.0, cut_after: int | None = None) -> float:
    r"""One step of a static 1F1B with one cut between two sites (seconds).

    Parameters
    ----------
    stages, micro_batches : int
        :math:`p` and :math:`m`.
    forward_s, backward_s : float
        :math:`T_F` and :math:`T_B` of one micro-batch on one stage (s).
    latency_s, transfer_s : float
        One-way latency :math:`T_\text{lat}` and the time one message occupies the link, :math:`T_\text{bw}`
        (s), for each message across the cut in either direction.
    cut_after : int, optional
        The last stage of the first site (0-based); by default the stages are split evenly, the first site
        taking the smaller half. ``-1`` puts every stage in one site.

    Examples
    --------
    >>> static_1f1b_step_s(8, 16, 1.0, 2.0)  # no delay: (m + p - 1)(T_F + T_B)
    69.0
    >>> static_1f1b_step_s(2, 4, 1.0, 2.0, latency_s=10.0)  # two sites, one stage each: worked by hand in the tests
    55.0
    >>> from interconnect.units import Q_
    >>> static_1f1b_step_s(2, 4, Q_(1000, "ms"), 2.0, latency_s=Q_(10, "s"))
    55.0
    """
    if cut_after is None:
        cut_after = stages // 2 - 1 if stages > 1 else -1
    _check(stages, micro_batches, forward_s, backward_s, latency_s, transfer_s, cut_after)
    orders = [static_1f1b_order(stages, micro_batches, s) for s in range(stages)]
    forward_end = [[math.nan] * micro_batches for _ in range(stages)]
    backward_end = [[math.nan] * micro_batches for _ in range(stages)]
    arrives_forward = [math.nan] * micro_batches  # at stage cut_after + 1
    arrives_backward = [math.nan] * micro_batches  # at stage cut_after
    link_free = {"forward": 0.0, "backward": 0.0}
    stage_free = [0.0] * stages
    position = [0] * stages
    remaining = stages * 2 * micro_batches
    while remaining:
        moved = False
        for s in range(stages):
            order = orders[s]
            while position[s] < len(order):
                kind, i = order[position[s]]
                if kind == "F":
                    if s == 0:
                        ready = 0.0
                    elif s == cut_after + 1:
                        ready = arrives_forward[i]
                    else:
                        ready = forward_end[s - 1][i]
                elif s == stages - 1:
                    ready = forward_end[s][i]
                elif s == cut_after:
                    ready = arrives_backward[i]
                else:
                    ready = backward_end[s + 1][i]
                if math.isnan(ready):
                    break  # its input is not produced yet: another stage moves first
                end = max(stage_free[s], ready) + (forward_s if kind == "F" else backward_s)
                stage_free[s] = end
                position[s] += 1
                remaining -= 1
                moved = True
                if kind == "F":
                    forward_end[s][i] = end
                    if s == cut_after:
                        start = max(end, link_free["forward"])
                        link_free["forward"] = start + transfer_s
                        arrives_forward[i] = start + transfer_s + latency_s
                else:
                    backward_end[s][i] = end
                    if s == cut_after + 1:
                        start = max(end, link_free["backward"])
                        link_free["backward"] = start + transfer_s
                        arrives_backward[i] = start + transfer_s + latency_s
        if not moved:  # cannot happen for 1F1B's order; kept so a wrong order fails loudly, not forever
            raise RuntimeError("static 1F1B walk stalled")
    return max(stage_free)
