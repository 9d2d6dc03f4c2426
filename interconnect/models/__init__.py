"""Models not yet moved into their topic folder (``interconnect/topics/<topic>/``) or ``interconnect/hardware/``."""
