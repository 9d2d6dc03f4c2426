"""Tests of the All-reduce topic."""
