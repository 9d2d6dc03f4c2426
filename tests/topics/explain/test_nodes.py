"""Per-node verdicts: the node unlike its peers, by NIC list, path, GDR, NICs used, set-up time and busbw.

The logs of ``tests/data/nccl_debug_logs/synthetic`` are written for these checks (marked synthetic in their
manifest, with the hand arithmetic beside each expected ratio); the collected real logs must give no node verdict
at all, since none of their threads names a node unlike the others.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from interconnect.cli import main
from interconnect.io.nccl_debug import read_nccl_debug
from interconnect.io.nccl_debug import tests_runs as nccl_tests_runs
from interconnect.io.nccl_debug.messages import init_timing
from interconnect.topics.explain.model import CAUSE, explain, explain_source
from interconnect.topics.explain.outliers import node_verdicts

DATA = Path(__file__).resolve().parents[2] / "data" / "nccl_debug_logs"
SYNTHETIC = tomllib.loads((DATA / "synthetic" / "manifest.toml").read_text(encoding="utf-8"))["log"]
REAL = tomllib.loads((DATA / "manifest.toml").read_text(encoding="utf-8"))["log"]


def _verdicts(text: str):
    log = read_nccl_debug(text)
    return node_verdicts(log, nccl_tests_runs(log))


@pytest.mark.parametrize("entry", SYNTHETIC, ids=lambda e: e["id"])
def test_synthetic_logs_name_their_odd_node(entry):
    assert entry["synthetic"] is True and entry["forms_from"]
    verdicts = _verdicts((DATA / "synthetic" / entry["file"]).read_text(encoding="utf-8"))
    got = {(v.host, v.kind): v for v in verdicts}
    assert set(got) == {(e["host"], e["kind"]) for e in entry["expected"]}
    for expected in entry["expected"]:
        if "ratio" in expected:
            assert got[(expected["host"], expected["kind"])].ratio == pytest.approx(expected["ratio"], rel=1e-5)


@pytest.mark.parametrize("entry", [e for e in REAL if not e["holdout"]], ids=lambda e: e["id"])
def test_no_collected_development_log_names_a_node(entry):
    assert _verdicts((DATA / entry["file"]).read_bytes()) == []


def test_every_verdict_cites_its_line_and_a_peers_line():
    path = DATA / "synthetic" / "per-node-links.log"
    lines = path.read_text(encoding="utf-8").splitlines()
    for verdict in _verdicts(path.read_text(encoding="utf-8")):
        assert verdict.host in lines[verdict.line - 1]  # the node's own line
        assert verdict.host not in lines[verdict.peer_line - 1]  # a peer's
        assert f"line {verdict.line}" in verdict.text and str(verdict.peer_line) in verdict.text


def test_verdicts_rank_first_and_read_the_same_in_json_and_text(capsys):
    path = DATA / "synthetic" / "per-node-nccl-tests-runs.log"
    assert main(["explain", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    odd = payload["facts"]["node_outliers"]
    assert [v["host"] for v in odd] == ["h100-2"]
    assert payload["ranked"][0]["text"] == odd[0]["text"] and payload["ranked"][0]["severity"] == CAUSE
    assert odd[0]["text"].startswith("Node h100-2 is 0.61x its peers")
    assert main(["explain", str(path)]) == 0
    assert odd[0]["text"] in capsys.readouterr().out.split("Everything the log says")[0]
    # runs one after another are a sweep, not the separate jobs of one launch (NVIDIA/nccl-tests#213's picture)
    assert not any("ran as separate jobs" in f["text"] for f in payload["findings"])
    assert payload["cluster_query"]["nodes"] == "1" and payload["cluster_query"]["gpn"] == "8"


def _tests_run(host: str, busbw: float) -> str:
    rows = "\n".join(f"{size:12d} {size // 4:13d}     float     sum      -1 {size / (busbw * 1e3):8.1f} "
                     f"{busbw:7.2f} {busbw:7.2f}      0 {size / (busbw * 1e3):8.1f} {busbw:7.2f} {busbw:7.2f}      0"
                     for size in (1 << 26, 1 << 28))
    hosts = host.split("+")
    ranks = "\n".join(f"#  Rank {i:2d} Group  0 Pid  {100 + i} on {h:>10} device  0 [0x18] NVIDIA H100 80GB HBM3"
                      for i, h in enumerate(hosts))
    return (f"# nThread 1 nGpus 1 minBytes 67108864 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20\n"
            f"#\n# Using devices\n{ranks}\n{hosts[0]}:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw"
            "   busbw #wrong\n" + rows + "\n")


def test_pair_runs_name_the_node_in_no_full_speed_run():
    # a-b slow; a-c and c-d at full speed: b is the one node never seen at full speed
    text = _tests_run("a+b", 20.0) + _tests_run("a+c", 40.0) + _tests_run("c+d", 41.0)
    verdicts = _verdicts(text)
    assert [(v.host, v.kind) for v in verdicts] == [("b", "busbw")]
    assert verdicts[0].ratio == pytest.approx(20.0 / 40.5) and "only b is in no full-speed run" in verdicts[0].text


def test_pair_runs_whose_nodes_all_ran_fast_elsewhere_point_at_the_path():
    text = _tests_run("a+b", 20.0) + _tests_run("a+c", 40.0) + _tests_run("b+d", 40.0)
    (verdict,) = _verdicts(text)
    assert verdict.host == "a, b" and "the path between them" in verdict.text


def test_inspector_records_spanning_nodes_do_not_single_one_out():
    records = [json.dumps({"header": {"id": "0x1", "rank": r, "n_ranks": 16, "nnodes": 2},
                           "metadata": {"hostname": f"n{r // 8}", "pid": r},
                           "coll_perf": {"coll": "AllReduce", "coll_sn": 1, "coll_msg_size_bytes": 1 << 30,
                                         "coll_exec_time_us": 9000, "coll_algobw_gbs": 100.0,
                                         "coll_busbw_gbs": 100.0 if r < 8 else 50.0}}) for r in range(16)]
    out = explain_source("\n".join(records))
    assert out.facts["node_outliers"] == []
    assert any("spanning several nodes" in f.text for f in out.findings)
    assert out.facts["inspector"]["records"] == 16 and out.facts["inspector"]["hosts"] == 2


def test_init_timing_forms():
    newer = init_timing("Init timings - ncclCommInitRank: rank 3 nranks 16 total 0.66 (kernels 0.17, alloc 0.02, "
                        "bootstrap 0.03, allgathers 0.01, topo 0.36, graphs 0.00, connections 0.04, rest 0.03)")
    assert (newer.rank, newer.nranks, newer.total_s, dict(newer.parts)["topo"]) == (3, 16, 0.66, 0.36)
    assert init_timing("Init timings: rank x") is None and init_timing("Init COMPLETE") is None


def test_even_nodes_give_no_verdict_and_say_so():
    text = "\n".join(f"n{h}:1:1 [{d}] NCCL INFO Init timings: rank {h * 2 + d} nranks 6 total {1.0 + 0.1 * h:.2f} "
                     "(kernels 0.5, bootstrap 0.3)" for h in range(3) for d in range(2))
    out = explain(read_nccl_debug(text))
    assert out.facts["node_outliers"] == []
    assert any(f.topic == "nodes" and f.text.startswith("No node stands out") for f in out.findings)


def test_json_keys_in_a_long_hostile_line_stay_bounded():
    line = '"rank": 1, "coll_busbw_gbs": 2.5, ' * 200
    log = read_nccl_debug(("{" + line[:4000] + "}\n") * 2000)
    assert log.inspector == {}  # no host, no collective: nothing to compare


def test_repeated_warnings_are_one_finding_with_their_lines():
    out = explain_source((DATA / "synthetic" / "per-node-failure-warnings.log").read_bytes())
    warns = [f for f in out.findings if f.topic == "warnings"]
    assert [f.text for f in warns][0] == "NCCL WARN: NET/IB : Got async event : port error (3 times, lines 20, 21, 22)"
    assert len(warns) == 2 and all(f.severity == CAUSE for f in warns)
    assert out.ranked()[0].topic == "nodes"  # the node that printed them comes first


def test_the_node_table_holds_what_the_checks_compare():
    out = explain_source((DATA / "synthetic" / "per-node-links.log").read_bytes())
    rows = {row["host"]: row for row in out.facts["per_node"]}
    assert [row["host"] for row in out.facts["per_node"]] == ["gpu-b", "gpu-c", "gpu-d", "gpu-a"]  # odd first
    assert {h: r["nics_listed"] for h, r in rows.items()} == {"gpu-a": 4, "gpu-b": 4, "gpu-c": 2, "gpu-d": 4}
    assert {h: r["nics_used"] for h, r in rows.items()} == {"gpu-a": 4, "gpu-b": 4, "gpu-c": 2, "gpu-d": 4}
    assert (rows["gpu-b"]["gdr_on"], rows["gpu-b"]["gdr_off"]) == (0, 8)
    assert rows["gpu-d"]["transports"] == {"NET/IB": 8, "SHM": 4} and rows["gpu-a"]["unlike_peers"] == []
    timings = explain_source((DATA / "synthetic" / "per-node-init-timings.log").read_bytes()).facts["per_node"]
    assert [(r["host"], r["init_s"]) for r in timings] == [("node-2", 4.79), ("node-1", 1.09), ("node-3", 1.09)]
