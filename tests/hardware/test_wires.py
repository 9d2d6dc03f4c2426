"""The wires catalogue: protocols over media, read from wires.toml, and the choices made from it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from interconnect.catalog import get_catalog
from interconnect.hardware.wires import (
    MEDIUM_KINDS,
    WiresDataError,
    fastest_by_protocol,
    fastest_option,
    get_wires,
    load_wires,
    media_reaching,
)
from interconnect.units import Q_

WIRES = get_wires()
DATA = Path(__file__).resolve().parents[2] / "interconnect" / "data" / "wires.toml"


def test_every_medium_carries_only_known_protocols_no_faster_than_its_plug():
    for medium in WIRES.media.values():
        assert medium.kind in MEDIUM_KINDS
        for pid in medium.carries:
            assert WIRES.protocols[pid].rate_gbps <= medium.rate_gbps * (1 + 1e-9), (medium.id, pid)


def test_protocol_rates_match_their_catalog_links():
    catalog = get_catalog()
    for protocol in WIRES.protocols.values():
        if protocol.link:
            link_rate = float(catalog.links[protocol.link].bandwidth.per_direction().to("GB/s").magnitude)
            assert math.isclose(link_rate, protocol.rate_gbps, rel_tol=1e-9), protocol.id


def test_headline_rates_from_the_makers():
    # NVIDIA: H100 NVLink 900 GB/s both directions (450 each way); QM9700 / ConnectX-7 400 Gbit/s.
    assert WIRES.protocols["nvlink4"].rate_gbps == 450.0
    assert WIRES.protocols["nvlink4"].rate.source_ids[0] == "nvidia-h100-page"
    assert WIRES.protocols["ib-ndr"].rate_gbps == 50.0
    assert WIRES.protocols["ib-ndr"].rate.source_ids[0] == "nvidia-qm97xx-manual"
    kinds = {source: get_catalog().sources[source].kind for source in WIRES.protocols["ib-ndr"].rate.source_ids}
    assert kinds["nvidia-qm97xx-manual"] == "primary"


def test_at_eleven_metres_the_fastest_is_a_short_reach_optic_not_zr():
    # NVIDIA LinkX: twin-port 2xSR4 ('aka SR8'), 800 Gbit/s, 50 m, 17 W maximum per end.
    best = fastest_option(11)
    assert (best.protocol.id, best.medium.id) == ("eth-800g", "sr8-800g")
    assert best.medium.kind == "multimode" and best.medium.power_w == 17.0
    same_rate = [option for option in media_reaching(11) if option.rate_gbps == best.rate_gbps]
    assert same_rate[-1].medium.kind == "coherent"  # the metro module only as the last resort


def test_copper_wins_inside_the_rack_and_coherent_only_beyond_the_campus():
    assert fastest_option(3).medium.id == "dac-100g-pam4"  # 100G-PAM4 DAC: up to 3 m, < 0.1 W
    assert fastest_option(5).medium.id == "acc-100g-pam4"  # linear active copper: 5 m, 1.5 W
    assert fastest_option(1.5).protocol.id == "nvlink5"
    assert fastest_option(Q_(50, "km")).medium.kind == "coherent"
    assert fastest_option(Q_(121, "km")) is None


def test_watts_per_port_share_a_twin_port_plug():
    # 17 W twin-port DR8 plug carries two NDR ports: 8.5 W each; one 800GbE port: 17 W.
    ndr = next(o for o in media_reaching(200, protocol="ib-ndr") if o.medium.id == "dr8-800g")
    eth = next(o for o in media_reaching(200, protocol="eth-800g") if o.medium.id == "dr8-800g")
    assert (ndr.ports_per_plug, ndr.power_w_per_port) == (2, 8.5)
    assert (eth.ports_per_plug, eth.power_w_per_port) == (1, 17.0)


def test_media_reaching_filters_by_rate_and_protocol():
    fast = media_reaching(Q_(300, "m"), Q_(800, "Gbit/s"))
    assert fast and all(option.rate_gbps >= 100.0 for option in fast)
    assert {option.protocol.id for option in media_reaching(3, protocol="ib-ndr")} == {"ib-ndr"}
    rates = [option.rate_gbps for option in media_reaching(2)]
    assert rates == sorted(rates, reverse=True)
    with pytest.raises(KeyError, match="unknown protocol"):
        media_reaching(3, protocol="token-ring")


def test_fastest_by_protocol_names_each_protocol():
    at_3m = fastest_by_protocol(3)
    assert set(at_3m) == set(WIRES.protocols)
    assert at_3m["ib-ndr"].medium.id == "dac-100g-pam4"
    assert at_3m["ib-xdr"].medium.id == "dr4-xdr"  # no DAC at 200G-PAM4 lanes
    assert at_3m["nvlink4"] is None and at_3m["ualink-200g"] is None


@pytest.mark.parametrize(("old", "new", "message"), [
    ('kind = "dac"', 'kind = "string-and-cans"', "kind"),
    ('propagation = "copper-twinax"', 'propagation = "ether"', "propagation"),
    ('carries = ["eth-200g", "ib-hdr"]', 'carries = ["token-ring"]', "carries"),
    ('value = "0.1 W"', 'value = "0.1 m"', "power"),
    ('sources = ["linkx-mma4z00-ns400"] }', 'sources = ["nowhere"] }', "unknown source"),
    ('standard = "IEEE 802.3bs (2017)"', 'standard = "IEEE 802.3bs (2017)"\ncolour = "blue"', "unknown key"),
])
def test_loader_rejects_bad_rows(tmp_path, old, new, message):
    text = DATA.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "wires.toml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(WiresDataError, match=message):
        load_wires(bad)


def test_the_200g_aoc_says_its_cited_part_is_a_splitter():
    # NVIDIA MFS1S50-V0xxE (the cited ordering table): 200GbE QSFP56 to 2 x 100GbE QSFP56, 3 to 30 m; the figure
    # is a splitter's, and the entry, the catalog link and the source's title say so.
    medium = WIRES.media["aoc-200g"]
    catalog = get_catalog()
    assert medium.reach_m == 30 and medium.reach.source_ids == ("linkx-mfs1s50",)
    for text in (medium.reach.note, catalog.links["aoc-200g"].reach.note, catalog.sources["linkx-mfs1s50"].title):
        assert "MFS1S50" in text and "2 x 100G" in text and "splitter" in text, text
    assert "splitter" in medium.standard


def test_dr4_shows_the_reach_it_uses_and_names_the_500_m_part():
    # NVIDIA lists a 100 m single-port DR4 (MMS4X00-NS400, toward a ConnectX-7) and a 500 m twin-port part
    # (MMS4X00-NM, switch to switch 'from 100 to 500 meters'): the page uses 100 m and says the other exists.
    medium = WIRES.media["dr4-400g"]
    assert medium.reach_m == 100
    assert "100 m" in medium.name and "500 m" in medium.name, medium.name
    note = medium.reach.note
    assert "MMS4X00-NS400" in note and "100 m" in note and "MMS4X00-NM" in note and "500 m" in note, note
