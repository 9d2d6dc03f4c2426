"""The declared-record reader (interconnect/datafiles/records.py): each check of a field, on small files."""

from __future__ import annotations

from pathlib import Path

import pytest

from interconnect.catalog import CatalogError
from interconnect.datafiles.records import SOURCE, Field, Record
from interconnect.datafiles.tables import DataFile

LINK = Record("link", (
    Field("id"),
    Field("rate", quantity=("bandwidth", "Gbit/s"), to="gbit_s"),
    Field("kind", choices=("copper", "fibre")),
    Field("proto", required=False, default="auto", choices=("auto", "ll", "simple"), lower=True),
    Field("lanes", int, minimum=1),
    Field("share", float, positive=True),
    Field("steps", list, required=False, default=(), items=int),
    Field("switch", required=False, refs="switch"),
    Field("sources", list, refs="source"),
))

GOOD = ('[[link]]\nid = "a"\nrate = "400 Gbit/s"\nkind = "fibre"\nlanes = 4\nshare = 0.9\n'
        'sources = ["maker"]\n')


def _file(tmp_path: Path, text: str) -> DataFile:
    path = tmp_path / "links.toml"
    path.write_text(text, encoding="utf-8")
    return DataFile(path, source_ids={"maker"})


def test_a_good_table_is_read_by_field_name_with_quantities_in_their_unit(tmp_path):
    values = LINK.read_all(_file(tmp_path, GOOD))["a"]
    assert values == {"id": "a", "gbit_s": 400.0, "kind": "fibre", "proto": "auto", "lanes": 4, "share": 0.9,
                      "steps": (), "switch": None, "sources": ("maker",)}


def test_a_choice_is_compared_in_lower_case_when_declared_so(tmp_path):
    assert LINK.read_all(_file(tmp_path, GOOD + 'proto = "LL"\n'))["a"]["proto"] == "ll"


@pytest.mark.parametrize(("change", "message"), [
    ('colour = "red"\n', r"^links.toml: link 'a': unknown key\(s\) colour$"),
    ("", r"missing key\(s\) lanes"),
    ('lanes = "4"\n', r"'lanes' has the wrong type \(str\)"),
    ("lanes = true\n", r"'lanes' has the wrong type \(bool\)"),
    ("lanes = 0\n", r"'lanes' must be at least 1$"),
    ("share = 0\n", r"'share' must be a positive number, got 0"),
    ("share = nan\n", r"'share' must be a positive number, got nan"),
    ('kind = "pigeon"\n', r"'kind' must be one of copper, fibre, got 'pigeon'"),
    ("steps = [1, 2.5]\n", r"'steps' must list whole numbers, got \[1, 2.5\]"),
    ('switch = "qm9700"\n', r"unknown switch 'qm9700'"),
    ('sources = ["nobody"]\n', r"'sources' must list known source ids"),
    ('rate = "5 parsecs"\n', r"'rate': "),
])
def test_each_declared_check_names_the_file_the_entry_and_the_key(tmp_path, change, message):
    lines = GOOD.splitlines(keepends=True)
    key = change.split(" = ")[0] if change else "lanes"
    text = "".join(line for line in lines if not line.startswith(f"{key} = ")) + change
    with pytest.raises(CatalogError, match=message):
        LINK.read_all(_file(tmp_path, text))


def test_a_reference_to_a_known_id_is_kept(tmp_path):
    values = LINK.read_all(_file(tmp_path, GOOD + 'switch = "qm9700"\n'), {"switch": {"qm9700"}})["a"]
    assert values["switch"] == "qm9700"


def test_a_duplicate_id_and_a_table_that_is_not_an_array_are_refused(tmp_path):
    with pytest.raises(CatalogError, match=r"^links.toml: link 'a': duplicate id$"):
        LINK.read_all(_file(tmp_path, GOOD + "\n" + GOOD))
    with pytest.raises(CatalogError, match=r"'link' must be an array of tables"):
        LINK.read_all(_file(tmp_path, '[link]\nid = "a"\n'))


def test_a_file_without_the_table_has_no_entries(tmp_path):
    assert LINK.read_all(_file(tmp_path, "")) == {}


def test_the_shared_source_record_takes_an_optional_note(tmp_path):
    text = '[[source]]\nid = "s"\ntitle = "T"\nurl = "https://example.org/"\nkind = "primary"\n'
    assert SOURCE.read_all(_file(tmp_path, text))["s"]["note"] == ""
    with pytest.raises(CatalogError, match=r"missing key\(s\) kind"):
        SOURCE.read_all(_file(tmp_path, text.replace('kind = "primary"\n', "")))
