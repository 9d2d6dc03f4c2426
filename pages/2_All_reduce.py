"""Page: what the bandwidth cliff costs an all-reduce, by algorithm, message size and cluster size."""

from interconnect.topics.allreduce.page import render

render()
