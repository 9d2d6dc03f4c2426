"""Page: the whole catalog, every figure with its unit, direction, basis and sources."""

from interconnect.topics.catalog.page import render

render()
