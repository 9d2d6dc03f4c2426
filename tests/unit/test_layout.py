"""The package keeps one folder per topic over shared layers, and imports only go downward.

``hardware/``, ``workloads/``, ``io/``, ``datafiles/``, ``catalog.py`` and ``units.py`` are the core: they never
reach up into ``figures/``, ``ui/``, ``cli/`` or a topic. Streamlit is imported only by ``ui/``, a topic's
``page*.py``, ``pages/`` and ``app.py``. ``hardware/`` and a topic's model hold arithmetic only: the files under
``interconnect/data/`` are read by ``datafiles/``, ``catalog.py`` and a topic's data module. A topic never
imports another topic.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "interconnect"
TOP_LEVEL_MODULES = {"__init__.py", "__main__.py", "units.py", "testing.py", "site.py"}
CORE = ("io", "datafiles", "hardware", "workloads", "inputs", "catalog")
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


def is_page_module(relative: Path) -> bool:
    """A topic's Streamlit module: ``topics/<topic>/page.py`` or ``page_*.py``."""
    return relative.parts[0] == "topics" and len(relative.parts) == 3 and relative.name.startswith("page")


def topic_of(relative: Path) -> str | None:
    return relative.parts[1] if relative.parts[0] == "topics" and len(relative.parts) > 2 else None


TOPIC_FILES = [p for p in package_files() if topic_of(p.relative_to(PACKAGE))]
#: Modules of a topic that hold arithmetic: no Streamlit, no Plotly, no UI, no file reading.
PURE_TOPIC_MODULES = ("model", "sweep")


@pytest.mark.parametrize("path", TOPIC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_topic_never_imports_another_topic(path):
    own = topic_of(path.relative_to(PACKAGE))
    others = {name for name in imported_modules(path)
              if name.startswith("interconnect.topics.") and name.split(".")[2] != own}
    assert not others, f"{path.relative_to(ROOT)} imports {sorted(others)}: what two topics share moves down"


@pytest.mark.parametrize("path", TOPIC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_topics_model_is_pure(path):
    relative = path.relative_to(PACKAGE)
    if not (path.stem in PURE_TOPIC_MODULES or (len(relative.parts) > 3 and relative.parts[2] == "model")):
        return
    bad = {name for name in imported_modules(path)
           if name.startswith(("streamlit", "plotly", "interconnect.ui", "interconnect.cli"))
           or (name.startswith("interconnect.topics.") and name.split(".")[-1].startswith(("page", "figures")))}
    assert not bad, f"{relative} imports {sorted(bad)}; a topic's model is arithmetic only"
    assert not file_reading(path), f"{relative} reads files; put the reader in the topic's data module"


def test_nothing_below_the_topics_imports_a_topic():
    for folder in ("hardware", "workloads", "io", "datafiles", "figures", "inputs", "ui", "cli"):
        for path in (PACKAGE / folder).rglob("*.py"):
            bad = {n for n in imported_modules(path) if n.startswith("interconnect.topics")}
            assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}, a topic above it"


def test_the_cli_imports_nothing_from_the_ui():
    paths = [*(PACKAGE / "cli").glob("*.py"), *(p for p in TOPIC_FILES if p.stem == "cli")]
    for path in paths:
        allowed = KNOWN_CLI_TO_UI if path == PACKAGE / "cli" / "export.py" else set()
        bad = {n for n in imported_modules(path) if n.startswith(("interconnect.ui.", "streamlit"))
               and ".".join(n.split(".")[:3]) not in allowed}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)} from the UI"


#: The one command that renders pages (``export``: views of every page as offline HTML) reaches the UI, through
#: the one module that runs a page script and collects its charts; no other command may.
KNOWN_CLI_TO_UI = {"interconnect.ui.export"}


def test_no_module_outside_a_folder_except_the_bottom_layer():
    loose = {p.name for p in PACKAGE.glob("*.py")} - TOP_LEVEL_MODULES
    assert not loose, f"modules outside a folder: {sorted(loose)}"


@pytest.mark.parametrize("path", package_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_streamlit_only_in_ui(path):
    relative = path.relative_to(PACKAGE)
    if relative.parts[0] == "ui" or is_page_module(relative):
        return
    streamlit = {name for name in imported_modules(path) if name == "streamlit" or name.startswith("streamlit.")}
    assert not streamlit, f"{relative} imports {sorted(streamlit)}; Streamlit code belongs in interconnect/ui/"


@pytest.mark.parametrize("path", package_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_never_imports_upward(path):
    relative = path.relative_to(PACKAGE)
    if not (relative.parts[0] in CORE or str(relative) == "units.py"):
        return
    upward = {name for name in imported_modules(path) if name.startswith(UPPER)}
    assert not upward, f"{relative} imports {sorted(upward)} from a layer above it"
    plotting = {name for name in imported_modules(path) if name.startswith("plotly")}
    assert not plotting, f"{relative} imports Plotly; figures belong in interconnect/figures/"


def test_the_data_layer_does_not_import_models_or_io():
    # datafiles/ sits beside catalog.py, below the models that use its records.
    for path in (PACKAGE / "datafiles").rglob("*.py"):
        above = ("interconnect.hardware", "interconnect.workloads", "interconnect.topics", "interconnect.io")
        bad = {n for n in imported_modules(path) if n.startswith(above)}
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


@pytest.mark.parametrize("folder", ["hardware", "workloads"])
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
