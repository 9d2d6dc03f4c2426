"""``published/training-runs.toml``, read and checked: the published training runs the seating model is judged by.

Each ``[[run]]`` is one configuration as its paper gives it (model shape, GPUs and network, layout,
schedule, workload) with the throughput per GPU it reports; each ``[[source]]`` is a paper or report
the runs cite. The record :class:`PublishedRun` holds a run's fields as plain numbers and words; the
keys a ``[[run]]`` may hold are its fields (those with a default are optional), so a new field needs
no change here. What the seating model makes of a run is :mod:`interconnect.models.reference_runs`,
whose ``ReferenceRun`` adds the cluster, layout and workload to this record.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interconnect.catalog import CatalogError
from interconnect.datafiles.tables import DataFile, packaged_data_file

__all__ = ["PublishedRun", "ReferenceRunDataError", "load_training_runs", "packaged_training_runs"]

_DATA_FILE = "published/training-runs.toml"
_SOURCE_KEYS = {"id": str, "title": str, "url": str}


class ReferenceRunDataError(CatalogError):
    """``training-runs.toml`` is inconsistent; the message names the file, the run and the key."""


class _RunsFile(DataFile):
    error = ReferenceRunDataError


@dataclass(frozen=True)
class PublishedRun:
    """One published run: the fields of a ``[[run]]`` entry (counts as plain numbers)."""

    id: str
    name: str
    source: str
    table: str
    params: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    gated_mlp: bool
    gpu: str
    gpus: int
    nic: str
    tp: int
    cp: int
    pp: int
    dp: int
    virtual_stages: int
    schedule: str
    uneven_stages: bool
    recompute: str
    sequence_parallel: bool
    zero: int
    precision: str
    attention: str
    seq_len: int
    global_batch: int
    micro_batch: int
    achieved_tflops: float
    counts: str
    ran: bool
    checked: str
    note: str
    nics_per_node: int | None = None
    mfu: float | None = None
    from_table: str = ""
    dropout: bool = False
    pipeline_engine: str = "megatron"
    context_parallel: str = "ring"
    grad_bytes: int = 0
    dp_bucket_per_layer: bool = False
    tied_embeddings: bool = False


def _run_keys() -> tuple[dict[str, type], dict[str, type]]:
    """Return the keys of a ``[[run]]``: the record's fields and the type each must have (``X | None``: X).

    A ``tuple[...]`` field is a TOML array (a list).
    """
    hints = typing.get_type_hints(PublishedRun)
    required: dict[str, type] = {}
    optional: dict[str, type] = {}
    for field in dataclasses.fields(PublishedRun):
        kind: Any = hints[field.name]
        if isinstance(kind, types.UnionType):
            kind = next(k for k in typing.get_args(kind) if k is not type(None))
        kind = typing.get_origin(kind) or kind
        kind = list if kind is tuple else kind
        has_default = field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
        (optional if has_default else required)[field.name] = kind
    return required, optional


def load_training_runs(path: str | Path | None = None) -> tuple[tuple[PublishedRun, ...], dict[str, dict]]:
    """Read and check ``training-runs.toml``.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file by default.

    Returns
    -------
    runs : tuple of PublishedRun
        In file order, values as the file gives them.
    sources : dict of str to dict
        The ``[[source]]`` entries (``id``, ``title``, ``url``) by id.

    Raises
    ------
    ReferenceRunDataError
        For an unknown or missing table or key, a wrong type, a duplicate id, a run citing a source the
        file does not list, or degrees TP x CP x PP x DP that do not make the run's GPU count; the message
        names the file, the run and the key.

    Examples
    --------
    >>> runs, sources = load_training_runs()
    >>> runs[0].name, runs[0].achieved_tflops, sources[runs[0].source]["url"]
    ('Llama 3 405B, 8,192 H100', 430, 'https://arxiv.org/abs/2407.21783')
    """
    data = _RunsFile(packaged_data_file(_DATA_FILE) if path is None else path, source_ids=())
    data.only_tables(("source", "run"))
    sources: dict[str, dict] = {}
    for raw in data.rows("source"):
        row = data.table(f"{data.name}: source {_id(raw)!r}", raw, _SOURCE_KEYS)
        if row.get("id") in sources:
            row.fail("duplicate id")
        if not row.get("url").startswith(("https://", "http://")):
            row.fail("'url' must be an http(s) address")
        sources[row.get("id")] = dict(raw)
    required, optional = _run_keys()
    runs: list[PublishedRun] = []
    for raw in data.rows("run"):
        row = data.table(f"{data.name}: run {_id(raw)!r}", raw, required, optional)
        if any(run.id == row.get("id") for run in runs):
            row.fail("duplicate id")
        if row.get("source") not in sources:
            row.fail(f"cites unknown source {row.get('source')!r}")
        if row.get("tp") * row.get("cp") * row.get("pp") * row.get("dp") != row.get("gpus"):
            row.fail("TP x CP x PP x DP is not its GPU count")
        runs.append(PublishedRun(**raw))
    return tuple(runs), sources


@functools.lru_cache(maxsize=1)
def packaged_training_runs() -> tuple[tuple[PublishedRun, ...], dict[str, dict]]:
    """Return the packaged ``training-runs.toml`` (runs and sources), read once per process."""
    return load_training_runs()


def _id(raw: object) -> str:
    return raw.get("id", "?") if isinstance(raw, dict) else "?"
