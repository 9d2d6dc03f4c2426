"""Tests of the Overlap topic."""
