"""What every topic shares, pure arithmetic: the cluster, the collectives, fabrics, media and wires.

Nothing here imports Streamlit or Plotly or reads a file (the readers are in ``interconnect/datafiles/``),
and nothing here imports a topic (``interconnect/topics/``).
"""
