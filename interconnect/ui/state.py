"""Binds a page's parameters to the URL query string and to widget keys: :class:`PageState`.

Every view is a link: on the first run the widgets are seeded from the address, and after they are
drawn :meth:`PageState.sync_url` writes the view back (keeping the tour and presentation mode) and
fills the share link.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from interconnect.inputs.links import page_query
from interconnect.inputs.params import Param, QuantityParam, parse_state, safe_echo, to_query, unknown_keys
from interconnect.site import known_link_keys
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.share import show_share_link
from interconnect.ui.talk import talk_query, talk_state

__all__ = ["PageState", "bounds"]

#: Session-state prefix of values shared between pages (not widget keys, so they survive a page switch).
_SHARED = "shared."

_WRITTEN = "url.written."

#: Session-state prefix of what each parameter's widget value was read as: ``{key: (what the widget held, value)}``.
_READ = "read."


class PageState:
    """Binds a page's parameters to the URL query string and to widget keys.

    On the first run of a session the widgets are seeded from the URL (bad values become warnings
    and defaults); after the widgets are drawn, :meth:`sync_url` writes the state back so the
    address bar is always a link to the current view.
    """

    def __init__(self, page: str, specs: Sequence[Param], *, shared: Sequence[str] = ()) -> None:
        self.page = page
        self.specs = list(specs)
        self.specs_by_key = {spec.key: spec for spec in self.specs}
        self.shared = tuple(key for key in shared if key in self.specs_by_key)
        self._read: dict[str, tuple[Any, Any]] = st.session_state.setdefault(_READ + page, {})
        query = page_query(st.query_params.to_dict())
        self._query = query
        # The address changed since this page last wrote it (a tour step, a claim's link, a pasted
        # link in the same tab): the link's own parameters replace what the widgets held. While it holds what
        # the page wrote, the widgets hold the same values, read already: the link is not read again.
        written = st.session_state.get(_WRITTEN + page)
        navigated = written is not None and _page_part(query, self.specs) != written
        if written is None or navigated:
            values, self.warnings = parse_state(self.specs, query)
        else:
            values, self.warnings = {}, []
        for spec in self.specs:
            widget_key = self.key(spec.key)
            if navigated and spec.key in query:
                st.session_state[widget_key] = values[spec.key]
            elif widget_key not in st.session_state:
                value = values[spec.key] if spec.key in values else parse_state([spec], query)[0][spec.key]
                # A shared value (the cluster chosen on another page) fills what the link leaves out;
                # a parameter in the link always wins.
                if spec.key in self.shared and spec.key not in query and _SHARED + spec.key in st.session_state:
                    value = spec.clean(st.session_state[_SHARED + spec.key])
                st.session_state[widget_key] = value

    def key(self, name: str) -> str:
        """The widget key for a parameter (stable, used by tests to find widgets)."""
        return f"{self.page}.{name}"

    def __getitem__(self, name: str) -> Any:
        """The parameter's value: what its widget holds, read (checked, clamped, a typed quantity parsed) once
        for as long as the widget holds it, and carried from run to run beside it in the session."""
        spec = self.specs_by_key[name]
        raw = st.session_state.get(self.key(name), spec.default_value)
        held = str(raw) if isinstance(raw, str) else raw  # text is text, read or not; 1, 1.0 and True are not
        read = self._read.get(name)
        if read is None or type(read[0]) is not type(held) or read[0] != held:
            read = (held, spec.clean(raw))
            self._read[name] = read
        return read[1]

    def values(self) -> dict[str, Any]:
        return {spec.key: self[spec.key] for spec in self.specs}

    def show_warnings(self) -> None:
        """Every problem with the link in one warning box: bad values by control, then ignored keys."""
        lines = [warning.message() for warning in self.warnings]
        ignored = unknown_keys(self.specs, self._query, known_link_keys())
        if ignored:
            shown = ", ".join(f"`{key}`" for key in ignored[:5]) + (" …" if len(ignored) > 5 else "")
            lines.append(f"Ignored link parameters no page uses: {shown}.")
        if len(lines) == 1:
            st.warning(lines[0])
        elif lines:
            st.warning("This link had problems; the page shows the nearest view it could:\n\n"
                       + "\n".join(f"- {line}" for line in lines))

    def sync_url(self) -> None:
        """Write the view to the address bar; a typed value that could not be used is reported first."""
        for spec in self.specs:
            if isinstance(spec, QuantityParam):
                raw = str(st.session_state.get(self.key(spec.key), ""))
                if self[spec.key] != " ".join(raw.split()):
                    _, problem = spec.parse(raw)
                    reason = f" ({escape_markdown(problem)})" if problem else ""
                    st.warning(f"{spec.label or spec.key}: could not use `{safe_echo(raw)}`{reason}; using "
                               f"`{self[spec.key]}`.")
        values = self.values()
        for key in self.shared:
            st.session_state[_SHARED + key] = values[key]
        query = to_query(self.specs, values)
        st.session_state[_WRITTEN + self.page] = query
        full = {**query, **talk_query(talk_state())}
        if st.query_params.to_dict() != full:
            st.query_params.from_dict(full)
        show_share_link(full)


def _page_part(query: dict[str, Any], specs: Sequence[Param]) -> dict[str, str]:
    keys = {spec.key for spec in specs}
    return {key: value for key, value in query.items() if key in keys}


def bounds(state: PageState, key: str) -> dict[str, Any]:
    """A number widget's ``min_value`` and ``max_value``, read from the parameter declared for ``key``: the
    bounds are written once, in the page's inputs, and the link, the widget and the CLI share them."""
    spec = state.specs_by_key[key]
    return {"min_value": spec.minimum, "max_value": spec.maximum}
