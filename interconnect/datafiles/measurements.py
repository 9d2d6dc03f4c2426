"""``data/measurements/``, read and checked: the manifest of published collective sweeps and each sweep's rows.

``manifest.toml`` says, for every file of the folder, which system produced it, where it comes from, which
cluster flags describe it and how to read it: nccl-tests rows copied from a log (``nccl-rows``), or a CSV
column of busbw (``busbw``) or of times (``time_us``). Each ``[[dataset]]`` becomes a :class:`MeasuredSweep`
holding the rows as published. Turning busbw into times (which needs the collective's bus factor) and
setting the model beside a sweep is :mod:`interconnect.hardware.collectives.measurements`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from interconnect.catalog import CatalogError
from interconnect.datafiles.records import Field, Record
from interconnect.datafiles.tables import CsvFile, DataFile, packaged_data_file

__all__ = [
    "KINDS",
    "DATA_PATHS",
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
#: How NCCL moved the data: its SM kernels (the default, what the model describes), or the copy engines (NCCL 2.28+
#: with NCCL_CTA_POLICY_ZERO and registered buffers, nccl-tests ``-x 2 -R 2``).
DATA_PATHS = ("sm", "copy-engine")
#: A row whose out-of-place and in-place times differ by more than this factor is a one-off (a first
#: call, a hiccup): the smaller time is kept. Published examples: 68.5 against 24.7 µs at 8 B and
#: 1272 against 321 µs at 8 MiB in two nccl-tests#309 runs, whose neighbours agree within 10 %.
ONE_OFF_FACTOR = 1.5

#: A ``[[dataset]]`` of ``manifest.toml``: what was measured, where it was published, how to read its file.
DATASET = Record("dataset", (
    Field("id"), Field("file"), Field("kind", choices=KINDS), Field("role", choices=ROLES), Field("system"),
    Field("source"), Field("cluster", dict, to="cluster_inputs"),
    Field("assumption", required=False, default=""), Field("algorithm", required=False, default="auto"),
    Field("collective", required=False, default="all_reduce"), Field("column", required=False),
    Field("data_path", required=False, default="sm", choices=DATA_PATHS),
    Field("environment", required=False, default=""),
    Field("launch", required=False, default="process-per-gpu", choices=LAUNCH_KINDS),
    Field("nccl_version", required=False, default=""), Field("pending", bool, required=False, default=False),
    Field("protocol", required=False, default="auto", choices=PROTOCOLS, lower=True),
    Field("url", required=False, default=""),
))

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
    data_path: str = "sm"


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
    manifest.rows("dataset")  # at least one
    sweeps: list[MeasuredSweep] = []
    for values in DATASET.read_all(manifest).values():
        path = folder / values.pop("file")
        if not path.is_file():
            manifest.fail(f"dataset {values['id']!r}: 'file' {path.name!r} is not in {folder.name}/")
        column = values.pop("column")
        if values["kind"] == "nccl-rows":
            size, readings = read_nccl_rows(path)
        elif column is None:
            manifest.fail(f"dataset {values['id']!r}: a '{values['kind']}' dataset needs 'column', the CSV column "
                          "to read")
        else:
            table = _SweepCsv(path, None)
            size, readings = np.array(table.column(table.columns[0])), np.array(table.column(column))
        busbw = values["kind"] == "busbw"
        sweeps.append(MeasuredSweep(**values, size_bytes=size, path=path, time_us=None if busbw else readings,
                                    busbw_gbps=readings if busbw else None))
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
