"""``interconnect compare`` on logs of collectives other than all-reduce: it names the collective and
compares with that collective's model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interconnect.cli import main
from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import all_gather, alltoall

LOGS = Path(__file__).resolve().parents[2] / "unit" / "data" / "nccl_logs"


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_all_gather_log_is_compared_with_the_all_gather_model(capsys):
    log = LOGS / "nccl-tests-2021-all_gather-8xV100-error-column.log"
    code, out, err = _run(capsys, ["compare", str(log), "--gpu", "v100", "--gpus-per-node", "8", "--json"])
    assert code == 0, err
    payload = json.loads(out)
    assert payload["collective"] == "all_gather"
    assert payload["busbw_factor"] == pytest.approx(7 / 8)
    cluster, _ = resolve_cluster("v100", gpus_per_node=8, nodes=1)
    sizes = [row["size_bytes"] for row in payload["rows"]]
    # The header's "nThread 1 nGpus 8" (-g 8): one process drives all eight GPUs, which adds the benchmark's
    # own per-call cost (LAUNCH_OVERHEAD_US["single-process"], 20 µs) to the model's time.
    assert (payload["launch"]["mode"], payload["launch"]["overhead_us"]) == ("single-process", 20.0)
    expected = all_gather(cluster, sizes).time_us + 20.0
    assert [row["model_time_us"] for row in payload["rows"]] == pytest.approx(expected.tolist(), rel=1e-3)
    assert {row["algorithm"] for row in payload["rows"]} <= {"ring", "nvls", "pat", "collnet"}


def test_alltoall_log_text_output_names_the_collective(capsys):
    log = LOGS / "nccl-tests-2.19-alltoall-4xGB200-cputime-timestamps.log"
    code, out, err = _run(capsys, ["compare", str(log), "--gpu", "gb200", "--gpus-per-node", "4",
                                   "--scaleup-domain", "4"])
    assert code == 0, err
    assert "all-to-all (alltoall_perf)" in out.splitlines()[0]
    assert out.splitlines()[1].startswith("model: all-to-all with NCCL on 1 x 4")
    cluster, _ = resolve_cluster("gb200", gpus_per_node=4, nodes=1, scaleup_domain=4)
    assert alltoall(cluster, [2**30]).algorithm[0] == "p2p"
    assert "p2p/" in out


def test_an_all_reduce_algorithm_on_an_all_gather_log_is_refused(capsys):
    log = LOGS / "nccl-tests-2.19-all_gather-2node-socket.log"
    code, _, err = _run(capsys, ["compare", str(log), "--algorithm", "tree"])
    assert code == 2
    assert "not an algorithm of all-gather" in err and len(err.strip().splitlines()) == 1


def test_a_log_without_a_collective_name_is_compared_as_all_reduce(capsys, tmp_path):
    rows = (LOGS / "h100-2node-unidentified.txt").read_text(encoding="utf-8")
    path = tmp_path / "rows.txt"
    path.write_text(rows, encoding="utf-8")
    code, out, err = _run(capsys, ["compare", str(path), "--gpus-per-node", "8", "--nodes", "2", "--json"])
    assert code == 0, err
    payload = json.loads(out)
    assert payload["collective"] == "all_reduce"
    assert any("does not name its collective" in w for w in payload["warnings"])
