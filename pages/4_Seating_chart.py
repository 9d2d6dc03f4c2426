"""Page: the seating chart. Seat each kind of parallelism on the wire it can afford, and see the bill."""

from interconnect.topics.seating.page import render

render()
