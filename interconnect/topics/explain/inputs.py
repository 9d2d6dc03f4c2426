"""The Explain page's inputs: none in the link. The log itself stays in the session (upload or paste), never in
the URL, so a shared link never carries a user's log."""

from __future__ import annotations


def explain_specs() -> list:
    """The page's link parameters: none (the log is not a link parameter)."""
    return []
