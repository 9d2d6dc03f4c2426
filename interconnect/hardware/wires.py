"""The wires of a cluster: every link is a protocol carried by a medium.

A *protocol* is what the two ports speak (NVLink 5, InfiniBand NDR, 800 Gigabit Ethernet, PCIe 5.0
x16) and it sets the rate. A *medium* is what joins the two ports (a passive copper DAC, linear
active copper, multimode or single-mode optics, coherent optics, NVLink's copper spine, a server's
baseboard) and it sets the reach and the power. "InfiniBand NDR reaches 2 m" mixes the two: NDR runs
over 3 m of passive copper, 5 m of active copper, 50 m of multimode and 2 km of single-mode fibre.

The figures are in ``interconnect/data/wires.toml`` (each with its unit, direction, basis and
sources; see its header), read and checked by :mod:`interconnect.datafiles.wires` (its records and
loader are re-exported here). This module answers the questions a cluster's cabling raises:

* :func:`media_reaching`: which (protocol, medium) pairs work over a distance, fastest first, with
  an optional minimum rate or a single protocol;
* :func:`fastest_by_protocol`: for each protocol, the medium to use at a distance;
* :func:`fastest_option`: the fastest real option at a distance and what it costs in watts.

Units live in the names: ``rate_gbps`` is GB/s per direction, ``reach_m`` metres, ``power_w`` watts
at one end of the link. Nothing here imports Streamlit or Plotly.
"""

from __future__ import annotations

import math

from interconnect.datafiles.wires import (
    MEDIUM_KINDS,
    LinkMedium,
    Option,
    Protocol,
    Wires,
    WiresDataError,
    get_wires,
    load_wires,
)
from interconnect.units import Q_, expects  # noqa: F401  (Q_ is used by the doctests)

__all__ = [
    "KIND_LABELS",
    "KIND_LAYERS",
    "MEDIUM_KINDS",
    "LinkMedium",
    "Option",
    "Protocol",
    "Wires",
    "WiresDataError",
    "fastest_by_protocol",
    "fastest_option",
    "get_wires",
    "load_wires",
    "media_reaching",
]

#: Words for the kinds, for tables and legends.
KIND_LABELS = {
    "board": "Baseboard", "nvlink-copper": "NVLink copper", "dac": "Passive copper (DAC)",
    "acc": "Active copper (ACC)", "aoc": "Active optical cable", "multimode": "Multimode optics",
    "single-mode": "Single-mode optics", "coherent": "Coherent optics",
}
#: The catalog layer whose colour and legend name a kind of medium borrows on charts.
KIND_LAYERS = {"board": "scale-up", "nvlink-copper": "scale-up", "dac": "cable", "acc": "cable", "aoc": "cable",
               "multimode": "cable", "single-mode": "cable", "coherent": "long-reach"}


def _sort_key(option: Option) -> tuple:
    """Fastest first; then fewer watts per port (unknown power last); then the shorter reach.

    The shorter reach breaks a tie because the medium that only just reaches is the usual choice:
    copper inside a rack, multimode across a row, single-mode across a hall.
    """
    power = option.power_w_per_port
    return (-option.rate_gbps, math.inf if power is None else power, option.reach_m, option.id)


@expects(distance_m="m", min_rate_gbps="GB/s")
def media_reaching(distance_m: float, min_rate_gbps: float = 0.0, *, protocol: str | None = None,
                   wires: Wires | None = None) -> list[Option]:
    """List the links (a protocol over a medium) that work over a distance, fastest first.

    Parameters
    ----------
    distance_m : float
        Distance between the two ports in m (or a length Quantity).
    min_rate_gbps : float, default 0
        Keep only protocols at least this fast, GB/s per direction (or a bandwidth Quantity:
        ``Q_(800, "Gbit/s")``).
    protocol : str, optional
        Keep only this protocol id (``"ib-ndr"``, ``"eth-800g"``...).
    wires : Wires, optional
        The data to search; the packaged ``wires.toml`` by default.

    Returns
    -------
    list of Option
        Every pair whose medium reaches ``distance_m``, fastest first; among equally fast ones
        the fewer watts per port at one end (unknown power last), then the longer reach.

    Raises
    ------
    KeyError
        When ``protocol`` is not a protocol id.

    Examples
    --------
    At the episode's 11 m, the fastest link is 800 Gigabit Ethernet on multimode optics, not a
    coherent metro module:

    >>> best = media_reaching(11)[0]
    >>> best.protocol.id, best.medium.id, best.medium.power_w
    ('eth-800g', 'sr8-800g', 17.0)
    >>> [option.medium.id for option in media_reaching(Q_(3, "m"), protocol="ib-ndr")][:2]
    ['dac-100g-pam4', 'acc-100g-pam4']
    >>> sorted({option.medium.id for option in media_reaching(5_000, Q_(800, "Gbit/s"))})
    ['800zr']
    """
    data = wires or get_wires()
    if protocol is not None and protocol not in data.protocols:
        raise KeyError(f"unknown protocol {protocol!r}; known: {', '.join(data.protocols)}")
    found = [option for option in data.options()
             if option.medium.reaches(distance_m) and option.rate_gbps >= min_rate_gbps * (1 - 1e-9)
             and (protocol is None or option.protocol.id == protocol)]
    return sorted(found, key=_sort_key)


@expects(distance_m="m")
def fastest_by_protocol(distance_m: float, wires: Wires | None = None) -> dict[str, Option | None]:
    """For every protocol, the medium to use at a distance (None when none of its media reaches).

    Parameters
    ----------
    distance_m : float
        Distance in m (or a length Quantity).
    wires : Wires, optional
        The data; the packaged ``wires.toml`` by default.

    Returns
    -------
    dict of str to Option or None
        Keyed by protocol id in file order. Among a protocol's media that reach, the one with the
        fewest watts per port at one end wins (unknown power last), then the shorter reach.

    Examples
    --------
    >>> at_3m = fastest_by_protocol(3)
    >>> at_3m["ib-ndr"].medium.id, at_3m["nvlink5"] is None
    ('dac-100g-pam4', True)
    >>> fastest_by_protocol(11)["ib-xdr"].medium.id
    'dr4-xdr'
    """
    data = wires or get_wires()
    return {pid: next(iter(media_reaching(distance_m, protocol=pid, wires=data)), None) for pid in data.protocols}


@expects(distance_m="m")
def fastest_option(distance_m: float, wires: Wires | None = None) -> Option | None:
    """Find the fastest real link at a distance (ties go to the fewer watts per port), or None.

    Parameters
    ----------
    distance_m : float
        Distance in m (or a length Quantity).
    wires : Wires, optional
        The data; the packaged ``wires.toml`` by default.

    Returns
    -------
    Option or None
        The first of :func:`media_reaching`.

    Examples
    --------
    >>> fastest_option(1.5).label()
    'NVLink 5 (B200, GB200, B300, GB300) over NVLink copper spine (GB200/GB300 NVL72)'
    >>> fastest_option(1_000_000) is None
    True
    """
    return next(iter(media_reaching(distance_m, wires=wires)), None)
