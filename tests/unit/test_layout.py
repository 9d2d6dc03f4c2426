"""The package keeps one folder per kind of code, and imports only go downward.

``models/``, ``io/``, ``datafiles/``, ``catalog.py`` and ``units.py`` are the core: no Plotly-free rule is needed
for them to be testable, but they must never reach up into ``figures/``, ``ui/`` or ``cli/``.
Streamlit is imported only by ``ui/``, ``pages/`` and ``app.py``. ``models/`` holds arithmetic only: the
files under ``interconnect/data/`` are read and checked by ``datafiles/`` and ``catalog.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "interconnect"
TOP_LEVEL_MODULES = {"__init__.py", "__main__.py", "catalog.py", "units.py", "testing.py"}
CORE = ("models", "io", "datafiles", "hardware", "workloads")
UPPER = ("interconnect.figures", "interconnect.ui", "interconnect.cli")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def package_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_outside_a_folder_except_the_bottom_layer():
    loose = {p.name for p in PACKAGE.glob("*.py")} - TOP_LEVEL_MODULES
    assert not loose, f"modules outside a folder: {sorted(loose)}"


@pytest.mark.parametrize("path", package_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_streamlit_only_in_ui(path):
    relative = path.relative_to(PACKAGE)
    if relative.parts[0] == "ui":
        return
    streamlit = {name for name in imported_modules(path) if name == "streamlit" or name.startswith("streamlit.")}
    assert not streamlit, f"{relative} imports {sorted(streamlit)}; Streamlit code belongs in interconnect/ui/"


@pytest.mark.parametrize("path", package_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_never_imports_upward(path):
    relative = path.relative_to(PACKAGE)
    if not (relative.parts[0] in CORE or str(relative) in ("catalog.py", "units.py")):
        return
    upward = {name for name in imported_modules(path) if name.startswith(UPPER)}
    assert not upward, f"{relative} imports {sorted(upward)} from a layer above it"
    plotting = {name for name in imported_modules(path) if name.startswith("plotly")}
    assert not plotting, f"{relative} imports Plotly; figures belong in interconnect/figures/"


def test_the_data_layer_does_not_import_models_or_io():
    # datafiles/ sits beside catalog.py, below the models that use its records.
    for path in (PACKAGE / "datafiles").rglob("*.py"):
        bad = {n for n in imported_modules(path) if n.startswith(("interconnect.models", "interconnect.io"))}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


#: Modules that read files; ``models/`` gets its data from ``datafiles/`` and ``catalog.py`` instead.
FILE_READERS = ("tomllib", "csv", "json", "importlib.resources")
#: Calls that open a file.
FILE_CALLS = ("open", "read_text", "read_bytes")


def file_reading(path: Path) -> set[str]:
    """Return the file-reading modules a source file imports and the file-opening calls it makes."""
    # ``from importlib import resources`` is listed as ``importlib.resources`` by imported_modules.
    found = {n for n in imported_modules(path) if n in FILE_READERS}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in FILE_CALLS:
                found.add(f"{name}()")
    return found


@pytest.mark.parametrize("folder", ["models", "hardware", "workloads"])
def test_models_read_no_files(folder):
    for path in (PACKAGE / folder).rglob("*.py"):
        found = file_reading(path)
        assert not found, (f"{path.relative_to(ROOT)} reads files ({', '.join(sorted(found))}); "
                           "put the reader in interconnect/datafiles/ and import its records")


def test_the_file_reading_rule_can_fail(tmp_path):
    scratch = tmp_path / "reader.py"
    scratch.write_text("import csv\nimport tomllib\nfrom importlib import resources\n\n"
                       "def rows(path):\n    return path.read_text()\n")
    assert file_reading(scratch) == {"csv", "tomllib", "importlib.resources", "read_text()"}


def test_figures_do_not_import_ui_or_cli():
    for path in (PACKAGE / "figures").rglob("*.py"):
        bad = {n for n in imported_modules(path) if n.startswith(("interconnect.ui", "interconnect.cli", "streamlit"))}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_cli_subcommands_import_helpers_from_output_not_the_package():
    for path in (PACKAGE / "cli").glob("*.py"):
        if path.name == "__init__.py":
            continue
        names = imported_modules(path)
        assert "interconnect.cli" not in names, f"{path.name} imports interconnect.cli (an import cycle)"


def test_the_rule_catches_an_upward_import(tmp_path):
    # The checker itself must be able to fail: an upward import in a scratch file is seen.
    scratch = tmp_path / "bad.py"
    scratch.write_text("from interconnect.ui.chrome import page_setup\nimport streamlit as st\n")
    names = imported_modules(scratch)
    assert any(n.startswith(UPPER) for n in names) and "streamlit" in names
