"""The modules of ``interconnect/hardware/collectives`` import each other in one direction only (issue 27)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parents[2] / "interconnect" / "hardware" / "collectives"
PACKAGE = "interconnect.hardware.collectives"
#: Bottom first: a module may import only modules listed before it (``__init__`` re-exports them all).
ORDER = ["params", "steps", "model", "fitting", "measurements", "others", "traffic", "calibration", "accuracy"]


def _imports(path: Path) -> set[str]:
    """Every module of this folder that ``path`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGE + "."):
            found.add(node.module.removeprefix(PACKAGE + ".").split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix(PACKAGE + ".").split(".")[0] for a in node.names
                      if a.name.startswith(PACKAGE + ".")}
    return found


def test_every_module_of_the_folder_has_a_place_in_the_order() -> None:
    modules = {p.stem for p in FOLDER.glob("*.py")} - {"__init__"}
    assert modules <= set(ORDER), f"place {sorted(modules - set(ORDER))} in ORDER"


@pytest.mark.parametrize("name", [n for n in ORDER if (FOLDER / f"{n}.py").exists()])
def test_imports_point_down(name: str) -> None:
    below = set(ORDER[: ORDER.index(name)])
    upward = _imports(FOLDER / f"{name}.py") - below
    assert not upward, f"{name}.py imports {sorted(upward)}, which sit at or above it"


def test_the_bottom_module_imports_nothing_from_the_folder() -> None:
    assert _imports(FOLDER / "params.py") == set()
