"""``data/measurements/``, read and checked: the manifest of published collective sweeps and each sweep's rows.

``manifest.toml`` says, for every file of the folder, which system produced it, where it comes from, which
cluster flags describe it and how to read it: nccl-tests rows copied from a log (``nccl-rows``), or a CSV
column of busbw (``busbw``) or of times (``time_us``). Each ``[[dataset]]`` becomes a :class:`MeasuredSweep`
holding the rows as published. Turning busbw into times (which needs the collective's bus factor) and
setting the model beside a sweep is :mod:`interconnect.hardware.collectives.measurements`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from interconnect.catalog import CatalogError
from interconnect.datafiles.tables import CsvFile, DataFile, packaged_data_file

__all__ = [
    "KINDS",
    "LAUNCH_KINDS",
    "MEASUREMENTS_DIR",
    "ONE_OFF_FACTOR",
    "PROTOCOLS",
    "ROLES",
    "MeasuredSweep",
    "MeasurementDataError",
    "read_measured_sweeps",
    "read_nccl_rows",
]

MEASUREMENTS_DIR = packaged_data_file("measurements")
#: How a dataset's file is read: nccl-tests rows, or one CSV column of busbw (GB/s) or of times (µs).
KINDS = ("nccl-rows", "busbw", "time")
#: What the model does with a dataset: holds itself to it, or shapes and checks itself against it.
ROLES = ("calibration", "reference")
#: NCCL_PROTO values a manifest may record (lower case; NCCL itself accepts any case).
PROTOCOLS = ("auto", "ll", "ll128", "simple")
#: How the benchmark drove the GPUs (the time each adds is the model's:
#: :data:`interconnect.hardware.collectives.measurements.LAUNCH_OVERHEAD_US`).
LAUNCH_KINDS = ("process-per-gpu", "single-process", "pytorch")
#: A row whose out-of-place and in-place times differ by more than this factor is a one-off (a first
#: call, a hiccup): the smaller time is kept. Published examples: 68.5 against 24.7 µs at 8 B and
#: 1272 against 321 µs at 8 MiB in two nccl-tests#309 runs, whose neighbours agree within 10 %.
ONE_OFF_FACTOR = 1.5

_REQUIRED = {"id": str, "file": str, "kind": str, "role": str, "system": str, "source": str, "cluster": dict}
_OPTIONAL = {"assumption": str, "algorithm": str, "collective": str, "column": str, "environment": str,
             "launch": str, "nccl_version": str, "pending": bool, "protocol": str, "url": str}


class MeasurementDataError(CatalogError):
    """A measurement manifest or file is inconsistent; the message names the file, the dataset and the key."""


class _Manifest(DataFile):
    error = MeasurementDataError


class _SweepCsv(CsvFile):
    error = MeasurementDataError


@dataclass(frozen=True, eq=False)
class MeasuredSweep:
    """One ``[[dataset]]`` of the manifest and its rows as published.

    ``size_bytes`` in B; ``time_us`` (µs) for ``nccl-rows`` and ``time`` files, ``busbw_gbps`` (GB/s) for
    ``busbw`` files, the other None. The remaining fields are the manifest's, with its defaults.
    """

    id: str
    system: str
    source: str
    role: str
    kind: str
    cluster_inputs: dict[str, object]
    size_bytes: np.ndarray
    path: Path
    time_us: np.ndarray | None = None
    busbw_gbps: np.ndarray | None = None
    assumption: str = ""
    algorithm: str = "auto"
    protocol: str = "auto"
    nccl_version: str = ""
    environment: str = ""
    url: str = ""
    launch: str = "process-per-gpu"
    pending: bool = False
    collective: str = "all_reduce"


def read_measured_sweeps(folder: str | Path | None = None) -> list[MeasuredSweep]:
    """Read ``manifest.toml`` of a folder and every file it names.

    Parameters
    ----------
    folder : str or pathlib.Path, optional
        A folder with its own ``manifest.toml``; the packaged :data:`MEASUREMENTS_DIR` by default.

    Returns
    -------
    list of MeasuredSweep
        In manifest order.

    Raises
    ------
    MeasurementDataError
        For an unknown or missing key, a wrong type, an unknown kind, role, protocol or launch, a CSV
        dataset without ``column``, a duplicate id, a missing file, or a row that is not numbers; the
        message names the file, the dataset and the key or line.

    Examples
    --------
    >>> sweeps = read_measured_sweeps()
    >>> sweeps[0].id, sweeps[0].kind, int(sweeps[0].size_bytes[-1]), float(sweeps[0].time_us[-1])
    ('h100-ib-sharp-96rank', 'nccl-rows', 8589934592, 43980.0)
    """
    folder = MEASUREMENTS_DIR if folder is None else Path(folder)
    manifest = _Manifest(folder / "manifest.toml", source_ids=())
    manifest.only_tables(("dataset",))
    sweeps: list[MeasuredSweep] = []
    for raw in manifest.rows("dataset"):
        name = raw.get("id", "?") if isinstance(raw, Mapping) else "?"
        row = manifest.table(f"{manifest.name}: dataset {name!r}", raw, _REQUIRED, _OPTIONAL)
        if any(sweep.id == name for sweep in sweeps):
            row.fail("duplicate id")
        kind = row.choice("kind", KINDS)
        row.choice("role", ROLES)
        protocol = row.get("protocol", "auto").lower()
        if protocol not in PROTOCOLS:
            row.fail(f"'protocol' {protocol!r} is not one of {', '.join(PROTOCOLS)}")
        launch = row.get("launch", "process-per-gpu")
        if launch not in LAUNCH_KINDS:
            row.fail(f"'launch' {launch!r} is not one of {', '.join(LAUNCH_KINDS)}")
        path = folder / row.get("file")
        if not path.is_file():
            row.fail(f"'file' {row.get('file')!r} is not in {folder.name}/")
        if kind == "nccl-rows":
            size, values = read_nccl_rows(path)
        elif row.get("column") is None:
            row.fail(f"a '{kind}' dataset needs 'column', the CSV column to read")
        else:
            table = _SweepCsv(path, None)
            size, values = np.array(table.column(table.columns[0])), np.array(table.column(row.get("column")))
        sweeps.append(MeasuredSweep(
            id=name, system=row.get("system"), source=row.get("source"), role=row.get("role"), kind=kind,
            cluster_inputs=dict(row.get("cluster")), size_bytes=size, path=path,
            time_us=None if kind == "busbw" else values, busbw_gbps=values if kind == "busbw" else None,
            assumption=row.get("assumption", ""), algorithm=row.get("algorithm", "auto"), protocol=protocol,
            nccl_version=row.get("nccl_version", ""), environment=row.get("environment", ""),
            url=row.get("url", ""), launch=launch, pending=row.get("pending", False),
            collective=row.get("collective", "all_reduce"),
        ))
    return sweeps


def read_nccl_rows(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Read headerless nccl-tests rows: size count type redop root | time algbw busbw #wrong | time ...

    Lines starting with ``#`` are skipped. The time kept is the out-of-place one, unless the row's in-place
    time is more than :data:`ONE_OFF_FACTOR` smaller (then that one: the system did the same work that
    fast in the same run).

    Parameters
    ----------
    path : str or pathlib.Path
        The file.

    Returns
    -------
    size_bytes, time_us : numpy.ndarray
        Sizes in B and times in µs, one per row.

    Raises
    ------
    MeasurementDataError
        For a row with fewer than six fields or a size or time that is not a number, naming the line.
    """
    path = Path(path)
    sizes, times = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        try:
            size, time = float(fields[0]), float(fields[5])
        except (ValueError, IndexError):
            raise MeasurementDataError(f"{path.name}: line {number}: not an nccl-tests row (size ... time algbw "
                                       f"busbw ...): {line.strip()[:80]!r}") from None
        if len(fields) >= 10:
            try:
                inplace = float(fields[9])
            except ValueError:
                inplace = time
            if 0 < inplace < time / ONE_OFF_FACTOR:
                time = inplace
        sizes.append(size)
        times.append(time)
    return np.array(sizes), np.array(times)
