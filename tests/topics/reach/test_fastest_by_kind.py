"""One answer to "the fastest of each kind that still reaches", in the model, the live chart, the CLI and the page.

The issue's four distances, from the data:

* 11 m: IEEE 1284 ECP (2.5 MB/s) stops at 10 m; the LapLink cable (50 kB/s) reaches 15 m, so the old PC
  cables still reach, at 50 kB/s.
* 500 m: NVIDIA's 2xDR4 'DR8' (800G, 17 W) and the XDR DR4 (800G, no power figure) both reach 500 m; the
  one tie-break (fewer watts per port first) names DR8 everywhere.
* 5 km: the 2xFR4 (800G) stops at 2 km; only 400GBASE-LR8 (50 GB/s, 10 km) of the single-mode optics reaches.
* 40 km: no InfiniBand medium of wires.toml reaches, but the catalog's NVIDIA MetroX carries InfiniBand 40 km.
"""

from __future__ import annotations

import json
import re

import pytest

from interconnect.catalog import get_catalog
from interconnect.cli import main
from interconnect.hardware.wires import get_wires
from interconnect.topics.reach.live_figure import reach_family_spec
from interconnect.topics.reach.model import propagation_for, reach_rows
from interconnect.topics.reach.sweep import reach_family
from interconnect.ui.markdown import escape_markdown
from interconnect.units import Q_, format_bandwidth
from tests.app.conftest import live_charts, run_page

ROWS = reach_rows()
BY_ID = {row.id: row for row in ROWS}
WIRES = get_wires()
KINDS = {medium.id: medium.kind for medium in WIRES.media.values()}
FIBRE = propagation_for("fibre", get_catalog())
PAGE = "pages/5_Reach.py"

#: distance (m) -> the fastest of the kinds the issue names, and the fastest link of all.
EXPECTED = {
    11.0: ({"historical": "laplink-parallel", "single-mode": "dr8-800g"}, "sr8-800g"),
    500.0: ({"single-mode": "dr8-800g", "historical": None}, "dr8-800g"),
    5_000.0: ({"single-mode": "lr8-10km", "metrox": "metrox"}, "800zr"),
    40_000.0: ({"single-mode": None, "metrox": "metrox", "coherent": "800zr"}, "800zr"),
}
KIND_WORDS = {"historical": "Old PC cables", "single-mode": "Single-mode optics", "metrox": "MetroX (InfiniBand)",
              "coherent": "Coherent optics (ZR)"}


def _rate(row_id: str) -> str:
    return format_bandwidth(Q_(BY_ID[row_id].rate_gbps, "GB/s"))


@pytest.mark.parametrize("distance_m", list(EXPECTED))
def test_the_model_names_the_fastest_of_each_kind_with_one_tie_break(distance_m):
    from interconnect.topics.reach.model import fastest_by_kind, fastest_reaching

    kinds, fastest = EXPECTED[distance_m]
    best = fastest_by_kind(ROWS, distance_m, KINDS)
    assert {kind: None if best[kind] is None else best[kind].id for kind in kinds} == kinds
    assert fastest_reaching(ROWS, distance_m).id == fastest
    for row in best.values():  # what a kind names reaches
        assert row is None or row.reaches(distance_m)


@pytest.mark.parametrize("distance_m", list(EXPECTED))
def test_the_live_charts_blue_rows_carry_a_rate_that_reaches(distance_m):
    kinds, fastest = EXPECTED[distance_m]
    distances = [11.0, 500.0, 5_000.0, 40_000.0]
    family = reach_family(ROWS, KINDS, distances, FIBRE)
    spec = reach_family_spec(family, distance_m)
    i = distances.index(distance_m)
    names = [tick["text"] for tick in spec["y"]["ticks"]]
    assert spec["series"][1]["name"] == "still reaches"
    blue = [k for k in range(len(names)) if spec["series"][1]["y"][i][3 * k] is not None]
    for kind, row_id in kinds.items():
        drawn = [k for k in blue if names[k].startswith(KIND_WORDS[kind] + " · ")]
        if row_id is None:
            assert not drawn, [names[k] for k in drawn]
            continue
        assert f"{KIND_WORDS[kind]} · {_rate(row_id)}" in [names[k] for k in drawn], (kind, [names[k] for k in drawn])
        # no blue row of the kind claims a rate above the kind's fastest that reaches
        assert all(family.groups[k].rate_gbps <= BY_ID[row_id].rate_gbps for k in drawn), [names[k] for k in drawn]
    best = BY_ID[fastest]
    assert f"Fastest: {best.name.split(' (')[0]}, {_rate(fastest)} per direction" in spec["readouts"][i]


def _cli_json(capsys, distance: str) -> dict:
    assert main(["reach", "--distance", distance, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("typed", "distance_m"), [("11 m", 11.0), ("500 m", 500.0), ("5 km", 5_000.0),
                                                     ("40 km", 40_000.0)])
def test_the_cli_gives_the_same_fastest_of_each_kind_and_of_all(capsys, typed, distance_m):
    kinds, fastest = EXPECTED[distance_m]
    payload = _cli_json(capsys, typed)
    by_kind = {item["id"]: item["fastest"] for item in payload["kinds"]}
    assert {kind: by_kind[kind] for kind in kinds} == kinds
    assert payload["fastest_reaching"] == fastest and payload["fastest"]["medium"] == fastest
    assert main(["reach", "--distance", typed]) == 0
    text = capsys.readouterr().out
    assert f"Fastest that still reaches: {BY_ID[fastest].name}" in text
    for kind, row_id in kinds.items():
        if row_id is not None:
            assert re.search(rf"{re.escape(KIND_WORDS[kind])} +{re.escape(_rate(row_id))}, ", text), kind


def test_at_40_km_the_cli_names_metrox_for_infiniband(capsys):
    payload = _cli_json(capsys, "40 km")
    infiniband = [p for p in payload["protocols"] if p["family"] == "InfiniBand"]
    assert infiniband and all(p["use"] is None and p["long_haul"] == ["metrox"] for p in infiniband)
    assert all(p["long_haul"] == [] for p in payload["protocols"] if p["family"] != "InfiniBand")
    assert main(["reach", "--distance", "40 km"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("InfiniBand NDR")]
    assert len(lines) == 1 and "NVIDIA MetroX" in lines[0] and "40 km" in lines[0], lines


def _table(at, header: str) -> dict[str, list[str]]:
    block = next(m.value for m in at.markdown if m.value.startswith("|") and f"| {header} |" in m.value.split("\n")[0])
    lines = block.splitlines()

    def cells(line: str) -> list[str]:
        return [re.sub(r"\\(.)", r"\1", cell.strip()) for cell in re.split(r"(?<!\\)\|", line)[1:-1]]

    headers, rows = cells(lines[0]), [cells(line) for line in lines[2:]]
    return {h: [row[i] for row in rows] for i, h in enumerate(headers)}


@pytest.mark.parametrize(("typed", "distance_m"), [("11 m", 11.0), ("500 m", 500.0), ("5 km", 5_000.0),
                                                     ("40 km", 40_000.0)])
def test_the_page_table_success_and_live_readout_agree(typed, distance_m):
    kinds, fastest = EXPECTED[distance_m]
    at = run_page(PAGE, {"d": typed})
    assert not at.exception
    table = _table(at, "Link")
    marks = dict(zip(table["Link"], table["Reaches"], strict=True))
    assert marks[BY_ID[fastest].name] == "fastest"
    for row_id in kinds.values():
        if row_id is not None and row_id != fastest:
            assert marks[BY_ID[row_id].name] == "fastest of its kind", row_id
    assert [name for name, mark in marks.items() if mark == "fastest"] == [BY_ID[fastest].name]
    assert escape_markdown(BY_ID[fastest].name) in at.success[0].value
    spec = json.loads(live_charts(at)[0].proto.json)
    readout = spec["readouts"][spec["slider"]["index"]]
    assert f"Fastest: {BY_ID[fastest].name.split(' (')[0]}, {_rate(fastest)}" in readout
    protocols = _table(at, "Protocol")
    uses = dict(zip(protocols["Protocol"], protocols["Medium to use here"], strict=True))
    ndr = uses["InfiniBand NDR (400 Gbit/s)"]
    if distance_m == 40_000.0:
        assert ndr.startswith("nothing reaches") and "NVIDIA MetroX" in ndr and "40 km" in ndr, ndr
