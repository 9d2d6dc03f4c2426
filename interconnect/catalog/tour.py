"""The guided tour's stops (``data/tour/*.toml``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from interconnect.catalog.records import CatalogError


@dataclass(frozen=True)
class TourStep:
    """One step of the guided tour: a page, the link parameters of its view, a title and a caption."""

    page: str
    title: str
    caption: str
    params: tuple[tuple[str, str], ...]
    #: The key of the chart the step is about (drawn under the caption in presentation mode); "" for none.
    chart: str = ""


def load_tour(directory: str | Path | None = None) -> tuple[TourStep, ...]:
    """The guided tour's steps from ``data/tour/episode.toml`` (strict keys)."""
    folder = Path(directory) if directory else Path(str(resources.files("interconnect").joinpath("data/tour")))
    path = folder / "episode.toml"
    try:
        rows = tomllib.loads(path.read_text(encoding="utf-8")).get("step", [])
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path.name}: not valid TOML: {exc}") from exc
    steps = []
    for number, row in enumerate(rows, start=1):
        if not {"page", "title", "caption", "params"} <= set(row) <= {"page", "title", "caption", "params", "chart"}:
            raise CatalogError(f"{path.name}: step {number} must have page, title, caption and params "
                               "(and may name its chart)")
        steps.append(TourStep(row["page"], row["title"], row["caption"],
                              tuple((str(k), str(v)) for k, v in row["params"].items()), str(row.get("chart", ""))))
    return tuple(steps)
