"""Interconnect Explorer: GPU interconnect explained with sourced figures, units and models.

One folder per page of the app over shared layers, each importing only from the ones below it:

- :mod:`interconnect.units` (the unit registry, strict input parsing, the error base) and
  :mod:`interconnect.catalog` (every hardware figure with unit, direction, basis and source), with the
  readers of the shared data files in :mod:`interconnect.datafiles`;
- :mod:`interconnect.hardware` and :mod:`interconnect.workloads` (pure arithmetic every topic shares:
  the cluster, collectives, fabrics, media; the model shapes) and :mod:`interconnect.io` (reading what
  users bring);
- :mod:`interconnect.figures` (the shared look), :mod:`interconnect.ui` (the Streamlit shell) and
  :mod:`interconnect.cli` (the dispatcher and shared flags);
- :mod:`interconnect.topics` (one folder per page: its model, data reader, figures, page and CLI).
"""

import importlib
import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("interconnect-explorer")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__", "lazy_exports"]


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a subpackage whose exports load on first use (PEP 562).

    ``exports`` maps each exported name to the module of ``package`` that defines it, so importing
    the subpackage stays cheap (no Plotly, Streamlit or model code until a name is used).

    >>> getattr_, dir_ = lazy_exports("interconnect.io", {"parse_nccl_tests": "nccl_tests"})
    >>> getattr_("parse_nccl_tests").__name__, "parse_nccl_tests" in dir_()
    ('parse_nccl_tests', True)
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        vars(sys.modules[package])[name] = value  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
