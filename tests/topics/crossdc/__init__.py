"""Tests of the Across sites topic."""
