"""``published/pytorch-ddp-benchmark.csv``, read and checked: PyTorch's own DDP benchmark, row by row.

The file's header cites the measurement (pytorch/pytorch ``benchmarks/distributed/ddp/README.md``);
setting each row beside the overlap model is :mod:`interconnect.topics.overlap.ddp_benchmark`, which re-exports
:func:`load_ddp_benchmark`.
"""

from __future__ import annotations

from pathlib import Path

from interconnect.catalog import CatalogError
from interconnect.datafiles.tables import CsvFile, packaged_data_file

__all__ = ["DdpBenchmarkDataError", "load_ddp_benchmark"]

_DATA_FILE = "published/pytorch-ddp-benchmark.csv"
_COLUMNS = {"model": str, "params": int, "gpus": int, "machines": int, "p50_s": float, "bucket1_p75_s": float,
            "bucket1_diff_pct": float}
#: The 1 MB bucket comparison has no row for the runs without DDP.
_OPTIONAL = ("bucket1_p75_s", "bucket1_diff_pct")


class DdpBenchmarkDataError(CatalogError):
    """``pytorch-ddp-benchmark.csv`` is inconsistent; the message names the file, the line and the column."""


class _DdpBenchmarkFile(CsvFile):
    error = DdpBenchmarkDataError


def load_ddp_benchmark(path: str | Path | None = None) -> list[dict[str, object]]:
    """Read the published rows of PyTorch's DDP benchmark.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file by default.

    Returns
    -------
    list of dict
        One dict per row: ``model``, ``params`` (count), ``gpus``, ``machines`` (0: one GPU without
        DDP), ``p50_s`` (median iteration time, s), ``bucket1_p75_s`` (s) and ``bucket1_diff_pct``
        (throughput change with 1 MB buckets, %); empty cells are None.

    Raises
    ------
    DdpBenchmarkDataError
        For other columns than these, a cell that is not a number (or a whole number for the counts), or
        an empty cell outside the two bucket columns; the message names the file, the line and the column.

    Notes
    -----
    Source: pytorch/pytorch ``benchmarks/distributed/ddp/README.md`` (commit bf69c149),
    :data:`interconnect.topics.overlap.ddp_benchmark.DDP_BENCHMARK_SOURCE`.

    Examples
    --------
    >>> row = next(r for r in load_ddp_benchmark() if r["model"] == "resnet50" and r["gpus"] == 16)
    >>> f"{row['p50_s'] * 1e3:.0f} ms on {row['gpus']} GPUs in {row['machines']} machines"
    '104 ms on 16 GPUs in 2 machines'
    """
    return _DdpBenchmarkFile(packaged_data_file(_DATA_FILE) if path is None else path, _COLUMNS, _OPTIONAL).rows
