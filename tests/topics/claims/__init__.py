"""Tests of the claims topic."""
