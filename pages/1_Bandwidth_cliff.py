"""Page: the bandwidth cliff at the edge of the server chassis."""

from interconnect.topics.cliff.page import render

render()
