"""One folder per page of the app: each topic's model, data reader, figures, sweep, page and CLI together.

Inside a topic the layers hold: ``model`` and ``sweep`` are arithmetic (no Streamlit, no Plotly, no file
reading), figure modules build Plotly figures or live-chart specs, and only ``page*.py`` import Streamlit.
A topic never imports another topic: what two share lives below, in ``interconnect/hardware/``,
``interconnect/workloads/``, ``interconnect/datafiles/`` or ``interconnect/figures/``.
"""
