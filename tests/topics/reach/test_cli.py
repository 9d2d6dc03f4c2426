"""``python -m interconnect reach``: JSON keys and units, text output, clamping and one-line errors."""

from __future__ import annotations

import json

import pytest

from interconnect.cli import main
from interconnect.hardware.wires import fastest_option, get_wires
from interconnect.topics.reach.model import reach_rows

MEDIA = {row.id: row for row in reach_rows()}
WIRES = get_wires()


def run_json(capsys, *args):
    code = main(["reach", *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def test_json_has_latency_rtt_and_every_medium(capsys):
    payload, err = run_json(capsys, "--distance", "11 m")
    assert err == ""
    assert payload["distance"] == {"value": 11.0, "unit": "m"}
    assert payload["one_way_latency"]["unit"] == "us" and payload["rtt"]["unit"] == "us"
    # Fibre: 11 m x 4.897 ns/m = 53.9 ns one way.
    assert payload["one_way_latency"]["value"] == pytest.approx(0.05386, abs=1e-4)
    assert payload["rtt"]["value"] == pytest.approx(2 * payload["one_way_latency"]["value"], abs=1e-6)
    ids = [item["id"] for item in payload["media"]]
    assert ids == list(MEDIA)
    for item in payload["media"]:
        assert set(item) >= {"id", "name", "reaches", "rate", "reach"}
        assert isinstance(item["reaches"], bool)
        assert item["rate"]["unit"] == "GB/s" and item["reach"]["unit"] == "m"
        assert item["reaches"] == (11.0 <= item["reach"]["value"])
    assert set(payload["without_reach"]).isdisjoint(ids)


def test_thousand_km_of_fibre_is_about_4_9_ms_one_way(capsys):
    payload, _ = run_json(capsys, "--distance", "1000 km")
    assert payload["one_way_latency"]["value"] / 1e3 == pytest.approx(4.9, abs=0.01)
    assert payload["rtt"]["value"] == pytest.approx(2 * payload["one_way_latency"]["value"], abs=1e-5)
    reaching = [item["id"] for item in payload["media"] if item["reaches"]]
    assert all(MEDIA[link_id].reach_m >= 1e6 for link_id in reaching)


def test_medium_choice_changes_the_delay(capsys):
    vacuum, _ = run_json(capsys, "--distance", "1 km", "--medium", "vacuum")
    copper, _ = run_json(capsys, "--distance", "1 km", "--medium", "copper")
    assert vacuum["one_way_latency"]["value"] == pytest.approx(3.33564, abs=1e-4)  # 1 km / c
    assert copper["one_way_latency"]["value"] == pytest.approx(4.5, abs=1e-4)  # LinkX DAC: 4.5 ns/m


@pytest.mark.parametrize(("text", "used"), [("2 light-seconds", 2e7), ("-3 m", 0.1), ("0 m", 0.1)])
def test_out_of_scale_distances_are_clamped_with_a_warning(capsys, text, used):
    payload, _ = run_json(capsys, "--distance", text)
    assert payload["distance"]["value"] == pytest.approx(used)
    assert payload["warnings"] and "using" in payload["warnings"][0]
    assert main(["reach", "--distance", text]) == 0
    _, err = capsys.readouterr()
    assert err.startswith("interconnect: warning:")


@pytest.mark.parametrize(("text", "word"), [("5 kg", "a mass"), ("3 ms", "a time"), ("9^9^8 m", "could not read"),
                                            ("eleven metres", "unknown unit")])
def test_bad_distances_are_one_line_errors(capsys, text, word):
    assert main(["reach", "--distance", text]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and word in err and "--distance" in err


def test_text_output_lists_media_and_the_fastest_that_reaches(capsys):
    assert main(["reach", "--distance", "11 m"]) == 0
    out, _ = capsys.readouterr()
    assert "one way 53.9 ns, round trip 108 ns" in out
    for row in MEDIA.values():
        assert row.name in out
    best = fastest_option(11.0)
    assert f"Fastest that still reaches: {best.medium.name}, carrying {best.protocol.name}" in out
    assert "17 W per end" in out  # NVIDIA LinkX: 800G twin-port multimode OSFP, 17 W maximum
    for protocol in WIRES.protocols.values():
        assert protocol.name in out
    assert main(["reach", "--distance", "20000 km"]) == 0
    out, _ = capsys.readouterr()
    if not any(row.reaches(2e7) for row in MEDIA.values()):
        assert "No catalogued link reaches 20000 km." in out


def test_json_lists_each_protocol_with_the_media_that_carry_it(capsys):
    payload, _ = run_json(capsys, "--distance", "3 m")
    protocols = {item["id"]: item for item in payload["protocols"]}
    assert set(protocols) == set(WIRES.protocols)
    for pid, item in protocols.items():
        assert item["rate"]["unit"] == "GB/s"
        assert all(WIRES.media[m["id"]].reach_m >= 3.0 and pid in WIRES.media[m["id"]].carries for m in item["media"])
        assert item["use"] == (item["media"][0]["id"] if item["media"] else None)
    # NVIDIA LinkX: a 100G-PAM4 DAC reaches 3 m at under 0.1 W; at 200G-PAM4 (XDR) there is no DAC.
    ndr = protocols["ib-ndr"]
    assert ndr["use"] == "dac-100g-pam4"
    assert ndr["media"][0]["power_per_end"] == {"value": 0.1, "unit": "W"}
    assert ndr["media"][0]["ports_per_plug"] == 2
    assert protocols["ib-xdr"]["use"] == "dr4-xdr"
    assert protocols["nvlink4"]["media"] == [] and protocols["ualink-200g"]["use"] is None
    assert payload["fastest"]["protocol"] == "eth-800g" and payload["fastest"]["medium"] == "dac-100g-pam4"
    media = {item["id"]: item for item in payload["media"]}
    assert media["sr8-800g"]["power_per_end"] == {"value": 17.0, "unit": "W"}
    assert media["sr8-800g"]["carries"][0] == "eth-800g"


def test_at_eleven_metres_the_fastest_is_not_a_coherent_module(capsys):
    payload, _ = run_json(capsys, "--distance", "11 m")
    assert payload["fastest"]["medium"] == "sr8-800g" and payload["fastest_reaching"] == "sr8-800g"
