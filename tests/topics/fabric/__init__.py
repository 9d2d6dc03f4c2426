"""Tests of the Fabric topic."""
