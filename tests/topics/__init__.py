"""Tests of the topic folders, one folder per topic."""
