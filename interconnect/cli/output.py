"""What every sub-command shares: the user-error type and JSON output with units.

Sub-command modules import from here only, never from :mod:`interconnect.cli` itself, so the
command line has no import cycle.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from interconnect.units import InterconnectError

__all__ = ["CliError", "print_json", "quantity_json"]


class CliError(InterconnectError):
    """A user error: printed to stderr as one line, exit status 2."""


def quantity_json(quantity: Any, unit: str) -> dict[str, Any]:
    """``{"value": 50.0, "unit": "GB/s"}`` for a pint quantity converted to ``unit``."""
    return {"value": round(float(quantity.to(unit).magnitude), 6), "unit": unit}


def print_json(payload: Any) -> None:
    """Write ``payload`` to stdout as indented UTF-8 JSON."""
    json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
