"""The page: the whole catalog, every figure with its unit, direction, basis and sources."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from interconnect.catalog import (
    LAYER_TITLES,
    LAYERS,
    catalog_entries_of_kind,
    catalog_kind_of,
    get_catalog,
)
from interconnect.hardware.fabric import Switch, get_fabric_data
from interconnect.topics.catalog.inputs import catalog_specs
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.sources import direction_text, figure_label, show_entry
from interconnect.ui.state import PageState
from interconnect.units import Q_, format_bandwidth

KINDS = ("gpu", *LAYERS, "node", "switch")
KIND_TITLES = {"gpu": "GPUs and accelerators", "node": "Servers and racks", **LAYER_TITLES,
               "switch": "Switches (the Fabric page)"}


@st.cache_resource(max_entries=64, show_spinner=False)
def figure_table(kind: str, chosen: str) -> pd.DataFrame:
    """Every figure of the kind's entries (or of the chosen one), one row each: built once per view."""
    catalog = get_catalog()
    entries = [catalog.entry(chosen)] if chosen else catalog_entries_of_kind(catalog, kind)
    rows = []
    for entry in entries:
        for name, figure in entry.figures().items():
            rows.append({"Entry": entry.name, "id": entry.id, "Figure": figure_label(entry, name),
                         "Value": figure.text(), "Direction": direction_text(figure) or "—", "Basis": figure.basis,
                         "Sources": ", ".join(figure.source_ids)})
    if kind == "node":
        for node in entries:
            rows.append({"Entry": node.name, "id": node.id, "Figure": "layout",
                         "Value": f"{node.gpus} × {node.gpu}, NVLink domain {node.scaleup_domain}, "
                                  f"{node.nics} × {node.nic}",
                         "Direction": "—", "Basis": "spec", "Sources": ", ".join(node.source_ids)})
    return pd.DataFrame(rows)


def render() -> None:
    """Draw the page (its script in ``pages/`` calls this)."""
    page_setup("Catalog and sources", "Every hardware figure the app uses, with its direction, basis and source.")
    catalog = get_catalog()
    SWITCHES = get_fabric_data().switches
    state = PageState("catalog", catalog_specs())
    state.show_warnings()
    kind_key, entry_key = state.key("kind"), state.key("entry")
    linked_entry = st.session_state.get(entry_key, "")
    listed = (set(SWITCHES) if st.session_state[kind_key] == "switch"
              else {e.id for e in catalog_entries_of_kind(catalog, st.session_state[kind_key])})
    if linked_entry and linked_entry not in listed:
        # A link may name an entry under the wrong kind: show the entry (what was asked for), under its own kind.
        own_kind = "switch" if linked_entry in SWITCHES else catalog_kind_of(catalog, linked_entry)
        st.info(f"`{linked_entry}` is listed under *{KIND_TITLES[own_kind]}*, so that is the list shown.")
        st.session_state[kind_key] = own_kind
    kind = st.radio("Show", KINDS, key=kind_key, horizontal=True, format_func=KIND_TITLES.get)
    if kind == "switch":
        switch_catalog(entry_key)
        state.sync_url()
        footer()
        return
    entries = catalog_entries_of_kind(catalog, kind)
    ids = ["", *[entry.id for entry in entries]]
    if st.session_state.get(entry_key) not in ids:
        st.session_state[entry_key] = ""
    chosen = st.selectbox("Entry (filters the table)", ids, key=entry_key,
                          format_func=lambda i: "All of them" if not i else catalog.entry(i).name)
    if chosen:
        entries = [catalog.entry(chosen)]
    state.sync_url()


    st.dataframe(figure_table(kind, chosen or ""), hide_index=True, width="stretch")

    for entry in entries:
        with st.expander(f"{entry.name} · `{entry.id}`", expanded=bool(chosen)):
            show_entry(entry, catalog, full=True)
    footer()


def _switch_rows(switch: Switch) -> list[dict[str, str]]:
    """The Catalog page's rows for one switch: ports, port rate, capacity and power, each with its sources."""
    sources = ", ".join(switch.sources)
    rate = format_bandwidth(Q_(switch.port_gbit_s, "Gbit/s"))
    figures = [
        ("ports", f"{switch.ports} ({switch.fabric})", "—", sources),
        ("port rate", f"{rate} ({switch.port_gbit_s:g} Gbit/s)", "per direction", sources),
        ("switching capacity (ports × rate)", format_bandwidth(Q_(switch.capacity_gbit_s, "Gbit/s")),
         "per direction", sources),
        ("power (without modules)", "not found" if switch.power_w is None else f"{switch.power_w:g} W", "—",
         ", ".join(switch.power_sources) or "—"),
    ]
    return [{"Entry": switch.name, "id": switch.id, "Figure": figure, "Value": value, "Direction": direction,
             "Basis": "spec", "Sources": cited} for figure, value, direction, cited in figures]


def switch_catalog(entry_key: str) -> None:
    """The Catalog page's list of the Fabric page's switches: a figure table, then each switch with its sources.

    ``entry_key`` is the page's entry selectbox key (a switch id, or empty for all of them).
    """
    catalog = get_catalog()
    switches = get_fabric_data().switches
    ids = ["", *switches]
    if st.session_state.get(entry_key) not in ids:
        st.session_state[entry_key] = ""
    chosen = st.selectbox("Entry (filters the table)", ids, key=entry_key,
                          format_func=lambda i: "All of them" if not i else switches[i].name)
    shown = [switches[chosen]] if chosen else list(switches.values())
    st.dataframe(pd.DataFrame([row for switch in shown for row in _switch_rows(switch)]), hide_index=True,
                 width="stretch")
    st.caption("The switches the Fabric page builds with. A switch's power is left as not found where no maker's "
               "document giving it was read; the fabric's power then counts only its cables and modules.")
    for switch in shown:
        with st.expander(f"{switch.name} · `{switch.id}`", expanded=bool(chosen)):
            lines = [escape_markdown(switch.note), "", f"**Vendor:** {escape_markdown(switch.vendor)}", "",
                     "**Sources:**"]
            lines += [f"- [{escape_markdown(catalog.source(s).title)}]({catalog.source(s).url})"
                      for s in dict.fromkeys((*switch.sources, *switch.power_sources))]
            st.markdown("\n".join(lines))
