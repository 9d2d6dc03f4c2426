"""The Streamlit shell shared by the pages: URL state, chrome, pickers, the cluster box, the tour, sharing,
the live chart and the diagram. A topic's own page modules live in its folder."""
