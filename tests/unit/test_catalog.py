"""Tests for the hardware catalog: the strict loader, every real entry, and sourced figures.

Three groups:

* the loader rejects broken catalogs built in ``tmp_path``, and names the entry in its message;
* every entry of the packaged catalog is well-formed (parametrised by id);
* figures that the story depends on equal what their sources say (source cited next to each).
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from interconnect.catalog import (
    DIRECTIONS,
    ID_PATTERN,
    LAYERS,
    CatalogError,
    Figure,
    Gpu,
    Link,
    Node,
    UnknownIdError,
    load_catalog,
)
from interconnect.units import DIMENSIONS, Q_

DATA_DIR = Path(__file__).resolve().parents[2] / "interconnect" / "data"
CATALOG = load_catalog()

# Which dimension each figure field must have (mirrors SCHEMA.md).
FIGURE_DIMENSIONS = {
    "gpu": {
        "memory": "size",
        "memory_bandwidth": "bandwidth",
        "bf16_dense": "flop_rate",
        "scaleup_bandwidth": "bandwidth",
        "scaleup_achieved": "bandwidth",
    },
    "link": {
        "bandwidth": "bandwidth",
        "achieved": "bandwidth",
        "per_link": "bandwidth",
        "reach": "length",
        "latency": "time",
    },
    "node": {},
}

REQUIRED_GPUS = [
    "v100", "a100-sxm", "h100-sxm", "h200", "b200", "gb200", "mi300x", "b300", "mi325x", "mi355x", "gaudi3",
]
REQUIRED_LINKS = [
    "nvlink1", "nvlink2", "nvlink3", "nvlink4", "nvlink5", "nvlink6",
    "nvswitch1", "nvswitch3", "nvlink5-switch", "xgmi-mi300x", "xgmi-mi355x", "gaudi3-roce-scaleup",
    "pcie3-x16", "pcie4-x16", "pcie5-x16", "pcie6-x16", "pcie7-x16",
    "ib-sdr", "ib-ddr", "ib-qdr", "ib-fdr", "ib-edr", "ib-hdr", "ib-ndr", "ib-xdr",
    "roce-100g", "roce-200g", "roce-400g", "roce-800g", "ethernet-100g", "ethernet-400g",
    "metrox", "400zr", "800zr", "spectrum-xgs", "campus-400g-fr4", "cloud-cross-region",
    "home-broadband", "laplink-parallel", "ieee1284-ecp", "ieee1284-compat", "rs232",
]
REQUIRED_NODES = [
    "dgx-1-v100", "dgx-a100", "dgx-h100", "dgx-h200", "hgx-b200", "dgx-b300", "gb200-nvl72",
    "mi300x-platform", "gaudi3-server", "aws-p5",
]

ENTRY_IDS = sorted(entry.id for entry in CATALOG.entries())
LINK_IDS = sorted(CATALOG.links)
GPU_IDS = sorted(CATALOG.gpus)
NODE_IDS = sorted(CATALOG.nodes)
SOURCE_IDS = sorted(CATALOG.sources)
GPUS_WITH_ACHIEVED = sorted(gpu.id for gpu in CATALOG.gpus.values() if gpu.scaleup_achieved is not None)
LINKS_WITH_ACHIEVED = sorted(link.id for link in CATALOG.links.values() if link.achieved is not None)
LINKS_WITH_PER_LINK = sorted(
    link.id for link in CATALOG.links.values() if link.per_link is not None and link.links is not None
)


def gbytes(quantity) -> float:
    """A bandwidth in GB/s (1e9 bytes per second), as a plain float."""
    return float(quantity.to("GB/s").magnitude)


# --- the loader against broken catalogs -------------------------------------------------------


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {_toml_value(item)}" for key, item in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")


def _toml(table: str, rows: list[dict]) -> str:
    parts = []
    for row in rows:
        parts.append(f"[[{table}]]")
        parts.extend(f"{key} = {_toml_value(value)}" for key, value in row.items())
        parts.append("")
    return "\n".join(parts)


def _figure(value: str, direction: str = "per_direction") -> dict:
    return {"value": value, "direction": direction, "basis": "spec", "sources": ["mle-network"]}


def _link(link_id: str, layer: str, **changes) -> dict:
    row = {
        "id": link_id,
        "name": f"Test link {link_id}",
        "layer": layer,
        "family": "Test",
        "vendor": "Nobody",
        "summary": "A link made up for a test.",
        "medium": "copper",
        "switched": True,
        "duplex": "full",
        "bandwidth": _figure("400 Gbit/s"),
    }
    row.update(changes)
    return row


def _gpu(**changes) -> dict:
    row = {
        "id": "test-gpu",
        "name": "Test GPU",
        "vendor": "Nobody",
        "architecture": "Test",
        "year": 2024,
        "memory": _figure("80 GB", "n/a"),
        "memory_bandwidth": _figure("3 TB/s", "shared"),
        "bf16_dense": _figure("1000 TFLOP/s", "n/a"),
        "scaleup_link": "test-up",
        "scaleup_bandwidth": _figure("900 GB/s", "both_directions"),
        "host_link": "test-host",
        "typical_nic": "test-nic",
    }
    row.update(changes)
    return row


def _node(**changes) -> dict:
    row = {
        "id": "test-node",
        "name": "Test node",
        "gpu": "test-gpu",
        "gpus": 8,
        "scaleup_domain": 8,
        "nic": "test-nic",
        "nics": 8,
        "sources": ["mle-network"],
    }
    row.update(changes)
    return row


def _write_catalog(directory: Path, links: list[dict], gpus: list[dict] = (), nodes: list[dict] = ()) -> Path:
    """A small catalog: the real sources.toml plus the given entries."""
    shutil.copy(DATA_DIR / "sources.toml", directory / "sources.toml")
    (directory / "links.toml").write_text(_toml("link", links), encoding="utf-8")
    if gpus:
        (directory / "gpus.toml").write_text(_toml("gpu", list(gpus)), encoding="utf-8")
    if nodes:
        (directory / "nodes.toml").write_text(_toml("node", list(nodes)), encoding="utf-8")
    return directory


def _base_links() -> list[dict]:
    return [_link("test-up", "scale-up"), _link("test-host", "host"), _link("test-nic", "scale-out")]


def test_small_valid_catalog_loads(tmp_path):
    catalog = load_catalog(_write_catalog(tmp_path, _base_links(), [_gpu()], [_node()]))
    assert set(catalog.links) == {"test-up", "test-host", "test-nic"}
    assert catalog.gpu("test-gpu").scaleup_bandwidth.per_direction() == Q_(450, "GB/s")
    assert catalog.node("test-node").nic == "test-nic"


def _without(row: dict, key: str) -> dict:
    return {k: v for k, v in row.items() if k != key}


BROKEN_LINKS = {  # case: (the broken row, a fragment of the reason the loader must give)
    "unknown key": (_link("bad-link", "scale-out", colour="blue"), "unknown key"),
    "missing key": (_without(_link("bad-link", "scale-out"), "summary"), "missing required key 'summary'"),
    "bandwidth without a direction": (
        _link("bad-link", "scale-out", bandwidth=_figure("400 Gbit/s", "n/a")), "must say its direction"),
    "direction not in the list": (
        _link("bad-link", "scale-out", bandwidth=_figure("400 Gbit/s", "sideways")), "is not one of"),
    "wrong dimension": (_link("bad-link", "scale-out", bandwidth=_figure("5 parsecs")), "expected bandwidth"),
    "a length with a direction": (
        _link("bad-link", "scale-out", reach=_figure("2 m", "per_direction")), "only bandwidths have a direction"),
    "gilbert instead of gigabit": (_link("bad-link", "scale-out", bandwidth=_figure("400 Gb/s")), "expected bandwidth"),
    "no unit": (_link("bad-link", "scale-out", bandwidth=_figure("400")), "expected bandwidth"),
    "negative bandwidth": (_link("bad-link", "scale-out", bandwidth=_figure("-400 Gbit/s")), "positive"),
    "unknown source id": (
        _link("bad-link", "scale-out", bandwidth={**_figure("400 Gbit/s"), "sources": ["no-such-source"]}),
        "unknown source id 'no-such-source'",
    ),
    "no sources": (
        _link("bad-link", "scale-out", bandwidth={**_figure("400 Gbit/s"), "sources": []}), "at least one source"),
    "unknown basis": (_link("bad-link", "scale-out", bandwidth={**_figure("400 Gbit/s"), "basis": "rumour"}), "basis"),
    "unknown layer": (_link("bad-link", "kitchen"), "layer 'kitchen'"),
    "half duplex but not shared": (_link("bad-link", "historical", duplex="half"), "half-duplex"),
    "quoted item without a correction": (
        _link("bad-link", "scale-out", quoted=[{"claim": "fast", "by": "someone"}]), "quoted"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_LINKS))
def test_loader_rejects_a_broken_link_and_names_it(tmp_path, case):
    row, reason = BROKEN_LINKS[case]
    _write_catalog(tmp_path, [*_base_links(), row])
    with pytest.raises(CatalogError, match="bad-link") as caught:
        load_catalog(tmp_path)
    assert reason in str(caught.value)


def test_loader_rejects_a_duplicate_id(tmp_path):
    _write_catalog(tmp_path, [*_base_links(), _link("twice", "scale-out"), _link("twice", "host")])
    with pytest.raises(CatalogError, match="twice"):
        load_catalog(tmp_path)


def test_loader_rejects_a_duplicate_source_id(tmp_path):
    _write_catalog(tmp_path, _base_links())
    extra = {"id": "mle-network", "title": "Again", "url": "https://example.org/", "kind": "primary"}
    with (tmp_path / "sources.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + _toml("source", [extra]))
    with pytest.raises(CatalogError, match="mle-network"):
        load_catalog(tmp_path)


def test_loader_rejects_an_id_used_by_a_link_and_a_gpu(tmp_path):
    _write_catalog(tmp_path, _base_links(), [_gpu(id="test-nic")])
    with pytest.raises(CatalogError, match="test-nic"):
        load_catalog(tmp_path)


@pytest.mark.parametrize("bad_id", ["Bad_ID", "nvlink 4", "-leading", "trailing-", "UPPER"])
def test_loader_rejects_a_bad_id_format(tmp_path, bad_id):
    _write_catalog(tmp_path, [*_base_links(), _link(bad_id, "scale-out")])
    with pytest.raises(CatalogError, match=re.escape(bad_id)):
        load_catalog(tmp_path)


@pytest.mark.parametrize(
    ("key", "target"),
    [
        ("scaleup_link", "no-such-link"),
        ("host_link", "no-such-link"),
        ("typical_nic", "no-such-link"),
        ("scaleup_link", "test-nic"),  # exists, but is a scale-out link
        ("typical_nic", "test-up"),  # exists, but is a scale-up link
    ],
)
def test_loader_rejects_a_dangling_gpu_reference(tmp_path, key, target):
    _write_catalog(tmp_path, _base_links(), [_gpu(id="dangling-gpu", **{key: target})])
    with pytest.raises(CatalogError, match="dangling-gpu"):
        load_catalog(tmp_path)


@pytest.mark.parametrize(
    "changes",
    [{"gpu": "no-such-gpu"}, {"nic": "test-up"}, {"nics": 0}, {"sources": []}, {"sources": ["no-such-source"]}],
    ids=["unknown gpu", "nic not scale-out", "zero nics", "no sources", "unknown source"],
)
def test_loader_rejects_a_broken_node(tmp_path, changes):
    _write_catalog(tmp_path, _base_links(), [_gpu()], [_node(id="bad-node", **changes)])
    with pytest.raises(CatalogError, match="bad-node"):
        load_catalog(tmp_path)


def test_loader_rejects_a_gpu_figure_of_the_wrong_dimension(tmp_path):
    _write_catalog(tmp_path, _base_links(), [_gpu(id="slow-gpu", bf16_dense=_figure("1000 GB/s", "shared"))])
    with pytest.raises(CatalogError, match="slow-gpu"):
        load_catalog(tmp_path)


def test_loader_error_names_the_file(tmp_path):
    _write_catalog(tmp_path, [*_base_links(), BROKEN_LINKS["unknown key"][0]])
    with pytest.raises(CatalogError, match=r"links\.toml"):
        load_catalog(tmp_path)


def test_unknown_ids_list_the_known_ones():
    with pytest.raises(UnknownIdError, match="h100-sxm"):
        CATALOG.gpu("h100")
    with pytest.raises(UnknownIdError):
        CATALOG.nic("nvlink4")  # a scale-up link is not a NIC


# --- every entry of the real catalog ----------------------------------------------------------


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_entry_id_is_public_schema_shaped(entry_id):
    assert ID_PATTERN.match(entry_id), entry_id
    assert entry_id == entry_id.lower()


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_entry_cites_at_least_one_source(entry_id):
    entry = CATALOG.entry(entry_id)
    assert CATALOG.sources_of(entry), f"{entry_id} cites no source"


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_entry_figures_have_the_right_dimension_and_direction(entry_id):
    entry = CATALOG.entry(entry_id)
    figures: dict[str, Figure] = entry.figures()
    for name, figure in figures.items():
        dimension = FIGURE_DIMENSIONS[entry.kind][name]
        assert str(figure.quantity.dimensionality) == DIMENSIONS[dimension], (entry_id, name)
        assert figure.direction in DIRECTIONS
        if dimension == "bandwidth":
            assert figure.direction != "n/a", (entry_id, name)
            assert figure.quantity.magnitude > 0, (entry_id, name)
            assert gbytes(figure.per_direction()) > 0
        else:
            assert figure.direction == "n/a", (entry_id, name)
        assert figure.source_ids, (entry_id, name)
        assert all(source in CATALOG.sources for source in figure.source_ids)


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_entry_text_is_filled_in(entry_id):
    entry = CATALOG.entry(entry_id)
    assert entry.name.strip()
    if isinstance(entry, Link):
        assert entry.summary.strip()
        assert entry.layer in LAYERS
        for claim in entry.quoted:
            assert all(claim[key].strip() for key in ("claim", "by", "correction")), entry_id
    for text in getattr(entry, "disagreements", ()):
        assert text.strip()


@pytest.mark.parametrize("source_id", SOURCE_IDS)
def test_source_has_a_web_address_and_a_kind(source_id):
    source = CATALOG.source(source_id)
    assert source.url.startswith(("https://", "http://")), source_id
    assert " " not in source.url, source_id
    assert source.kind in ("primary", "secondary", "third-party", "measurement")
    assert source.title.strip()


def test_source_addresses_are_distinct():
    urls = [source.url for source in CATALOG.sources.values()]
    assert len(urls) == len(set(urls))


@pytest.mark.parametrize("gpu_id", GPU_IDS)
def test_gpu_links_point_to_the_right_layers(gpu_id):
    gpu = CATALOG.gpu(gpu_id)
    assert CATALOG.link(gpu.scaleup_link).layer == "scale-up"
    assert CATALOG.link(gpu.host_link).layer == "host"
    assert CATALOG.nic(gpu.typical_nic).layer == "scale-out"
    assert gpu.typical_nics_per_gpu > 0
    assert gpu.memory_bandwidth.direction == "shared"  # HBM is one pipe for reads and writes


@pytest.mark.parametrize("gpu_id", GPUS_WITH_ACHIEVED)
def test_gpu_achieved_scaleup_is_below_the_spec(gpu_id):
    gpu = CATALOG.gpu(gpu_id)
    assert gpu.scaleup_achieved.basis in ("achieved", "measured")
    assert gbytes(gpu.scaleup_achieved.per_direction()) < gbytes(gpu.scaleup_bandwidth.per_direction())


@pytest.mark.parametrize("gpu_id", GPU_IDS)
def test_gpu_scaleup_matches_its_link(gpu_id):
    """A GPU's per-GPU scale-up figure and its link's per-GPU figure are the same number."""
    gpu = CATALOG.gpu(gpu_id)
    link = CATALOG.link(gpu.scaleup_link)
    assert gbytes(gpu.scaleup_bandwidth.per_direction()) == pytest.approx(gbytes(link.bandwidth.per_direction()))


@pytest.mark.parametrize("link_id", LINKS_WITH_ACHIEVED)
def test_link_achieved_is_at_most_the_spec(link_id):
    link = CATALOG.link(link_id)
    assert gbytes(link.achieved.per_direction()) <= gbytes(link.bandwidth.per_direction())


@pytest.mark.parametrize("link_id", LINKS_WITH_PER_LINK)
def test_link_per_link_times_links_is_the_total(link_id):
    link = CATALOG.link(link_id)
    total = gbytes(link.per_link.per_direction()) * link.links
    assert total == pytest.approx(gbytes(link.bandwidth.per_direction()), rel=0.03)


@pytest.mark.parametrize("link_id", LINK_IDS)
def test_link_duplex_matches_its_direction(link_id):
    link = CATALOG.link(link_id)
    if link.duplex == "half":
        assert link.bandwidth.direction == "shared"
    else:
        assert link.bandwidth.direction in ("per_direction", "both_directions")


@pytest.mark.parametrize("node_id", NODE_IDS)
def test_node_references_and_counts(node_id):
    node = CATALOG.node(node_id)
    assert isinstance(CATALOG.gpu(node.gpu), Gpu)
    assert CATALOG.nic(node.nic).layer == "scale-out"
    assert node.gpus >= 1 and node.nics >= 1 and node.scaleup_domain >= 1
    assert node.scaleup_domain <= node.gpus  # every preset here is a whole NVLink domain or a part of one
    assert node.source_ids


@pytest.mark.parametrize("wanted", REQUIRED_GPUS)
def test_required_gpu_ids_exist(wanted):
    assert isinstance(CATALOG.gpu(wanted), Gpu)


@pytest.mark.parametrize("wanted", REQUIRED_LINKS)
def test_required_link_ids_exist(wanted):
    assert isinstance(CATALOG.link(wanted), Link)


@pytest.mark.parametrize("wanted", REQUIRED_NODES)
def test_required_node_ids_exist(wanted):
    assert isinstance(CATALOG.node(wanted), Node)


def test_every_layer_has_entries():
    for layer in LAYERS:
        assert CATALOG.layer(layer), layer


def test_no_value_is_written_in_gilberts():
    """``Gb`` is pint's gilbert; bits must be written ``bit``. Checked on the raw TOML text."""
    for path in sorted(DATA_DIR.glob("*.toml")):
        for value in re.findall(r'value = "([^"]*)"', path.read_text(encoding="utf-8")):
            assert not re.search(r"(?<![A-Za-z])[kMGTP]?b(/|\b)", value), f"{path.name}: {value!r}"


def test_every_toml_file_parses_and_has_only_known_tables():
    from interconnect.catalog import NON_CATALOG_FILES

    for path in sorted(DATA_DIR.glob("*.toml")):
        if path.name in NON_CATALOG_FILES:  # model presets, read by interconnect.models.presets
            continue
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert set(data) <= {"source", "gpu", "link", "node"}, path.name


# --- sourced figures --------------------------------------------------------------------------


def test_h100_nvlink_is_450_per_direction_900_both():
    # ml-engineering network/README.md NVLink table: NVLink 4, 18 links, 450 GB/s uni, 900 duplex.
    nvlink4 = CATALOG.link("nvlink4")
    assert gbytes(nvlink4.bandwidth.per_direction()) == pytest.approx(450)
    assert gbytes(nvlink4.bandwidth.both_directions()) == pytest.approx(900)
    assert nvlink4.links == 18 and gbytes(nvlink4.per_link.per_direction()) == pytest.approx(25)
    h100 = CATALOG.gpu("h100-sxm")
    assert h100.scaleup_bandwidth.direction == "both_directions"  # stored as NVIDIA quotes it
    assert gbytes(h100.scaleup_bandwidth.per_direction()) == pytest.approx(450)


def test_b200_nvlink_is_900_per_direction_and_nvlink5_is_1_8_tb_both():
    # NVIDIA NVLink page: "18 NVLink 100 GB/s connections for a total bandwidth of 1.8 TB/s"
    # (bidirectional); ml-engineering: NVLink 5 900 GB/s unidirectional.
    b200 = CATALOG.gpu("b200")
    assert gbytes(b200.scaleup_bandwidth.per_direction()) == pytest.approx(900)
    nvlink5 = CATALOG.link("nvlink5")
    assert nvlink5.bandwidth.both_directions().to("TB/s").magnitude == pytest.approx(1.8)
    assert gbytes(nvlink5.per_link.both_directions()) == pytest.approx(100)


def test_ib_ndr_is_50_gbytes_per_direction():
    # 400 Gbit/s per port (ml-engineering, IBTA) / 8 bits per byte = 50 GB/s each way.
    ndr = CATALOG.link("ib-ndr")
    assert ndr.bandwidth.quantity == Q_(400, "Gbit/s")
    assert gbytes(ndr.bandwidth.per_direction()) == pytest.approx(50)
    # nccl-tests #267 (AddyLaddy, NVIDIA): CX-7 NDR "should achieve up to 48-49GB/s per NIC".
    assert gbytes(ndr.achieved.per_direction()) == pytest.approx(48)
    # NVIDIA LinkX MCP4Y10: passive twin-port DAC up to 2 m.
    assert ndr.reach.quantity.to("m").magnitude == pytest.approx(2)


def test_other_nic_generations():
    # nccl-tests #160 (sjeaugey): about 24 GB/s per HDR NIC; ml-engineering: XDR 800 Gbit/s.
    assert gbytes(CATALOG.link("ib-hdr").bandwidth.per_direction()) == pytest.approx(25)
    assert gbytes(CATALOG.link("ib-hdr").achieved.per_direction()) == pytest.approx(24)
    assert gbytes(CATALOG.link("ib-xdr").bandwidth.per_direction()) == pytest.approx(100)
    assert gbytes(CATALOG.link("roce-400g").bandwidth.per_direction()) == pytest.approx(50)


def test_pcie5_x16_is_about_63_gbytes_per_direction():
    # hpc-notes PCIe table and ml-engineering: ~63 GB/s per direction, ~126 both; NVIDIA's "128 GB/s"
    # is both directions before 128b/130b encoding (32 GT/s x 16 lanes x 2 / 8).
    pcie5 = CATALOG.link("pcie5-x16")
    assert gbytes(pcie5.bandwidth.per_direction()) == pytest.approx(63, rel=0.01)
    assert gbytes(pcie5.bandwidth.both_directions()) == pytest.approx(126, rel=0.01)
    raw_both = Q_(32e9, "1/s") * 16 * 2 * Q_(1, "bit")
    assert gbytes(raw_both) == pytest.approx(128)
    assert gbytes(raw_both * 128 / 130) == pytest.approx(gbytes(pcie5.bandwidth.both_directions()), rel=0.01)


def test_pcie_generations_double():
    # hpc-notes / ml-engineering: 15.75, 31.5, 63, 121, 242 GB/s per direction for x16.
    rates = [gbytes(CATALOG.link(f"pcie{gen}-x16").bandwidth.per_direction()) for gen in (3, 4, 5, 6, 7)]
    for slower, faster in zip(rates, rates[1:], strict=False):
        assert faster / slower == pytest.approx(2, rel=0.05)


@pytest.mark.parametrize(
    ("gpu_id", "per_link", "links"),
    [
        # NVIDIA NCCL src/graph/topo.h: SM60 18.0, SM70 20.0, SM80 20.0, SM90 20.6, SM100 40.1 GB/s per link.
        ("p100", 18.0, 4),
        ("v100", 20.0, 6),
        ("a100-sxm", 20.0, 12),
        ("h100-sxm", 20.6, 18),
        ("h200", 20.6, 18),
        ("b200", 40.1, 18),
        ("gb200", 40.1, 18),
        ("b300", 40.1, 18),
    ],
)
def test_nccl_planning_constants(gpu_id, per_link, links):
    achieved = CATALOG.gpu(gpu_id).scaleup_achieved
    assert achieved.basis == "achieved"
    assert "nccl-topo-h" in achieved.source_ids
    assert gbytes(achieved.per_direction()) == pytest.approx(per_link * links)


def test_the_cliff_ratios():
    # formulas.md section 0 and the README's table of claims: H100 450/50 = 9:1 like for like;
    # 18:1 comes from dividing the both-directions sum by a one-direction port; B200 is 900/50 = 18:1.
    ndr = gbytes(CATALOG.link("ib-ndr").bandwidth.per_direction())
    h100 = CATALOG.gpu("h100-sxm").scaleup_bandwidth
    b200 = CATALOG.gpu("b200").scaleup_bandwidth
    assert gbytes(h100.per_direction()) / ndr == pytest.approx(9)
    assert gbytes(h100.both_directions()) / ndr == pytest.approx(18)
    assert gbytes(b200.per_direction()) / ndr == pytest.approx(18)
    claims = " ".join(q["claim"] for q in CATALOG.link("nvlink4").quoted)
    assert "18 to 1" in claims


def test_amd_and_intel_scale_up():
    # ml-engineering: MI300X 7 x 64 GB/s = 448 GB/s all-to-all per direction; MI355X 7 x 76.5 = 535.5.
    assert gbytes(CATALOG.gpu("mi300x").scaleup_bandwidth.per_direction()) == pytest.approx(448)
    assert gbytes(CATALOG.link("xgmi-mi300x").per_link.per_direction()) == pytest.approx(64)
    assert gbytes(CATALOG.gpu("mi355x").scaleup_bandwidth.per_direction()) == pytest.approx(535.5)
    assert CATALOG.gpu("mi300x").disagreements  # AMD's 128 GB/s per link has no stated direction
    # Intel Gaudi docs, Network Configuration: 21 x 200 Gbit/s = 525 GB/s unidirectional scale-up,
    # 3 x 200 Gbit/s = 75 GB/s per direction scale-out per card.
    gaudi = CATALOG.gpu("gaudi3")
    assert gbytes(gaudi.scaleup_bandwidth.per_direction()) == pytest.approx(525)
    nic = CATALOG.link(gaudi.typical_nic)
    assert gbytes(nic.bandwidth.per_direction()) * gaudi.typical_nics_per_gpu == pytest.approx(75)


def test_disagreements_are_recorded():
    # hardware.md section 11: B200 180 vs 192 GB, H200 141 vs 144 GB, Gaudi 3 BF16 1835 vs 1677.
    assert CATALOG.gpu("b200").memory.quantity == Q_(180, "GB")
    assert any("192" in text for text in CATALOG.gpu("b200").disagreements)
    assert CATALOG.gpu("h200").memory.quantity == Q_(141, "GB")
    assert any("144" in text for text in CATALOG.gpu("h200").disagreements)
    assert any("1677" in text for text in CATALOG.gpu("gaudi3").disagreements)
    assert any("900 GB/s bidirectional" in text for text in CATALOG.link("nvlink5").disagreements)


def test_v100_has_no_bf16_and_says_so():
    # Volta whitepaper table (maosong copy): 125 TFLOPS tensor, FP16.
    v100 = CATALOG.gpu("v100")
    assert v100.bf16_dense.quantity == Q_(125, "TFLOP/s")
    assert "FP16" in v100.bf16_dense.note


def test_roce_v2_is_routable_and_infiniband_and_efa_are_not():
    # Red Hat RHEL 9 RoCE docs: v1 is link-layer only (Ethertype 0x8915); v2 is UDP port 4791, routable.
    # AWS EFA docs: "EFA traffic is not routable".
    for link_id in ("roce-100g", "roce-200g", "roce-400g", "roce-800g", "ethernet-100g", "ethernet-400g"):
        assert CATALOG.link(link_id).routable is True, link_id
    assert "4791" in CATALOG.link("roce-100g").summary
    for link_id in ("ib-ndr", "ib-hdr", "efa-v2", "efa-v3", "efa-v4"):
        assert CATALOG.link(link_id).routable is False, link_id
    for link in CATALOG.layer("scale-up").values():
        assert link.routable is False, link.id


def test_in_network_reduction_from_nvswitch_gen3():
    # NVIDIA NVSwitch page copy: gen 3 has "engines for NVIDIA SHARP for in-network reductions".
    assert CATALOG.link("nvswitch1").in_network_reduction is False
    assert CATALOG.link("nvswitch3").in_network_reduction is True
    assert CATALOG.link("nvlink5-switch").in_network_reduction is True


def test_node_presets():
    # ml-engineering: DGX H100 8 x 400 Gbit/s = 3.2 Tbit/s; AWS P5 32 x 100G, P5en 16 x 200G,
    # P6-B200 8 x 400G, all 3.2 Tbit/s per node. setloop / MLCommons: NVL72 = 18 trays x 4 GPUs.
    def egress(node_id):
        node = CATALOG.node(node_id)
        return (CATALOG.nic(node.nic).bandwidth.per_direction() * node.nics).to("Tbit/s").magnitude

    for node_id in ("dgx-h100", "aws-p5", "aws-p5en", "aws-p6-b200"):
        assert egress(node_id) == pytest.approx(3.2), node_id
    nvl72 = CATALOG.node("gb200-nvl72")
    assert (nvl72.gpus, nvl72.scaleup_domain, nvl72.nics) == (72, 72, 72)
    assert CATALOG.node("dgx-a100").nic == "ib-hdr"
    assert CATALOG.node("dgx-b300").nic == "ib-xdr"
    assert CATALOG.node("gaudi3-server").nics == 24
    assert CATALOG.gpu("v100").typical_nics_per_gpu == pytest.approx(CATALOG.node("dgx-1-v100").nics / 8)


def test_long_reach_figures():
    # OIF: 400ZR "distances up to 120 km"; NVIDIA via ml-engineering: MetroX "up to 40 kilometers";
    # NVIDIA LinkX MMS4X50: 2 x FR4, 2 km.
    assert CATALOG.link("400zr").reach.quantity.to("km").magnitude == pytest.approx(120)
    assert CATALOG.link("metrox").reach.quantity.to("km").magnitude == pytest.approx(40)
    assert CATALOG.link("campus-400g-fr4").reach.quantity.to("km").magnitude == pytest.approx(2)
    # AWS EC2 network bandwidth docs: single flow limited to 5 Gbit/s outside a cluster placement group.
    wan = CATALOG.link("cloud-cross-region")
    assert wan.bandwidth.quantity == Q_(5, "Gbit/s")
    # acomputerscientistlearnsaws (2017): us-east-1 to us-west-2 86.98 ms, a round trip.
    assert wan.latency.quantity == Q_(86.98, "ms")
    assert "Round-trip" in wan.latency.note


def test_everyday_and_historical_figures():
    # FCC 2024 benchmark (Benton): 100 Mbit/s down, 20 up.
    assert CATALOG.link("home-broadband").bandwidth.quantity == Q_(100, "Mbit/s")
    # freeholdcomputer.com: INTERLNK over a LapLink cable, 1.7 MB in 2:22, "700K per minute".
    laplink = CATALOG.link("laplink-parallel")
    assert (laplink.duplex, laplink.bandwidth.direction, laplink.bandwidth.basis) == ("half", "shared", "measured")
    assert laplink.bandwidth.quantity.to("kB/s").magnitude == pytest.approx(12, rel=0.05)
    assert gbytes(Q_(1.7, "MB") / Q_(142, "s")) == pytest.approx(gbytes(laplink.bandwidth.quantity), rel=0.05)
    # Linux Documentation/networking/plip.rst: "Limited range, 15 m".
    assert laplink.reach.quantity == Q_(15, "m")
    claims = " ".join(q["claim"] for q in laplink.quoted)
    assert "three metres" in claims and "sixty kilobytes" in claims
    # Wikipedia parallel port: ECP up to 2.5 MB/s; connectworld: 1284 CC cable 10 m.
    ecp = CATALOG.link("ieee1284-ecp")
    assert ecp.bandwidth.quantity == Q_(2.5, "MB/s") and ecp.reach.quantity == Q_(10, "m")
    # TLDP / Apple: RS-232 50 ft (15 m) at 19.2 kbit/s.
    assert CATALOG.link("rs232").bandwidth.quantity == Q_(19.2, "kbit/s")


def test_nvlink_reach_is_honest():
    # hardware.md 1.3: no official maximum NVLink cable length found; NVL72 copper stays in the rack.
    for link_id in ("nvlink5", "nvlink5-switch"):
        reach = CATALOG.link(link_id).reach
        assert reach.quantity.to("m").magnitude <= 2
        assert "No official maximum" in reach.note
    assert any("tens of centimetres" in q["claim"] for q in CATALOG.link("nvlink5").quoted)


def test_every_source_is_cited_by_some_entry():
    # A source nobody cites cannot be reached from the app; prose-only sources go in an entry's `sources`.
    catalog = load_catalog()
    cited = {source.id for entry in catalog.entries() for source in catalog.sources_of(entry)}
    assert set(catalog.sources) - cited == set()


def test_prose_sources_must_exist(tmp_path):
    data = Path(str(resources.files("interconnect").joinpath("data")))
    for path in data.glob("*.toml"):
        shutil.copy(path, tmp_path / path.name)
    historical = tmp_path / "historical.toml"
    historical.write_text(historical.read_text().replace('"wikipedia-laplink"', '"no-such-source"'))
    with pytest.raises(CatalogError, match="laplink-parallel.*no-such-source"):
        load_catalog(tmp_path)
