"""A component state that is not JSON must not take a session down: the guard at Streamlit's door.

A custom component's state comes back over the websocket as JSON text, and any client can send any
text. Streamlit 1.67 decodes it with a bare ``json.loads`` (``streamlit.runtime.state.common.
unpack_widget_state_value``, called from ``WStates.__getitem__``) before the component's own
deserializer sees it, and keeps the undecoded text in the session: empty text, a byte-order mark, an
integer of more than 4,300 digits (``ValueError``) or deep nesting (``RecursionError``) raise there
on that run and on every later one (``SessionState._compact_state`` reads it again first), before
any line of the page runs. Nothing in the page can catch it.

:func:`install` wraps ``SessionState.on_script_will_rerun``, the one place every run's widget states
enter a session (from the browser, and from ``AppTest``), once per process. Each JSON state (a
component's value or trigger) is decoded there first; one that does not decode, or nests deeper than
any component of ours sends, is taken out of the message. The session then keeps the component's
last good state (its default if it had none), the page is drawn, and :func:`show_refused` (called by
the component, and by every page's frame for the rest) says which component's state was set aside.

What upstream would need: ``unpack_widget_state_value`` catching ``ValueError`` and ``RecursionError``
and treating the state as cleared (the bidi serde already falls back to ``{}`` on a string that is
not JSON, but never gets the chance), with a depth limit, or a supported hook to vet incoming states.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import streamlit as st
from streamlit.runtime.state.common import user_key_from_element_id
from streamlit.runtime.state.session_state import SessionState

from interconnect.inputs.params import safe_echo

__all__ = ["MAX_DEPTH", "install", "refused_states", "show_refused"]

#: The deepest JSON state kept. Our components send ``{"value": 16}`` (depth 1); Streamlit's own widgets
#: with JSON states (a chart's selection) stay under ten.
MAX_DEPTH = 64
_JSON_FIELDS = ("json_value", "json_trigger_value")
#: Session-state key of the ids whose state the guard set aside, for the page's next warning.
_REFUSED = "_interconnect.refused_component_states"
_LOCK = threading.Lock()


def _depth(value: Any) -> int:
    """How deeply lists and mappings nest in ``value``, walked without recursion.

    >>> _depth(1), _depth({"value": 3}), _depth([[[]]])
    (0, 1, 3)
    """
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level + 1)
            if level + 1 > MAX_DEPTH:
                break
            stack.extend((child, level + 1) for child in item)
    return deepest


def _usable(text: str) -> bool:
    """Whether Streamlit can decode ``text`` and later encode it again.

    >>> _usable('{"value": 1}'), _usable(""), _usable("\\ufeff{}"), _usable("[" * 100_000), _usable("[" * 70 + "]" * 70)
    (True, False, False, False, False)
    """
    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError, as is a 4,301-digit integer
        return False
    return _depth(decoded) <= MAX_DEPTH


def refused_states(widget_states: Any) -> list[str]:
    """Take every JSON state that is not usable out of ``widget_states`` (a ``WidgetStates`` message); their ids."""
    if widget_states is None:
        return []
    kept, refused = [], []
    for state in widget_states.widgets:
        field = state.WhichOneof("value")
        if field in _JSON_FIELDS and not _usable(getattr(state, field)):
            refused.append(state.id)
        else:
            kept.append(state)
    if refused:
        del widget_states.widgets[:]
        widget_states.widgets.extend(kept)
    return refused


def install() -> None:
    """Wrap ``SessionState.on_script_will_rerun`` once per process (idempotent)."""
    with _LOCK:
        if getattr(SessionState.on_script_will_rerun, "_interconnect_guard", False):
            return
        original = SessionState.on_script_will_rerun

        def guarded(self: SessionState, fresh_widget_states: Any = None, *args: Any, **kwargs: Any) -> None:
            refused = refused_states(fresh_widget_states) + refused_states(kwargs.get("replay_trigger_states"))
            original(self, fresh_widget_states, *args, **kwargs)
            if refused:
                self._new_session_state[_REFUSED] = tuple(refused)

        guarded._interconnect_guard = True  # type: ignore[attr-defined]
        SessionState.on_script_will_rerun = guarded  # type: ignore[method-assign]


def show_refused(key: str | None = None) -> None:
    """A warning naming the components whose state the guard set aside before this run: only ``key``'s
    (a component calls this itself, as it may be redrawn by its fragment alone), or all that are left."""
    refused = st.session_state.get(_REFUSED, ())
    names = {safe_echo(user_key_from_element_id(str(element)) or "?"): element for element in refused}
    shown = sorted(names) if key is None else [name for name in names if name == safe_echo(key)]
    if not shown:
        return
    left = tuple(element for name, element in names.items() if name not in shown)
    if left:
        st.session_state[_REFUSED] = left
    else:
        del st.session_state[_REFUSED]
    listed = ", ".join(f"`{name}`" for name in shown[:5]) + (" …" if len(shown) > 5 else "")
    st.warning(f"Your browser sent a state for {listed} that could not be read (not JSON, nested too deeply or a "
               "number too long); it was set aside and the chart keeps its last good state.")
