"""Page: the whole catalog, every figure with its unit, direction, basis and sources."""

import pandas as pd
import streamlit as st

from interconnect.catalog import (
    LAYER_TITLES,
    LAYERS,
    catalog_entries_of_kind,
    catalog_kind_of,
    get_catalog,
)
from interconnect.hardware.fabric import get_fabric_data
from interconnect.topics.fabric.page import switch_catalog
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.pagespecs import catalog_specs
from interconnect.ui.sources import direction_text, figure_label, show_entry
from interconnect.ui.state import PageState

page_setup("Catalog and sources", "Every hardware figure the app uses, with its direction, basis and source.")
catalog = get_catalog()
KINDS = ("gpu", *LAYERS, "node", "switch")
KIND_TITLES = {"gpu": "GPUs and accelerators", "node": "Servers and racks", **LAYER_TITLES,
               "switch": "Switches (the Fabric page)"}
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
    st.stop()
entries = catalog_entries_of_kind(catalog, kind)
ids = ["", *[entry.id for entry in entries]]
if st.session_state.get(entry_key) not in ids:
    st.session_state[entry_key] = ""
chosen = st.selectbox("Entry (filters the table)", ids, key=entry_key,
                      format_func=lambda i: "All of them" if not i else catalog.entry(i).name)
if chosen:
    entries = [catalog.entry(chosen)]
state.sync_url()


@st.cache_resource(max_entries=64, show_spinner=False)
def figure_table(kind: str, chosen: str) -> pd.DataFrame:
    """Every figure of the kind's entries (or of the chosen one), one row each: built once per view."""
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


st.dataframe(figure_table(kind, chosen or ""), hide_index=True, width="stretch")

for entry in entries:
    with st.expander(f"{entry.name} · `{entry.id}`", expanded=bool(chosen)):
        show_entry(entry, catalog, full=True)
footer()
