"""Which medium joins two switches (or a server and a switch) at a given distance and port rate.

The one place the fabric model asks the media catalogue anything, so the catalogue can change under
it: :func:`medium_for` takes a run length and a port rate and returns a :class:`MediumChoice` (the
medium's catalog id and name, its reach, and the power of one end). Today it reads the reach of the
``cable`` and ``long-reach`` links of the catalog (``cables.toml``, ``longreach.toml``) and the power
per end from ``fabric.toml``'s ``[[module]]`` table; when the media catalogue carries power per end
itself, only this module changes.

The rule: of the media whose reach covers the run, take the one that draws the least power per end
(passive copper, then active copper, then multimode, then single-mode optics); media without a power
figure are used only when nothing with one reaches. A port faster than the medium's own rate takes
several of its ends (an 800G switch port over 400G-per-end modules counts two: NVIDIA's twin-port
2 x 400G OSFP modules are exactly that).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from interconnect.catalog import Catalog, get_catalog

__all__ = ["MediumChoice", "candidate_media", "medium_for"]

#: Catalog layers that hold media with a reach.
_MEDIA_LAYERS = ("cable", "long-reach")
#: Media that are copper end to end (no transceiver modules to count).
_COPPER_FAMILIES = ("Direct attach copper", "Active copper")


@dataclass(frozen=True)
class MediumChoice:
    """One medium for one kind of link, with what it costs per end.

    ``power_per_end_w`` is for one end at the medium's own rate (``rate_gbit_s``); ``None`` when no
    figure was read. ``ends_per_port`` is how many such ends one port of ``port_gbit_s`` needs.
    """

    link_id: str
    name: str
    reach_m: float
    rate_gbit_s: float
    power_per_end_w: float | None
    copper: bool
    sources: tuple[str, ...]
    ends_per_port: int = 1

    @property
    def power_per_port_end_w(self) -> float | None:
        """Power of one end of one link at the port's rate (W), or ``None`` when not known."""
        return None if self.power_per_end_w is None else self.power_per_end_w * self.ends_per_port


@functools.cache
def candidate_media(catalog: Catalog | None = None) -> tuple[MediumChoice, ...]:
    """Every medium of the catalog with a reach, with its power per end where one was read."""
    from interconnect.models.fabric import get_fabric_data

    catalog = catalog or get_catalog()
    power = get_fabric_data().module_power
    media = []
    for layer in _MEDIA_LAYERS:
        for link in catalog.layer(layer).values():
            if link.reach is None or link.bandwidth is None:
                continue
            rate = float(link.bandwidth.per_direction().to("Gbit/s").magnitude)
            module = power.get(link.id)
            media.append(MediumChoice(
                link_id=link.id, name=link.name, reach_m=float(link.reach.quantity.to("m").magnitude),
                rate_gbit_s=rate, power_per_end_w=None if module is None else module.power_w,
                copper=link.family in _COPPER_FAMILIES,
                sources=tuple(dict.fromkeys([*link.reach.source_ids, *(module.sources if module else ())])),
            ))
    return tuple(media)


def medium_for(distance_m: float, port_gbit_s: float, catalog: Catalog | None = None) -> MediumChoice | None:
    """Return the medium for a run of ``distance_m`` metres between ports of ``port_gbit_s`` (per direction).

    Returns ``None`` when nothing in the catalogue reaches. Of the media that reach, the one with
    the least power per port end wins; media without a power figure only when none with one reaches.

    >>> medium_for(2.0, 400.0).link_id, medium_for(30.0, 400.0).link_id, medium_for(300.0, 400.0).link_id
    ('dac-400g-passive', '400g-sr4-multimode', '400g-dr4')
    >>> medium_for(30.0, 800.0).ends_per_port
    2
    """
    reaching = [m for m in candidate_media(catalog) if m.reach_m >= distance_m and m.rate_gbit_s >= 100.0]
    if not reaching:
        return None

    def fitted(medium: MediumChoice) -> MediumChoice:
        ends = max(1, math.ceil(port_gbit_s / medium.rate_gbit_s - 1e-9))
        return MediumChoice(**{**medium.__dict__, "ends_per_port": ends})

    known = [fitted(m) for m in reaching if m.power_per_end_w is not None]
    if known:
        return min(known, key=lambda m: (m.power_per_port_end_w, m.reach_m))
    return fitted(min(reaching, key=lambda m: m.reach_m))
