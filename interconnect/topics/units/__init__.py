"""Unit traps: per direction or both, Gbit or GB, busbw or algbw, and a converter."""
