"""Page: training across data centres: what crosses the WAN, and how busy the GPUs stay."""

from interconnect.topics.crossdc.page import render

render()
