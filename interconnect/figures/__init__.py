"""The shared look of every chart: the theme, the ticks, the live-chart and diagram spec types, the export.

A topic's own figures live in its folder (``interconnect/topics/<topic>/figures.py``); what they share is here.
"""
