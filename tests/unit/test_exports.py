"""Each subpackage exports a few entry points, lazily, and importing it stays cheap."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUBPACKAGES = ["interconnect.io"]


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_exported_name_resolves_to_the_object_in_its_module(name: str) -> None:
    package = importlib.import_module(name)
    assert package.__doc__ and len(package.__doc__.splitlines()[0]) > 20
    assert sorted(package.__all__) == sorted(package._EXPORTS)
    for export in package.__all__:
        module = importlib.import_module(f"{name}.{package._EXPORTS[export]}")
        assert getattr(package, export) is getattr(module, export)
    assert set(package.__all__) <= set(dir(package))


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_an_unknown_name_is_an_attribute_error_and_submodules_still_import(name: str) -> None:
    package = importlib.import_module(name)
    with pytest.raises(AttributeError, match="no_such_name"):
        package.no_such_name  # noqa: B018
    assert importlib.import_module(f"{name}.{next(iter(package._EXPORTS.values()))}")


def test_importing_the_packages_loads_no_plotting_or_web_library_and_no_model() -> None:
    code = ("import sys, interconnect.io, interconnect.figures, interconnect.ui, interconnect.topics\n"
            "import interconnect.hardware\n"
            "print(sorted(m for m in ('plotly', 'streamlit', 'interconnect.hardware.cluster', "
            "'interconnect.io.nccl_tests') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.strip() == "[]"
