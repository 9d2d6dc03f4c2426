"""Tests of the bandwidth cliff topic."""
