"""The packaged crossdc.toml with one passage replaced, for the loader's refusal tests."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def edited_copy(tmp_path: Path, old: str, new: str) -> Path:
    """Copy the data file into ``tmp_path`` with the first ``old`` replaced by ``new`` (which must be there)."""
    text = Path(str(resources.files("interconnect").joinpath("data", "crossdc.toml"))).read_text(encoding="utf-8")
    assert old in text, old
    path = tmp_path / "crossdc.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path
