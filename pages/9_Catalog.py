"""Page: the whole catalog, every figure with its unit, direction, basis and sources."""

import pandas as pd
import streamlit as st

from interconnect.catalog import DIRECTION_WORDS, LAYER_TITLES, LAYERS, get_catalog
from interconnect.ui.page import PageState, footer, page_setup, show_entry
from interconnect.ui.urlstate import ChoiceParam

page_setup("Catalog and sources", "Every hardware figure the app uses, with its direction, basis and source.")
catalog = get_catalog()
KINDS = ("gpu", *LAYERS, "node")
KIND_TITLES = {"gpu": "GPUs and accelerators", "node": "Servers and racks", **LAYER_TITLES}
state = PageState("catalog", [ChoiceParam("kind", "gpu", "Kind", choices=KINDS),
                              ChoiceParam("entry", "", "Entry", choices=("", *[e.id for e in catalog.entries()]))])
state.show_warnings()
kind = st.radio("Show", KINDS, key=state.key("kind"), horizontal=True, format_func=KIND_TITLES.get)
if kind == "gpu":
    entries = list(catalog.gpus.values())
elif kind == "node":
    entries = list(catalog.nodes.values())
else:
    entries = list(catalog.layer(kind).values())
ids = ["", *[entry.id for entry in entries]]
if st.session_state.get(state.key("entry")) not in ids:
    st.session_state[state.key("entry")] = ""
chosen = st.selectbox("Entry", ids, key=state.key("entry"),
                      format_func=lambda i: "All of them" if not i else catalog.entry(i).name)
state.sync_url()

rows = []
for entry in entries:
    for name, figure in entry.figures().items():
        rows.append({"Entry": entry.name, "id": entry.id, "Figure": name.replace("_", " "), "Value": figure.text(),
                     "Direction": DIRECTION_WORDS[figure.direction] or "—", "Basis": figure.basis,
                     "Sources": ", ".join(figure.source_ids)})
if kind == "node":
    for node in entries:
        rows.append({"Entry": node.name, "id": node.id, "Figure": "layout",
                     "Value": f"{node.gpus} × {node.gpu}, NVLink domain {node.scaleup_domain}, "
                              f"{node.nics} × {node.nic}",
                     "Direction": "—", "Basis": "spec", "Sources": ", ".join(node.source_ids)})
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")

for entry in entries if not chosen else [catalog.entry(chosen)]:
    with st.expander(f"{entry.name} · `{entry.id}`", expanded=bool(chosen)):
        show_entry(entry, catalog, full=True)
footer()
