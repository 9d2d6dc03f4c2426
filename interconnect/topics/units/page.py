"""The page: the unit traps of interconnect figures, and a converter that refuses nonsense with a reason."""

from __future__ import annotations

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.topics.units.inputs import units_specs
from interconnect.topics.units.model import read_rate
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.state import PageState
from interconnect.units import QuantityInputError


def render() -> None:
    """Draw the page (its script in ``pages/`` calls this)."""
    page_setup("Unit traps", "Six ways the same link gets two different numbers, and a converter for what you paste.")
    catalog = get_catalog()
    state = PageState("units", units_specs())
    state.show_warnings()

    with st.container(border=True):
        st.markdown("**Convert a figure**: type a rate as you found it, e.g. `900 GB/s`, `400 Gbps`, `1.6 Tbit/s`.")
        c1, c2 = st.columns([3, 2])
        c1.text_input("Rate", key=state.key("q"))
        c2.radio("Quoted as", ["both", "per"], key=state.key("qdir"), horizontal=True,
                 format_func={"both": "both directions summed", "per": "per direction"}.get)
    state.sync_url()
    values = state.values()
    phrase = "bidirectional" if values["qdir"] == "both" else "per direction"
    try:
        reading = read_rate(f"{values['q']} {phrase}")
        cols = st.columns(3)
        cols[0].metric("Per direction", f"{reading.per_direction.to('GB/s').magnitude:,.4g} GB/s")
        cols[1].metric("Per direction, in bits", f"{reading.per_direction.to('Gbit/s').magnitude:,.4g} Gbit/s")
        cols[2].metric("Both directions summed", f"{reading.both_directions.to('GB/s').magnitude:,.4g} GB/s")
        for note in reading.notes:
            st.caption(escape_markdown(note))
    except QuantityInputError as exc:
        st.error(f"Could not convert that: {escape_markdown(str(exc))}")

    h100 = catalog.gpu("h100-sxm")
    ndr = catalog.nic("ib-ndr")
    TRAPS = [
        ("Per direction against both directions",
         f"NVIDIA quotes NVLink as both directions added: H100's {h100.scaleup_bandwidth.text()} is "
         f"{h100.scaleup_bandwidth.quantity.to('GB/s').magnitude / 2:.0f} GB/s each way. Network ports are quoted per "
         f"direction: {ndr.name} is {ndr.bandwidth.text()} each way. Compare like with like or the gap doubles."),
        ("Gbit against GB",
         "Networks count bits, memory counts bytes: 400 Gbit/s is 50 GB/s. A lower-case b is a bit; and in pint and "
         "in this app `Gb` is the gilbert (a magnetic unit), so write `Gbit`."),
        ("GiB against GB",
         "nccl-tests sizes are binary (1 GiB = 1,073,741,824 bytes) but its bandwidths are decimal (1 GB/s = 10⁹ B/s): "
         "a 7.4 % difference at giga, 10 % at tera."),
        ("busbw against algbw against the wire",
         "algbw is message size over time. busbw multiplies it by 2(n−1)/n for an all-reduce, so it can be compared "
         "with a link's rate across rank counts. Neither is the wire rate: NCCL reaching about 80 % of the wire is "
         "normal."),
        ("In-switch reduction: busbw above the wire",
         "With NVLS (NVSwitch) or SHARP (InfiniBand switches) each GPU sends its data once and the switch adds. "
         "nccl-tests cannot see which algorithm NCCL chose, so it keeps busbw = algbw × 2(n−1)/n, and the figure "
         "comes out above what the link carries (about 480 GB/s on H100's 450 GB/s NVLink). Read it as the link "
         "rate a ring all-reduce would need to finish in the same time, not as a wire speed."),
        ("Spec against achieved",
         f"A datasheet rate is what the wire signals; software gets less. NCCL plans {h100.scaleup_achieved.text()} "
         f"for H100's NVLink against {h100.scaleup_bandwidth.quantity.to('GB/s').magnitude / 2:.0f} GB/s per direction "
         "on paper."),
    ]
    for title, text in TRAPS:
        with st.expander(title, expanded=False):
            st.markdown(text)
    st.page_link("pages/7_Claims.py", label="Where these traps produced famous wrong numbers: Claims, checked →")
    footer()
