"""Link keys are a public schema: no two parameters anywhere may share a name with different meanings.

A page's own keys, the cluster keys every cluster page shares, and the keys every page accepts (the
guided tour and presentation mode) are checked against each other. Issue 21 found ``step`` meaning both
the tour's position and the Across-sites step-time mode; these tests fail on any such clash.
"""

from __future__ import annotations

from collections import Counter

from interconnect.inputs.cluster import CLUSTER_KEYS, cluster_specs
from interconnect.inputs.links import GLOBAL_KEYS, LEGACY_TOUR_STEP_KEY
from interconnect.site import page_specs
from interconnect.topics.crossdc.inputs import STEP_MODES


def page_spec_lists() -> dict[str, list]:
    """Every page's parameter list, as :func:`interconnect.site.known_link_keys` finds them (plus the cluster's)."""
    found = {f"{name}_specs": function() for name, function in page_specs().items()}
    found["cluster_specs"] = cluster_specs()
    return found


def clashes(groups: dict[str, list], global_keys: frozenset[str]) -> list[str]:
    """Names used twice within one page's parameters (its own and the cluster's), and a page's key
    that is also a key every page reads (tour, presentation). A link opens one page, so the same
    key on two pages (``gpu``) is read once per link; within a page, each name must mean one thing."""
    problems = []
    for group, specs in groups.items():
        counts = Counter(spec.key for spec in specs)
        problems += [f"{group}: '{key}' used {n} times" for key, n in counts.items() if n > 1]
        problems += [f"{group}: '{key}' is also a tour/presentation key" for key in counts if key in global_keys]
    return problems


def test_no_two_parameters_share_a_name():
    assert clashes(page_spec_lists(), GLOBAL_KEYS) == []


def test_cluster_keys_are_not_tour_or_presentation_keys():
    assert not set(CLUSTER_KEYS) & GLOBAL_KEYS


def test_the_check_fails_on_the_clash_issue_21_found():
    from interconnect.inputs.params import ChoiceParam, IntParam

    old = {"crossdc_specs": [ChoiceParam("step", "typed", choices=STEP_MODES)]}
    assert clashes(old, frozenset({"present", "tour", "step"}))
    assert clashes({"a": [IntParam("n", 1), IntParam("n", 2)]}, frozenset())


def test_the_old_tour_key_never_reads_as_a_step_mode():
    # Old tour links carry the stop in `step` as digits; the Across-sites modes are words.
    assert LEGACY_TOUR_STEP_KEY not in GLOBAL_KEYS
    assert not any(mode.strip().isdigit() for mode in STEP_MODES)
