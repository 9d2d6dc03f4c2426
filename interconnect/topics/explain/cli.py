"""CLI sub-command ``explain LOGFILE [--json]``: what a NCCL_DEBUG=INFO log says, each verdict with its line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from interconnect.cli.output import CliError, print_json
from interconnect.io.nccl_debug import NcclDebugError
from interconnect.topics.explain.model import explain_source


def register(commands: Any) -> None:
    """Add ``explain`` to the command parser."""
    parser = commands.add_parser("explain", help="explain a job's NCCL_DEBUG=INFO output, line by line")
    parser.add_argument("logfile", metavar="LOGFILE", help="the log file, or - for standard input")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_explain)


def _print(finding: Any) -> None:
    where = f"line {finding.line}" if finding.line else "-"
    mark = "!" if finding.warn else " "
    print(f"{mark} [{where:>10}] {finding.text}")


def run_explain(args: argparse.Namespace) -> int:
    """Read the log as a stream, print the findings."""
    try:
        if args.logfile == "-":
            explanation = explain_source(sys.stdin.buffer)
        else:
            try:
                with open(args.logfile, "rb") as stream:
                    explanation = explain_source(stream)
            except OSError as exc:
                raise CliError(f"cannot read {args.logfile}: {exc.strerror or exc}") from None
    except NcclDebugError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print_json(explanation.as_dict())
        return 0
    ranked = explanation.ranked()
    if ranked:
        print("Look here first (most likely cause first):")
        for finding in ranked:
            _print(finding)
        print()
    print("Everything the log says:")
    for finding in explanation.findings:
        _print(finding)
    for assumption in explanation.assumptions:
        print(f"  assumed: {assumption}")
    return 0
