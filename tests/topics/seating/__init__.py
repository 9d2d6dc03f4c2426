"""Tests of the Seating chart topic."""
