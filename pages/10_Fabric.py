"""Page: Fabric. From GPUs to switches, optics and watts, and what the topology does to collectives."""

from interconnect.topics.fabric.page import render

render()
