"""Reach: how far each link carries its rate, what distance costs in time, and what it does to training.

Speed and reach are two different numbers. A link's *rate* says how many bytes per second it moves;
its *reach* says how far it can move them at all. Past its reach a link does not get slower, it
stops working, and nothing about its rate helps. This module holds the arithmetic of the Reach page
and the ``interconnect reach`` command:

* the distance a person types (``"11 m"``, ``"3 ft"``, ``"2 light-seconds"``), read with the shared
  strict parser and clamped to 10 cm .. 20,000 km;
* which catalog links reach a distance (every link with a ``reach`` figure), the fastest that still
  does, overall and of each kind (:func:`fastest_by_kind`, one tie-break for every view), and the
  rate lost at each step outwards (:func:`media_with_reach`, :func:`leash_steps`);
* propagation per medium (fibre, twinax copper, multi-core copper, vacuum), round trip and the
  bandwidth-delay product (:data:`PROPAGATION`, :func:`one_way_delay_s`, :func:`bdp_bytes`);
* timeout arithmetic: the distance at which a round trip outlasts a handshake timeout, for the
  parallel-cable story and InfiniBand's ACK timer (:data:`TIMEOUTS`, :func:`ib_ack_timeout_s`);
* an all-reduce split between two sites as they move apart (:func:`two_site_allreduce`), built on
  :mod:`interconnect.hardware.collectives`.

Units live in the names (``distance_m``, ``delay_s_per_m``, ``rate_gbps`` = GB/s, ``time_us``);
pint appears only where text is read. Nothing here imports Streamlit or Plotly.
"""

from __future__ import annotations

from interconnect.topics.reach.model.delay import (
    bdp_bytes,
    bdp_in_words,
    handshake_limited_rate_bytes_per_s,
    one_way_delay_s,
    round_trip_s,
    window_limited_rate_bytes_per_s,
)
from interconnect.topics.reach.model.distance import (
    LANDMARKS,
    DistanceReading,
    Landmark,
    distance_text,
    nearest_landmark,
    read_distance,
)
from interconnect.topics.reach.model.links import (
    GROUPED_LAYERS,
    KIND_NAMES,
    LeashStep,
    LinkReach,
    fastest_by_kind,
    fastest_rank,
    fastest_reaching,
    kind_key,
    kind_name,
    leash_steps,
    links_without_reach,
    long_haul_links,
    media_with_reach,
    option_of,
    reach_rows,
)
from interconnect.topics.reach.model.propagation import (
    BLURAY_BYTES,
    DEFAULT_DISTANCE,
    GAP_MEDIA,
    IB_ACK_TIMEOUT_UNIT_S,
    MAX_DISTANCE_M,
    MIN_DISTANCE_M,
    NCCL_BUFFSIZE_BYTES,
    NCCL_IB_RETRY_CNT_DEFAULT,
    NCCL_IB_TIMEOUT_BY_VERSION,
    NCCL_IB_TIMEOUT_DEFAULT,
    PROPAGATION,
    SPEED_OF_LIGHT_M_PER_S,
    Propagation,
    propagation_for,
    propagation_medium_of,
)
from interconnect.topics.reach.model.timeouts import (
    EPISODE,
    IEEE1284_CABLE_M,
    INTERLNK_TAPE_BACKUP_BYTES_PER_S,
    LAPLINK_CONDUCTORS,
    PLIP_RANGE_M,
    TIMEOUTS,
    TimeoutCase,
    distance_at_timeout_m,
    ib_ack_timeout_s,
    ib_give_up_s,
)
from interconnect.topics.reach.model.two_sites import NET_HOP_US, TwoSiteAllreduce, two_site_allreduce, two_site_cluster

__all__ = [
    "BLURAY_BYTES",
    "DEFAULT_DISTANCE",
    "DistanceReading",
    "EPISODE",
    "GROUPED_LAYERS",
    "GAP_MEDIA",
    "IB_ACK_TIMEOUT_UNIT_S",
    "IEEE1284_CABLE_M",
    "INTERLNK_TAPE_BACKUP_BYTES_PER_S",
    "KIND_NAMES",
    "LANDMARKS",
    "LAPLINK_CONDUCTORS",
    "Landmark",
    "LeashStep",
    "LinkReach",
    "MAX_DISTANCE_M",
    "MIN_DISTANCE_M",
    "NCCL_BUFFSIZE_BYTES",
    "NCCL_IB_RETRY_CNT_DEFAULT",
    "NCCL_IB_TIMEOUT_BY_VERSION",
    "NCCL_IB_TIMEOUT_DEFAULT",
    "NET_HOP_US",
    "PLIP_RANGE_M",
    "PROPAGATION",
    "Propagation",
    "SPEED_OF_LIGHT_M_PER_S",
    "TIMEOUTS",
    "TimeoutCase",
    "TwoSiteAllreduce",
    "bdp_bytes",
    "bdp_in_words",
    "distance_at_timeout_m",
    "distance_text",
    "fastest_by_kind",
    "fastest_rank",
    "fastest_reaching",
    "handshake_limited_rate_bytes_per_s",
    "ib_ack_timeout_s",
    "ib_give_up_s",
    "kind_key",
    "kind_name",
    "leash_steps",
    "links_without_reach",
    "long_haul_links",
    "media_with_reach",
    "nearest_landmark",
    "one_way_delay_s",
    "option_of",
    "propagation_for",
    "propagation_medium_of",
    "reach_rows",
    "read_distance",
    "round_trip_s",
    "two_site_allreduce",
    "two_site_cluster",
    "window_limited_rate_bytes_per_s",
]
