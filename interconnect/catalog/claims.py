"""The popular claims of the episode, each with the sources that correct it (``data/claims/*.toml``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from interconnect.catalog.loading import Catalog, get_catalog
from interconnect.catalog.records import CatalogError

VERDICTS = ("wrong", "misleading", "unsourced", "roughly right", "right")
_CLAIM_KEYS = {"id", "claim", "by", "verdict", "correction", "why", "sources", "page", "params"}


@dataclass(frozen=True)
class Claim:
    """A popular figure checked against the sources: the claim, the verdict, the correction and why.

    ``page`` names the app page that shows it (a key of the page table in :mod:`interconnect.ui.pages`)
    and ``params`` the link parameters that open the view.
    """

    id: str
    claim: str
    by: str
    verdict: str
    correction: str
    why: str
    source_ids: tuple[str, ...]
    page: str
    params: tuple[tuple[str, str], ...]


def load_claims(catalog: Catalog | None = None, directory: str | Path | None = None) -> tuple[Claim, ...]:
    """The checked claims in ``data/claims/*.toml``, with every key and source id validated."""
    catalog = catalog or get_catalog()
    folder = Path(directory) if directory else Path(str(resources.files("interconnect").joinpath("data/claims")))
    claims: list[Claim] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            rows = tomllib.loads(path.read_text(encoding="utf-8")).get("claim", [])
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"{path.name}: not valid TOML: {exc}") from exc
        for row in rows:
            where = f"{path.name}: claim {row.get('id', '?')!r}"
            if set(row) != _CLAIM_KEYS:
                raise CatalogError(f"{where}: keys must be {sorted(_CLAIM_KEYS)}, got {sorted(row)}")
            if row["verdict"] not in VERDICTS:
                raise CatalogError(f"{where}: verdict must be one of {VERDICTS}")
            missing = [s for s in row["sources"] if s not in catalog.sources]
            if missing or not row["sources"]:
                raise CatalogError(f"{where}: unknown or missing source ids {missing}")
            params = tuple((str(k), str(v)) for k, v in row["params"].items())
            claims.append(Claim(row["id"], row["claim"], row["by"], row["verdict"], row["correction"], row["why"],
                                tuple(row["sources"]), row["page"], params))
    ids = [claim.id for claim in claims]
    if len(set(ids)) != len(ids):
        raise CatalogError(f"duplicate claim ids in {folder.name}/")
    return tuple(claims)
