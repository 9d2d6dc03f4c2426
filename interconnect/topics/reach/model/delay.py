"""Delay, round trip and bandwidth-delay product, and what a window or a handshake does to a rate.

Closed forms with units in their names; the bytes in flight said in words.
"""

from __future__ import annotations

import math

import numpy as np

from interconnect.topics.reach.model.propagation import BLURAY_BYTES
from interconnect.units import Q_, expects, format_quantity

__all__ = [
    "bdp_bytes",
    "bdp_in_words",
    "handshake_limited_rate_bytes_per_s",
    "one_way_delay_s",
    "round_trip_s",
    "window_limited_rate_bytes_per_s",
]


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
    >>> from interconnect.topics.reach.model import PROPAGATION
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
    >>> from interconnect.topics.reach.model import PROPAGATION
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

    >>> from interconnect.topics.reach.model import PROPAGATION
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

    >>> from interconnect.topics.reach.model import PROPAGATION
    >>> from interconnect.topics.reach.model import NCCL_BUFFSIZE_BYTES
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

    >>> from interconnect.topics.reach.model import PROPAGATION
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
