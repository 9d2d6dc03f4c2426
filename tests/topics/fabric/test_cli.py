"""``interconnect fabric`` and ``interconnect catalog --kind switch``: JSON keys, counts, one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from interconnect.cli import main
from interconnect.hardware.fabric import get_fabric_data


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_tiers_totals_and_bisection(capsys):
    code, out, err = run(capsys, "fabric", "--gpus", "1024", "--server", "dgx-h100", "--switch", "quantum-2-qm9700",
                         "--topology", "rail-leaf-spine", "--json")
    assert code == 0 and err == ""
    payload = json.loads(out)
    tiers = payload["tiers"]
    assert [t["name"] for t in tiers] == ["leaf", "spine"]
    # DGX SuperPOD, 4 SU (128 DGX H100): 32 leaf, 16 spine, 1024 + 1024 cables (NVIDIA's RA table).
    assert [t["switches"] for t in tiers] == [32, 16]
    assert [t["links_down"] for t in tiers] == [1024, 1024]
    assert tiers[0]["links_up"] == 1024 and tiers[1]["links_up"] == 0
    for tier in tiers:
        assert set(tier) >= {"name", "switches", "links_down", "links_up", "medium", "transceivers", "media_power_w"}
        assert set(tier["medium"]) >= {"id", "name", "reach_m", "power_per_end_w", "sources"}
    assert payload["totals"]["switches"] == 48 and payload["totals"]["links"] == 2048
    # issue: 4,096 transceivers for 2,048 links of twin-port modules; one module carries two 400G links
    assert payload["totals"]["transceivers"] == payload["totals"]["modules"] == 2048
    assert payload["totals"]["cables"] == 2048
    assert [t["medium"]["ports_per_plug"] for t in tiers] == [2, 2]
    # Non-blocking: half of 1024 x 400 Gbit/s crosses the bisection.
    assert payload["bisection_bandwidth"]["gbit_s_per_direction"] == pytest.approx(1024 * 400 / 2)
    assert payload["hops"] == {"same_rail": 1, "cross_rail": 3, "cross_group": 3}


def test_oversubscription_and_fat_tree(capsys):
    code, out, _ = run(capsys, "fabric", "--gpus", "1024", "--topology", "fat-tree", "--oversubscription", "2",
                       "--json")
    assert code == 0
    leaf = json.loads(out)["tiers"][0]
    # 2:1 of 64 ports: 42 down; the 22 left all face up, so the tier reports the ratio it really has.
    assert leaf["ports_down_per_switch"] == 42 and leaf["ports_up_per_switch"] == 22
    assert leaf["oversubscription"] == pytest.approx(42 / 22, abs=1e-4)
    assert leaf["medium"]["id"] == "dac-100g-pam4"  # top-of-rack leaves: copper in the rack


def test_text_output_and_three_tiers(capsys):
    code, out, err = run(capsys, "fabric", "--gpus", "4096")
    assert code == 0 and err == ""
    assert "core" in out and "bisection" in out and "cross pod 5" in out


@pytest.mark.parametrize("args, fragment", [
    (["--gpus", "1024", "--oversubscription", "0.5"], "--oversubscription: got 0.5"),
    (["--gpus", "1024", "--switch", "nope"], "unknown switch id 'nope'"),
    (["--gpus", "1024", "--distance", "moon"], "--distance: got 'moon'"),
    (["--gpus", "1024", "--nic-rate", "5 kg"], "--nic-rate"),
    (["--gpus", "0"], "GPUs: got 0"),
    (["--gpus", "1024", "--server", "nope"], "unknown node id 'nope'"),
    (["--gpus", "1000000", "--tiers", "2"], "three tiers are needed"),
])
def test_bad_input_is_one_line(capsys, args, fragment):
    code, out, err = run(capsys, "fabric", *args)
    assert code == 2 and out == ""
    assert fragment in err and err.count("\n") == 1


def test_rounding_to_whole_servers_warns(capsys):
    code, out, err = run(capsys, "fabric", "--gpus", "1001")
    assert code == 0 and "using 126 servers" in err


def test_catalog_lists_switches_with_sources(capsys):
    code, out, err = run(capsys, "catalog", "--kind", "switch", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows] == list(get_fabric_data().switches)
    qm = rows[0]
    assert qm["ports"] == 64 and qm["port_rate"] == {"value": 400.0, "unit": "Gbit/s", "direction": "per_direction"}
    assert all(row["sources"] for row in rows)
    code, out, _ = run(capsys, "catalog", "--kind", "switch")
    assert code == 0 and "144 ports x 800 Gbit/s" in out


def test_catalog_kind_all_includes_the_switches(capsys):
    # Issue "What the screen says, right", 10: --kind all left out the switches --kind switch lists.
    code, out, _ = run(capsys, "catalog", "--kind", "all", "--json")
    assert code == 0
    rows = json.loads(out)
    switches = [r["id"] for r in rows if r["kind"] == "switch"]
    assert switches == list(get_fabric_data().switches)
    assert any(r["kind"] == "gpu" for r in rows)
    code, out, _ = run(capsys, "catalog")
    assert code == 0 and all(f"{s}  (switch)" in out for s in switches) and "h100-sxm  (gpu)" in out


# --- ``interconnect allreduce`` with the pages' fabric topology (topo, switch, osub, shared) -------


def _allreduce_json(capsys, *flags):
    code, out, err = run(capsys, "allreduce", "--gpu", "h100-sxm", "--size", "256 MB", "--json", *flags)
    assert code == 0, err
    return json.loads(out), err


def test_allreduce_takes_the_pages_topology(capsys):
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.hardware.collectives import allreduce
    from interconnect.hardware.fabric import TopologySpec

    plain, _ = _allreduce_json(capsys, "--nodes", "64")
    tapered, _ = _allreduce_json(capsys, "--nodes", "64", "--topology", "rail-leaf-spine", "--oversubscription", "2")
    # The same cluster the All-reduce page builds from topo=rail-leaf-spine&osub=2 (64 servers span
    # two leaf groups of 42, so the ring crosses a 2:1 spine and gets half the NIC rate).
    spec = TopologySpec("rail-leaf-spine", "quantum-2-qm9700", 2.0)
    cluster, _ = resolve_cluster("h100-sxm", nodes=64, topology=spec)
    assert cluster.fabric_share == 0.5
    expected = allreduce(cluster, np.array([256e6])).rows()[0]
    row = tapered["results"][0]
    assert row["busbw"]["value"] == pytest.approx(expected["busbw_gbps"], rel=1e-6)
    assert row["busbw"]["value"] < plain["results"][0]["busbw"]["value"]
    assert "2:1 at the leaves" in tapered["description"]
    # Within one leaf group the fabric changes nothing: 16 servers of a 42-server group.
    inside, _ = _allreduce_json(capsys, "--nodes", "16", "--topology", "rail-leaf-spine", "--oversubscription", "2")
    alone, _ = _allreduce_json(capsys, "--nodes", "16")
    assert inside["results"] == alone["results"]
    # Traffic sharing the spine: half of a non-blocking spine is half of the NIC rate.
    shared, _ = _allreduce_json(capsys, "--nodes", "64", "--topology", "fat-tree", "--shared", "50",
                                "--switch", "spectrum-4-sn5600")
    assert "50% of the spine taken by other traffic" in shared["description"]


@pytest.mark.parametrize(("flags", "message"), [
    (("--topology", "fat-tree", "--switch", "no-such"), "--switch: unknown switch 'no-such'"),
    (("--topology", "fat-tree", "--oversubscription", "0.5"), "--oversubscription: got 0.5"),
    (("--topology", "fat-tree", "--oversubscription", "nan"), "--oversubscription: got nan"),
    (("--topology", "fat-tree", "--shared", "95"), "--shared: got 95"),
])
def test_allreduce_topology_flags_reject_bad_values_in_one_line(capsys, flags, message):
    code, out, err = run(capsys, "allreduce", *flags)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_allreduce_topology_flags_without_a_topology_are_ignored_with_a_warning(capsys):
    code, out, err = run(capsys, "allreduce", "--nodes", "64", "--switch", "spectrum-4-sn5600", "--shared", "50")
    assert code == 0 and "--switch: ignored without --topology" in err and "--shared: ignored" in err
    assert "fabric:" not in out


def test_text_counts_modules_as_bought(capsys):
    # issue: 98,304 transceivers for 16,384 GPUs (49,152 links of twin-port modules)
    code, out, _ = run(capsys, "fabric", "--gpus", "16384")
    assert code == 0
    assert "49152 links, 49152 optical modules, 49152 cables" in out
    assert "one module carries 2 links of 400 Gbit/s" in out
