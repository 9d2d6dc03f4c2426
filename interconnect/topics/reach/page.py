"""The Streamlit glue of the Reach page: the distance control and the sections it drives.

Two fragments, so a control reruns only what it drives: :func:`distance_section` (the distance and
its live chart, :mod:`interconnect.topics.reach.page_live`, which follows the hand in the browser; which links
still reach, the leash chart when ``view=leash``, latency) and, nested in it, :func:`training_section`
(message size, sync interval, the gap's medium and the cluster). Dragging the distance reruns both
(training depends on the distance); changing the message size reruns only the training part.
:func:`timeouts_section` depends on no control, but its chart follows the page's "More charts" picker
(``view=``), so the distance's fragment draws it last. Every figure,
table and block of text is cached by the values it depends on, so a rerun at a distance seen
before only sends elements.

The arithmetic is in :mod:`interconnect.topics.reach.model`; the figures in :mod:`interconnect.topics.reach.figures`.
"""

from __future__ import annotations

import functools
from typing import Any

import pandas as pd
import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.hardware.wires import KIND_LABELS, Option, fastest_by_protocol, get_wires
from interconnect.inputs.cluster import CLUSTER_KEYS
from interconnect.topics.reach.figures import leash_figure, timeout_figure, training_figure
from interconnect.topics.reach.inputs import REACH_VIEWS, distance_value, reach_specs
from interconnect.topics.reach.model import (
    EPISODE,
    GAP_MEDIA,
    IEEE1284_CABLE_M,
    LAPLINK_CONDUCTORS,
    MAX_DISTANCE_M,
    MIN_DISTANCE_M,
    NCCL_BUFFSIZE_BYTES,
    NCCL_IB_RETRY_CNT_DEFAULT,
    NCCL_IB_TIMEOUT_BY_VERSION,
    NCCL_IB_TIMEOUT_DEFAULT,
    PLIP_RANGE_M,
    PROPAGATION,
    TIMEOUTS,
    bdp_in_words,
    distance_at_timeout_m,
    distance_text,
    fastest_by_kind,
    fastest_reaching,
    ib_ack_timeout_s,
    ib_give_up_s,
    leash_steps,
    long_haul_links,
    nearest_landmark,
    option_of,
    propagation_for,
    reach_rows,
    read_distance,
    round_trip_s,
    two_site_allreduce,
    window_limited_rate_bytes_per_s,
)
from interconnect.topics.reach.page_live import live_reach
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.cluster import cluster_controls, resolve_page_cluster
from interconnect.ui.markdown import escape_markdown, markdown_table
from interconnect.ui.pages import PAGES, link_to, page_exists
from interconnect.ui.sources import source_popover
from interconnect.ui.state import PageState, bounds
from interconnect.ui.views import shown_views, view_picker
from interconnect.units import (
    Q_,
    QuantityInputError,
    format_bandwidth,
    format_duration,
    format_quantity,
    format_size,
)

__all__ = ["INTRO", "distance_section", "timeouts_section", "training_section"]

INTRO = (
    "A link has two numbers that matter, and they are independent: how fast it moves data, and how far it can "
    "carry it at all. The second is a wall, not a slope. Past its reach a link does not get slower; it stops, and "
    "no amount of speed helps it cross the room."
)
TEXT_KEY, NOTE_KEY, SOURCE_KEY = "reach.d_text", "reach.d_note", "reach.src"
GAP_LABELS = {"fibre": "Fibre", "copper": "Copper", "vacuum": "Vacuum"}
_SHORT_MEDIUM = {"fibre": "Fibre", "copper-twinax": "Twinax copper", "copper-cable": "Copper cable", "vacuum": "Vacuum"}
#: A 400 Gbit/s port, per direction: the rate the latency section fills a pipe with.
PORT_BYTES_PER_S = 50e9


def _time(seconds: float) -> str:
    return format_duration(Q_(seconds, "s"))


def _rate(gbps: float) -> str:
    return format_bandwidth(Q_(gbps, "GB/s"))


def _length(metres: float) -> str:
    return format_quantity(Q_(metres, "m"))


def _bytes(count: float) -> str:
    return format_quantity(Q_(count, "B"))


def _far(metres: float) -> str:
    """A long distance with thousands separators: ``438,555 km``."""
    return f"{metres / 1000:,.0f} km" if metres >= 10_000 else _length(metres)


# --- callbacks: the text box and the live chart's slider stay in step, the URL keeps the text ------


def _typed(state: PageState) -> None:
    """The text box changed: read it; a length moves the page (and the live chart's slider), anything else
    is explained."""
    try:
        reading = read_distance(st.session_state[TEXT_KEY])
    except QuantityInputError as exc:
        st.session_state[NOTE_KEY] = f"Distance: {exc}. Still showing {distance_text(state['d'].magnitude('m'))}."
        return
    st.session_state[state.key("d")] = distance_value(reading.text, reading.distance_m)
    st.session_state[NOTE_KEY] = f"Distance: {reading.warning}." if reading.warning else ""
    if reading.warning:
        st.session_state[TEXT_KEY] = reading.text


def _set_distance(state: PageState, text: str, metres: float) -> None:
    """A distance chosen on the live chart's slider: the box and the page's value (the link) follow."""
    st.session_state[state.key("d")] = distance_value(text, read_distance(text).distance_m)  # as a link reads it
    st.session_state[TEXT_KEY] = text
    st.session_state[NOTE_KEY] = ""


# --- cached work: pure functions of their arguments -----------------------------------------------


@st.cache_resource
def _media() -> list:
    """Every medium of wires.toml and the catalog's other links with a reach (:func:`reach_rows`)."""
    return reach_rows(get_wires(), get_catalog())


def _fastest(distance_m: float) -> tuple[Any, Option | None]:
    """The fastest link that reaches (:func:`fastest_reaching`, the page's one tie-break) and its wires option."""
    best = fastest_reaching(_media(), distance_m)
    return best, option_of(best, get_wires())


def _kinds() -> dict[str, str]:
    return {medium.id: medium.kind for medium in get_wires().media.values()}


def _watts(option: Option) -> str:
    """Watts per port at one end of a link, or why there is no figure."""
    power = option.power_w_per_port
    if power is None:
        return "not found"
    share = f" ({option.medium.power_w:g} W plug, {option.ports_per_plug} ports)" if option.ports_per_plug > 1 else ""
    return f"{power:.2g} W{share}"


@st.cache_resource(max_entries=256)
def _leash_chart(distance_m: float) -> Any:
    return leash_figure(_media(), distance_m)


@st.cache_resource
def _timeout_chart() -> Any:
    media = [propagation_for("fibre", get_catalog()), PROPAGATION["copper-cable"], PROPAGATION["vacuum"]]
    return timeout_figure(None, media, TIMEOUTS)


@st.cache_data(max_entries=256)
def _protocol_table(distance_m: float) -> pd.DataFrame:
    """One row per protocol: the medium to use at this distance, its reach and its watts."""
    wires = get_wires()
    best = _fastest(distance_m)[1]
    rows = []
    for pid, option in fastest_by_protocol(distance_m, wires).items():
        protocol = wires.protocols[pid]
        if option is None:
            longest = max((m.reach_m for m in wires.media_of(pid)), default=None)
            medium = ("none catalogued" if longest is None else
                      f"nothing reaches (longest: {_length(longest)})")
            appliances = long_haul_links(protocol.family, distance_m, wires, get_catalog())
            if appliances:  # MetroX carries InfiniBand 40 km: an appliance pair, not a cable of wires.toml
                medium += "; a long-haul appliance carries it this far, at its own rate: " + ", ".join(
                    f"{row.name}, {_length(row.reach_m)} at {_rate(row.rate_gbps)}" for row in appliances)
        else:
            medium = option.medium.name + (" (fastest here)" if best is not None and option.id == best.id else "")
        rows.append({
            "Protocol": protocol.name,
            "Rate per direction": _rate(protocol.rate_gbps),
            "Medium to use here": medium,
            "Its reach": "—" if option is None else _reach_text(option.medium.reach),
            "Power per port, one end": "—" if option is None else _watts(option),
            "Round trip here": "—" if option is None else _time(2 * distance_m * propagation_for(
                option.medium.propagation, get_catalog()).delay_s_per_m),
        })
    return pd.DataFrame(rows)


def _short_protocol(name: str) -> str:
    """``800 GbE``, ``IB NDR``, ``NVLink 5``: a protocol's name for a narrow table cell."""
    short = name.split(" (")[0].replace(" Gigabit Ethernet", " GbE").replace(" Terabit Ethernet", " TbE")
    return short.replace("InfiniBand ", "IB ")


def _reach_text(figure: Any) -> str:
    metres = float(figure.quantity.to("m").magnitude)
    return _length(metres) + ("" if figure.basis == "spec" else f" ({figure.basis})")


@st.cache_data(max_entries=256)
def _reach_table(distance_m: float) -> pd.DataFrame:
    """Every medium (and the catalog's other links with a reach): does it reach, and at what cost."""
    wires = get_wires()
    media = _media()
    best = fastest_reaching(media, distance_m)
    of_kind = {row.id for row in fastest_by_kind(media, distance_m, _kinds()).values() if row is not None}
    rows = []
    for row in media:
        medium = wires.media.get(row.id)
        mark = ("fastest" if best is not None and row.id == best.id else
                "fastest of its kind" if row.id in of_kind else "yes")
        rows.append({
            "Reaches": mark if row.reaches(distance_m) else "no",
            "Link": row.name,
            "Kind": KIND_LABELS.get(medium.kind, medium.kind) if medium else row.layer.capitalize(),
            "Carries": ", ".join(_short_protocol(wires.protocols[p].name) for p in medium.carries) if medium else "—",
            "Rate per direction": _rate(row.rate_gbps),
            "Reach": _length(row.reach_m) + ("" if row.reach_basis == "spec" else f" ({row.reach_basis})"),
            "Power per end": (f"{medium.power_w:g} W" if medium.power_w is not None else "not found")
            if medium else "—",
            "Round trip here": _time(row.rtt_s(distance_m)) if row.reaches(distance_m) else "—",
        })
    return pd.DataFrame(rows)


@st.cache_data(max_entries=256, show_spinner=False)
def _reach_markdown(distance_m: float) -> str:
    return markdown_table(_reach_table(distance_m))


@st.cache_data(max_entries=256, show_spinner=False)
def _protocol_markdown(distance_m: float) -> str:
    return markdown_table(_protocol_table(distance_m))


@st.cache_data(show_spinner=False)
def _steps_markdown() -> str:
    return markdown_table(_steps_table())


@st.cache_data
def _steps_table() -> pd.DataFrame:
    return pd.DataFrame([{
        "Up to": _length(step.reach_m),
        "Fastest link that reaches": step.link.name,
        "Rate per direction": _rate(step.link.rate_gbps),
        "Step down": "—" if step.lost_factor == 1 else f"{step.lost_factor:.3g}× slower",
    } for step in leash_steps(_media())])


def _best_text(option: Option | None, best: Any, distance_m: float) -> str | None:
    """The sentence naming the fastest real link at a distance, with its watts."""
    if option is not None:
        medium = option.medium
        rtt = 2 * distance_m * propagation_for(medium.propagation, get_catalog()).delay_s_per_m
        watts = ("no power figure was found for it" if medium.power_w is None else
                 f"**{medium.power_w:g} W** at each end (the maker's figure for the plug"
                 + (f", {option.power_w_per_port:.2g} W per port" if option.ports_per_plug > 1 else "") + ")")
        return (f"**{escape_markdown(option.protocol.name)}** over **{escape_markdown(medium.name)}**: "
                f"{_rate(option.rate_gbps)} per direction; {watts}. "
                f"{escape_markdown(medium.standard)}. To keep it busy: "
                f"{bdp_in_words(option.rate_gbps * 1e9 * rtt)}.")
    if best is not None:
        return (f"**{escape_markdown(best.name)}**, {_rate(best.rate_gbps)} per direction. To keep it busy: "
                f"{bdp_in_words(best.bdp_bytes(distance_m))}.")
    return None


@st.cache_data(max_entries=256)
def _distance_texts(distance_m: float) -> dict[str, Any]:
    """Every number the distance section writes, formatted once per distance."""
    media = _media()
    fibre = propagation_for("fibre", get_catalog())
    rtt = float(round_trip_s(distance_m, fibre.delay_s_per_m))
    best, option = _fastest(distance_m)
    window = window_limited_rate_bytes_per_s(NCCL_BUFFSIZE_BYTES, rtt)
    copper = PROPAGATION["copper-cable"]
    plip = next(case for case in TIMEOUTS if case.id == "plip-trigger")
    here_rtt = float(round_trip_s(distance_m, copper.delay_s_per_m))
    share = ": at this distance the window is no limit" if window >= PORT_BYTES_PER_S else \
        f", {PORT_BYTES_PER_S / window:.3g} times less than the port carries"
    return {
        "distance": distance_text(distance_m),
        "landmark": nearest_landmark(distance_m).label,
        "one_way": _time(distance_m * fibre.delay_s_per_m),
        "rtt": _time(rtt),
        "fibre_help": f"{fibre.delay_s_per_m * 1e9:.2g} µs per km: light in glass at {fibre.velocity_factor:.0%} of c.",
        "reaching": f"{sum(row.reaches(distance_m) for row in media)} of {len(media)}",
        "best": _best_text(option, best, distance_m),
        "best_id": option.medium.id if option is not None else (None if best is None else best.id),
        "latency": [(f"{_SHORT_MEDIUM.get(medium.id, medium.name)}: one way / RTT",
                     f"{_time(distance_m * medium.delay_s_per_m)} / {_time(2 * distance_m * medium.delay_s_per_m)}",
                     f"{medium.delay_s_per_m * 1e9:.3g} ns per metre ({medium.velocity_factor:.0%} of c). "
                     f"{medium.source}")
                    for medium in (fibre, PROPAGATION["copper-twinax"], PROPAGATION["vacuum"])],
        "pipe": (
            f"A link is a pipe with a length: to keep a 400 Gbit/s port busy over {distance_text(distance_m)} of "
            f"fibre the sender must have **{bdp_in_words(PORT_BYTES_PER_S * rtt)}** before the first "
            f"acknowledgement returns. NCCL keeps at most {format_size(Q_(NCCL_BUFFSIZE_BYTES, 'B'))} in flight "
            f"between a pair of GPUs by default (`NCCL_BUFFSIZE`), so across this distance one connection can move "
            f"at most **{_rate(window / 1e9)}**{share}."
        ),
        "copper_vs_fibre": (
            f"Copper is not slower than fibre: signals in twinax travel at about "
            f"{PROPAGATION['copper-twinax'].velocity_factor:.0%} of c, in glass at about {fibre.velocity_factor:.0%}. "
            "What copper lacks is reach. Equipment (transceivers, switches, amplifiers) adds to these figures; "
            "propagation is the floor nothing removes."
        ),
        "here": (
            f"**At {distance_text(distance_m)}** a round trip over copper cable takes {_time(here_rtt)}: "
            + (f"{plip.timeout_s / here_rtt:,.0f} times inside the {_time(plip.timeout_s)} a Linux parallel-port "
               "link (PLIP) waits for an answer. Timeouts, below, say why a long cable still fails."
               if here_rtt < plip.timeout_s else f"longer than the {_time(plip.timeout_s)} a Linux parallel-port "
               "link (PLIP) waits for an answer: here even a perfect wire would time out.")
        ),
    }


@st.cache_data
def _timeout_texts() -> dict[str, str]:
    """The timeout story: the same at every distance, so it sits outside the distance fragment."""
    fibre = propagation_for("fibre", get_catalog())
    copper = PROPAGATION["copper-cable"]
    plip = next(case for case in TIMEOUTS if case.id == "plip-trigger")
    episode_rtt = float(round_trip_s(EPISODE.distance_m, copper.delay_s_per_m))
    ib, old = ib_ack_timeout_s(NCCL_IB_TIMEOUT_DEFAULT), ib_ack_timeout_s(14)
    versions = ", ".join(f"{t} ({_time(ib_ack_timeout_s(t))} per try) {when}" for when, t in NCCL_IB_TIMEOUT_BY_VERSION)
    return {
        "story": (
            f"**Often quoted** (the episode): a LapLink parallel cable \"rated for three metres\" ran at \"maybe "
            f"sixty kilobytes a second\"; extended with ordinary four-core cable to reach {EPISODE.distance_m:g} m, "
            f"it failed: \"{EPISODE.claim}\"\n\n"
            f"**What the sources say:** no 3 m rating and no 60 KB/s figure were found. IEEE 1284 rates parallel "
            f"cables at {IEEE1284_CABLE_M['AB (older)']:g} m (older AB cables) to "
            f"{IEEE1284_CABLE_M['IEEE 1284 CC']:g} m (1284 CC); Linux's PLIP driver documents {PLIP_RANGE_M:g} m "
            f"for the LapLink cable. The \"700K per minute\" sometimes quoted for LapLink was a compressed backup "
            "to a tape drive over DOS INTERLNK (1.7 MB in 2 min 22 s, the tape's start and stop included): a "
            f"speed of the tape and its software, not of the cable. Over {EPISODE.distance_m:g} m of copper "
            f"the round trip is about {_time(episode_rtt)}, {plip.timeout_s / episode_rtt:,.0f} times shorter than "
            f"PLIP's {_time(plip.timeout_s)} handshake timeout: propagation alone would need about "
            f"{_length(distance_at_timeout_m(plip.timeout_s, copper.delay_s_per_m))} of cable to trip it.\n\n"
            "**Why the long cable still failed:** a parallel port's lines are not terminated, so on a long cable "
            "each edge rings and smears and neighbouring wires couple into each other; the receiver may never see a "
            "clean strobe, and the sender waits out its timeout. The timeout is where the failure shows, not its "
            f"cause. And a null-printer cable joins {LAPLINK_CONDUCTORS} conductors (PLIP's pin table): a four-core "
            "extension cannot carry them all."
        ),
        "infiniband": (
            "**The same physics in InfiniBand.** A reliable connection retransmits when no acknowledgement comes "
            f"back within 4.096 µs × 2^t. NCCL's default t is {versions}. At t = {NCCL_IB_TIMEOUT_DEFAULT} each "
            f"try waits {_time(ib)}; the first try and {NCCL_IB_RETRY_CNT_DEFAULT} retries make "
            f"{1 + NCCL_IB_RETRY_CNT_DEFAULT} × {_time(ib)} = **{_time(ib_give_up_s(NCCL_IB_TIMEOUT_DEFAULT))}** "
            "before NCCL reports an error (NCCL's page rounds it to \"approximately 30 seconds\", counting the "
            "retries only). A fibre round trip that long needs "
            f"{_far(distance_at_timeout_m(ib, fibre.delay_s_per_m))} of link: farther than the Moon (about "
            f"384,400 km). Before NCCL 2.14 the default was t = 14 ({_time(old)}), which "
            f"{_far(distance_at_timeout_m(old, fibre.delay_s_per_m))} of fibre would already exceed. So a timer "
            "is not what stops RDMA across a continent; the bytes in flight are (see Latency). MetroX carries "
            "InfiniBand 40 km by wrapping it in RoCE over long-haul Ethernet ports."
        ),
    }


_STORY_SOURCES = (
    "Sources: [Linux plip.rst](https://github.com/torvalds/linux/blob/master/Documentation/networking/plip.rst) "
    "(15 m, 500 µs, pin table); [plip.c](https://github.com/torvalds/linux/blob/master/drivers/net/plip/plip.c) "
    "(500 and 3000 µs); [connectworld: IEEE 1284](https://www.connectworld.net/ieee1284.html) (6 m and 10 m cables); "
    "[DOS 6 INTERLNK tape backup](https://freeholdcomputer.com/htdocs/interlnk.html) (700K per minute, "
    "compressed, to tape)."
)
_NVLINK = (
    "**NVLink's leash.** No official maximum NVLink cable length was found; the catalog puts NVLink 5 at about 2 m, "
    "an estimate from the copper inside a GB200 NVL72 rack. A 2 m round trip takes about 20 ns, far inside any "
    "timeout. What ends copper at these rates is signal loss along the wire: NVIDIA's own DAC cables switch from "
    "thin 30 AWG to thicker 26 AWG wire at 2 m."
)
_TIMEOUT_SOURCES = (
    "Sources: [NCCL environment variables: NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT, NCCL_BUFFSIZE]"
    "(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html); "
    "[NASA Moon fact sheet](https://nssdc.gsfc.nasa.gov/planetary/factsheet/moonfact.html); "
    "[NVIDIA MetroX deployment guidelines](https://docs.nvidia.com/networking/display/SwitchOS/"
    "General+MetroX+Deployment+Guidelines); "
    "[NVIDIA LinkX MCP7Y60](https://docs.nvidia.com/networking/display/MCP7Y60HXXX400pub) (30 AWG for 1-1.5 m, "
    "26 AWG for 2 m)."
)
_TRAINING_INTRO = (
    "Split the cluster below evenly between two sites and move them apart. An all-reduce then has to wait for the "
    "gap: a **ring** across both sites waits at every one of its steps, a **hierarchical** all-reduce reduces "
    "inside each site first and crosses the gap only twice, and **syncing every H steps** (as DiLoCo does, "
    "arXiv 2311.08105) pays that once per H steps."
)
_TRAINING_ASSUMPTIONS = (
    "In one building the ring is NCCL's, from the All-reduce page's model; the gap adds its one-way delay to every "
    "step that waits for it (the textbook lock-step model). The link between the sites is assumed to carry every "
    "GPU's full NIC rate and to keep a bandwidth-delay product in flight; NCCL's own pipeline pays fewer delays "
    "than the lock-step ring but keeps only 4 MiB in flight per pair by default, so across a long gap it is "
    "window-bound (see Latency above)."
)


@st.cache_data(max_entries=64)
def _two_sites(cluster_values: tuple, size_bytes: float, sync_every: int, medium: str):
    """The two-site all-reduce on 64 distances (10 cm .. 20,000 km), and the cluster's warnings."""
    cluster, warnings = resolve_page_cluster(dict(cluster_values))
    distances = [MIN_DISTANCE_M * (MAX_DISTANCE_M / MIN_DISTANCE_M) ** (i / 63) for i in range(64)]
    result = two_site_allreduce(cluster, size_bytes, distances, medium_id=GAP_MEDIA[medium], sync_every=sync_every,
                                catalog=get_catalog())
    return result, warnings


@st.cache_resource(max_entries=256)
def _training_chart(cluster_values: tuple, size_bytes: float, sync_every: int, medium: str, distance_m: float):
    return training_figure(_two_sites(cluster_values, size_bytes, sync_every, medium)[0], distance_m)


@st.cache_data(max_entries=256)
def _training_texts(cluster_values: tuple, size_bytes: float, sync_every: int, medium: str,
                    distance_m: float) -> dict[str, Any]:
    result, _ = _two_sites(cluster_values, size_bytes, sync_every, medium)
    here = result.at_distance(distance_m)
    ring_gap = (here["ring"] - result.ring_local_us) * 1e-6
    hier_gap = (here["hierarchical"] - result.hierarchical_local_us) * 1e-6
    return {
        "metrics": [
            (f"Ring, per step at {distance_text(distance_m)}", _time(here["ring"] * 1e-6),
             f"+{_time(ring_gap)} for the gap"),
            ("Hierarchical, per step", _time(here["hierarchical"] * 1e-6), f"+{_time(hier_gap)} for the gap"),
            (f"Hierarchical every {result.sync_every} steps, per step", _time(here["periodic"] * 1e-6), None),
        ],
        "caption": f"{result.ranks} GPUs, {result.ranks_per_site} per site, {format_size(Q_(size_bytes, 'B'))} per "
                   "GPU. "
                   + _TRAINING_ASSUMPTIONS,
        "notes": list(result.notes),
    }


_PROTOCOL_INTRO = (
    "A link is a **protocol** (what the two ports speak: NVLink, InfiniBand NDR, 800 Gigabit Ethernet) carried by "
    "a **medium** (what joins them: passive copper, active copper, multimode or single-mode optics, coherent "
    "optics). The protocol sets the rate; the medium sets the reach and the watts. InfiniBand NDR runs over 3 m "
    "of copper, 50 m of multimode fibre or 2 km of single-mode fibre at the same 400 Gbit/s."
)


@st.cache_data(max_entries=64)
def _medium_source_lines(medium_id: str) -> list[str]:
    """Each figure of a medium with its value, basis, note and sources, as Markdown lines."""
    wires, catalog = get_wires(), get_catalog()
    medium = wires.media[medium_id]

    def cite(ids: Any) -> str:
        return "; ".join(f"[{escape_markdown(catalog.sources[i].title)}]({catalog.sources[i].url}) "
                         f"({catalog.sources[i].kind})" for i in ids)

    lines = [f"**{escape_markdown(medium.name)}** · id `{medium.id}` · {escape_markdown(medium.standard)}"]
    for label, figure in (("Plug rate", medium.rate), ("Reach", medium.reach)):
        note = f" {escape_markdown(figure.note)}" if figure.note else ""
        lines.append(f"- {label}: {figure.text()} ({figure.basis}).{note} Sources: {cite(figure.source_ids)}")
    if medium.power is not None:
        note = f" {escape_markdown(medium.power.note)}" if medium.power.note else ""
        lines.append(f"- Power per end: {medium.power.watts:g} W ({medium.power.basis}).{note} "
                     f"Sources: {cite(medium.power.source_ids)}")
    else:
        lines.append("- Power per end: no maker figure was read.")
    carried = [wires.protocols[p] for p in medium.carries]
    lines.append("- Carries: " + "; ".join(f"{escape_markdown(p.name)} at {p.rate.text()} "
                                          f"({cite(p.rate.source_ids)})" for p in carried))
    if medium.notes:
        lines.append(f"- {escape_markdown(medium.notes)}")
    if medium.source_ids:
        lines.append(f"- Also: {cite(medium.source_ids)}")
    return lines


def _medium_sources(medium_id: str, container: Any) -> None:
    with container.popover("Sources"):
        st.markdown("\n".join(_medium_source_lines(medium_id)))


# --- the sections -----------------------------------------------------------------------------------


@st.fragment
def training_section(state: PageState, distance_m: float) -> None:
    """Message size, sync interval, the gap's medium and the cluster; the two-site all-reduce chart."""
    st.subheader("What distance does to training")
    st.markdown(_TRAINING_INTRO)
    c1, c2, c3 = st.columns([2, 2, 3])
    c1.text_input("Message size (the gradients)", key=state.key("size"),
                  help="Per GPU, e.g. '1 GiB' or '2 GB' (a 1B-parameter model in BF16 is about 2 GB).")
    c2.number_input("Synchronise every H steps", **bounds(state, "h"), step=1, key=state.key("h"))
    c3.radio("Between the sites", list(GAP_MEDIA), key=state.key("medium"), horizontal=True,
             format_func=GAP_LABELS.get)
    with st.expander("The cluster (split evenly between the two sites)"):
        cluster_controls(state, get_catalog(), title="The cluster")
    # This fragment runs last in every run of the distance section too, so its sync covers both.
    state.sync_url()
    values = state.values()
    cluster_values = tuple((key, values[key]) for key in CLUSTER_KEYS)
    size_bytes = values["size"].magnitude("B")
    _, warnings = _two_sites(cluster_values, size_bytes, values["h"], values["medium"])
    for warning in warnings:
        st.warning(escape_markdown(warning))
    texts = _training_texts(cluster_values, size_bytes, values["h"], values["medium"], distance_m)
    for note in texts["notes"]:
        st.caption(escape_markdown(note))
    if "training" in shown_views(state, REACH_VIEWS):
        chart(_training_chart(cluster_values, size_bytes, values["h"], values["medium"], distance_m),
              key="reach-training")
    row = st.container(horizontal=True)  # one block, where three columns took four
    for label, value, delta in texts["metrics"]:
        row.metric(label, value, delta=delta, delta_color="off", delta_arrow="off")
    st.caption(texts["caption"])
    # The Across sites page lands from another branch; link to it once it is registered.
    across = "crossdc" if "crossdc" in PAGES else next(
        (name for name, (_, label) in PAGES.items() if "across" in label.lower()), None)
    if across and page_exists(across):
        link_to(across, "Across sites: training between data centres, in depth")


@st.fragment
def distance_section(state: PageState) -> None:
    """The distance control and everything that depends on the distance.

    The training section is a fragment nested in this one, and Streamlit names a fragment by the place
    it is called from. So it is called in a container of its own, created before anything whose count
    varies (a warning, the chart a view adds): the distance's part grows or shrinks above it, and a
    rerun of this fragment still finds the training section under the name it had, with the share
    link it writes to.
    """
    upper, lower = st.container(), st.container()
    with upper:
        distance_m = _distance_part(state)
    with lower:
        training_section(state, distance_m)
        timeouts_section("timeouts" in shown_views(state, REACH_VIEWS))


def _distance_part(state: PageState) -> float:
    """The distance control, the live chart, the view chosen, the tables and the latency; the distance in metres."""
    if TEXT_KEY not in st.session_state:
        st.session_state[TEXT_KEY] = state["d"]
    t1, t2 = st.columns([1, 3], vertical_alignment="bottom")
    t1.text_input("Distance between two GPUs", key=TEXT_KEY, on_change=_typed, args=(state,),
                  help="A length with its unit: '11 m', '3 ft', '1000 km', '2 light-seconds'. 10 cm to 20,000 km.")
    t2.caption("Type any length with its unit, or drag the Distance slider below (log scale; its stops name "
               "landmarks).")
    note = st.session_state.get(NOTE_KEY, "")
    if note:
        st.warning(escape_markdown(note))
    distance_m = state["d"].magnitude("m")
    texts = _distance_texts(distance_m)

    # the main chart, under the distance and above the fold: it follows the hand in the browser
    live_reach(distance_m, functools.partial(_set_distance, state))
    view_picker(state, REACH_VIEWS)  # the one further chart drawn below (view=)
    if "leash" in shown_views(state, REACH_VIEWS):
        chart(_leash_chart(distance_m), key="reach-leash")
        st.caption("Each point is a catalogued link at its rate and its longest sourced reach; where labels would "
                   "collide, hover a point for its name (every link is in the table below). The step line is the "
                   "leash: the fastest rate still available at each distance. Hollow points cannot reach the dashed "
                   "line.")
    # One row of four (a horizontal container: one block, where four columns took five).
    row = st.container(horizontal=True)
    row.metric("Distance", texts["distance"], help=f"For scale: {texts['landmark']}.")
    row.metric("One way, in fibre", texts["one_way"], help=texts["fibre_help"])
    row.metric("Round trip", texts["rtt"])
    row.metric("Links that still reach", texts["reaching"])
    if texts["best"] is None:
        st.error(f"No catalogued link reaches {texts['distance']} on its own: beyond this, data crosses amplified or "
                 "regenerated long-haul paths, or a cloud backbone.")
    else:
        st.success(f"Fastest link that still reaches {texts['distance']}: {texts['best']}")

    st.subheader("Which links still work")
    st.markdown(_PROTOCOL_INTRO)
    # Markdown tables, not st.dataframe: the data grid delays a new session's first chart (README: performance).
    st.markdown(_reach_markdown(distance_m))
    st.markdown(f"**Each protocol at {texts['distance']}: the medium to use, and what it costs**")
    st.markdown(_protocol_markdown(distance_m))
    st.caption("In the first table 'fastest' marks the fastest link of all and 'fastest of its kind' the fastest of "
               "each kind (on equal rates, the fewer watts per port, then the shorter reach; the live chart's rows "
               "follow the same choice). The medium to use is the one with the fewest watts per port among those "
               "that reach ('fastest here' marks the fastest link of all); where two draw the same, the shorter "
               "reach, as "
               "copper inside a rack and "
               "multimode across a row. Power is the maker's maximum for one plug, shared by the ports it carries; "
               "'not found' where no maker figure was read.")
    st.markdown("**The rate lost at each step outwards**")
    st.markdown(_steps_markdown())
    media = _media()
    if media:
        catalog = get_catalog()
        names = {row.id: row.name for row in media}
        if st.session_state.get(SOURCE_KEY) not in names:
            st.session_state[SOURCE_KEY] = texts["best_id"] if texts["best_id"] in names else media[0].id
        s1, s2 = st.columns([2, 1])
        chosen = s1.selectbox("Where a link's figures come from", list(names), key=SOURCE_KEY,
                              format_func=names.get)
        if chosen in get_wires().media:
            _medium_sources(chosen, s2)
        elif chosen in catalog.links:
            source_popover(catalog.links[chosen], "Sources", catalog, container=s2)

    st.subheader("Latency: distance costs time, whatever the rate")
    row = st.container(horizontal=True)  # one block, where three columns took four
    for label, value, help_text in texts["latency"]:
        row.metric(label, value, help=help_text)
    st.markdown(texts["pipe"] + "\n\n" + texts["here"])
    st.caption(texts["copper_vs_fibre"])
    return distance_m


def timeouts_section(drawn: bool = True) -> None:
    """The timeout story; its chart only when ``drawn`` (view=timeouts). It is the same at every distance,
    but it follows the picker above, so it is drawn by the distance's fragment."""
    texts = _timeout_texts()
    st.subheader("Timeouts: why a fast link still fails far away")
    if drawn:
        chart(_timeout_chart(), key="reach-timeouts")
    with st.container(border=True):
        st.markdown(texts["story"])
        st.caption(_STORY_SOURCES)
    st.markdown(texts["infiniband"] + "\n\n" + _NVLINK)
    st.caption(_TIMEOUT_SOURCES)


def render() -> None:
    """Draw the page: reach. Fast links are on a short leash: what distance takes away, and what it costs.

    The distance and everything it drives are fragments in :mod:`interconnect.topics.reach.page`, so dragging
    the distance reruns only them, with the one further chart chosen (``view=``) and the timeout story.
    The arithmetic is in :mod:`interconnect.topics.reach.model`.
    """
    page_setup("Reach: fast links are on a short leash",
               "Speed and reach are two different numbers. Move two GPUs apart and watch links drop out, "
               "latency grow and collectives slow down.")
    state = PageState("reach", reach_specs(), shared=CLUSTER_KEYS)
    state.show_warnings()
    st.markdown(INTRO)
    distance_section(state)
    footer()
