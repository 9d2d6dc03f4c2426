"""The hardware pickers: the GPU selectbox (with a custom GPU's own fields) and the network card."""

from __future__ import annotations

from typing import Any

import streamlit as st

from interconnect.catalog import Catalog, Gpu, Link, get_catalog
from interconnect.hardware.custom import CUSTOM_GPU_ID, MAX_NAME_CHARS
from interconnect.inputs.cluster import CUSTOM_GPU_KEYS, page_gpu
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.state import PageState
from interconnect.units import format_bandwidth

__all__ = ["CUSTOM_GPU_LABEL", "custom_gpu_controls", "gpu_picker", "nic_picker"]

#: The GPU picker's entry for a custom GPU (its name, bandwidth and base are set below the picker).
CUSTOM_GPU_LABEL = "Custom GPU (describe it below)"


def gpu_picker(state: PageState, name: str = "gpu", label: str = "GPU", catalog: Catalog | None = None,
               container: Any = st) -> Gpu:
    """The GPU selectbox; on a page with a custom GPU's keys it offers "custom" too (and returns that GPU).

    Draw :func:`custom_gpu_controls` somewhere on the page for the custom GPU's own fields.
    """
    catalog = catalog or get_catalog()
    options = list(catalog.gpus)
    custom = "gpu_bw" in state.specs_by_key
    if custom:
        options.append(CUSTOM_GPU_ID)

    def label_of(gpu_id: str) -> str:  # fixed labels: the options keep one identity between runs
        return CUSTOM_GPU_LABEL if gpu_id == CUSTOM_GPU_ID else catalog.gpus[gpu_id].name

    gpu_id = container.selectbox(label, options, key=state.key(name), format_func=label_of)
    if gpu_id != CUSTOM_GPU_ID:
        return catalog.gpu(gpu_id)
    return page_gpu({key: state[key] for key in (name, *CUSTOM_GPU_KEYS)})


def custom_gpu_controls(state: PageState, catalog: Catalog | None = None, container: Any = st) -> None:
    """The custom GPU's name, scale-up bandwidth and base, shown only while ``gpu=custom``."""
    if state["gpu"] != CUSTOM_GPU_ID:
        return
    catalog = catalog or get_catalog()
    gpu = page_gpu({key: state[key] for key in ("gpu", *CUSTOM_GPU_KEYS)})
    with container.container(border=True):
        c1, c2, c3 = st.columns([2, 2, 3])
        c1.text_input("Custom GPU: name", key=state.key("gpu_name"), max_chars=MAX_NAME_CHARS,
                      help="Letters, digits, spaces and plain punctuation.")
        c2.text_input("Scale-up per direction", key=state.key("gpu_bw"),
                      help="One direction, e.g. '1.8 TB/s' or '900 GB/s'. Makers usually quote both directions "
                           "added up: NVLink 5's '1.8 TB/s' is 900 GB/s per direction.")
        c3.selectbox("Compute, memory and server of", list(catalog.gpus), key=state.key("gpu_base"),
                     format_func=lambda i: catalog.gpus[i].name)
        up = gpu.scaleup_bandwidth
        st.caption(f"**{escape_markdown(gpu.name)}**: {format_bandwidth(up.per_direction())} per direction = "
                   f"{format_bandwidth(up.both_directions())} both directions added up. Everything else is the "
                   f"{escape_markdown(catalog.gpu(state['gpu_base']).name)}'s. Not in the catalog: the source of a "
                   "custom figure is your input.")


def nic_picker(state: PageState, name: str = "nic", label: str = "Network card (per GPU)",
               catalog: Catalog | None = None, container: Any = st) -> Link:
    catalog = catalog or get_catalog()
    nics = catalog.nics()
    nic_id = container.selectbox(label, list(nics), key=state.key(name), format_func=lambda i: nics[i].name)
    return catalog.nic(nic_id)
