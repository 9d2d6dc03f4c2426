"""Command-line interface: ``python -m interconnect`` or the ``interconnect`` console script.

Each topic registers its own sub-commands (``register(subparsers)`` in its ``cli`` module, listed by
:mod:`interconnect.site`), so this file stays a dispatcher. A handler returns an exit code and raises
:class:`~interconnect.cli.output.CliError` for a bad argument; the message goes to stderr as one
line and the exit status is 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence

from interconnect.cli.output import CliError
from interconnect.site import cli_modules

__all__ = ["build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage over several lines; keep one
        raise CliError(message)


def build_parser() -> argparse.ArgumentParser:
    """The ``interconnect`` argument parser with every topic's sub-commands."""
    parser = _Parser(prog="interconnect", description="GPU interconnect figures and models, with units and sources.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for path in cli_modules():
        importlib.import_module(path).register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit status (2 for a user error, printed as one line).

    numpy's RuntimeWarnings (an overflow on the way to an infinite result) never reach stderr: a
    result that cannot be computed is reported in the output or as the one-line error.
    """
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return int(args.handler(args) or 0)
    except CliError as exc:
        message = " ".join(str(exc).split())
        print(f"interconnect: error: {message}", file=sys.stderr)
        return 2
    except KeyError as exc:  # UnknownIdError from the catalog
        print(f"interconnect: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except ArithmeticError as exc:  # a number no model step can hold (an overflow): one line, not a traceback
        print(f"interconnect: error: the inputs give numbers outside what can be computed ({type(exc).__name__}: "
              f"{' '.join(str(exc).split())[:80]})", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
