"""Tests of the Reach topic."""
