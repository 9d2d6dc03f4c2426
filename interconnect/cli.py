"""Command-line interface: ``python -m interconnect`` or the ``interconnect`` console script.

Each concern registers its own sub-commands (``register(subparsers)`` in its ``cli_*`` module), so
this file stays a dispatcher. A handler returns an exit code and raises :class:`CliError` for a
bad argument; the message goes to stderr as one line and the exit status is 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any


class CliError(Exception):
    """A user error: printed to stderr as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage over several lines; keep one
        raise CliError(message)


def quantity_json(quantity: Any, unit: str) -> dict[str, Any]:
    """``{"value": 50.0, "unit": "GB/s"}`` for a pint quantity converted to ``unit``."""
    return {"value": round(float(quantity.to(unit).magnitude), 6), "unit": unit}


def print_json(payload: Any) -> None:
    json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def build_parser() -> argparse.ArgumentParser:
    from interconnect import cli_catalog, cli_collectives

    parser = _Parser(prog="interconnect", description="GPU interconnect figures and models, with units and sources.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for module in (cli_catalog, cli_collectives):
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return int(args.handler(args) or 0)
    except CliError as exc:
        message = " ".join(str(exc).split())
        print(f"interconnect: error: {message}", file=sys.stderr)
        return 2
    except KeyError as exc:  # UnknownIdError from the catalog
        print(f"interconnect: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
