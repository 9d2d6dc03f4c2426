"""How right a collective time is: the model's error on the published nccl-tests tables like this case.

The band arithmetic (neighbour ratios to ``low``/``high``/``median``, widening, leave-one-source-out) is
:mod:`interconnect.hardware.accuracy`; this module says how a published table is judged and which tables
are like a case.

**Evaluation.** Every dataset of ``interconnect/data/measurements/manifest.toml`` (every collective, every
role, pending ones too: they are published measurements, and leaving out the ones the model misses would
flatter it) goes through :func:`~interconnect.hardware.collectives.compare_collective` with its own cluster,
forced algorithm and protocol and launch mode, once per process. A table gives one ratio per message-size
band, the geometric mean of model / measured time over its rows in that band (a table of 30 rows counts as
one table, not 30 runs), and one over all its rows (the whole-sweep band of ``compare``). busbw's ratio is
the inverse of the time's.

**Size bands** (:func:`size_band`): *small* up to 64 KiB (latency-bound), *large* from 256 MiB
(bandwidth-bound), *middle* between: the bands of the accuracy bar
(:data:`~interconnect.hardware.collectives.measurements.SMALL_BYTES`, ``LARGE_BYTES``).

**Similarity rules**, strongest first:

1. *collective* (hard): all-reduce, all-gather, reduce-scatter, all-to-all, send/recv;
2. *size band* (hard);
3. *nodes* (soft): one node (the scale-up domain alone), 2-8 nodes, or more than 8;
4. *GPU family* (soft): the catalog GPU's maker and architecture;
5. *launch mode* (soft, the weakest): one process per GPU, one process per node (``-g N``), or PyTorch.

**How many tables, and which range** (:func:`band_range`). The issue this answers asks that *every* published
table like a case fall inside its band, where the training bands ask for 80 %. A band therefore aims at 95 %
(:data:`BAND_COVERAGE`), the conventional level at which one table in twenty still falls outside. Order
statistics cannot reach that from the tables there are: the smallest to the largest of n holds the next one with
probability (n - 1) / (n + 1), 83 % for eleven publishers, and 95 % would need 39. Until the eighth sitting
(December 2026) the bands were exactly that 80 % range (the k-th smallest to the k-th largest,
k = max(1, floor((n + 1) / 10))), and every table reading beyond all the others' fell outside. Now:

* soft rules are dropped from the weakest until at least :data:`BAND_TABLES` (9) tables from at least
  :data:`BAND_PUBLISHERS` (3) publishers are left (nine is the count of the 80 % rule, the fewest whose
  smallest-to-largest range reaches 8 / 10; fewer would estimate the spread from too few; three publishers, as
  below); if even the hard rules alone leave fewer, all of those are used;
* the range is the 95 % prediction interval of one more table's log ratio, the neighbours' log ratios taken as a
  normal sample: mean +- t s sqrt(1 + 1/n), Student's t at n - 1 degrees of freedom, and never short of the
  smallest or largest table (:func:`~interconnect.hardware.accuracy.prediction_range`), where n counts the
  publishers (:func:`source_key`) among the tables, as the training bands count sources: the tables of one
  publisher share its cluster, build and way of running, so they are not independent draws. One spread serves
  both sides, so a band drawn with one slow system in it (a 0.65 reading) also reaches well above 1 on the other
  side, a busbw above what its links may carry; a two-piece normal, one spread each side, was tried and held
  fewer held-out sweeps (28 of 33 against 33), so the symmetric form stays;
* fewer than three tables, or tables from fewer than three publishers, with the hard rules alone is an
  extrapolation (two publishers leave one degree of freedom, where t at 97.5 % is 12.7; send/recv, for which no
  table is packaged, always is).

The shared rule of :mod:`interconnect.hardware.accuracy` (three neighbours, 10th-90th percentile from five)
gave bands that held 50-65 % of the time for neighbourhoods of three to eight tables, which is what the
arithmetic above predicts for them (3 tables: 50 %; 5 tables at the 10th-90th percentile: about 55 %).

**Leave one source out**: a case that is a published table (``leave_out``) is judged without any table of
the same source (:func:`source_key`: the repository, or the issue thread, the rows were copied from).

**The path the model describes**: a table whose run moved its data with the copy engines (``data_path =
"copy-engine"``: NCCL_CTA_POLICY_ZERO with registered buffers, nccl-tests ``-x 2 -R 2``) is judged like the others
but is no case's neighbour: the model and every page input describe NCCL's SM kernels.
"""

from __future__ import annotations

import functools
import re
import statistics
from dataclasses import dataclass

import numpy as np

from interconnect.hardware.accuracy import (
    MIN_NEIGHBOURS,
    Criterion,
    ErrorBand,
    Evaluated,
    Expected,
    extrapolation,
    gpu_family,
    prediction_range,
)
from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives.calibration import compare_collective
from interconnect.hardware.collectives.measurements import LARGE_BYTES, SMALL_BYTES, Measurement, load_measurements
from interconnect.hardware.collectives.others import COLLECTIVE_LABELS

__all__ = ["BAND_COVERAGE", "BAND_PUBLISHERS", "BAND_TABLES", "QUANTITY", "SIZE_BANDS", "TableEvaluation",
           "band_range", "band_rows", "collective_band", "collective_expected", "node_band", "size_band", "source_key",
           "table_band", "table_evaluations"]

QUANTITY = "time (model / measured); busbw the inverse"
#: The share of published tables like a case that its band should contain (the issue asks for every one).
BAND_COVERAGE = 0.95
#: Soft rules are dropped until this many tables are left: the fewest n whose smallest-to-largest range
#: contains the next table with probability (n - 1) / (n + 1) >= 80 % (the rule before the eighth sitting).
BAND_TABLES = 9
#: The fewest publishers a band is drawn from: two leave the prediction interval one degree of freedom.
BAND_PUBLISHERS = 3
#: Message-size bands, in words.
SIZE_BANDS = {"small": "up to 64 KiB (latency-bound)", "middle": "64 KiB to 256 MiB",
              "large": "256 MiB and up (bandwidth-bound)", "all": "every size of the sweep"}
_LAUNCH_WORDS = {"process-per-gpu": "one process per GPU", "single-process": "one process per node (-g N)",
                 "pytorch": "timed from PyTorch"}
_REPO = re.compile(r"^(?:https://)?(?:www\.)?github\.com/([\w.-]+)/([\w.-]+)(?:/(issues|pull)/(\d+))?")
_REPO_TEXT = re.compile(r"^([\w.-]+)/([\w.-]+)(?:\s+(issue|pull)\s+(\d+))?")


def size_band(size_bytes: float) -> str:
    """Return the size band of a message: ``small`` (<= 64 KiB), ``large`` (>= 256 MiB) or ``middle``.

    >>> size_band(8), size_band(2**20), size_band(2**28)
    ('small', 'middle', 'large')
    """
    if size_bytes <= SMALL_BYTES:
        return "small"
    return "large" if size_bytes >= LARGE_BYTES else "middle"


def node_band(nodes: int) -> str:
    """Return the node band: ``1 node``, ``2-8 nodes`` or ``more than 8 nodes``."""
    if nodes <= 1:
        return "1 node"
    return "2-8 nodes" if nodes <= 8 else "more than 8 nodes"


def source_key(measurement: Measurement) -> str:
    """Return who published a table: the GitHub repository (or its issue thread) of its URL or its source line.

    Tables of one key come from one place and are left out together.
    """
    match = _REPO.match(measurement.url) or _REPO_TEXT.match(measurement.source.split(",")[0].strip())
    if match is None:
        return measurement.source.split(",")[0].strip()
    owner, repo, thread, number = match.groups()
    key = f"github.com/{owner}/{repo}"
    return f"{key}/issues/{number}" if thread else key


@dataclass(frozen=True)
class TableEvaluation:
    """One published table judged by the live model: geometric-mean model / measured time per size band."""

    measurement: Measurement
    source: str
    family: str
    nodes: int
    ratios: dict[str, float]

    @property
    def id(self) -> str:
        return self.measurement.id


def _geomean(values: np.ndarray) -> float:
    return float(np.exp(np.mean(np.log(values))))


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[TableEvaluation, ...]:
    tables = []
    for m in load_measurements(collective=None):
        cluster = m.cluster()
        try:
            comparison = compare_collective(cluster, m.collective, m.size_bytes, m.time_us, m.algorithm, m.protocol,
                                            m.launch)
        except ValueError:
            continue
        ratio = np.asarray(comparison.time_ratio, dtype=float)
        sizes = np.asarray(comparison.size_bytes, dtype=float)
        good = np.isfinite(ratio) & (ratio > 0)
        if not good.any():
            continue
        bands = np.array([size_band(s) for s in sizes])
        ratios = {"all": _geomean(ratio[good])}
        for band in ("small", "middle", "large"):
            mask = good & (bands == band)
            if mask.any():
                ratios[band] = _geomean(ratio[mask])
        tables.append(TableEvaluation(m, source_key(m), gpu_family(cluster.gpu), cluster.nodes, ratios))
    return tuple(tables)


def table_evaluations() -> list[TableEvaluation]:
    """Return every packaged table judged by the live model (computed once per process)."""
    return list(_tables())


def collective_band(cluster: Cluster, collective: str = "all_reduce", size_bytes: float | None = None, *,
                    launch: str = "process-per-gpu", leave_out: str | None = None) -> ErrorBand:
    """Return the band of one collective estimate: the model's error on the published tables like it.

    Parameters
    ----------
    cluster : Cluster
        The case's cluster (its node count and GPU family are what the rules read).
    collective : str
        The model's key of the collective (``all_reduce``, ``all_gather``, ...).
    size_bytes : float, optional
        The message size; None for a whole sweep (each table's ratio over all its rows).
    launch : str
        How the case is driven; the model's own figures are for one process per GPU.
    leave_out : str, optional
        A source (:func:`source_key`) whose tables are all left out.

    Returns
    -------
    ErrorBand
        Ratios of time, model / measured (:data:`QUANTITY`), counted in tables.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> band = collective_band(cluster, "all_reduce", 2**28)
    >>> band.n >= 3, band.basis.startswith("held: all-reduce, 256 MiB and up")
    (True, True)
    >>> collective_band(cluster, "sendrecv", 2**28).extrapolation
    True
    """
    band = "all" if size_bytes is None else size_band(float(size_bytes))
    nodes, family = node_band(cluster.nodes), gpu_family(cluster.gpu)
    cases = [Evaluated(t.id, t.source, t.ratios[band], {"collective": t.measurement.collective,
                                                        "nodes": node_band(t.nodes), "family": t.family,
                                                        "launch": t.measurement.launch})
             for t in _tables() if band in t.ratios and t.measurement.data_path == "sm"]
    criteria = [
        Criterion(COLLECTIVE_LABELS.get(collective, collective), lambda c: c.attrs["collective"] == collective,
                  hard=True),
        Criterion(SIZE_BANDS[band], lambda c: True, hard=True),
        Criterion(nodes, lambda c: c.attrs["nodes"] == nodes),
        Criterion(family, lambda c: c.attrs["family"] == family),
        Criterion(_LAUNCH_WORDS.get(launch, launch), lambda c: c.attrs["launch"] == launch),
    ]
    return _select(cases, criteria, leave_out)


def collective_expected(band: ErrorBand, time_us: float, busbw_gbps: float) -> dict[str, Expected] | None:
    """What a measurement of this collective would likely read: ``time`` (µs) and ``busbw`` (GB/s), the model's
    estimates read through ``band`` (of time; busbw its inverse); None for an extrapolation.

    >>> from interconnect.hardware.accuracy import band_from_ratios
    >>> got = collective_expected(band_from_ratios([0.8, 1.0, 1.25], basis="x"), 100.0, 40.0)
    >>> (got["time"].low, got["time"].high), (got["busbw"].low, got["busbw"].high)  # 100 / 1.25 ..; 40 x 0.8 ..
    ((80.0, 125.0), (32.0, 50.0))
    """
    if band.extrapolation:
        return None
    return {"time": band.expected(time_us, "us", quantity="time"),  # type: ignore[dict-item]
            "busbw": band.expected(busbw_gbps, "GB/s", reciprocal=True, quantity="busbw")}  # type: ignore[dict-item]


def band_range(ratios: list[float] | tuple[float, ...], sources: list[str] | tuple[str, ...]) -> tuple[float, float]:
    """Return ``(low, high)``: the 95 % prediction interval of one more table's ratio, n counting publishers.

    :func:`~interconnect.hardware.accuracy.prediction_range` at :data:`BAND_COVERAGE`, with ``sources`` (one
    per ratio) giving n; the mean and spread are those of every table.

    >>> low, high = band_range([0.9, 1.0, 1.1, 1.0], ["a", "b", "c", "d"])
    >>> round(low, 3), round(high, 3)  # exp(-0.0025 -+ 3.182 x 0.0820 x sqrt(5 / 4))
    (0.745, 1.335)
    >>> low, high = band_range([0.9, 1.0, 1.1, 1.0], ["a", "a", "b", "c"])  # three publishers: t at 2 df, 4.303
    >>> round(low, 3), round(high, 3)
    (0.664, 1.499)
    """
    return prediction_range(ratios, BAND_COVERAGE, list(sources))


def _select(cases: list[Evaluated], criteria: list[Criterion], leave_out: str | None) -> ErrorBand:
    """Neighbours by the rules above (soft ones dropped weakest first until :data:`BAND_TABLES`) and their band."""
    pool = [c for c in cases if leave_out is None or c.source != leave_out]
    hard = [k for k in criteria if k.hard]
    soft = [k for k in criteria if not k.hard]
    pool = [c for c in pool if all(k.holds(c) for k in hard)]
    left = f"; left out: source {leave_out}" if leave_out else ""
    publishers = len({c.source for c in pool})
    if len(pool) < MIN_NEIGHBOURS or publishers < BAND_PUBLISHERS:
        need = ", ".join(k.label for k in hard)
        found = f"{len(pool)} published {'tables' if len(pool) != 1 else 'table'}"
        found += f" from {publishers} {'publishers' if publishers != 1 else 'publisher'}"
        return extrapolation(f"{found} with {need}{left}; a band needs {MIN_NEIGHBOURS} tables from "
                             f"{BAND_PUBLISHERS} publishers", QUANTITY, "tables")
    keep, chosen = 0, pool
    for count in range(len(soft), -1, -1):
        subset = [c for c in pool if all(k.holds(c) for k in soft[:count])]
        if len(subset) >= BAND_TABLES and len({c.source for c in subset}) >= BAND_PUBLISHERS:
            keep, chosen = count, subset
            break
    held, dropped = [*hard, *soft[:keep]], soft[keep:]
    basis = (f"held: {', '.join(k.label for k in held)}; "
             f"dropped: {', '.join(k.label for k in dropped) or 'none'}{left}")
    ratios = [c.ratio for c in chosen]
    low, high = band_range(ratios, [c.source for c in chosen])
    return ErrorBand(low, high, float(statistics.median(ratios)), len(ratios), basis, QUANTITY,
                     tuple(c.id for c in chosen), "tables", BAND_COVERAGE, (min(ratios), max(ratios)))


def table_band(table: TableEvaluation, band: str) -> ErrorBand:
    """Return the band of a published table at one size band, with its whole source left out."""
    m = table.measurement
    size = {"small": 8.0, "middle": float(2**20), "large": float(2**30), "all": None}[band]
    return collective_band(m.cluster(), m.collective, size, launch=m.launch, leave_out=table.source)


def band_rows(band: ErrorBand, size_bytes: float | None = None) -> list[dict[str, str]]:
    """Return the tables a band comes from, one row each (table, system, source, ranks, model / measured time)."""
    key = "all" if size_bytes is None else size_band(float(size_bytes))
    tables = {t.id: t for t in _tables()}
    rows = []
    for table_id in band.runs:
        t = tables[table_id]
        rows.append({"table": t.id, "system": t.measurement.system, "source": t.source,
                     "model / measured time": f"{t.ratios[key]:.2f}"})
    return rows
