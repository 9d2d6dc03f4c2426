"""CLI sub-commands for collectives (``allreduce``, ``compare``): filled in by the collectives work."""

from __future__ import annotations


def register(commands) -> None:  # noqa: ANN001 - argparse's private subparsers type
    return None
