"""Page: explain a job's NCCL_DEBUG=INFO output, each verdict with the line it rests on."""

from interconnect.topics.explain.page import render

render()
