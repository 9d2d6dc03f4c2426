"""``published/playbook-allreduce-256mb.csv``, read and checked: the Ultra-Scale Playbook's 256 MB all-reduce.

Hugging Face's chart of all-reduce bandwidth against node count (the file's header cites it): per node
count, the median of its runs and the 5th-95th percentile range, GB/s. The All-reduce page's curve
(:func:`interconnect.hardware.playbook.playbook_curve`) is built from this record.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from interconnect.catalog import CatalogError
from interconnect.datafiles.tables import CsvFile, packaged_data_file

__all__ = ["PlaybookAllreduce", "PlaybookDataError", "load_playbook_allreduce"]

_DATA_FILE = "published/playbook-allreduce-256mb.csv"
_COLUMNS = {"nodes": int, "bandwidth_gbps": float, "p5_gbps": float, "p95_gbps": float}


class PlaybookDataError(CatalogError):
    """``playbook-allreduce-256mb.csv`` is inconsistent; the message names the file, the line and the column."""


class _PlaybookFile(CsvFile):
    error = PlaybookDataError


@dataclass(frozen=True)
class PlaybookAllreduce:
    """The Playbook's 256 MB all-reduce per node count (8 x H100 each): median and 5th-95th percentiles, GB/s."""

    nodes: tuple[int, ...]
    median_gbps: tuple[float, ...]
    p5_gbps: tuple[float, ...]
    p95_gbps: tuple[float, ...]


@functools.cache
def load_playbook_allreduce(path: str | Path | None = None) -> PlaybookAllreduce:
    """Read and check the Playbook's measured 256 MB all-reduce bandwidth against node count.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file (read once per process) by default.

    Returns
    -------
    PlaybookAllreduce

    Raises
    ------
    PlaybookDataError
        For other columns than ``nodes, bandwidth_gbps, p5_gbps, p95_gbps``, an empty cell or one that is
        not a number, node counts that do not rise, or a median outside its percentile range.

    Examples
    --------
    >>> curve = load_playbook_allreduce()
    >>> curve.nodes[-1], curve.median_gbps[-1], curve.p5_gbps[-1]
    (64, 32.9, 12.5)
    """
    data = _PlaybookFile(packaged_data_file(_DATA_FILE) if path is None else path, _COLUMNS)
    nodes = tuple(data.column("nodes"))
    if not nodes or nodes[0] < 1 or any(b <= a for a, b in zip(nodes, nodes[1:], strict=False)):
        raise PlaybookDataError(f"{data.name}: 'nodes' must rise from 1 or more, got {list(nodes)}")
    for row in data.rows:
        if not 0 <= row["p5_gbps"] <= row["bandwidth_gbps"] <= row["p95_gbps"]:
            raise PlaybookDataError(f"{data.name}: {row['nodes']} nodes: the median must lie within its "
                                    f"5th-95th percentile range, got {row}")
    return PlaybookAllreduce(nodes, tuple(data.column("bandwidth_gbps")), tuple(data.column("p5_gbps")),
                             tuple(data.column("p95_gbps")))
