"""Mutated logs pasted into the All-reduce page never leave it undrawn, nor the change after (issue 21).

A fast subset for ``make test``: ``benchmarks/fuzz_log_page.py`` runs more cases and prints figures.
Each case pastes a mutated sample log, presses "Use my measurement" where the page offers it, then
changes the node count; every run must draw the page (no exception; all four charts, or one line
saying which could not be drawn).
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def fuzzer():
    sys.path.insert(0, str(BENCHMARKS))  # the page fuzzer reuses fuzz_logs' mutations
    spec = importlib.util.spec_from_file_location("fuzz_log_page", BENCHMARKS / "fuzz_log_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FUZZ = fuzzer()
SAMPLES = FUZZ.fuzz_logs.load_samples()
KINDS = FUZZ.mutators()


@pytest.mark.parametrize("seed", range(6))
def test_a_mutated_log_leaves_the_page_drawing_and_the_next_change_too(seed):
    note, text = FUZZ.make_case(random.Random(seed), SAMPLES, KINDS)
    problems, _ = FUZZ.run_case(text, [], note)
    assert not problems, (note, problems)


@pytest.mark.parametrize("seed", range(3))
def test_impossible_values_leave_the_page_drawing_and_the_next_change_too(seed):
    rng = random.Random(100 + seed)
    name = sorted(SAMPLES)[seed % len(SAMPLES)]
    text, note = FUZZ.impossible_value(rng, SAMPLES[name])
    problems, _ = FUZZ.run_case(text, [], f"{name}: {note}")
    assert not problems, (note, problems)


def test_the_page_check_can_fail():
    # drawn() must see a page that lost a chart without saying so.
    class Page:
        exception = []
        warning = []

        @staticmethod
        def get(kind):
            return [object()] * (FUZZ.CHARTS - 1)

    assert f"{FUZZ.CHARTS - 1} of {FUZZ.CHARTS} charts" in FUZZ.drawn(Page())
