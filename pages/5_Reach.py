"""Page: Reach. Fast links are on a short leash: what distance takes away, and what it costs."""

from interconnect.topics.reach.page import render

render()
