"""Which medium joins two switches (or a server and a switch) at a given distance and port rate.

The one place the fabric model asks the media catalogue anything. The catalogue is the Reach page's
(:mod:`interconnect.hardware.wires`, ``data/wires.toml``): protocols carried by media, each medium with
its reach, the protocols it carries and the power of one plug, every figure with its sources.

:func:`medium_for` takes a run length, a port rate and the switch's fabric (InfiniBand or Ethernet),
names the protocol the ports speak (400 Gbit/s InfiniBand is NDR, 800 Gbit/s Ethernet is 800GbE...)
and returns a :class:`MediumChoice`: the medium, its reach and the power of one end per port.

The rule: of the media that reach the run and carry the ports' protocol, take the one that draws the
least power per port at one end; a twin-port plug shares its watts between the ports it carries
(a 17 W 2 x 400G module is 8.5 W per NDR port), as :attr:`wires.Option.power_w_per_port` does. Media
without a power figure are used only when nothing with one reaches; then the shorter reach wins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from interconnect.hardware.wires import Option, Wires, get_wires, media_reaching

__all__ = ["MediumChoice", "medium_for", "protocol_for"]

#: The wires catalogue's protocol family for each switch fabric of ``fabric.toml``.
_FAMILIES = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}
#: Kinds of media with no transceiver module at their ends (copper end to end).
_COPPER_KINDS = ("board", "nvlink-copper", "dac", "acc")


@dataclass(frozen=True)
class MediumChoice:
    """One medium for one kind of link, with what it costs per port at one end.

    ``link_id`` is the medium's id in ``wires.toml``; ``protocol_id`` the protocol the ports speak.
    ``power_per_end_w`` is the power of one plug (``None``: not found); ``ports_per_plug`` how many
    ports one plug carries; ``ends_per_port`` stays 1 (every medium chosen carries the port's own
    protocol whole).
    """

    link_id: str
    name: str
    kind: str
    protocol_id: str
    reach_m: float
    rate_gbit_s: float
    power_per_end_w: float | None
    copper: bool
    sources: tuple[str, ...]
    power_note: str = ""
    ports_per_plug: int = 1
    ends_per_port: int = 1

    @property
    def power_per_port_end_w(self) -> float | None:
        """Power of one end of one link at the port's rate (W), or ``None`` when not known."""
        return None if self.power_per_end_w is None else self.power_per_end_w * self.ends_per_port / self.ports_per_plug


def protocol_for(port_gbit_s: float, fabric: str = "infiniband", wires: Wires | None = None) -> str | None:
    """Return the id of the protocol a ``fabric`` port of ``port_gbit_s`` (per direction) speaks, or ``None``.

    >>> protocol_for(400.0, "infiniband"), protocol_for(800.0, "ethernet"), protocol_for(300.0, "ethernet")
    ('ib-ndr', 'eth-800g', None)
    """
    data = wires or get_wires()
    family = _FAMILIES.get(fabric)
    for protocol in data.protocols.values():
        rate = float(protocol.rate.per_direction().to("Gbit/s").magnitude)
        if protocol.family == family and math.isclose(rate, port_gbit_s, rel_tol=1e-6):
            return protocol.id
    return None


def _choice(option: Option) -> MediumChoice:
    medium = option.medium
    power = medium.power
    sources = (*medium.reach.source_ids, *(power.source_ids if power else ()))
    return MediumChoice(
        link_id=medium.id, name=medium.name, kind=medium.kind, protocol_id=option.protocol.id,
        reach_m=medium.reach_m, rate_gbit_s=float(medium.rate.per_direction().to("Gbit/s").magnitude),
        power_per_end_w=medium.power_w, copper=medium.kind in _COPPER_KINDS,
        sources=tuple(dict.fromkeys(sources)), power_note="" if power is None else power.note,
        ports_per_plug=option.ports_per_plug,
    )


def medium_for(distance_m: float, port_gbit_s: float, fabric: str = "infiniband",
               wires: Wires | None = None) -> MediumChoice | None:
    """Return the medium for a run of ``distance_m`` metres between ``fabric`` ports of ``port_gbit_s``.

    Returns ``None`` when no protocol of the catalogue runs at that rate on that fabric, or none of
    its media reaches. Of the media that reach, the least power per port at one end wins; media
    without a power figure only when none with one reaches (then the shorter reach).

    >>> [medium_for(d, 400.0).link_id for d in (3.0, 5.0, 50.0, 100.0, 500.0)]
    ['dac-100g-pam4', 'acc-100g-pam4', 'sr8-800g', 'dr8-800g', 'dr8-800g']
    >>> medium_for(50.0, 400.0).power_per_port_end_w  # a 17 W twin-port plug, two NDR ports
    8.5
    >>> medium_for(500.0, 800.0, "infiniband").power_per_end_w is None  # XDR optics: no figure read
    True
    """
    protocol = protocol_for(port_gbit_s, fabric, wires)
    if protocol is None:
        return None
    reaching = media_reaching(distance_m, protocol=protocol, wires=wires)
    if not reaching:
        return None
    known = [o for o in reaching if o.power_w_per_port is not None]
    if known:
        return _choice(min(known, key=lambda o: (o.power_w_per_port, o.reach_m, o.medium.id)))
    return _choice(min(reaching, key=lambda o: (o.reach_m, o.medium.id)))
