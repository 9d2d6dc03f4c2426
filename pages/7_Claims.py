"""Page: every popular figure of the episode beside what the sources say, the verdict and where to see it."""

from interconnect.topics.claims.page import render

render()
