"""The data layer's readers for each topic's data file, beside ``catalog.py`` (which reads the hardware catalog).

A model computes; it does not open files. Everything a topic's model needs from ``interconnect/data/``
(method defaults, published tables, network classes, reported results) is read and checked here, once,
into frozen records whose numbers carry their unit in their field name (``latency_s``,
``bandwidth_bytes_per_s``). A bad file is reported one way across the data layer: a
:class:`~interconnect.catalog.CatalogError` (or a subclass named after the topic) whose message starts
with the file name and names the table and the key, raised when the file is first read.

The pattern, as :mod:`interconnect.topics.crossdc.data` follows it (so do ``presets.py``, ``overlap.py``,
``kernels.py``, ``wires.py``, ``fabric.py``, ``reference_runs.py`` and ``measurements.py``; the files of
``presets.py``, ``overlap.py``, ``kernels.py`` and ``reference_runs.py`` cite their sources themselves, as
``[[source]]`` entries or addresses, so no ``sources.toml`` ids are checked there). The published CSV
tables (``ddp_benchmark.py``, ``playbook.py``, and the sweeps of ``measurements.py``) are read the same
way by :class:`~interconnect.datafiles.tables.CsvFile`: the columns named, each cell typed, a bad cell
reported with the file, the line and the column.

1. ``datafiles/<topic>.py`` holds the record dataclasses, the ids the file must use (the public schema the
   model shares), a ``<Topic>DataError(CatalogError)``, ``load_<topic>_data(path=None, source_ids=None)``
   and the cached ``get_<topic>_data()``.
2. The loader opens the file with :class:`~interconnect.datafiles.tables.DataFile` and checks every table with
   :meth:`DataFile.table <interconnect.datafiles.tables.DataFile.table>`: unknown and missing keys, types,
   quantities with a dimension, positive numbers, choices, and source ids that ``sources.toml`` knows.
3. ``models/<topic>.py`` imports the records and ``get_<topic>_data`` from here and keeps the names its callers
   import in its ``__all__``, so moving a loader changes no import elsewhere.
4. Loader tests stay beside the model's tests: copy the packaged file to a temporary folder, break one key,
   and match the message.

This package imports only ``catalog.py`` and ``units.py``; nothing here imports ``models/``, and nothing in
``models/`` reads a file (``tests/unit/test_layout.py`` checks both).
"""
