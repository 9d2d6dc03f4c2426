r"""Declared records: each table of a data file declared once, as fields, and read by one loader.

A :class:`Record` lists a table's :class:`Field` s: the key, its TOML type, whether it is required
and its default, and what else a value must be (a quantity of a dimension read into a unit, one of
some choices, at least some number, a list of numbers, the id of something the file or the catalog
declares). :meth:`Record.read` checks one table against that declaration and returns its values by
field name, quantities already in their unit; :meth:`Record.read_all` reads every ``[[table]]`` of
a file, by id, and refuses a duplicate id. What only a whole file can say (an order, a sum) stays
in the file's loader. Every complaint names the file, the table, the entry and the key, through the
file's own error (:class:`~interconnect.datafiles.tables.DataFile`).

>>> import tempfile
>>> from pathlib import Path
>>> from interconnect.datafiles.tables import DataFile
>>> BOX = Record("box", (Field("id"), Field("width", quantity=("length", "m"), to="width_m"),
...                      Field("sides", int, minimum=3), Field("colour", required=False, default="grey")))
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "demo.toml"
...     _ = path.write_text('[[box]]\nid = "a"\nwidth = "30 cm"\nsides = 4\n', encoding="utf-8")
...     BOX.read_all(DataFile(path, source_ids=()))
{'a': {'id': 'a', 'width_m': 0.3, 'sides': 4, 'colour': 'grey'}}
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "demo.toml"
...     _ = path.write_text('[[box]]\nid = "a"\nwidth = "30 cm"\nsides = 2\n', encoding="utf-8")
...     BOX.read_all(DataFile(path, source_ids=()))
Traceback (most recent call last):
...
interconnect.catalog.CatalogError: demo.toml: box 'a': 'sides' must be at least 3
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from interconnect.datafiles.tables import DataFile, TableReader

__all__ = ["CITED", "SOURCE", "Field", "Record"]

_NO_IDS: Mapping[str, Collection[str]] = {}


@dataclass(frozen=True)
class Field:
    """One key of a declared table.

    Attributes
    ----------
    key : str
        The key in the file.
    kind : type or tuple of type
        Its TOML type: ``str``, ``int``, ``float`` (a whole number is accepted), ``bool``, ``list``, ``dict``.
        A boolean is never a number.
    required : bool
        Whether the key must be there; an absent optional key takes ``default``.
    to : str
        The name it is returned under (``port_gbit_s`` for ``port_rate``); the key itself by default.
    quantity : (str, str), optional
        A dimension and a unit: the text (``"400 Gbit/s"``) is read as a quantity of that dimension and
        returned as a number in that unit.
    choices : tuple of str
        The values it may take (compared in lower case, and returned so, when ``lower``).
    minimum : float, optional
        The smallest number it may be (a finite number; for a list, each item).
    positive : bool
        The number must be finite and above zero; it is returned as a float.
    items : type, optional
        The type of each item of a list: ``int`` (whole numbers) or ``float`` (any finite number).
    refs : str
        The kind of id the value must name (one id, or a non-empty list of them): ``"source"``, or a
        name :meth:`Record.read` is given the known ids of.
    """

    key: str
    kind: type | tuple[type, ...] = str
    required: bool = True
    default: Any = None
    to: str = ""
    quantity: tuple[str, str] | None = None
    choices: tuple[str, ...] = ()
    lower: bool = False
    minimum: float | None = None
    positive: bool = False
    items: type | None = None
    refs: str = ""

    @property
    def name(self) -> str:
        """The name the value is returned under."""
        return self.to or self.key

    def value(self, row: TableReader, known: Mapping[str, Collection[str]]) -> Any:
        """Check this field's value in one table and return it, converted (its default when absent)."""
        if self.key not in row.raw:
            return self.default
        value = row.get(self.key)
        if self.quantity is not None:
            return row.quantity(self.key, *self.quantity)
        if self.choices:
            value = value.lower() if self.lower else value
            if value not in self.choices:
                named = ", ".join(choice or "''" for choice in self.choices)
                row.fail(f"'{self.key}' must be one of {named}, got {value!r}")
        if self.items is not None:
            allowed = (int, float) if self.items is float else self.items
            if any(not isinstance(v, allowed) or isinstance(v, bool) or not math.isfinite(v) for v in value):
                row.fail(f"'{self.key}' must list {'numbers' if self.items is float else 'whole numbers'}, "
                         f"got {value!r}")
            value = tuple(value)
        if self.minimum is not None:
            numbers = value if isinstance(value, tuple) else (value,)
            if any(not math.isfinite(v) or v < self.minimum for v in numbers):
                row.fail(f"'{self.key}' must be at least {self.minimum:g}")
        if self.positive:
            if not (math.isfinite(value) and value > 0):
                row.fail(f"'{self.key}' must be a positive number, got {value!r}")
            value = float(value)
        if self.refs:
            value = self._ids(row, value, known)
        return value

    def _ids(self, row: TableReader, value: Any, known: Mapping[str, Collection[str]]) -> Any:
        ids = row.source_ids if self.refs == "source" else known.get(self.refs, ())
        if isinstance(value, list):
            if not value or any(not isinstance(v, str) or v not in ids for v in value):
                row.fail(f"'{self.key}' must list known {self.refs} ids, got {value!r}")
            return tuple(value)
        if value not in ids:
            row.fail(f"unknown {self.refs} {value!r}")
        return value


@dataclass(frozen=True)
class Record:
    """A table of a data file, declared once: its name (``[[table]]``) and its fields."""

    table: str
    fields: tuple[Field, ...]

    def where(self, data: DataFile, raw: object) -> str:
        """How a message names one entry: ``fabric.toml: switch 'quantum-2-qm9700'``."""
        name = raw.get("id", "?") if isinstance(raw, Mapping) else "?"
        return f"{data.name}: {self.table} {name!r}"

    def reader(self, data: DataFile, raw: object, where: str = "") -> TableReader:
        """Check one table's keys and types (and its ``sources``), without the fields' own checks.

        ``where`` names the table in messages, for one without an id (``crossdc.toml: [compute]``, ``quoted #2``);
        by default :meth:`where`.
        """
        required = {f.key: f.kind for f in self.fields if f.required}
        optional = {f.key: f.kind for f in self.fields if not f.required}
        return data.table(where or self.where(data, raw), raw, required, optional)

    def read(self, data: DataFile, raw: object, known: Mapping[str, Collection[str]] = _NO_IDS, *,
             where: str = "") -> dict[str, Any]:
        """Check one table against the declaration and return its values by field name.

        ``known`` gives the ids a field's ``refs`` may name, by kind (``{"switch": switches}``); ``where`` is as
        for :meth:`reader`.
        """
        return self.read_row(data, raw, known, where=where)[1]

    def read_row(self, data: DataFile, raw: object, known: Mapping[str, Collection[str]] = _NO_IDS, *,
                 where: str = "") -> tuple[TableReader, dict[str, Any]]:
        """:meth:`read`, and the checked table, whose ``fail`` names the entry for the loader's own checks."""
        row = self.reader(data, raw, where)
        return row, {f.name: f.value(row, known) for f in self.fields}

    def read_all(self, data: DataFile, known: Mapping[str, Collection[str]] = _NO_IDS) -> dict[str, dict[str, Any]]:
        """Read every ``[[table]]`` of the file (none is no entry), by id; a duplicate id is refused."""
        rows = data.data.get(self.table, [])
        if not isinstance(rows, list):
            data.fail(f"'{self.table}' must be an array of tables ([[{self.table}]])")
        out: dict[str, dict[str, Any]] = {}
        for raw in rows:
            values = self.read(data, raw, known)
            if values["id"] in out:
                data.fail(f"{self.table} {values['id']!r}: duplicate id")
            out[values["id"]] = values
        return out


#: A ``[[source]]`` of a data file that lists its own sources (``models.toml``): what to open, and of what kind.
SOURCE = Record("source", (Field("id"), Field("title"), Field("url"), Field("kind"),
                           Field("note", required=False, default="")))

#: A ``[[source]]`` a data file of published figures lists for its own entries to cite (``gpu-kernels.toml``,
#: ``training-runs.toml``): a paper or a page, by id.
CITED = Record("source", (Field("id"), Field("title"), Field("url")))
