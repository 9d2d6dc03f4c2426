"""A page run resolves its cluster once and reads each typed value once, where it enters (issue 40, item 3).

``benchmarks/parse_counts.py`` prints the same counts for the All-reduce, Overlap and Seating chart pages.
"""

import collections

import pytest

import interconnect.ui.cluster
import interconnect.units
from tests.app.conftest import run_page


@pytest.fixture
def counts(monkeypatch):
    """How often the cluster is resolved and a quantity text parsed, from here on."""
    seen = collections.Counter()
    resolve, parse = interconnect.ui.cluster.resolve_cluster, interconnect.units.parse_quantity

    def counted_resolve(*args, **kwargs):
        seen["resolve"] += 1
        return resolve(*args, **kwargs)

    def counted_parse(text, *args, **kwargs):
        seen[f"parse {text}"] += 1
        return parse(text, *args, **kwargs)

    monkeypatch.setattr(interconnect.ui.cluster, "resolve_cluster", counted_resolve)
    monkeypatch.setattr(interconnect.units, "parse_quantity", counted_parse)
    return seen


@pytest.mark.parametrize(("page", "key", "values"), [
    ("pages/2_All_reduce.py", "allreduce.nodes", (8, 4)),
    ("pages/4_Seating_chart.py", "seating.nodes", (4, 8)),
])
def test_a_node_count_change_resolves_the_cluster_once_and_parses_nothing(counts, page, key, values):
    at = run_page(page)
    assert not at.exception
    counts.clear()
    first, back = values
    at.number_input(key=key).set_value(first).run()  # both fragments ask for the cluster: one resolution
    assert not at.exception
    assert counts == {"resolve": 1}
    counts.clear()
    at.number_input(key=key).set_value(back).run()  # the first load's cluster, kept in the session
    assert counts == {}


def test_a_typed_size_is_parsed_once_and_carried(counts):
    at = run_page("pages/2_All_reduce.py")
    counts.clear()
    at.text_input(key="allreduce.size").set_value("1  GiB").run()
    assert not at.exception
    assert counts == {"parse 1  GiB": 1}  # read once, though the page, its two fragments and the live chart use it
    assert at.query_params["size"] == "1 GiB"  # the link keeps the text (its blanks collapsed)
    counts.clear()
    at.number_input(key="allreduce.nodes").set_value(8).run()
    assert counts == {"resolve": 1}  # the size is carried from the last run, not read again
