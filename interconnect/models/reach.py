"""Reach: how far each link carries its rate, what distance costs in time, and what it does to training.

Speed and reach are two different numbers. A link's *rate* says how many bytes per second it moves;
its *reach* says how far it can move them at all. Past its reach a link does not get slower, it
stops working, and nothing about its rate helps. This module holds the arithmetic of the Reach page
and the ``interconnect reach`` command:

* the distance a person types (``"11 m"``, ``"3 ft"``, ``"2 light-seconds"``), read with the shared
  strict parser and clamped to 10 cm .. 20,000 km;
* which catalog links reach a distance (every link with a ``reach`` figure), the fastest that still
  does, and the rate lost at each step outwards (:func:`media_with_reach`, :func:`leash_steps`);
* propagation per medium (fibre, twinax copper, multi-core copper, vacuum), round trip and the
  bandwidth-delay product (:data:`PROPAGATION`, :func:`one_way_delay_s`, :func:`bdp_bytes`);
* timeout arithmetic: the distance at which a round trip outlasts a handshake timeout, for the
  parallel-cable story and InfiniBand's ACK timer (:data:`TIMEOUTS`, :func:`ib_ack_timeout_s`);
* an all-reduce split between two sites as they move apart (:func:`two_site_allreduce`), built on
  :mod:`interconnect.models.collectives`.

Units live in the names (``distance_m``, ``delay_s_per_m``, ``rate_gbps`` = GB/s, ``time_us``);
pint appears only where text is read. Nothing here imports Streamlit or Plotly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from interconnect.catalog import Link
from interconnect.models.cluster import Cluster
from interconnect.models.collectives import allreduce, ring_allreduce_time_us
from interconnect.units import Q_, QuantityInputError, expects, format_quantity, parse_quantity

__all__ = [
    "BLURAY_BYTES",
    "DEFAULT_DISTANCE",
    "EPISODE",
    "GAP_MEDIA",
    "IEEE1284_CABLE_M",
    "LANDMARKS",
    "LAPLINK_CONDUCTORS",
    "INTERLNK_TAPE_BACKUP_BYTES_PER_S",
    "MAX_DISTANCE_M",
    "MIN_DISTANCE_M",
    "NCCL_BUFFSIZE_BYTES",
    "NCCL_IB_RETRY_CNT_DEFAULT",
    "NCCL_IB_TIMEOUT_BY_VERSION",
    "NCCL_IB_TIMEOUT_DEFAULT",
    "NET_HOP_US",
    "PLIP_RANGE_M",
    "PROPAGATION",
    "SPEED_OF_LIGHT_M_PER_S",
    "TIMEOUTS",
    "DistanceReading",
    "Landmark",
    "LeashStep",
    "LinkReach",
    "Propagation",
    "TimeoutCase",
    "TwoSiteAllreduce",
    "bdp_bytes",
    "bdp_in_words",
    "distance_at_timeout_m",
    "distance_text",
    "fastest_reaching",
    "handshake_limited_rate_bytes_per_s",
    "ib_ack_timeout_s",
    "ib_give_up_s",
    "leash_steps",
    "links_without_reach",
    "media_with_reach",
    "nearest_landmark",
    "one_way_delay_s",
    "propagation_for",
    "propagation_medium_of",
    "reach_rows",
    "read_distance",
    "round_trip_s",
    "two_site_allreduce",
    "two_site_cluster",
    "window_limited_rate_bytes_per_s",
]

# --- constants with their sources ---------------------------------------------------------------

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


# --- propagation, round trip, bandwidth-delay product --------------------------------------------


@expects(distance_m="m", delay_s_per_m="s/m")
def one_way_delay_s(distance_m: float | np.ndarray, delay_s_per_m: float) -> float | np.ndarray:
    r"""Compute the one-way propagation time over a distance.

    Parameters
    ----------
    distance_m : float or numpy.ndarray
        Distance in m (or a length Quantity).
    delay_s_per_m : float
        One-way delay of the medium in s/m (:attr:`Propagation.delay_s_per_m`).

    Returns
    -------
    float or numpy.ndarray
        Propagation time in s, the shape of ``distance_m``.

    Notes
    -----
    .. math:: t_1 = d \, \tau = d \, n_g / c

    with :math:`\tau` the delay per metre of the medium. For silica fibre the group index
    :math:`n_g \approx 1.468` (sources ``hnkoptic-fibre``, ``mapyourtech-fibre``) and
    :math:`c = 299\,792\,458` m/s exactly (``nist-speed-of-light``), so
    :math:`\tau \approx 4.9` µs/km. Transceivers, switches and amplifiers add to this;
    propagation is the floor no engineering removes.

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> fibre = PROPAGATION["fibre"].delay_s_per_m
    >>> f"{one_way_delay_s(1_000_000, fibre) * 1e3:.2f} ms"
    '4.90 ms'
    >>> f"{one_way_delay_s(Q_(1000, 'km'), fibre) * 1e3:.2f} ms"
    '4.90 ms'
    """
    return distance_m * delay_s_per_m


@expects(distance_m="m", delay_s_per_m="s/m")
def round_trip_s(distance_m: float | np.ndarray, delay_s_per_m: float) -> float | np.ndarray:
    r"""Compute the round-trip propagation time over a distance: there and back.

    Parameters
    ----------
    distance_m : float or numpy.ndarray
        One-way distance in m (or a length Quantity).
    delay_s_per_m : float
        One-way delay of the medium in s/m.

    Returns
    -------
    float or numpy.ndarray
        Round-trip time in s.

    Notes
    -----
    .. math:: \mathrm{RTT} = 2 \, d \, \tau

    Propagation only (see :func:`one_way_delay_s` for :math:`\tau` and its sources).

    Examples
    --------
    >>> f"{round_trip_s(11, PROPAGATION['copper-cable'].delay_s_per_m) * 1e9:.0f} ns"  # the episode's 11 m
    '110 ns'
    """
    return 2.0 * distance_m * delay_s_per_m


@expects(rate_bytes_per_s="B/s", rtt_s="s")
def bdp_bytes(rate_bytes_per_s: float | np.ndarray, rtt_s: float | np.ndarray) -> float | np.ndarray:
    r"""Compute the bandwidth-delay product: the bytes that must be in flight to keep a link busy.

    Parameters
    ----------
    rate_bytes_per_s : float or numpy.ndarray
        Link rate in B/s (or a bandwidth Quantity).
    rtt_s : float or numpy.ndarray
        Round-trip time in s.

    Returns
    -------
    float or numpy.ndarray
        Bytes in flight, B.

    Notes
    -----
    .. math:: \mathrm{BDP} = R \cdot \mathrm{RTT}

    A sender that waits for acknowledgements must have sent BDP bytes before the first one comes
    back, or the link idles (RFC 7323, section 1.1, https://www.rfc-editor.org/rfc/rfc7323#section-1.1).

    Examples
    --------
    400 Gbit/s (50 GB/s) over 1,000 km of fibre (RTT 9.8 ms):

    >>> from interconnect.units import Q_
    >>> rtt = round_trip_s(1_000_000, PROPAGATION["fibre"].delay_s_per_m)
    >>> f"{bdp_bytes(50e9, rtt) / 1e6:.0f} MB"
    '490 MB'
    >>> f"{bdp_bytes(Q_(400, 'Gbit/s'), Q_(rtt * 1e3, 'ms')) / 1e6:.0f} MB"
    '490 MB'
    """
    return rate_bytes_per_s * rtt_s


@expects(window_bytes="B", rtt_s="s")
def window_limited_rate_bytes_per_s(window_bytes: float, rtt_s: float) -> float:
    r"""Compute the most a sender can move when at most a window of bytes may be unacknowledged.

    Parameters
    ----------
    window_bytes : float
        Bytes the sender may have in flight, B.
    rtt_s : float
        Round-trip time in s.

    Returns
    -------
    float
        Rate in B/s (infinite for a zero round trip).

    Notes
    -----
    .. math:: R_{max} = W / \mathrm{RTT}

    The throughput bound of a window protocol (RFC 7323, section 1.1,
    https://www.rfc-editor.org/rfc/rfc7323#section-1.1).

    Examples
    --------
    NCCL's default buffer between two GPUs (4 MiB) over 1,000 km of fibre:

    >>> rtt = round_trip_s(1_000_000, PROPAGATION["fibre"].delay_s_per_m)
    >>> f"{window_limited_rate_bytes_per_s(NCCL_BUFFSIZE_BYTES, rtt) / 1e9:.2f} GB/s"
    '0.43 GB/s'
    """
    return math.inf if rtt_s <= 0 else window_bytes / rtt_s


@expects(bytes_per_handshake="B", rtt_s="s")
def handshake_limited_rate_bytes_per_s(bytes_per_handshake: float, rtt_s: float) -> float:
    r"""Compute the most a lock-step handshake can move: one acknowledged transfer per round trip.

    Parameters
    ----------
    bytes_per_handshake : float
        Bytes moved per handshake, B (half a byte for a nibble).
    rtt_s : float
        Round-trip time in s.

    Returns
    -------
    float
        Rate in B/s (infinite for a zero round trip).

    Notes
    -----
    .. math:: R_{max} = b / \mathrm{RTT}

    Our derivation: a sender that waits for each transfer's acknowledgement before the next moves
    :math:`b` bytes per round trip, a window protocol whose window is one transfer.

    Examples
    --------
    A LapLink cable (PLIP mode 0) sends one nibble per handshake, so over the episode's 11 m of
    copper propagation alone would allow

    >>> rtt = round_trip_s(11, PROPAGATION["copper-cable"].delay_s_per_m)
    >>> f"{handshake_limited_rate_bytes_per_s(0.5, rtt) / 1e6:.1f} MB/s"
    '4.5 MB/s'

    far beyond the roughly 50 kB/s quoted for nibble mode (``ieee1284-nibble-tutorial``): the port
    and its software, not the wire's length, set the speed.
    """
    return math.inf if rtt_s <= 0 else bytes_per_handshake / rtt_s


def _count(number: float) -> str:
    """Write a count in words: ``4.2``, ``42``, ``1,020``, ``4.2 billion``."""
    for factor, word in ((1e12, " trillion"), (1e9, " billion"), (1e6, " million")):
        if number >= factor:
            scaled = number / factor
            return (f"{scaled:.2g}" if scaled < 10 else f"{scaled:.0f}") + word
    return f"{number:.2g}" if number < 10 else f"{number:,.0f}"


def bdp_in_words(bdp: float) -> str:
    """Put a bandwidth-delay product in human terms, against one 50 GB Blu-ray disc.

    Parameters
    ----------
    bdp : float
        Bytes in flight, B (from :func:`bdp_bytes`).

    Returns
    -------
    str
        The amount and how many round trips one disc takes (or how many discs are in flight).

    Examples
    --------
    >>> bdp_in_words(1.2e9)
    '1.2 GB in flight: a Blu-ray every 42 round trips'
    >>> bdp_in_words(49e6)
    '49 MB in flight: a Blu-ray every 1,020 round trips'
    >>> bdp_in_words(125e9)
    '125 GB in flight: 2.5 Blu-rays on the way at any moment'
    >>> bdp_in_words(12)
    '12 B in flight: a Blu-ray every 4.2 billion round trips'
    """
    amount = format_quantity(Q_(bdp, "B"))
    if bdp >= BLURAY_BYTES:
        return f"{amount} in flight: {bdp / BLURAY_BYTES:.2g} Blu-rays on the way at any moment"
    if bdp <= 0:
        return "nothing in flight"
    return f"{amount} in flight: a Blu-ray every {_count(BLURAY_BYTES / bdp)} round trips"


# --- distance input -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DistanceReading:
    """A distance read from text: the metres used, the text to show, and why it was changed (if)."""

    distance_m: float
    text: str
    warning: str = ""


@expects(distance_m="m")
def distance_text(distance_m: float) -> str:
    """Write a distance as a person would: ``11 m``, ``2.5 km``, ``30 cm``.

    Parameters
    ----------
    distance_m : float
        Distance in m (or a length Quantity).

    Returns
    -------
    str
        Four significant figures at most, in cm below 1 m and km from 1 km.

    Examples
    --------
    >>> distance_text(11), distance_text(0.3), distance_text(2_000_000), distance_text(1.5)
    ('11 m', '30 cm', '2000 km', '1.5 m')
    >>> from interconnect.units import Q_
    >>> distance_text(20_000_000), distance_text(Q_(3, "ft"))
    ('20000 km', '91.44 cm')
    """
    if distance_m >= 1000:
        value, unit = distance_m / 1000, "km"
    elif distance_m < 1:
        value, unit = distance_m * 100, "cm"
    else:
        value, unit = distance_m, "m"
    return f"{float(f'{value:.4g}'):g} {unit}"


def read_distance(text: object) -> DistanceReading:
    """Read a typed distance with the project's strict parser and clamp it to 10 cm .. 20,000 km.

    Parameters
    ----------
    text : str
        What the person typed (``"11 m"``, ``"3 ft"``, ``"2 light-seconds"``).

    Returns
    -------
    DistanceReading
        The distance used in m, the text to show and a warning when it was clamped.

    Raises
    ------
    interconnect.units.QuantityInputError
        When the text is not a length; the message says what was expected and what arrived.

    Notes
    -----
    Zero, negative and astronomical lengths are clamped, with a warning in our own formatting
    (typed text is never echoed).

    Examples
    --------
    >>> read_distance("11 m")
    DistanceReading(distance_m=11.0, text='11 m', warning='')
    >>> f"{read_distance('3 ft').distance_m:.4f} m"
    '0.9144 m'
    >>> read_distance("2 light-seconds").warning
    '599585 km is beyond 20,000 km, about half way round the planet; using 20000 km'
    >>> read_distance("-5 m").text
    '10 cm'
    """
    if not isinstance(text, str):
        raise QuantityInputError("expected a length like '3 m', got nothing usable")
    stripped = " ".join(text.split())
    negative = stripped.startswith("-")
    parsed = parse_quantity(stripped[1:] if negative else stripped, "length", allow_zero=True)
    metres = float(parsed.quantity.to("m").magnitude)
    shown = stripped
    if negative and metres > 0:
        return DistanceReading(MIN_DISTANCE_M, distance_text(MIN_DISTANCE_M),
                               f"a distance cannot be negative (-{distance_text(metres)}); "
                               f"using {distance_text(MIN_DISTANCE_M)}")
    if metres < MIN_DISTANCE_M:
        reason = "a distance of zero" if metres == 0 else f"{distance_text(metres)} is below 10 cm"
        return DistanceReading(MIN_DISTANCE_M, distance_text(MIN_DISTANCE_M),
                               f"{reason} is off this page's scale; using {distance_text(MIN_DISTANCE_M)}")
    if metres > MAX_DISTANCE_M:
        return DistanceReading(
            MAX_DISTANCE_M, distance_text(MAX_DISTANCE_M),
            f"{metres / 1000:.6g} km is beyond 20,000 km, about half way round the planet; "
            f"using {distance_text(MAX_DISTANCE_M)}",
        )
    return DistanceReading(metres, shown, parsed.note)


@dataclass(frozen=True)
class Landmark:
    """A familiar distance on the slider, for orientation (not a hardware figure)."""

    distance_m: float
    label: str
    note: str = ""


#: Orientation marks for the log slider. They are rough scales, not specifications, except where a
#: note gives a source.
LANDMARKS: tuple[Landmark, ...] = (
    Landmark(0.3, "across a board", "GPUs on one baseboard sit tens of centimetres apart"),
    Landmark(2.0, "across a rack", "GB200 NVL72's NVLink copper runs stay inside one rack, about 1-2 m"),
    Landmark(20.0, "along a row of racks"),
    Landmark(200.0, "across a building"),
    Landmark(2_000.0, "across a campus", "the reach of 400G FR4 single-mode optics"),
    Landmark(40_000.0, "across a metro area", "the reach NVIDIA gives for MetroX InfiniBand"),
    Landmark(500_000.0, "across a region"),
    Landmark(3_965_000.0, "across a continent",
             "New York to Los Angeles, great circle (http://blog.wesleyac.com/posts/ping-lightspeed)"),
    Landmark(MAX_DISTANCE_M, "half way round the planet",
             "half of the equator's 40,075 km (https://nssdc.gsfc.nasa.gov/planetary/factsheet/earthfact.html)"),
)


@expects(distance_m="m")
def nearest_landmark(distance_m: float) -> Landmark:
    r"""Find the landmark closest to a distance on a log scale.

    Parameters
    ----------
    distance_m : float
        Distance in m (or a length Quantity).

    Returns
    -------
    Landmark
        The entry of :data:`LANDMARKS` nearest in :math:`\log_{10} d`.

    Examples
    --------
    >>> nearest_landmark(11).label
    'along a row of racks'
    >>> from interconnect.units import Q_
    >>> nearest_landmark(Q_(4000, "km")).label
    'across a continent'
    """
    return min(LANDMARKS, key=lambda mark: abs(math.log10(mark.distance_m) - math.log10(max(distance_m, 1e-9))))


# --- which links reach --------------------------------------------------------------------------


@dataclass(frozen=True)
class LinkReach:
    """A catalog link seen from the Reach page: its rate, its reach and what its signal travels in."""

    id: str
    name: str
    layer: str
    rate_gbps: float  # GB/s per direction (a half-duplex link's shared rate)
    reach_m: float
    reach_basis: str
    medium_id: str
    medium_inferred: bool
    delay_s_per_m: float

    @expects(distance_m="m")
    def reaches(self, distance_m: float) -> bool:
        """Say whether the link's reach covers a distance (a boundary distance counts as reached).

        Parameters
        ----------
        distance_m : float
            Distance in m (or a length Quantity).

        Returns
        -------
        bool
            True when ``distance_m`` is at most the reach, within a relative 1e-9.

        Examples
        --------
        >>> from interconnect.units import Q_
        >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 2.0, "spec", "copper-twinax", False, 4.5e-9)
        >>> dac.reaches(2.0), dac.reaches(Q_(3, "m"))
        (True, False)
        """
        return distance_m <= self.reach_m * (1 + 1e-9)

    @expects(distance_m="m")
    def rtt_s(self, distance_m: float) -> float:
        r"""Compute the round trip over a distance in this link's medium.

        Parameters
        ----------
        distance_m : float
            Distance in m (or a length Quantity).

        Returns
        -------
        float
            Round-trip time in s, :math:`2 d \tau` (:func:`round_trip_s`).

        Examples
        --------
        >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 2.0, "spec", "copper-twinax", False, 4.5e-9)
        >>> f"{dac.rtt_s(2.0) * 1e9:.0f} ns"
        '18 ns'
        """
        return float(round_trip_s(distance_m, self.delay_s_per_m))

    @expects(distance_m="m")
    def bdp_bytes(self, distance_m: float) -> float:
        """Compute the bytes in flight at this link's rate over a distance.

        Parameters
        ----------
        distance_m : float
            Distance in m (or a length Quantity).

        Returns
        -------
        float
            Bytes in flight, B: the rate (GB/s x 1e9) times :meth:`rtt_s` (:func:`bdp_bytes`).

        Examples
        --------
        >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 2.0, "spec", "copper-twinax", False, 4.5e-9)
        >>> f"{dac.bdp_bytes(2.0):.0f} B"
        '900 B'
        """
        return float(bdp_bytes(self.rate_gbps * 1e9, self.rtt_s(distance_m)))


def _reach_row(link: Link, catalog: object | None) -> LinkReach | None:
    if link.reach is None:
        return None
    try:
        reach_m = float(link.reach.quantity.to("m").magnitude)
        rate = float(link.bandwidth.per_direction().to("GB/s").magnitude)
    except Exception:  # a figure that is not a length or a rate: not a medium for this page
        return None
    if not (math.isfinite(reach_m) and reach_m > 0 and math.isfinite(rate) and rate > 0):
        return None
    medium_id, inferred = propagation_medium_of(link)
    propagation = propagation_for(medium_id, catalog)
    return LinkReach(link.id, link.name, link.layer, rate, reach_m, link.reach.basis, propagation.id, inferred,
                     propagation.delay_s_per_m)


def media_with_reach(links: Iterable[Link], catalog: object | None = None) -> list[LinkReach]:
    """List every link with a usable reach figure, shortest reach first (fastest first at equal reach).

    Parameters
    ----------
    links : iterable of interconnect.catalog.Link
        Catalog links; those without a reach (the catalog says "not found" rather than guess) are
        left out, see :func:`links_without_reach`.
    catalog : interconnect.catalog.Catalog, optional
        Where to look up each medium's propagation (:func:`propagation_for`).

    Returns
    -------
    list of LinkReach
        Rate in GB/s per direction, reach in m and delay in s/m per link.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> rows = media_with_reach(get_catalog().links.values())
    >>> all(a.reach_m <= b.reach_m for a, b in zip(rows, rows[1:]))
    True
    """
    rows = [row for link in links if (row := _reach_row(link, catalog)) is not None]
    return sorted(rows, key=lambda row: (row.reach_m, -row.rate_gbps, row.name))


def reach_rows(wires: Any = None, catalog: Any = None) -> list[LinkReach]:
    """List the Reach page's points: every medium of ``wires.toml``, then the catalog's other links.

    Parameters
    ----------
    wires : interconnect.models.wires.Wires, optional
        The protocols and media; the packaged ``wires.toml`` by default.
    catalog : interconnect.catalog.Catalog, optional
        The catalog; the packaged one by default.

    Returns
    -------
    list of LinkReach
        One row per medium, at the rate of the fastest protocol it carries, with the chart layer of
        its kind (:data:`~interconnect.models.wires.KIND_LAYERS`); then every catalog link with a reach
        that the wires file does not describe again (old parallel and serial cables, MetroX, long-haul
        wavelengths), shortest reach first as in :func:`media_with_reach`.

    Examples
    --------
    >>> rows = {row.id: row for row in reach_rows()}
    >>> rows["sr8-800g"].rate_gbps, rows["sr8-800g"].reach_m, rows["sr8-800g"].layer
    (100.0, 50.0, 'cable')
    >>> "laplink-parallel" in rows, "ib-ndr" in rows, "400zr" in rows and rows["400zr"].name.startswith("OIF")
    (True, False, True)
    """
    from interconnect.catalog import get_catalog
    from interconnect.models.wires import KIND_LAYERS, get_wires

    data = wires or get_wires()
    catalog = catalog or get_catalog()
    rows = []
    for medium in data.media.values():
        propagation = propagation_for(medium.propagation, catalog)
        rows.append(LinkReach(medium.id, medium.name, KIND_LAYERS.get(medium.kind, "cable"),
                              data.fastest_carried(medium.id).rate_gbps, medium.reach_m, medium.reach.basis,
                              propagation.id, False, propagation.delay_s_per_m))
    covered = data.catalog_link_ids()
    others = [link for link in catalog.links.values() if link.id not in covered]
    rows += media_with_reach(others, catalog)
    return sorted(rows, key=lambda row: (row.reach_m, -row.rate_gbps, row.name))


def links_without_reach(links: Iterable[Link]) -> list[Link]:
    """List the links the catalog gives no reach for (they cannot be placed on a distance scale).

    Parameters
    ----------
    links : iterable of interconnect.catalog.Link
        Catalog links.

    Returns
    -------
    list of interconnect.catalog.Link
        Those whose ``reach`` is None.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> links = list(get_catalog().links.values())
    >>> len(links_without_reach(links)) + len(media_with_reach(links)) <= len(links)
    True
    """
    return [link for link in links if link.reach is None]


@expects(distance_m="m")
def fastest_reaching(media: Sequence[LinkReach], distance_m: float) -> LinkReach | None:
    """Find the fastest link whose reach covers a distance.

    Parameters
    ----------
    media : sequence of LinkReach
        Candidate links (from :func:`media_with_reach`).
    distance_m : float
        Distance in m (or a length Quantity).

    Returns
    -------
    LinkReach or None
        The highest ``rate_gbps`` among links that reach (the shorter reach breaks a tie: the link
        that only just reaches is the usual choice), or None when nothing catalogued reaches.

    Examples
    --------
    >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 1.5, "spec", "copper-twinax", False, 4.5e-9)
    >>> fibre = LinkReach("lr", "LR", "cable", 12.5, 10_000, "spec", "fibre", False, 4.9e-6 / 1000)
    >>> fastest_reaching([dac, fibre], 1.5).id, fastest_reaching([dac, fibre], 30).id
    ('dac', 'lr')
    >>> fastest_reaching([dac, fibre], 20_000) is None
    True
    """
    reaching = [row for row in media if row.reaches(distance_m)]
    return max(reaching, key=lambda row: (row.rate_gbps, -row.reach_m), default=None)


@dataclass(frozen=True)
class LeashStep:
    """One step of the leash: up to ``reach_m`` the fastest link that still reaches is ``link``.

    ``lost_factor`` is how many times slower this step is than the one inside it (1 for the first).
    """

    reach_m: float
    link: LinkReach
    lost_factor: float


def leash_steps(media: Sequence[LinkReach]) -> list[LeashStep]:
    r"""List the fastest rate available at each distance, as steps going outwards.

    Parameters
    ----------
    media : sequence of LinkReach
        Candidate links (from :func:`media_with_reach`).

    Returns
    -------
    list of LeashStep
        One step per link that is ever the fastest, ordered by reach (m), with the factor of rate
        lost against the step inside it.

    Notes
    -----
    The envelope

    .. math:: R(d) = \max \{ R_i : \mathrm{reach}_i \ge d \}

    falls in steps; each step ends at the reach of the link that was fastest inside it. A slower
    link that never wins (a 15 m parallel cable) does not appear. This construction is ours.

    Examples
    --------
    >>> fast = LinkReach("nv", "NVLink", "scale-up", 900.0, 2.0, "spec", "copper-cable", False, 5e-9)
    >>> optic = LinkReach("zr", "800ZR", "long-reach", 100.0, 120_000, "spec", "fibre", False, 4.9e-9)
    >>> slow = LinkReach("lpt", "LapLink", "historical", 1.2e-5, 15.0, "spec", "copper-cable", False, 5e-9)
    >>> [(s.link.id, s.reach_m, round(s.lost_factor)) for s in leash_steps([fast, optic, slow])]
    [('nv', 2.0, 1), ('zr', 120000, 9)]
    """
    steps: list[LeashStep] = []
    inner = 0.0
    while True:
        candidates = [row for row in media if row.reach_m > inner * (1 + 1e-9)]
        if not candidates:
            return steps
        # Among links as fast as the best, the one that reaches farthest ends the step.
        best = max(candidates, key=lambda row: (row.rate_gbps, row.reach_m))
        lost = steps[-1].link.rate_gbps / best.rate_gbps if steps else 1.0
        steps.append(LeashStep(best.reach_m, best, lost))
        inner = best.reach_m


# --- timeouts -----------------------------------------------------------------------------------


def ib_ack_timeout_s(exponent: int) -> float:
    r"""Compute InfiniBand's local ACK timeout for the exponent t.

    Parameters
    ----------
    exponent : int
        The timeout exponent t (``NCCL_IB_TIMEOUT``); 0 or 32 and above means the timer never fires.

    Returns
    -------
    float
        Timeout in s (``inf`` when it never fires).

    Notes
    -----
    .. math:: T_{ack} = 4.096\,\mu\mathrm{s} \times 2^{t}

    InfiniBand Architecture Specification Vol. 1, 12.7.34, as quoted in NCCL's documentation of
    ``NCCL_IB_TIMEOUT`` (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout).
    NCCL's default t = 20 (since 2.23) gives about 4.3 s per try; with the first try and its 7
    retries that is 34 s before NCCL reports a network error (:func:`ib_give_up_s`).

    Examples
    --------
    >>> f"{ib_ack_timeout_s(NCCL_IB_TIMEOUT_DEFAULT):.2f} s", f"{ib_ack_timeout_s(14) * 1e3:.1f} ms"
    ('4.29 s', '67.1 ms')
    >>> ib_ack_timeout_s(0)
    inf
    """
    t = int(exponent)
    if t <= 0 or t >= 32:
        return math.inf
    return IB_ACK_TIMEOUT_UNIT_S * 2.0**t


def ib_give_up_s(exponent: int, retries: int = NCCL_IB_RETRY_CNT_DEFAULT) -> float:
    r"""Compute how long a reliable InfiniBand connection waits before it reports a lost peer.

    Parameters
    ----------
    exponent : int
        The timeout exponent t (``NCCL_IB_TIMEOUT``).
    retries : int, default 7
        ``NCCL_IB_RETRY_CNT``: retransmissions after the first try.

    Returns
    -------
    float
        Seconds: the first try and every retry each wait one ACK timeout.

    Notes
    -----
    .. math:: T_{give\,up} = (1 + r) \, T_{ack}(t)

    Our count: the retry count is the number of retransmissions (InfiniBand specification Vol. 1,
    12.7.38, as NCCL's documentation cites it), so the sender waits one more timeout than it retries.
    NCCL's documentation rounds its defaults to "approximately 30 seconds (7 retries, each lasting
    4.3 seconds)", leaving the first try out.

    Examples
    --------
    >>> f"{ib_give_up_s(NCCL_IB_TIMEOUT_DEFAULT):.1f} s"
    '34.4 s'
    >>> [f"{ib_give_up_s(t):.3g} s" for _, t in NCCL_IB_TIMEOUT_BY_VERSION]
    ['0.537 s', '8.59 s', '34.4 s']
    """
    return (1 + max(0, int(retries))) * ib_ack_timeout_s(exponent)


@expects(timeout_s="s", delay_s_per_m="s/m")
def distance_at_timeout_m(timeout_s: float, delay_s_per_m: float) -> float:
    r"""Compute the longest link whose round trip still fits inside a timeout.

    Parameters
    ----------
    timeout_s : float
        Handshake timeout in s (or a time Quantity); ``inf`` never times out.
    delay_s_per_m : float
        One-way delay of the medium in s/m.

    Returns
    -------
    float
        Distance in m.

    Notes
    -----
    .. math:: d_{max} = \frac{T}{2 \tau}

    Our rearrangement of :math:`\mathrm{RTT} = 2 d \tau \le T` (propagation only).

    Examples
    --------
    Propagation alone would time PLIP's 500 µs trigger out after about 50 km of copper cable;
    NCCL's default InfiniBand timeout only beyond the Moon (about 384,400 km away):

    >>> f"{distance_at_timeout_m(500e-6, PROPAGATION['copper-cable'].delay_s_per_m) / 1000:.0f} km"
    '50 km'
    >>> f"{distance_at_timeout_m(ib_ack_timeout_s(20), PROPAGATION['fibre'].delay_s_per_m) / 1000:,.0f} km"
    '438,555 km'
    """
    return math.inf if not math.isfinite(timeout_s) else timeout_s / (2.0 * delay_s_per_m)


@dataclass(frozen=True)
class TimeoutCase:
    """A handshake timeout the page compares round trips with."""

    id: str
    label: str
    timeout_s: float
    medium_id: str
    source: str
    note: str = ""


#: The timeouts of the story, each with its source.
TIMEOUTS: tuple[TimeoutCase, ...] = (
    TimeoutCase(
        "plip-trigger", "PLIP trigger timeout (Linux, parallel cable)", 500e-6, "copper-cable",
        "Linux drivers/net/plip/plip.c PLIP_TRIGGER_WAIT 500 (us) and Documentation/networking/plip.rst "
        "(https://github.com/torvalds/linux/blob/master/Documentation/networking/plip.rst)",
        "How long the sender waits for the other side to answer the first nibble of a packet.",
    ),
    TimeoutCase(
        "plip-nibble", "PLIP nibble timeout (Linux, parallel cable)", 3000e-6, "copper-cable",
        "Linux drivers/net/plip/plip.c PLIP_NIBBLE_WAIT 3000 (us) "
        "(https://github.com/torvalds/linux/blob/master/drivers/net/plip/plip.c)",
        "How long each later nibble may wait for its acknowledgement.",
    ),
    TimeoutCase(
        "ib-t14", "InfiniBand ACK timeout, t = 14 (NCCL's default before 2.14)", ib_ack_timeout_s(14), "fibre",
        "NVIDIA NCCL docs/userguide/source/env.rst, NCCL_IB_TIMEOUT "
        "(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout)",
    ),
    TimeoutCase(
        "ib-t18", "InfiniBand ACK timeout, t = 18 (NCCL's default from 2.14 to 2.22)", ib_ack_timeout_s(18),
        "fibre",
        "NVIDIA NCCL docs/userguide/source/env.rst, NCCL_IB_TIMEOUT "
        "(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout)",
    ),
    TimeoutCase(
        "ib-t20", "InfiniBand ACK timeout, t = 20 (NCCL's default since 2.23)",
        ib_ack_timeout_s(NCCL_IB_TIMEOUT_DEFAULT), "fibre",
        "NVIDIA NCCL docs/userguide/source/env.rst, NCCL_IB_TIMEOUT "
        "(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout)",
        "The first try and 7 retries of 4.3 s each: 8 x 4.3 s = 34 s before NCCL reports a network error "
        "(NCCL's page rounds it to 'approximately 30 seconds', counting the retries only).",
    ),
)


@dataclass(frozen=True)
class _Episode:
    """What the episode says about the parallel cable; none of it was found in a source."""

    rated_length_m: float
    rate_bytes_per_s: float
    distance_m: float
    claim: str


#: The episode's own figures, always shown as the episode's: a LapLink cable "rated for three
#: metres", "maybe sixty kilobytes a second", a shop counter and back office 11 m apart, and the
#: explanation that "the signal round trip was longer than the handshake allowed".
EPISODE = _Episode(3.0, 60e3, 11.0, "The port timed out because the signal round trip was longer than the "
                   "handshake allowed.")

#: What the sources say instead (each with its source, for the page's "what the sources say" box).
IEEE1284_CABLE_M = {"AB (older)": 6.0, "IEEE 1284 CC": 10.0}  # http://www.connectworld.net/ieee1284.html
PLIP_RANGE_M = 15.0  # "Limited range, 15 m", Linux Documentation/networking/plip.rst
#: A null-printer (LapLink) cable joins ten signal pins crosswise plus pins 17 and 25 (ground): 12
#: conductors (pin table in Linux Documentation/networking/plip.rst, "Parallel Transfer Mode 0 Cable").
LAPLINK_CONDUCTORS = 12
#: Not a LapLink speed: a laptop backed up to a desktop's *tape drive* over DOS 6 INTERLNK and a
#: LapLink cable, compressed, moved 1.7 MB in 2 min 22 s with the tape's start and stop included,
#: "700K per minute" (http://freeholdcomputer.com/htdocs/interlnk.html), about 12 kB/s. The tape, the
#: compression and the software set that figure, so no published LapLink cable speed was found.
INTERLNK_TAPE_BACKUP_BYTES_PER_S = 700e3 / 60


# --- what distance does to an all-reduce between two sites --------------------------------------

#: NCCL's per-hop latency for a ring step across the network with the bulk (Simple) protocol:
#: tuning.cc hwLat[NET][Ring][Simple] = 14 us (NVIDIA/nccl 5067397c). The fabric's extra per-hop
#: latency (:attr:`Cluster.net_hop_latency_us`) is added to it, as the collective model does.
NET_HOP_US = 14.0


@dataclass(frozen=True, eq=False)
class TwoSiteAllreduce:
    """All-reduce time per training step for a cluster split between two sites, against distance.

    Arrays have one entry per distance in ``distance_m``. Times are µs.
    """

    distance_m: np.ndarray
    gap_delay_us: np.ndarray
    ring_us: np.ndarray
    hierarchical_us: np.ndarray
    periodic_us: np.ndarray
    ring_local_us: float
    hierarchical_local_us: float
    site_us: float
    cross_local_us: float
    ranks: int
    ranks_per_site: int
    ring_gap_steps: int
    hierarchical_gap_steps: int
    sync_every: int
    size_bytes: float
    medium_id: str
    delay_s_per_m: float
    notes: tuple[str, ...] = ()

    def at(self, index: int) -> dict[str, float]:
        """Return the three times at one of the computed distances.

        Parameters
        ----------
        index : int
            Index into :attr:`distance_m`.

        Returns
        -------
        dict of str to float
            ``ring``, ``hierarchical`` and ``periodic`` times per training step, µs.

        Examples
        --------
        >>> from interconnect.models.cluster import resolve_cluster
        >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
        >>> result = two_site_allreduce(cluster, 2**30, [0.0, 1e6])
        >>> result.at(1) == result.at_distance(1e6)
        True
        """
        return {"ring": float(self.ring_us[index]), "hierarchical": float(self.hierarchical_us[index]),
                "periodic": float(self.periodic_us[index])}

    @expects(distance_m="m")
    def at_distance(self, distance_m: float) -> dict[str, float]:
        """Return the three times (µs) at any distance, from the same closed forms (no new collective run).

        Parameters
        ----------
        distance_m : float
            Distance between the sites in m (or a length Quantity).

        Returns
        -------
        dict of str to float
            ``ring``, ``hierarchical`` and ``periodic`` times per training step, µs
            (the formulas of :func:`two_site_allreduce`).

        Examples
        --------
        >>> from interconnect.models.cluster import resolve_cluster
        >>> from interconnect.units import Q_
        >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
        >>> result = two_site_allreduce(cluster, 2**30, [0.0])
        >>> far = result.at_distance(Q_(1000, "km"))
        >>> f"{(far['ring'] - result.ring_us[0]) / 1e3:.0f} ms"
        '304 ms'
        """
        gap_us = distance_m * self.delay_s_per_m * 1e6
        hierarchical = self.hierarchical_local_us + self.hierarchical_gap_steps * gap_us
        return {"ring": self.ring_local_us + self.ring_gap_steps * gap_us, "hierarchical": hierarchical,
                "periodic": hierarchical / self.sync_every}


def two_site_cluster(cluster: Cluster) -> tuple[Cluster, str]:
    """Split a cluster into two equal sites, with no NVLink domain spanning them.

    Parameters
    ----------
    cluster : Cluster
        The cluster as if in one building.

    Returns
    -------
    cluster : Cluster
        The cluster to model: an even node count (at least two), and scale-up domains of at most
        one site's GPUs.
    note : str
        What had to change, or ``""``.

    Notes
    -----
    NVLink does not leave a building: each site gets half of the nodes (an odd count is rounded up)
    and its own scale-up domains.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=3)
    >>> split, note = two_site_cluster(cluster)
    >>> split.nodes, split.domains, note
    (4, 4, 'Two equal sites: using 4 nodes (2 per site) instead of 3.')
    """
    nodes = max(2, cluster.nodes + cluster.nodes % 2)
    per_site_gpus = cluster.gpus_per_node * nodes // 2
    domain = min(cluster.scaleup_domain, per_site_gpus)
    notes = []
    if nodes != cluster.nodes:
        notes.append(f"Two equal sites: using {nodes} nodes ({nodes // 2} per site) instead of {cluster.nodes}.")
    if domain < min(cluster.scaleup_domain, cluster.ranks):
        notes.append(f"NVLink does not cross between the sites: each site's NVLink domain holds its own "
                     f"{domain} GPUs.")
    if nodes == cluster.nodes and domain == cluster.scaleup_domain:
        return cluster, ""
    return replace(cluster, nodes=nodes, scaleup_domain=domain), " ".join(notes)


@expects(size_bytes="B", distance_m="m")
def two_site_allreduce(
    cluster: Cluster,
    size_bytes: float,
    distance_m: float | Sequence[float] | np.ndarray,
    *,
    medium_id: str = "fibre",
    sync_every: int = 1,
    catalog: object | None = None,
) -> TwoSiteAllreduce:
    r"""Time an all-reduce per training step for a cluster split evenly between two sites.

    Parameters
    ----------
    cluster : Cluster
        The whole cluster; :func:`two_site_cluster` splits it.
    size_bytes : float
        All-reduce payload per GPU, B (or a data-size Quantity).
    distance_m : float or sequence of float or numpy.ndarray
        Distances between the sites, m (or a length Quantity).
    medium_id : str, default "fibre"
        The medium of the gap (a key of :data:`PROPAGATION`).
    sync_every : int, default 1
        H, the number of training steps per synchronisation for the periodic scheme.
    catalog : interconnect.catalog.Catalog, optional
        Where to look up the medium's propagation.

    Returns
    -------
    TwoSiteAllreduce
        Per distance: the ring, hierarchical and periodic times per step in µs, with the local
        terms and step counts that produced them.

    Raises
    ------
    ValueError
        When ``size_bytes`` is not a positive finite number.

    Notes
    -----
    The gap adds its one-way delay :math:`\delta = d \tau` to every step that waits for data from
    the other site. With :math:`n` ranks in all, :math:`n_s` per site, message size :math:`S` and
    NIC rate :math:`B_{NIC}` per GPU:

    * **ring** across both sites (NCCL's ring, timed by
      :func:`~interconnect.models.collectives.allreduce` for the same cluster in one building, plus
      the gap). The ring must cross the gap to close, so in the lock-step model each of its
      :math:`2(n-1)` steps (Patarasuk and Yuan, J. Parallel Distrib. Comput. 69(2), 2009,
      pp. 117-124, https://doi.org/10.1016/j.jpdc.2008.09.002) waits for a transfer across it:

      .. math:: T_{ring}(d) = T_{ring}(0) + 2(n-1)\,\delta

    * **hierarchical**: reduce inside each site (timed as one site's own all-reduce), then each GPU
      swaps its :math:`1/n_s` shard with its twin at the other site (a two-rank ring: two steps),
      then gathers inside the site. Our composition:

      .. math:: T_{hier}(d) = T_{site} + 2(\alpha_{net} + \delta) + \frac{S / n_s}{B_{NIC}}

      with :math:`\alpha_{net}` = :data:`NET_HOP_US` plus the fabric's hop latency.

    * **sync every H steps** (DiLoCo, ``arxiv-diloco``: H inner steps, then one all-reduce): the
      hierarchical all-reduce once every H steps, :math:`T_{hier}(d) / H` per step.

    Assumptions: the link between the sites carries each GPU's full NIC rate, and the NICs keep a
    bandwidth-delay product in flight. A pipelined ring (NCCL's) pays fewer delays than the
    lock-step model but needs that window; with NCCL's default 4 MiB buffer per pair it would be
    slower still at long distances (:func:`window_limited_rate_bytes_per_s`).

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.units import Q_
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> far = two_site_allreduce(cluster, 2**30, [0.0, 1_000_000.0], sync_every=100)
    >>> far.ring_gap_steps, far.hierarchical_gap_steps
    (62, 2)
    >>> f"{(far.ring_us[1] - far.ring_us[0]) / 1e3:.0f} ms"
    '304 ms'
    >>> f"{(far.hierarchical_us[1] - far.hierarchical_us[0]) / 1e3:.1f} ms"
    '9.8 ms'
    >>> same = two_site_allreduce(cluster, Q_(1, "GiB"), Q_([0, 1000], "km"), sync_every=100)
    >>> f"{same.ring_us[1] / 1e3:.0f} ms" == f"{far.ring_us[1] / 1e3:.0f} ms"
    True
    """
    if not (math.isfinite(size_bytes) and size_bytes > 0):
        raise ValueError(f"size_bytes must be a positive number, got {size_bytes!r}")
    h = max(1, int(sync_every))
    split, note = two_site_cluster(cluster)
    site = split.with_nodes(split.nodes // 2)
    n, n_site = split.ranks, site.ranks
    distances = np.atleast_1d(np.asarray(distance_m, dtype=float))
    tau = propagation_for(medium_id, catalog).delay_s_per_m
    gap_us = distances * tau * 1e6
    ring_local = float(allreduce(split, [size_bytes], "ring").time_us[0])
    site_us = float(allreduce(site, [size_bytes], "auto").time_us[0]) if n_site > 1 else 0.0
    alpha = NET_HOP_US + split.net_hop_latency_us
    cross_local = float(ring_allreduce_time_us(size_bytes / n_site, 2, alpha, split.nic_bw_per_gpu_gbps)[0])
    ring_steps, hier_steps = 2 * (n - 1), 2
    ring = ring_local + ring_steps * gap_us
    hierarchical = site_us + cross_local + hier_steps * gap_us
    return TwoSiteAllreduce(
        distance_m=distances,
        gap_delay_us=gap_us,
        ring_us=ring,
        hierarchical_us=hierarchical,
        periodic_us=hierarchical / h,
        ring_local_us=ring_local,
        hierarchical_local_us=site_us + cross_local,
        site_us=site_us,
        cross_local_us=cross_local,
        ranks=n,
        ranks_per_site=n_site,
        ring_gap_steps=ring_steps,
        hierarchical_gap_steps=hier_steps,
        sync_every=h,
        size_bytes=float(size_bytes),
        medium_id=medium_id,
        delay_s_per_m=tau,
        notes=(note,) if note else (),
    )
