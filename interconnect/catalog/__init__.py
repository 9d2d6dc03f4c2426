"""The hardware catalog: every figure is a quantity with a direction, a basis and a source.

The data lives in ``interconnect/data/*.toml`` (see ``data/SCHEMA.md``). This package turns it into
frozen dataclasses and refuses, at load time, anything that could later be misread: an unknown or
missing key, a figure whose unit has the wrong dimension, a bandwidth without a direction, a
figure without a source, or a reference to an id that does not exist. Errors name the file and
the entry so a broken edit is found in seconds.

Directions (the most common error in this field is mixing them):

* ``per_direction``   - what one direction of a full-duplex link carries (a 400 Gbit/s NIC port).
* ``both_directions`` - both directions of a full-duplex link added up (NVIDIA's "900 GB/s").
* ``shared``          - one pipe shared by both directions (HBM, a half-duplex parallel cable).
* ``n/a``             - not a rate (a capacity, a length, a compute rate).

Bases: ``spec`` (datasheet or standard), ``achieved`` (what software such as NCCL typically
reaches), ``measured`` (one published measurement), ``estimate`` (our reasoned estimate where no
source gives the number; the note says how it was made).

Asymmetric links (home broadband: 100 Mbit/s down, 20 Mbit/s up) are ``per_direction`` figures
with an ``upstream`` value beside the main one: :meth:`Figure.both_directions` adds the two
(120 Mbit/s), never doubles the faster one.

One module per kind of thing: ``records`` (the record types, vocabularies and errors), ``schema`` (what each
table may hold, and the strict readers of one figure or entry), ``loading`` (the catalog from the TOML files,
once per process), ``claims`` (the episode's claims) and ``tour`` (the guided tour). The names below are the
package's face; import from the modules for anything else.
"""

from __future__ import annotations

from interconnect.catalog.claims import VERDICTS, Claim, load_claims
from interconnect.catalog.loading import (
    NON_CATALOG_FILES,
    Catalog,
    Entry,
    catalog_entries_of_kind,
    catalog_kind_of,
    check_url,
    get_catalog,
    load_catalog,
)
from interconnect.catalog.records import (
    BASES,
    DIRECTION_WORDS,
    DIRECTIONS,
    LAYER_TITLES,
    LAYERS,
    CatalogError,
    Figure,
    Gpu,
    Link,
    Medium,
    Node,
    ReferenceNic,
    Source,
    Term,
    UnknownIdError,
)
from interconnect.catalog.tour import TourStep, load_tour

# The errors are raised and caught under the package's name (messages, tracebacks and pickles name
# ``interconnect.catalog.CatalogError``, as before the package was split).
CatalogError.__module__ = UnknownIdError.__module__ = __name__

__all__ = [
    "BASES", "DIRECTION_WORDS", "DIRECTIONS", "LAYERS", "LAYER_TITLES", "NON_CATALOG_FILES", "VERDICTS",
    "Catalog", "CatalogError", "Claim", "Entry", "Figure", "Gpu", "Link", "Medium", "Node", "ReferenceNic", "Source",
    "Term", "TourStep", "UnknownIdError", "catalog_entries_of_kind", "catalog_kind_of", "check_url", "get_catalog",
    "load_catalog", "load_claims", "load_tour",
]
