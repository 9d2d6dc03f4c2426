"""The catalog: every hardware figure with its unit, direction, basis and source."""
