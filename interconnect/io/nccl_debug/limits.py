"""The limits the NCCL_DEBUG reader works within, and its one error."""

from __future__ import annotations

from interconnect.units import InterconnectError

__all__ = ["MAX_KEPT", "MAX_LINE_CHARS", "MAX_LINES", "MAX_SKIPPED_LISTED", "MAX_TABLE_LINES", "NcclDebugError"]

#: Longer lines are cut to this many characters before they are read (NCCL's own lines are far shorter; the
#: longest in the collected logs, a 34-NIC device list, is about 900). The cut is reported as a skipped line.
MAX_LINE_CHARS = 4096

#: Lines read from one stream; a longer log is read up to here and the rest is reported, not read.
MAX_LINES = 5_000_000

#: Distinct items kept per kind (connections' rank pairs, hosts, communicators, collectives): enough for any
#: real job's summary, and what keeps memory bounded on hostile input.
MAX_KEPT = 10_000

#: Lines that look like an nccl-tests result table, kept for the comparison with the model.
MAX_TABLE_LINES = 20_000

#: Skipped line numbers listed one by one; beyond this only their count grows.
MAX_SKIPPED_LISTED = 200


class NcclDebugError(InterconnectError, ValueError):
    """The text cannot be a NCCL_DEBUG=INFO log (one message that says why)."""
