"""Every page survives hostile links: hypothesis sets its URL parameters (and unknown ones) to junk.

A fast subset for ``make test``; ``benchmarks/fuzz_urls.py`` runs a thousand cases and prints timings.
"""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interconnect.site import page_specs
from interconnect.testing import HOSTILE_VALUES
from interconnect.ui.pages import PAGES, page_exists
from tests.app.conftest import run_page

SCRIPTS = [script if script != "app.py" else None for name, (script, _) in PAGES.items() if page_exists(name)]
NAMES = {(script if script != "app.py" else None): name for name, (script, _) in PAGES.items()}
#: Keys every page reads: the tour (``step`` is the stop's key in older links) and presentation mode.
TALK_KEYS = ("tour", "stop", "step", "present")
#: Issue 21's inputs: Unicode digits, numbers past int()'s 4,300 digits, a float's finite extremes.
EXTREMES = ("\u00b2", "\u0663", "\uff18", "9" * 4301, "1e308", "5e-324", "1e308 B", "5e-324 s", "1e-320 Gbit/s")


def spec_keys(script: str | None) -> set[str]:
    """The keys of the page's parameter list (none for a page without one)."""
    specs = page_specs().get(NAMES[script])
    return {spec.key for spec in specs()} if specs is not None else set()


@functools.cache
def keys_of(script: str | None) -> tuple[str, ...]:
    """The page's link keys: those of its default view and of its parameter list, a custom GPU's (in the
    link only with gpu=custom), and the tour's and presentation mode's."""
    keys = set(run_page(script).query_params) | spec_keys(script)
    if "gpu" in keys:
        keys.update(("gpu_base", "gpu_bw", "gpu_name", "nic_bw"))
    keys.update(TALK_KEYS)
    return tuple(sorted(keys))


def assert_drawn_and_inert(at) -> None:
    assert not at.exception, at.exception[0].value if at.exception else ""
    for warning in at.warning:
        outside_code = re.sub(r"`[^`]*`", "", warning.value)
        assert "<script" not in outside_code and "<img" not in outside_code  # user text only inside code spans


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s or "home")
@pytest.mark.parametrize("value", ["\u00b2", "9" * 4301, "1e308", "5e-324"], ids=lambda v: repr(v[:8]))
def test_every_key_of_a_page_at_once_set_to_an_extreme(script, value):
    query = dict.fromkeys(keys_of(script), value)
    query["tour"] = "1"  # the stop (stop, or step in an older link) is read only on the tour
    assert_drawn_and_inert(run_page(script, query))


values = st.one_of(st.sampled_from(HOSTILE_VALUES), st.sampled_from(EXTREMES), st.text(max_size=80))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s or "home")
@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hostile_links_never_raise_and_echo_input_inert(script, data):
    keys = keys_of(script)
    chosen = data.draw(st.lists(st.sampled_from(keys), unique=True, max_size=len(keys))) if keys else []
    query = {key: data.draw(values) for key in chosen}
    if data.draw(st.booleans()):
        query[data.draw(st.text(min_size=1, max_size=12))] = data.draw(values)
    if ("stop" in query or "step" in query) and data.draw(st.booleans()):
        query["tour"] = "1"
    query = {k: v for k, v in query.items() if "\x00" not in k}  # a NUL cannot travel in a URL key
    assert_drawn_and_inert(run_page(script, query))


#: Pages with a GPU picker, read from their parameter lists: taking them from keys_of here would run every page
#: at collection, in every xdist worker. The test below checks the list against the keys of each page's link.
GPU_SCRIPTS = [script for script in SCRIPTS if script and "gpu" in spec_keys(script)]


def test_every_page_whose_link_has_a_gpu_key_gets_custom_hardware():
    assert [script for script in SCRIPTS if script and "gpu" in keys_of(script)] == GPU_SCRIPTS


@pytest.mark.parametrize("script", GPU_SCRIPTS)
@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hostile_custom_hardware_never_raises(script, data):
    query = {"gpu": "custom", "nic": "custom"}
    for key in data.draw(st.lists(st.sampled_from(("gpu_base", "gpu_bw", "gpu_name", "nic_bw", "nics")), unique=True,
                                  min_size=1)):
        query[key] = data.draw(values)
    at = run_page(script, query)
    assert not at.exception, at.exception[0].value if at.exception else ""
    for warning in at.warning:
        assert "<script" not in re.sub(r"`[^`]*`", "", warning.value)
