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

import numpy as np

from interconnect.catalog import Link
from interconnect.models.cluster import Cluster
from interconnect.models.collectives import allreduce, ring_allreduce_time_us
from interconnect.units import Q_, QuantityInputError, format_quantity, parse_quantity

__all__ = [
    "BLURAY_BYTES",
    "DEFAULT_DISTANCE",
    "EPISODE",
    "GAP_MEDIA",
    "IEEE1284_CABLE_M",
    "LANDMARKS",
    "LAPLINK_CONDUCTORS",
    "LAPLINK_MEASURED_BYTES_PER_S",
    "MAX_DISTANCE_M",
    "MIN_DISTANCE_M",
    "NCCL_BUFFSIZE_BYTES",
    "NCCL_IB_RETRY_CNT_DEFAULT",
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
    "leash_steps",
    "links_without_reach",
    "media_with_reach",
    "nearest_landmark",
    "one_way_delay_s",
    "propagation_for",
    "propagation_medium_of",
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
#: NCCL's InfiniBand verbs timeout exponent: "The default value used by NCCL is 20 (since 2.23; it was
#: 18 since 2.14, and 14 before that)" and retry count default 7, "approximately 30 seconds of
#: waiting (7 retries, each lasting 4.3 seconds)": NVIDIA NCCL ``docs/userguide/source/env.rst``,
#: sections NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT; ``src/transport/net_ib/connect.cc``
#: ``NCCL_PARAM(IbTimeout, "IB_TIMEOUT", 20)`` (NVIDIA/nccl 5067397c).
NCCL_IB_TIMEOUT_DEFAULT = 20
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
        return 1.0 / self.delay_s_per_m

    @property
    def velocity_factor(self) -> float:
        """The speed as a fraction of the speed of light in vacuum."""
        return self.velocity_m_per_s / SPEED_OF_LIGHT_M_PER_S

    @property
    def group_index(self) -> float:
        """c over the signal's speed (about 1.47 for silica fibre)."""
        return 1.0 / self.velocity_factor


_FIBRE_GROUP_INDEX = 1.468
#: Propagation per medium. Keys match the catalog's propagation media where it has them; a catalog
#: figure, when present, wins over these (see :func:`propagation_for`).
PROPAGATION: dict[str, Propagation] = {
    "fibre": Propagation(
        "fibre", "Silica fibre", _FIBRE_GROUP_INDEX / SPEED_OF_LIGHT_M_PER_S, "spec",
        # 1.468 / c = 4.897 us/km: "4.897 us/km at 1550 nm" and 204,190 km/s (which is 68 % of c), MapYourTech,
        # "The 5 microsecond rule" (https://mapyourtech.com/the-5-microsecond-rule-fiber-propagation-latency-per-kilometer/);
        # a calculator with n = 1.4682 gives 4.90 us/km (https://redzilla.aiscnet.com/en/latencia-fibra/).
        "Group index about 1.468 (4.9 µs per km): MapYourTech, 'The 5 microsecond rule' "
        "(https://mapyourtech.com/the-5-microsecond-rule-fiber-propagation-latency-per-kilometer/)",
    ),
    "copper-twinax": Propagation(
        "copper-twinax", "Twinax copper (DAC)", 4.5e-9, "spec",
        # NVIDIA LinkX MCP4Y10 passive DAC specification, electrical table: "Time propagation delay
        # max 4.5 ns/m (informative)"; the same figure in the MCP1650 200GbE DAC specification.
        "At most 4.5 ns per metre: NVIDIA LinkX MCP4Y10 passive DAC specifications "
        "(https://docs.nvidia.com/networking/display/mcp4y10nxxx2x400pub/specifications)",
    ),
    "copper-cable": Propagation(
        "copper-cable", "Multi-core copper cable", 5.0e-9, "estimate",
        # No figure for a 1980s parallel or serial cable was found; 5 ns/m sits in the 4.8-5.3 ns/m
        # measured on Cat 5 twisted pair (about 0.64 c), electronics.stackexchange question 45492,
        # and the 40-75 % velocity of propagation of twisted pair (technologyuk.net).
        "Estimate, 5 ns per metre: Cat 5 twisted pair measures 4.8-5.3 ns/m "
        "(https://electronics.stackexchange.com/questions/45492); twisted pair runs at 40-75 % of c "
        "(https://www.technologyuk.net/telecommunications/telecom-principles/velocity-of-propagation.shtml)",
    ),
    "vacuum": Propagation(
        "vacuum", "Vacuum (free space)", 1.0 / SPEED_OF_LIGHT_M_PER_S, "spec",
        "The speed of light, exact by the SI definition of the metre "
        "(https://www.bipm.org/en/publications/si-brochure)",
    ),
}

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
    """The propagation medium of a link's *reach*, and whether it was inferred from text.

    A catalog link may name its medium (``propagation_medium``, a key of :data:`PROPAGATION` or
    of the catalog's media); otherwise the medium is read from the reach figure's note, then from
    the link's ``medium`` text, taking the word that comes first (``"copper DAC up to 2 m, optics
    beyond"`` is twinax copper for a 2 m reach). A link with no telling word is taken to be fibre, the
    medium of everything longer than a rack.

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
    """The :class:`Propagation` of a medium id, from the catalog's media when it has them.

    A catalog with a ``media`` table whose entry has a ``delay`` figure (a quantity per length)
    provides the figure; otherwise :data:`PROPAGATION`; an unknown id falls back to fibre.

    >>> f"{propagation_for('fibre').delay_s_per_m * 1e9:.3f} ns/m"
    '4.897 ns/m'
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


def one_way_delay_s(distance_m: float | np.ndarray, delay_s_per_m: float) -> float | np.ndarray:
    """Propagation time one way, in seconds.

    .. math:: t_{1} = d \\cdot \\tau = d \\, n_g / c

    with τ the delay per metre of the medium (fibre: n_g ≈ 1.468, τ ≈ 4.9 µs/km). Equipment
    (transceivers, switches, amplifiers) adds to this; propagation is the floor no engineering
    removes.

    >>> f"{one_way_delay_s(1_000_000, PROPAGATION['fibre'].delay_s_per_m) * 1e3:.2f} ms"  # 1,000 km
    '4.90 ms'
    """
    return distance_m * delay_s_per_m


def round_trip_s(distance_m: float | np.ndarray, delay_s_per_m: float) -> float | np.ndarray:
    """Round trip over a distance, in seconds: there and back, :math:`2 d \\tau`.

    >>> f"{round_trip_s(11, PROPAGATION['copper-cable'].delay_s_per_m) * 1e9:.0f} ns"  # the episode's 11 m
    '110 ns'
    """
    return 2.0 * distance_m * delay_s_per_m


def bdp_bytes(rate_bytes_per_s: float | np.ndarray, rtt_s: float | np.ndarray) -> float | np.ndarray:
    """Bandwidth-delay product: the bytes that must be in flight to keep a link busy.

    .. math:: \\mathrm{BDP} = R \\cdot \\mathrm{RTT}

    A sender that waits for acknowledgements must have sent BDP bytes before the first one comes
    back, or the link idles. 400 Gbit/s (50 GB/s) over 1,000 km of fibre (RTT 9.8 ms):

    >>> rtt = round_trip_s(1_000_000, PROPAGATION["fibre"].delay_s_per_m)
    >>> f"{bdp_bytes(50e9, rtt) / 1e6:.0f} MB"
    '490 MB'
    """
    return rate_bytes_per_s * rtt_s


def window_limited_rate_bytes_per_s(window_bytes: float, rtt_s: float) -> float:
    """The most a sender can move when at most ``window_bytes`` may be unacknowledged: window / RTT.

    NCCL's default buffer between two GPUs (4 MiB) over 1,000 km of fibre:

    >>> rtt = round_trip_s(1_000_000, PROPAGATION["fibre"].delay_s_per_m)
    >>> f"{window_limited_rate_bytes_per_s(NCCL_BUFFSIZE_BYTES, rtt) / 1e9:.2f} GB/s"
    '0.43 GB/s'
    """
    return math.inf if rtt_s <= 0 else window_bytes / rtt_s


def handshake_limited_rate_bytes_per_s(bytes_per_handshake: float, rtt_s: float) -> float:
    """The most a lock-step handshake can move: one acknowledged transfer per round trip.

    A LapLink cable (PLIP mode 0) sends half a byte, one nibble, per handshake, so over the
    episode's 11 m of copper propagation alone would allow

    >>> rtt = round_trip_s(11, PROPAGATION["copper-cable"].delay_s_per_m)
    >>> f"{handshake_limited_rate_bytes_per_s(0.5, rtt) / 1e6:.1f} MB/s"
    '4.5 MB/s'

    hundreds of times the 12 kB/s measured on such a cable: the port and its software, not the
    wire's length, set that speed.
    """
    return math.inf if rtt_s <= 0 else bytes_per_handshake / rtt_s


def _count(number: float) -> str:
    """A count in words: ``4.2``, ``42``, ``1,020``, ``4.2 billion``."""
    for factor, word in ((1e12, " trillion"), (1e9, " billion"), (1e6, " million")):
        if number >= factor:
            scaled = number / factor
            return (f"{scaled:.2g}" if scaled < 10 else f"{scaled:.0f}") + word
    return f"{number:.2g}" if number < 10 else f"{number:,.0f}"


def bdp_in_words(bdp: float) -> str:
    """A bandwidth-delay product in human terms, against one 50 GB Blu-ray disc.

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


def distance_text(distance_m: float) -> str:
    """A distance as a person writes it: ``11 m``, ``2.5 km``, ``30 cm``, ``20000 km``.

    >>> distance_text(11), distance_text(0.3), distance_text(2_000_000), distance_text(1.5)
    ('11 m', '30 cm', '2000 km', '1.5 m')
    >>> distance_text(20_000_000)
    '20000 km'
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

    Anything that is not a length raises :class:`~interconnect.units.QuantityInputError` with a
    message that says what was expected and what arrived. Zero, negative and astronomical lengths
    are clamped, with a warning that says so (in our own formatting: typed text is never echoed).

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


def nearest_landmark(distance_m: float) -> Landmark:
    """The landmark closest to a distance on a log scale.

    >>> nearest_landmark(11).label
    'along a row of racks'
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

    def reaches(self, distance_m: float) -> bool:
        """True when the link's reach covers the distance (a boundary distance counts as reached)."""
        return distance_m <= self.reach_m * (1 + 1e-9)

    def rtt_s(self, distance_m: float) -> float:
        return float(round_trip_s(distance_m, self.delay_s_per_m))

    def bdp_bytes(self, distance_m: float) -> float:
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
    """Every link with a usable reach figure, shortest reach first (fastest first at equal reach).

    Links without a reach (the catalog says "not found" rather than guess) are left out; see
    :func:`links_without_reach`.

    >>> from interconnect.catalog import get_catalog
    >>> rows = media_with_reach(get_catalog().links.values())
    >>> all(a.reach_m <= b.reach_m for a, b in zip(rows, rows[1:]))
    True
    """
    rows = [row for link in links if (row := _reach_row(link, catalog)) is not None]
    return sorted(rows, key=lambda row: (row.reach_m, -row.rate_gbps, row.name))


def links_without_reach(links: Iterable[Link]) -> list[Link]:
    """Links the catalog gives no reach for (they cannot be placed on a distance scale)."""
    return [link for link in links if link.reach is None]


def fastest_reaching(media: Sequence[LinkReach], distance_m: float) -> LinkReach | None:
    """The fastest link whose reach covers ``distance_m``; None when nothing catalogued reaches.

    >>> dac = LinkReach("dac", "DAC", "cable", 50.0, 1.5, "spec", "copper-twinax", False, 4.5e-9)
    >>> fibre = LinkReach("lr", "LR", "cable", 12.5, 10_000, "spec", "fibre", False, 4.9e-6 / 1000)
    >>> fastest_reaching([dac, fibre], 1.5).id, fastest_reaching([dac, fibre], 30).id
    ('dac', 'lr')
    >>> fastest_reaching([dac, fibre], 20_000) is None
    True
    """
    reaching = [row for row in media if row.reaches(distance_m)]
    return max(reaching, key=lambda row: (row.rate_gbps, row.reach_m), default=None)


@dataclass(frozen=True)
class LeashStep:
    """One step of the leash: up to ``reach_m`` the fastest link that still reaches is ``link``.

    ``lost_factor`` is how many times slower this step is than the one inside it (1 for the first).
    """

    reach_m: float
    link: LinkReach
    lost_factor: float


def leash_steps(media: Sequence[LinkReach]) -> list[LeashStep]:
    """The fastest rate available at each distance, as steps going outwards.

    The envelope ``R(d) = max{rate : reach >= d}`` falls in steps; each step ends at the reach of
    the link that was fastest inside it. A slower link that never wins (a 15 m parallel cable) does
    not appear.

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
    """InfiniBand's local ACK timeout for the exponent t: 4.096 µs x 2^t; t = 0 (or 32+) never fires.

    NCCL sets t from ``NCCL_IB_TIMEOUT`` (default 20 since NCCL 2.23: about 4.3 s per try, and 7
    retries make about 30 s before NCCL reports a network error).

    >>> f"{ib_ack_timeout_s(NCCL_IB_TIMEOUT_DEFAULT):.2f} s", f"{ib_ack_timeout_s(14) * 1e3:.1f} ms"
    ('4.29 s', '67.1 ms')
    >>> ib_ack_timeout_s(0)
    inf
    """
    t = int(exponent)
    if t <= 0 or t >= 32:
        return math.inf
    return IB_ACK_TIMEOUT_UNIT_S * 2.0**t


def distance_at_timeout_m(timeout_s: float, delay_s_per_m: float) -> float:
    """The longest link whose round trip still fits inside a timeout: ``timeout / (2 τ)``.

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
        "ib-t20", "InfiniBand ACK timeout, t = 20 (NCCL's default since 2.23)",
        ib_ack_timeout_s(NCCL_IB_TIMEOUT_DEFAULT), "fibre",
        "NVIDIA NCCL docs/userguide/source/env.rst, NCCL_IB_TIMEOUT "
        "(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout)",
        "Seven retries of 4.3 s: about 30 s before NCCL reports a network error.",
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
#: The one published LapLink measurement found: DOS 6 INTERLNK over a LapLink cable moved 1.7 MB in
#: 2 min 22 s, "700K per minute" (http://freeholdcomputer.com/htdocs/interlnk.html): about 12 kB/s.
LAPLINK_MEASURED_BYTES_PER_S = 700e3 / 60


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
        """The three times at one of the computed distances (µs): ``ring``, ``hierarchical``, ``periodic``."""
        return {"ring": float(self.ring_us[index]), "hierarchical": float(self.hierarchical_us[index]),
                "periodic": float(self.periodic_us[index])}

    def at_distance(self, distance_m: float) -> dict[str, float]:
        """The three times (µs) at any distance, from the same closed forms (no new collective run)."""
        gap_us = distance_m * self.delay_s_per_m * 1e6
        hierarchical = self.hierarchical_local_us + self.hierarchical_gap_steps * gap_us
        return {"ring": self.ring_local_us + self.ring_gap_steps * gap_us, "hierarchical": hierarchical,
                "periodic": hierarchical / self.sync_every}


def two_site_cluster(cluster: Cluster) -> tuple[Cluster, str]:
    """The cluster as two equal sites, with no NVLink domain spanning them.

    NVLink does not leave a building: each site gets half of the nodes (at least one; an odd count
    is rounded up) and its own scale-up domains, at most one site's GPUs each. Returns the cluster
    to model and a note when something had to change.

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


def two_site_allreduce(
    cluster: Cluster,
    size_bytes: float,
    distance_m: float | Sequence[float] | np.ndarray,
    *,
    medium_id: str = "fibre",
    sync_every: int = 1,
    catalog: object | None = None,
) -> TwoSiteAllreduce:
    """All-reduce per training step for a cluster split evenly between two sites ``distance_m`` apart.

    The gap adds its one-way propagation delay δ = d·τ (τ of ``medium_id``) to every step that has
    to wait for data from the other site. Three ways to synchronise:

    * **ring** across both sites (NCCL's ring, timed by :func:`~interconnect.models.collectives.allreduce`
      for the same cluster in one building, plus the gap): the ring must cross the gap to close,
      so in the textbook lock-step model each of its 2(n−1) steps waits for a transfer across it:

      .. math:: T_{ring}(d) = T_{ring}(0) + 2(n-1)\\,\\delta

    * **hierarchical**: reduce inside each site (timed as one site's own all-reduce, which moves the
      data of a reduce-scatter plus an all-gather), then each GPU swaps its 1/n_s shard with its
      twin at the other site (a two-rank ring: 2 steps, one per phase), then gathers inside the site:

      .. math:: T_{hier}(d) = T_{site} + 2(\\alpha_{net} + \\delta) + \\frac{S/n_s}{B_{NIC}}

    * **sync every H steps** (DiLoCo, arXiv 2311.08105: H inner steps, then one all-reduce): the
      hierarchical all-reduce once every H steps, :math:`T_{hier}(d)/H` per step.

    Assumptions: the link between the sites carries each GPU's full NIC rate (enough fibre or
    wavelengths), and the NICs keep a bandwidth-delay product in flight. A pipelined ring (NCCL's)
    pays fewer delays than the lock-step model but needs that window; with NCCL's default 4 MiB
    buffer per pair it would be slower still at long distances (:func:`window_limited_rate_bytes_per_s`).

    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> far = two_site_allreduce(cluster, 2**30, [0.0, 1_000_000.0], sync_every=100)
    >>> far.ring_gap_steps, far.hierarchical_gap_steps
    (62, 2)
    >>> f"{(far.ring_us[1] - far.ring_us[0]) / 1e3:.0f} ms"
    '304 ms'
    >>> f"{(far.hierarchical_us[1] - far.hierarchical_us[0]) / 1e3:.1f} ms"
    '9.8 ms'
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
