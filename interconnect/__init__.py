"""Interconnect Explorer: GPU interconnect explained with sourced figures, units and models.

The package is layered, each layer importing only from the ones below it:

- :mod:`interconnect.units` (the unit registry, strict input parsing, the error base) and
  :mod:`interconnect.catalog` (every hardware figure with unit, direction, basis and source);
- :mod:`interconnect.models` (pure arithmetic) and :mod:`interconnect.io` (reading what users bring);
- :mod:`interconnect.figures` (Plotly builders), :mod:`interconnect.ui` (Streamlit glue) and
  :mod:`interconnect.cli` (the command line).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("interconnect-explorer")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
