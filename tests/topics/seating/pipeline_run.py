"""Play pipeline ranks' calls against each other, event by event: the shared run of the schedule-order tests.

Each rank's order is a list of steps: ("F", i) or ("B", i) a forward or backward of micro-batch i; ("C", seconds)
other work on the rank's compute stream (a TP all-gather inside a forward or backward); ("X", transfers)
an exchange waited for now; ("S", transfers) sends issued without waiting; ("W", transfers) the wait for earlier
"S" steps. A transfer (any hashable name both its ranks use) starts once both ranks have reached it and takes one
send time; a waited step holds its rank until its last transfer ends.
"""

from __future__ import annotations

from interconnect.topics.seating.model.schedules import blocking_1f1b_sends


def run_orders(orders: list[list[tuple[str, object]]], fwd: float, bwd: float, send: float) -> float:
    """Seconds until the last rank finishes its order (forward, backward and send times in seconds)."""
    p = len(orders)
    at, clock, reached = [0] * p, [0.0] * p, {}
    progressed = True
    while progressed:
        progressed = False
        for r in range(p):
            while at[r] < len(orders[r]):
                kind, what = orders[r][at[r]]
                if kind in ("F", "B"):
                    clock[r] += fwd if kind == "F" else bwd
                elif kind == "C":
                    clock[r] += what
                else:
                    for transfer in what:
                        reached.setdefault(transfer, {}).setdefault(r, clock[r])
                    if kind in ("X", "W"):
                        if any(len(reached[t]) < 2 for t in what):
                            break
                        clock[r] = max(clock[r], max(max(reached[t].values()) + send for t in what))
                at[r] += 1
                progressed = True
    assert all(at[r] == len(orders[r]) for r in range(p)), "the order deadlocked"
    return max(clock)


def blocking_1f1b_closed_form_s(p: int, m: int, fwd: float, bwd: float, send: float) -> float:
    """Rule R54's closed form of a 1F1B step whose exchanges all wait: (m + p - 1) t_micro plus
    [2(p - 1) + blocking_1f1b_sends] transfer times (the two orders' tests hold their event-by-event runs to it)."""
    return (m + p - 1) * (fwd + bwd) + (2 * (p - 1) + float(blocking_1f1b_sends(p, m))) * send
