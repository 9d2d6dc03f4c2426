"""Page: hide the gradient all-reduce behind the backward pass, and see what stays exposed."""

from interconnect.topics.overlap.page import render

render()
