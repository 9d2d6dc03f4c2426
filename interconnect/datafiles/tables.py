"""Strict reading of one data file: every key or column known, required ones present, types checked.

:class:`DataFile` reads a TOML file, :class:`CsvFile` a CSV table with ``#`` comment lines. Every complaint
is a :class:`~interconnect.catalog.CatalogError` (or the subclass a loader names as ``DataFile.error`` or
``CsvFile.error``) whose message starts with the file name, the way ``catalog.py`` reports its own files.
"""

from __future__ import annotations

import csv
import io
import math
import tomllib
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from interconnect.catalog import CatalogError
from interconnect.units import QuantityInputError, parse_quantity

__all__ = ["CsvFile", "DataFile", "TableReader", "packaged_data_file"]

_NUMBER = (int, float)


def packaged_data_file(name: str) -> Path:
    """Return the path of a file shipped in ``interconnect/data/``.

    Parameters
    ----------
    name : str
        File name, e.g. ``"crossdc.toml"``.

    Returns
    -------
    pathlib.Path
        Where the installed package keeps it.

    Examples
    --------
    >>> packaged_data_file("crossdc.toml").name
    'crossdc.toml'
    """
    return Path(str(resources.files("interconnect").joinpath("data", name)))


class DataFile:
    r"""One TOML data file, parsed; :meth:`table` checks one of its tables.

    Subclass it and set ``error`` to report through a topic's own subclass of ``CatalogError``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "demo.toml"
    ...     _ = path.write_text('[box]\nwidth = "3 m"\n', encoding="utf-8")
    ...     demo = DataFile(path, source_ids=frozenset())
    >>> demo.table("demo.toml: [box]", demo.data["box"], {"width": str}).quantity("width", "length", "cm")
    300.0
    >>> demo.table("demo.toml: [box]", demo.data["box"], {"height": str})
    Traceback (most recent call last):
    ...
    interconnect.catalog.CatalogError: demo.toml: [box]: unknown key(s) width
    """

    error: type[CatalogError] = CatalogError

    def __init__(self, path: str | Path, source_ids: Iterable[str]) -> None:
        self.path = Path(path)
        self.name = self.path.name
        self.source_ids = frozenset(source_ids)
        try:
            self.data: dict[str, Any] = tomllib.loads(self.path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise self.error(f"{self.name}: not valid TOML: {exc}") from exc

    def fail(self, message: str) -> NoReturn:
        """Raise this file's error for a problem in the file as a whole."""
        raise self.error(f"{self.name}: {message}")

    def only_tables(self, known: Iterable[str]) -> None:
        """Refuse any top-level table not in ``known``."""
        unknown = sorted(set(self.data) - set(known))
        if unknown:
            self.fail(f"unknown table(s) {', '.join(unknown)}")

    def rows(self, key: str) -> list:
        """Return the array of tables ``[[key]]``; it must hold at least one."""
        rows = self.data.get(key)
        if not isinstance(rows, list) or not rows:
            self.fail(f"needs at least one [[{key}]]")
        return rows

    def table(self, where: str, raw: object, required: Mapping[str, Any],
              optional: Mapping[str, Any] | None = None) -> TableReader:
        """Check one table's keys and types, and a ``sources`` list against the known source ids."""
        return TableReader(where, raw, required, optional, self.source_ids, self.error)


class TableReader:
    """One checked table: every key known, every required key present, each value of its declared type.

    ``required`` and ``optional`` map keys to a type (``float`` accepts an integer too; a boolean is never
    a number). A ``sources`` key must list ids of ``source_ids``.
    """

    def __init__(self, where: str, raw: object, required: Mapping[str, Any], optional: Mapping[str, Any] | None,
                 source_ids: frozenset[str], error: type[CatalogError] = CatalogError) -> None:
        self.where = where
        self.error = error
        self.source_ids = source_ids
        if not isinstance(raw, Mapping):
            self.fail("must be a table")
        optional = optional or {}
        unknown = sorted(set(raw) - set(required) - set(optional))
        if unknown:
            self.fail(f"unknown key(s) {', '.join(unknown)}")
        missing = sorted(set(required) - set(raw))
        if missing:
            self.fail(f"missing key(s) {', '.join(missing)}")
        for key, value in raw.items():
            kind = required.get(key, optional.get(key))
            if kind is float:
                kind = _NUMBER
            if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
                self.fail(f"'{key}' has the wrong type ({type(value).__name__})")
        self.raw = raw
        if "sources" in raw:
            sources = raw["sources"]
            if not sources or any(not isinstance(s, str) or s not in source_ids for s in sources):
                self.fail(f"'sources' must list known source ids, got {sources!r}")

    def fail(self, message: str) -> NoReturn:
        """Raise the file's error for this table."""
        raise self.error(f"{self.where}: {message}")

    def get(self, key: str, default: Any = None) -> Any:
        """Return a raw value, or ``default`` when the key is absent."""
        return self.raw.get(key, default)

    def sources(self) -> tuple[str, ...]:
        """Return the table's source ids."""
        return tuple(self.raw["sources"])

    def quantity(self, key: str, dimension: str, unit: str) -> float:
        """Read a quantity string such as ``"50 ms"`` of ``dimension`` and return its magnitude in ``unit``."""
        try:
            quantity = parse_quantity(self.raw[key], dimension).quantity
        except QuantityInputError as exc:
            raise self.error(f"{self.where}: '{key}': {exc}") from exc
        return float(quantity.to(unit).magnitude)

    def positive(self, key: str) -> float:
        """Return a finite number greater than zero."""
        value = self.raw[key]
        if not value > 0 or not math.isfinite(value):
            self.fail(f"'{key}' must be a positive number")
        return float(value)

    def choice(self, key: str, choices: tuple[str, ...]) -> str:
        """Return a value that must be one of ``choices``."""
        if self.raw[key] not in choices:
            self.fail(f"'{key}' must be one of {', '.join(choices)}")
        return self.raw[key]


class CsvFile:
    r"""One CSV data file: ``#`` lines are comments, the header names the columns, each cell is converted.

    Subclass it and set ``error`` to report through a topic's own subclass of ``CatalogError``.
    ``columns`` maps each column the header must hold, in that order, to ``int``, ``float`` (finite) or
    ``str``; a column of ``optional`` may be left empty (its value is then None). With ``columns=None``
    the header may name any columns and every cell must be a finite number.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "demo.csv"
    ...     _ = path.write_text("# a comment\nnodes,gbps\n1,436\n2,\n", encoding="utf-8")
    ...     CsvFile(path, {"nodes": int, "gbps": float}, optional=("gbps",)).rows
    [{'nodes': 1, 'gbps': 436.0}, {'nodes': 2, 'gbps': None}]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "demo.csv"
    ...     _ = path.write_text("nodes,gbps\n1,fast\n", encoding="utf-8")
    ...     CsvFile(path, {"nodes": int, "gbps": float})
    Traceback (most recent call last):
    ...
    interconnect.catalog.CatalogError: demo.csv: line 2: 'gbps' must be a number, got 'fast'
    """

    error: type[CatalogError] = CatalogError

    def __init__(self, path: str | Path, columns: Mapping[str, type] | None,
                 optional: Iterable[str] = ()) -> None:
        self.path = Path(path)
        self.name = self.path.name
        numbered = [(number, line) for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1)
                    if line.strip() and not line.startswith("#")]
        if not numbered:
            raise self.error(f"{self.name}: no header line")
        header_number, header = numbered[0]
        self.columns: tuple[str, ...] = tuple(name.strip() for name in next(csv.reader(io.StringIO(header))))
        if columns is not None and self.columns != tuple(columns):
            raise self.error(f"{self.name}: line {header_number}: the columns must be {', '.join(columns)}; "
                             f"got {', '.join(self.columns)}")
        kinds = dict(columns) if columns is not None else dict.fromkeys(self.columns, float)
        empty_ok = frozenset(optional)
        self.rows: list[dict[str, Any]] = []
        for number, line in numbered[1:]:
            cells = next(csv.reader(io.StringIO(line)))
            if len(cells) != len(self.columns):
                raise self.error(f"{self.name}: line {number}: {len(cells)} cells for {len(self.columns)} columns")
            self.rows.append({name: self._cell(number, name, cell.strip(), kinds[name], name in empty_ok)
                              for name, cell in zip(self.columns, cells, strict=True)})

    def _cell(self, number: int, name: str, text: str, kind: type, empty_ok: bool) -> Any:
        if not text:
            if empty_ok:
                return None
            raise self.error(f"{self.name}: line {number}: '{name}' is empty")
        if kind is str:
            return text
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            word = "a whole number" if kind is int else "a number"
            raise self.error(f"{self.name}: line {number}: '{name}' must be {word}, got {text!r}")
        return value

    def column(self, name: str) -> list[Any]:
        """Return one column's values, in file order."""
        if name not in self.columns:
            raise self.error(f"{self.name}: no column {name!r} (the columns are {', '.join(self.columns)})")
        return [row[name] for row in self.rows]
