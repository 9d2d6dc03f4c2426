"""Reading what users bring: nccl-tests and rccl-tests output, as text or as the ``-J`` JSON file.

:func:`parse_nccl_tests` turns a pasted or uploaded log into one :class:`NcclRun` (arrays of message
size in bytes, time in µs, algbw and busbw in GB/s); every failure is a :class:`NcclLogError` that
names the line and the reason. The rest of :mod:`interconnect.io.nccl_tests` (the bus-bandwidth
factors, rank inference) stays importable from that module.

>>> from interconnect.io import parse_nccl_tests
>>> header = "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong"
>>> row = "1048576 262144 float sum -1 20.00 52.43 91.75 0 19.80 52.96 92.68 0"
>>> run = parse_nccl_tests(header + chr(10) + row)
>>> f"{run.size_bytes[0]:.0f} B in {run.time_us[0]:.1f} µs"
'1048576 B in 20.0 µs'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from interconnect import lazy_exports

if TYPE_CHECKING:  # for type checkers and editors; at run time the names load lazily
    from interconnect.io.nccl_tests import NcclLogError, NcclRun, parse_nccl_tests

_EXPORTS: dict[str, str] = {"NcclLogError": "nccl_tests", "NcclRun": "nccl_tests", "parse_nccl_tests": "nccl_tests"}

__all__ = ["NcclLogError", "NcclRun", "parse_nccl_tests"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
