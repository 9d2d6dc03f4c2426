"""How fast a signal crosses each medium: fibre, copper, vacuum, from the catalog with sources.

Also the constants the Reach page leans on (the speed of light, NCCL's buffer and InfiniBand's timer defaults).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from interconnect.catalog import Link

__all__ = [
    "BLURAY_BYTES",
    "DEFAULT_DISTANCE",
    "GAP_MEDIA",
    "IB_ACK_TIMEOUT_UNIT_S",
    "MAX_DISTANCE_M",
    "MIN_DISTANCE_M",
    "NCCL_BUFFSIZE_BYTES",
    "NCCL_IB_RETRY_CNT_DEFAULT",
    "NCCL_IB_TIMEOUT_BY_VERSION",
    "NCCL_IB_TIMEOUT_DEFAULT",
    "PROPAGATION",
    "Propagation",
    "SPEED_OF_LIGHT_M_PER_S",
    "propagation_for",
    "propagation_medium_of",
]


#: The speed of light in vacuum, exact by the SI definition of the metre (BIPM, The International
#: System of Units, 9th edition 2019, section 2.3.1: https://www.bipm.org/en/publications/si-brochure).
SPEED_OF_LIGHT_M_PER_S = 299_792_458.0

#: The slider's range: across a board to half way round the planet (half of the Earth's equatorial
#: circumference, 40,075 km in WGS 84: NASA Earth fact sheet,
#: https://nssdc.gsfc.nasa.gov/planetary/factsheet/earthfact.html, rounded down to 20,000 km).
MIN_DISTANCE_M = 0.1
MAX_DISTANCE_M = 20_000_000.0
#: Where the page starts: the 11 m between the shop counter and the back office in the episode.
DEFAULT_DISTANCE = "11 m"

#: One Blu-ray disc, 50 GB (dual layer), the project's ``bluray`` unit (``interconnect/units.txt``).
BLURAY_BYTES = 50e9

#: NCCL's buffer between a pair of GPUs: ``NCCL_BUFFSIZE`` default 4194304 bytes (4 MiB), NVIDIA NCCL
#: ``docs/userguide/source/env.rst`` (NVIDIA/nccl 5067397c, 2026-06-11).
NCCL_BUFFSIZE_BYTES = 4 * 1024 * 1024
#: NCCL's InfiniBand verbs timeout exponent by version: "The default value used by NCCL is 20 (since
#: 2.23; it was 18 since 2.14, and 14 before that)", and the retry count, default 7: NVIDIA NCCL
#: ``docs/userguide/source/env.rst``, sections NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT;
#: ``src/transport/net_ib/connect.cc`` ``NCCL_PARAM(IbTimeout, "IB_TIMEOUT", 20)`` (NVIDIA/nccl 5067397c).
#: NCCL's page says the defaults give "approximately 30 seconds of waiting (7 retries, each lasting
#: 4.3 seconds)"; counting the first try too, 1 + 7 = 8 timeouts of 4.29 s is 34 s
#: (:func:`ib_give_up_s`).
NCCL_IB_TIMEOUT_DEFAULT = 20
NCCL_IB_TIMEOUT_BY_VERSION: tuple[tuple[str, int], ...] = (("before 2.14", 14), ("2.14 to 2.22", 18),
                                                           ("2.23 and later", 20))
NCCL_IB_RETRY_CNT_DEFAULT = 7
#: The InfiniBand local ACK timeout unit: timeout = 4.096 us x 2^t (InfiniBand Architecture
#: Specification Vol. 1, 12.7.34, as quoted in NCCL's env.rst; Linux ``drivers/infiniband/hw/qib``
#: computes ``4096UL * (1UL << qp->timeout)`` ns).
IB_ACK_TIMEOUT_UNIT_S = 4.096e-6


@dataclass(frozen=True)
class Propagation:
    """How long a signal takes per metre in one medium, and where that figure comes from.

    ``delay_s_per_m`` is the one-way delay per metre; its inverse is the signal's speed.
    """

    id: str
    name: str
    delay_s_per_m: float
    basis: str
    source: str

    @property
    def velocity_m_per_s(self) -> float:
        """Signal speed in m/s, the inverse of :attr:`delay_s_per_m`."""
        return 1.0 / self.delay_s_per_m

    @property
    def velocity_factor(self) -> float:
        """Signal speed as a fraction of the speed of light in vacuum (dimensionless)."""
        return self.velocity_m_per_s / SPEED_OF_LIGHT_M_PER_S

    @property
    def group_index(self) -> float:
        """Group index n_g = c / v (dimensionless; about 1.47 for silica fibre)."""
        return 1.0 / self.velocity_factor


def _source_text(catalog: Any, source_ids: Sequence[str]) -> str:
    sources = [catalog.sources[sid] for sid in source_ids if sid in catalog.sources]
    return "; ".join(f"{source.title} ({source.url})" for source in sources)


def _propagation_table() -> dict[str, Propagation]:
    """Every medium of the catalog (``data/media.toml``) as a :class:`Propagation`, with its sources.

    The fibre figure is its group index over the speed of light (1.468 / c = 4.897 µs per km, from a
    fibre maker's data sheet); copper cable is an estimate (the data says so). No figure lives here.
    """
    from interconnect.catalog import get_catalog

    catalog = get_catalog()
    return {
        medium_id: Propagation(medium_id, medium.name, float(medium.delay.quantity.to("s/m").magnitude),
                               medium.delay.basis, _source_text(catalog, medium.delay.source_ids))
        for medium_id, medium in catalog.media.items()
    }


#: Propagation per medium, read from the catalog's media (``data/media.toml``): fibre, twinax copper
#: (DAC), multi-core copper cable and vacuum, each with the basis and sources of its figure.
PROPAGATION: dict[str, Propagation] = _propagation_table()

#: The media a person can pick for the gap (page and CLI): public names -> :data:`PROPAGATION` keys.
GAP_MEDIA: dict[str, str] = {"fibre": "fibre", "copper": "copper-twinax", "vacuum": "vacuum"}

#: Words in a link's ``medium`` text (or its reach note) that say what the signal travels through,
#: checked in this order of preference where several appear.
_MEDIUM_WORDS: tuple[tuple[str, str], ...] = (
    (r"\b(dac|twinax|direct attach)\b", "copper-twinax"),
    (r"\b(fibre|fiber|optic|optics|optical|multimode|single-mode|dwdm|coherent|om[345]|os2)\b", "fibre"),
    (r"\b(copper|cable|wire|wires|traces?|serial|parallel)\b", "copper-cable"),
)


def propagation_medium_of(link: Link) -> tuple[str, bool]:
    """Name the medium a link's *reach* figure travels through, and say whether it was inferred.

    Parameters
    ----------
    link : interconnect.catalog.Link
        A catalog link.

    Returns
    -------
    medium_id : str
        A key of :data:`PROPAGATION` (or of the catalog's media).
    inferred : bool
        True when the medium was read from the link's text rather than named by the catalog.

    Notes
    -----
    A link that names its ``propagation_medium`` gets that medium. Otherwise the reach figure's note
    is searched, then the link's ``medium`` text, and the telling word that comes first wins
    (``"copper DAC up to 2 m, optics beyond"`` is twinax copper for a 2 m reach). A link with no
    telling word is taken to be fibre, the medium of everything longer than a rack. This rule is
    ours.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> propagation_medium_of(get_catalog().link("400zr"))[0]
    'fibre'
    >>> propagation_medium_of(get_catalog().link("ib-ndr"))[0]
    'copper-twinax'
    """
    named = getattr(link, "propagation_medium", None)
    if named:
        return str(named), False
    texts = [link.reach.note if link.reach is not None else "", link.medium]
    for text in texts:
        lowered = text.lower()
        hits = {}
        for pattern, medium_id in _MEDIUM_WORDS:
            match = re.search(pattern, lowered)
            if match:
                hits[medium_id] = match.start()
        if "copper-twinax" in hits:  # a DAC is copper too: "copper DAC" is twinax, not a generic cable
            hits.pop("copper-cable", None)
        if hits:
            return min(hits, key=hits.__getitem__), True
    return "fibre", True


def propagation_for(medium_id: str, catalog: object | None = None) -> Propagation:
    """Look up the :class:`Propagation` of a medium, preferring the catalog's own figure.

    Parameters
    ----------
    medium_id : str
        A key of :data:`PROPAGATION` or of the catalog's ``media`` table.
    catalog : interconnect.catalog.Catalog, optional
        A catalog whose medium entry has a ``delay`` figure (a time per length); that figure wins.

    Returns
    -------
    Propagation
        The medium's one-way delay per metre (s/m) with its basis and source. An unknown id falls
        back to fibre.

    Examples
    --------
    >>> f"{propagation_for('fibre').delay_s_per_m * 1e9:.3f} ns/m"
    '4.897 ns/m'
    >>> f"{propagation_for('copper-twinax').delay_s_per_m * 1e9:.1f} ns/m"
    '4.5 ns/m'
    """
    media = getattr(catalog, "media", None) or {}
    entry = media.get(medium_id) if isinstance(media, Mapping) else None
    delay = getattr(getattr(entry, "delay", None), "quantity", None)
    if delay is not None:
        try:
            seconds_per_metre = float(delay.to("s/m").magnitude)
        except Exception:  # a catalog figure in an unexpected dimension: keep our own table
            seconds_per_metre = math.nan
        if math.isfinite(seconds_per_metre) and seconds_per_metre > 0:
            fallback = PROPAGATION.get(medium_id, PROPAGATION["fibre"])
            return Propagation(medium_id, str(getattr(entry, "name", fallback.name)), seconds_per_metre,
                               str(getattr(entry.delay, "basis", "spec")), f"catalog medium '{medium_id}'")
    return PROPAGATION.get(medium_id, PROPAGATION["fibre"])
