"""A link key means one thing: a key that two pages read must not gain a new meaning on a third.

Keys already published with a page-specific meaning keep it (links in the wild depend on them), so they are
listed here with the pages that read them; any other key read by two pages must carry the same label, and a
published homonym may not spread to another page. A new input takes a key of its own.
"""

from __future__ import annotations

from collections import defaultdict

from interconnect.site import page_specs

# Published before the rule: each key with the pages whose meanings differ (see docs/reference/link-keys.md).
PUBLISHED_HOMONYMS = {
    "algo": {"allreduce", "overlap"},
    "dtype": {"overlap", "seating"},
    "eff": {"overlap", "seating"},
    "gpus": {"crossdc", "fabric"},
    "h": {"crossdc", "reach"},
    "layers": {"crossdc", "overlap", "seating"},
    "nic": {"allreduce", "cliff", "overlap", "reach", "seating"},
    "nics": {"allreduce", "cliff", "overlap", "reach", "seating"},
    "params": {"crossdc", "overlap", "seating"},
    "pp": {"crossdc", "seating"},
    "tokens": {"crossdc", "overlap"},
    "topk": {"crossdc", "seating"},
    "topo": {"allreduce", "crossdc", "fabric", "overlap", "reach", "seating"},
}


def _meanings() -> dict[str, dict[str, str]]:
    seen: dict[str, dict[str, str]] = defaultdict(dict)
    for page, specs in page_specs().items():
        for param in specs():
            seen[param.key][page] = param.label
    return seen


def test_no_new_homonym_among_link_keys():
    for key, by_page in _meanings().items():
        if len(set(by_page.values())) <= 1:
            continue
        assert key in PUBLISHED_HOMONYMS, f"link key {key!r} means different things: {by_page}; use a new key"
        spread = set(by_page) - PUBLISHED_HOMONYMS[key]
        assert not spread, f"link key {key!r} spread to {spread}"


def test_the_crossdc_micro_batch_count_is_not_the_seating_micro_batch_size():
    meanings = _meanings()
    assert "crossdc" not in meanings["mb"] and "seating" in meanings["mb"]
    assert "crossdc" in meanings["nmb"]
