"""Page: the unit traps of interconnect figures, and a converter that refuses nonsense with a reason."""

from interconnect.topics.units.page import render

render()
