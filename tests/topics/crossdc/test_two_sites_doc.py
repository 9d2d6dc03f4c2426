"""docs/crossdc-two-sites.md: a 10B model on 2 sites over 1 Gbit/s, every method, checked against the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interconnect.cli import main

DOC = Path(__file__).resolve().parents[3] / "docs" / "crossdc-two-sites.md"
CASE = ["crossdc", "--params", "10e9", "--sites", "2", "--gpus-per-site", "1", "--step-time", "0.8 s",
        "--wan-bandwidth", "1 Gbit/s", "--rtt", "0 s", "--no-overlap", "--json"]

# By hand (the doc): utilisation in %, time to DP's loss as a share of DP's, wall-clock to it in h.
# Inputs: 10B at 0.8 s a step (Streaming DiLoCo Table 4, arXiv 2501.18512), 0.125 GB/s, H and bits of each
# method's paper (crossdc.toml), steps ratios from docs/crossdc-time-to-target.md (DiLoCo: the scaling
# law of arXiv 2503.09799 at 10B and 2 replicas, 0.9491; CoCoDC 0.79, arXiv 2504.17672; MT-DAO 0.76,
# arXiv 2510.05361).
BY_HAND = {
    "dp": (0.8 / 160.8 * 100, 1.0, 88_000 * 160.8 / 3600),
    "diloco": (400 / 560 * 100, 0.006611, 25.99),
    "diloco-int8": (50.0, 0.009444, 37.12),
    "streaming-diloco": (80 / 120 * 100, 0.007463, 29.33),
    "sparseloco": (24 / 26.1875 * 100, 0.005152, 20.25),
    "cocodc": (80 / 120 * 100, 0.005896, 23.17),
    "mt-dao": (25.6 / 505.6 * 100, 0.07468, 293.5),
    "crosspipe": (0.8 / 258.873 * 100, 258.873 / 160.8, 6328.0),
}


def _run(capsys, method):
    assert main([*CASE, "--method", method]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("method", "expected"), BY_HAND.items(), ids=list(BY_HAND))
def test_each_method_matches_the_hand_figures(capsys, method, expected):
    payload = _run(capsys, method)
    utilization, relative, wall = expected
    row = payload["time_to_target"][method]
    assert payload["compute_utilization"]["value"] == pytest.approx(utilization, rel=2e-4)
    assert row["time_to_target_vs_dp"] == pytest.approx(relative, rel=1e-3)
    assert payload["wall_clock_to_target"]["value"] == pytest.approx(wall, rel=1e-3)


def test_the_inputs_the_doc_works_from(capsys):
    dp, diloco, streaming, cross = (_run(capsys, m) for m in ("dp", "diloco", "streaming-diloco", "crosspipe"))
    assert dp["bytes_per_sync"] == {"value": 20.0, "unit": "GB"} and dp["sync_time"]["value"] == 160.0
    assert diloco["steps_to_target_ratio"] == pytest.approx(0.9491, abs=5e-5)
    assert "measured at 10B, M = 2" in diloco["time_to_target"]["diloco"]["law_note"]
    assert diloco["time_to_target"]["diloco"]["basis"] == "extrapolated"  # H = 500, not the law's 30
    assert streaming["fragments"] == 17 and streaming["bytes_per_sync"]["value"] == pytest.approx(0.294118)
    pipeline = cross["pipeline"]
    assert pipeline["hidden"] == 4032 and pipeline["message_per_micro_batch"] == {"value": 504.0, "unit": "MB"}
    assert pipeline["transfer_time_per_micro_batch"] == {"value": 4032.0, "unit": "ms"}


def test_the_doc_shows_the_hand_figures():
    text = DOC.read_text(encoding="utf-8")
    for words in ("**0.4975 %**", "**3,930.7 h**", "**71.43 %**", "**0.9491**", "**0.006611**", "**25.99 h**",
                  "**50.00 %**", "**17** fragments", "**0.2941 GB**", "**66.67 %**", "**0.007463**",
                  "**91.65 %**", "**0.005152**", "**0.005896**", "**60 GB**", "**5.063 %**", "**0.07468**",
                  "**4,032**", "**504 MB**", "**258.87 s**", "**0.309 %**", "**1.6099**", "**6,328 h**"):
        assert words in text, words


def test_with_overlap_the_streaming_pair_hides_its_fragments(capsys):
    case = [a for a in CASE if a != "--no-overlap"]
    for method, wall in (("streaming-diloco", None), ("cocodc", 18.8)):
        assert main([*case, "--method", method]) == 0
        payload = json.loads(capsys.readouterr().out)
        assert payload["compute_utilization"]["value"] == pytest.approx(82.19, abs=0.005)
        if wall:
            assert payload["wall_clock_to_target"]["value"] == pytest.approx(wall, abs=0.05)
    assert "reach 82.19 %" in DOC.read_text(encoding="utf-8") and "CoCoDC at 18.8 h" in DOC.read_text(
        encoding="utf-8")
