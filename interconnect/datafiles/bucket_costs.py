"""``ddp-bucket-costs.toml``, read and checked: what a DDP gradient bucket costs besides its bytes.

One set of sourced constants for the Overlap model (:mod:`interconnect.topics.overlap.model`, which re-exports
these names) and, for the compute slowdown while a collective runs, the Seating chart's step
(:data:`interconnect.topics.seating.model.grid.OVERLAP_SLOWDOWN`): the compute-lane time per bucket (s), that
slowdown and the spread of speeds between GPUs of one model (fractions). Each comes with its value as published,
its basis, source, address and a note on how it was obtained. This file cites its sources by title and
address itself (it predates ``sources.toml`` ids), so no source ids are checked here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from interconnect.catalog import BASES, CatalogError
from interconnect.datafiles.tables import DataFile, packaged_data_file

__all__ = ["BucketCost", "BucketCosts", "OverlapDataError", "load_bucket_costs"]

_DATA_FILE = "published/ddp-bucket-costs.toml"
#: The file's tables and the unit each value is read in.
_UNITS = {"launch": "s", "sm_contention": "dimensionless", "gpu_spread": "dimensionless"}
_FIELDS = ("value", "basis", "source", "url", "note")


class OverlapDataError(CatalogError):
    """``ddp-bucket-costs.toml`` is inconsistent; the message names the file, the table and the key."""


class _BucketCostsFile(DataFile):
    error = OverlapDataError


@dataclass(frozen=True)
class BucketCost:
    """One sourced constant: ``value`` in SI units (s, or a fraction), where it comes from and how."""

    value: float
    text: str
    basis: str
    source: str
    url: str
    note: str


@dataclass(frozen=True)
class BucketCosts:
    """Per-bucket launch time (s), SM contention and GPU speed spread (fractions), each with its source."""

    launch: BucketCost
    sm_contention: BucketCost
    gpu_spread: BucketCost

    @property
    def launch_s(self) -> float:
        """Compute-lane time per bucket, s."""
        return self.launch.value

    @property
    def contention(self) -> float:
        """Share of compute speed lost while a collective runs, in [0, 1)."""
        return self.sm_contention.value

    @property
    def spread(self) -> float:
        """Range of speeds between GPUs of one model, a fraction of the median."""
        return self.gpu_spread.value


@functools.cache
def load_bucket_costs(path: str | Path | None = None) -> BucketCosts:
    """Read and check the sourced per-bucket costs (``data/published/ddp-bucket-costs.toml``).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file (read once per process) by default.

    Returns
    -------
    BucketCosts
        ``launch_s`` (s per bucket) and ``contention`` (fraction), each with value text, basis,
        source, address and a note saying how it was obtained.

    Raises
    ------
    OverlapDataError
        When a table or key is missing or unknown, a value has the wrong dimension or lies outside
        its range, or a basis is not one of the catalog's
        :data:`~interconnect.catalog.BASES`; the message names the file, table and key.

    Notes
    -----
    ``launch``: the median, over the four one-GPU rows of PyTorch's DDP benchmark (no bytes move on
    one GPU), of the time 1 MB buckets add over 25 MB buckets per bucket they add.
    ``sm_contention``: the average compute slowdown under overlapped communication measured on
    A100, H100, MI250 and MI210 (arXiv 2507.03114, abstract: 18.9 %).
    ``gpu_spread``: the average performance variation between GPUs of one SKU (Sinha et al., SC22,
    arXiv 2208.11035: 8 %).

    Examples
    --------
    >>> costs = load_bucket_costs()
    >>> f"{costs.launch_s * 1e6:.0f} us", costs.contention, costs.spread
    ('12 us', 0.189, 0.08)
    """
    data = _BucketCostsFile(packaged_data_file(_DATA_FILE) if path is None else path, source_ids=())
    data.only_tables(_UNITS)
    out = {}
    for key, unit in _UNITS.items():
        if key not in data.data:
            data.fail(f"missing table [{key}]")
        row = data.table(f"{data.name}: [{key}]", data.data[key], dict.fromkeys(_FIELDS, str))
        row.choice("basis", BASES)
        value = row.quantity("value", "time" if unit == "s" else "dimensionless", unit)
        if not (value > 0 if unit == "s" else 0 <= value < 1):
            row.fail(f"'value' must be {'a positive time' if unit == 's' else 'a fraction in [0, 1)'}, "
                     f"got {row.get('value')!r}")
        if not row.get("url").startswith(("https://", "http://")):
            row.fail("'url' must be an http(s) address")
        note = " ".join(row.get("note").split())
        out[key] = BucketCost(value, row.get("value"), row.get("basis"), row.get("source"), row.get("url"), note)
    return BucketCosts(**out)
