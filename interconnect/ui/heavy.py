"""One heavy job at a time on this server, so one visitor's many sessions cannot take every core.

The few pieces of work that take seconds rather than milliseconds (a large pasted log's parse, the
Seating chart's layout search, an export's render) run through :func:`run_heavy`, which holds a
process-wide gate of one place. Everything else (a slider's change, a chart's redraw) never waits
for it: a visitor who opens ten sessions and pastes ten logs queues behind their own work, while
another visitor's node count still redraws on the free core. A page that asks for a heavy result
wraps the (cached) call in :func:`waiting_notice`, which shows a spinner saying so while another
job holds the gate. The gate is re-entrant per thread (a heavy job may call another).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

import streamlit as st

__all__ = ["HEAVY_SLOTS", "heavy_busy", "run_heavy", "waiting_notice"]

T = TypeVar("T")

#: Heavy jobs that may run at once in this server process.
HEAVY_SLOTS = 1
_GATE = threading.BoundedSemaphore(HEAVY_SLOTS)
_MINE = threading.local()  # how deep this thread is inside run_heavy
_COUNT_LOCK = threading.Lock()
_ACTIVE = 0  # jobs running or waiting


def heavy_busy() -> bool:
    """Whether a heavy job is running or waiting (another call would wait its turn)."""
    return _ACTIVE > 0 and getattr(_MINE, "depth", 0) == 0


def run_heavy(function: Callable[..., T], *args, **kwargs) -> T:
    """``function(*args, **kwargs)`` on this thread once the gate is free; at most :data:`HEAVY_SLOTS` at once.

    >>> run_heavy(sum, [1, 2, 3]), run_heavy(run_heavy, max, 4, 5)
    (6, 5)
    """
    global _ACTIVE
    depth = getattr(_MINE, "depth", 0)
    if depth:  # already inside a heavy job on this thread: it holds the gate
        _MINE.depth = depth + 1
        try:
            return function(*args, **kwargs)
        finally:
            _MINE.depth = depth
    with _COUNT_LOCK:
        _ACTIVE += 1
    try:
        with _GATE:
            _MINE.depth = 1
            try:
                return function(*args, **kwargs)
            finally:
                _MINE.depth = 0
    finally:
        with _COUNT_LOCK:
            _ACTIVE -= 1


@contextlib.contextmanager
def waiting_notice(what: str) -> Iterator[None]:
    """Around a call that may run a heavy job: while another holds the gate, a spinner says this one waits."""
    if not heavy_busy():
        yield
        return
    with st.spinner(f"{what}: waiting for the server's heavy-work slot (one large log or layout search runs at a "
                    "time, so other visitors' pages stay quick)…"):
        yield
