"""Tests of the catalog topic."""
