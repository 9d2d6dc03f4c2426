"""Handshake timeouts: InfiniBand's ACK timer, NCCL's give-up time, and the episode's parallel cable.

The distance at which a timeout would fire, with the 1980s cable that failed at eleven metres beside NVLink.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from interconnect.topics.reach.model.propagation import (
    IB_ACK_TIMEOUT_UNIT_S,
    NCCL_IB_RETRY_CNT_DEFAULT,
    NCCL_IB_TIMEOUT_DEFAULT,
)
from interconnect.units import expects

__all__ = [
    "EPISODE",
    "IEEE1284_CABLE_M",
    "INTERLNK_TAPE_BACKUP_BYTES_PER_S",
    "LAPLINK_CONDUCTORS",
    "PLIP_RANGE_M",
    "TIMEOUTS",
    "TimeoutCase",
    "distance_at_timeout_m",
    "ib_ack_timeout_s",
    "ib_give_up_s",
]


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
    >>> from interconnect.topics.reach.model import NCCL_IB_TIMEOUT_BY_VERSION
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

    >>> from interconnect.topics.reach.model import PROPAGATION
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
IEEE1284_CABLE_M = {"AB (older)": 6.0, "IEEE 1284 CC": 10.0}  # https://www.connectworld.net/ieee1284.html
PLIP_RANGE_M = 15.0  # "Limited range, 15 m", Linux Documentation/networking/plip.rst
#: A null-printer (LapLink) cable joins ten signal pins crosswise plus pins 17 and 25 (ground): 12
#: conductors (pin table in Linux Documentation/networking/plip.rst, "Parallel Transfer Mode 0 Cable").
LAPLINK_CONDUCTORS = 12
#: Not a LapLink speed: a laptop backed up to a desktop's *tape drive* over DOS 6 INTERLNK and a
#: LapLink cable, compressed, moved 1.7 MB in 2 min 22 s with the tape's start and stop included,
#: "700K per minute" (https://freeholdcomputer.com/htdocs/interlnk.html), about 12 kB/s. The tape, the
#: compression and the software set that figure, so no published LapLink cable speed was found.
INTERLNK_TAPE_BACKUP_BYTES_PER_S = 700e3 / 60
