"""Keep the garbage collection Streamlit runs after every script run short.

Streamlit calls ``gc.collect()`` at the end of each script run, fragment runs included
(``runner.postScriptGC``, on by default). A full collection walks every object the process tracks: the
imported modules of Streamlit, Plotly, NumPy and pint, the unit registry and the catalog, about 135,000
objects once a topic page has loaded. On the 2-core machine that walk took 40-100 ms, after every
change of a control, longer than the run itself; while it holds the interpreter the server sends nothing,
so the run's last messages wait for it (``benchmarks/change_split.py``).

Those objects live as long as the server. :func:`settle_long_lived`, called at the end of every page's full
run, collects once and then moves everything that exists into the collector's permanent generation
(``gc.freeze()``) whenever the run has imported modules that the last freeze did not see: in practice
once per page the server first draws. Later collections then walk only what was made since (sessions'
state, cached results), and an object frozen this way is still freed as soon as nothing refers to it;
only a reference cycle that existed at a freeze stays for the process's life: the part of a session open at
that moment that is held in cycles, once per page first drawn, not per change.
"""

from __future__ import annotations

import gc
import sys
import threading

__all__ = ["settle_long_lived"]

_lock = threading.Lock()
_modules_at_freeze = 0


def settle_long_lived() -> bool:
    """Freeze what the process holds now if modules were imported since the last freeze; True if it did."""
    global _modules_at_freeze
    if len(sys.modules) == _modules_at_freeze:
        return False
    with _lock:
        modules = len(sys.modules)
        if modules == _modules_at_freeze:
            return False
        gc.collect()
        gc.freeze()
        _modules_at_freeze = modules
        return True
