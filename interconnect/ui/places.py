"""Places a nested fragment fills outside its own body, claimed on every one of its runs.

Streamlit lets a fragment rerun write to a container made outside it only if that fragment wrote to
it in the last full run. A fragment that writes to such a place only sometimes (a caption that
appears at two nodes, a chart shown for one view) breaks the page on the first rerun that writes
there for the first time (``StreamlitInvalidLayoutContextError``). Claiming each place with a
container of the fragment's own, made at the start of every run, keeps the write unconditional:
whatever the run then draws goes into a container the fragment made itself.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

P = TypeVar("P", bound=NamedTuple)


def claim_places(places: P) -> P:
    """The same places, each replaced by a container made in it now (call first in the fragment's body)."""
    claimed: list[Any] = [place.container() for place in places]
    return type(places)(*claimed)
