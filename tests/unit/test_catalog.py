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
    LAYERS,
    CatalogError,
    Figure,
    Gpu,
    Link,
    Medium,
    Node,
    ReferenceNic,
    UnknownIdError,
    check_url,
    load_catalog,
)
from interconnect.catalog.records import ID_PATTERN
from interconnect.testing import assert_quantity_close
from interconnect.units import DIMENSIONS, Q_

DATA_DIR = Path(__file__).resolve().parents[2] / "interconnect" / "data"
CATALOG = load_catalog()

# Which dimension each figure field must have (mirrors SCHEMA.md).
FIGURE_DIMENSIONS = {
    "gpu": {
        "memory": "size",
        "memory_reported": "size",
        "memory_bandwidth": "bandwidth",
        "bf16_dense": "flop_rate",
        "fp8_dense": "flop_rate",
        "scaleup_bandwidth": "bandwidth",
        "scaleup_achieved": "bandwidth",
        "scaleup_per_peer": "bandwidth",
    },
    "link": {
        "bandwidth": "bandwidth",
        "achieved": "bandwidth",
        "per_link": "bandwidth",
        "reach": "length",
        "latency": "time",
        "timeout": "time",
    },
    "node": {"scaleup_aggregate": "bandwidth"},
}

REQUIRED_GPUS = [
    "p100", "v100", "a100-sxm", "h100-sxm", "h200", "b200", "gb200", "mi300x", "b300", "mi325x", "mi355x", "gaudi3",
]
REQUIRED_LINKS = [
    "nvlink1", "nvlink2", "nvlink3", "nvlink4", "nvlink5", "nvlink6",
    "nvswitch1", "nvswitch3", "nvlink5-switch", "xgmi-mi300x", "xgmi-mi355x", "gaudi3-roce-scaleup",
    "pcie3-x16", "pcie4-x16", "pcie5-x16", "pcie6-x16", "pcie7-x16",
    "ib-sdr", "ib-ddr", "ib-qdr", "ib-fdr", "ib-edr", "ib-hdr", "ib-ndr", "ib-xdr",
    "roce-100g", "roce-200g", "roce-400g", "roce-800g", "ethernet-100g", "ethernet-400g",
    "metrox", "400zr", "800zr", "spectrum-xgs", "campus-400g-fr4", "cloud-cross-region",
    "home-broadband", "laplink-parallel", "ieee1284-ecp", "ieee1284-compat", "rs232",
    "dac-400g-passive", "acc-400g", "aoc-200g", "400g-sr4-multimode", "400g-sr8", "400g-dr4", "400g-lr8",
    "wan-100g-wave", "cloud-same-region",
]
REQUIRED_NODES = [
    "dgx-1-v100", "dgx-a100", "dgx-h100", "dgx-h200", "hgx-b200", "dgx-b300", "gb200-nvl72",
    "mi300x-platform", "gaudi3-server", "aws-p5", "dgx-b200", "mi325x-platform",
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
        "reference_node": "test-node",
        "scaleup_brand": {"name": "TestLink", "sources": ["mle-network"]},
        "collective_library": {"name": "TCCL", "sources": ["mle-network"]},
        "topology": "switched",
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


def _write_catalog(directory: Path, links: list[dict], gpus: list[dict] = (), nodes: list[dict] = (),
                   media: list[dict] = ()) -> Path:
    """A small catalog: the real sources.toml plus the given entries."""
    shutil.copy(DATA_DIR / "sources.toml", directory / "sources.toml")
    (directory / "links.toml").write_text(_toml("link", links), encoding="utf-8")
    if gpus:
        (directory / "gpus.toml").write_text(_toml("gpu", list(gpus)), encoding="utf-8")
    if nodes:
        (directory / "nodes.toml").write_text(_toml("node", list(nodes)), encoding="utf-8")
    if media:
        (directory / "media.toml").write_text(_toml("medium", list(media)), encoding="utf-8")
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
    "upstream on a both-directions figure": (
        _link("bad-link", "everyday", bandwidth={**_figure("1.8 TB/s", "both_directions"), "upstream": "1 TB/s"}),
        "upstream"),
    "upstream that is not a bandwidth": (
        _link("bad-link", "everyday", bandwidth={**_figure("100 Mbit/s"), "upstream": "20 m"}), "expected bandwidth"),
    "unknown propagation medium": (_link("bad-link", "cable", propagation_medium="ether"), "propagation_medium"),
    "timeout that is not a time": (_link("bad-link", "historical", duplex="half",
                                         bandwidth=_figure("50 kB/s", "shared"), timeout=_figure("5 m", "n/a")),
                                   "expected time"),
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
            assert figure.per_direction() > Q_(0, "GB/s")
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
    assert gpu.scaleup_achieved.per_direction() < gpu.scaleup_bandwidth.per_direction()


@pytest.mark.parametrize("gpu_id", GPU_IDS)
def test_gpu_scaleup_matches_its_link(gpu_id):
    """A GPU's per-GPU scale-up figure and its link's per-GPU figure are the same number."""
    gpu = CATALOG.gpu(gpu_id)
    link = CATALOG.link(gpu.scaleup_link)
    assert_quantity_close(gpu.scaleup_bandwidth.per_direction(), link.bandwidth.per_direction())


@pytest.mark.parametrize("link_id", LINKS_WITH_ACHIEVED)
def test_link_achieved_is_at_most_the_spec(link_id):
    link = CATALOG.link(link_id)
    assert link.achieved.per_direction() <= link.bandwidth.per_direction()


@pytest.mark.parametrize("link_id", LINKS_WITH_PER_LINK)
def test_link_per_link_times_links_is_the_total(link_id):
    link = CATALOG.link(link_id)
    assert_quantity_close(link.per_link.per_direction() * link.links, link.bandwidth.per_direction(), rel=0.03)


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
        for value in re.findall(r'(?:value|upstream) = "([^"]*)"', path.read_text(encoding="utf-8")):
            assert not re.search(r"(?<![A-Za-z])[kMGTP]?b(/|\b)", value), f"{path.name}: {value!r}"


def test_every_toml_file_parses_and_has_only_known_tables():
    from interconnect.catalog import NON_CATALOG_FILES

    for path in sorted(DATA_DIR.glob("*.toml")):
        if path.name in NON_CATALOG_FILES:  # a topic's own data (model presets, crossdc figures)
            continue
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert set(data) <= {"source", "gpu", "link", "node", "medium"}, path.name


# --- sourced figures --------------------------------------------------------------------------


def test_h100_nvlink_is_450_per_direction_900_both():
    # ml-engineering network/README.md NVLink table: NVLink 4, 18 links, 450 GB/s uni, 900 duplex.
    nvlink4 = CATALOG.link("nvlink4")
    assert_quantity_close(nvlink4.bandwidth.per_direction(), Q_(450, "GB/s"))
    assert_quantity_close(nvlink4.bandwidth.both_directions(), Q_(900, "GB/s"))
    assert nvlink4.links == 18
    assert_quantity_close(nvlink4.per_link.per_direction(), Q_(25, "GB/s"))
    h100 = CATALOG.gpu("h100-sxm")
    assert h100.scaleup_bandwidth.direction == "both_directions"  # stored as NVIDIA quotes it
    assert_quantity_close(h100.scaleup_bandwidth.per_direction(), Q_(450, "GB/s"))


def test_b200_nvlink_is_900_per_direction_and_nvlink5_is_1_8_tb_both():
    # NVIDIA NVLink page: "18 NVLink 100 GB/s connections for a total bandwidth of 1.8 TB/s"
    # (bidirectional); ml-engineering: NVLink 5 900 GB/s unidirectional.
    b200 = CATALOG.gpu("b200")
    assert_quantity_close(b200.scaleup_bandwidth.per_direction(), Q_(900, "GB/s"))
    nvlink5 = CATALOG.link("nvlink5")
    assert_quantity_close(nvlink5.bandwidth.both_directions(), Q_(1.8, "TB/s"))
    assert_quantity_close(nvlink5.per_link.both_directions(), Q_(100, "GB/s"))


def test_ib_ndr_is_50_gbytes_per_direction():
    # 400 Gbit/s per port (ml-engineering, IBTA) / 8 bits per byte = 50 GB/s each way.
    ndr = CATALOG.link("ib-ndr")
    assert ndr.bandwidth.quantity == Q_(400, "Gbit/s")
    assert_quantity_close(ndr.bandwidth.per_direction(), Q_(50, "GB/s"))
    # nccl-tests #319 (AddyLaddy, NVIDIA): "around 48GB/s from each CX7 NIC at 400Gbps"; #290: "46-48GB/s".
    assert_quantity_close(ndr.achieved.per_direction(), Q_(48, "GB/s"))
    # A protocol has no reach of its own: the medium has (wires.toml; LinkX MCP4Y10 DAC 2 m, 2xFR4 2 km).
    assert ndr.reach is None


def test_other_nic_generations():
    # nccl-tests #119 (sjeaugey): "24GB/s is the peak performance per 200G NIC"; ml-engineering: XDR 800 Gbit/s.
    assert_quantity_close(CATALOG.link("ib-hdr").bandwidth.per_direction(), Q_(25, "GB/s"))
    assert_quantity_close(CATALOG.link("ib-hdr").achieved.per_direction(), Q_(24, "GB/s"))
    assert_quantity_close(CATALOG.link("ib-xdr").bandwidth.per_direction(), Q_(100, "GB/s"))
    assert_quantity_close(CATALOG.link("roce-400g").bandwidth.per_direction(), Q_(50, "GB/s"))


def test_pcie5_x16_is_about_63_gbytes_per_direction():
    # Wikipedia's PCI Express table and ml-engineering: ~63 GB/s per direction, ~126 both; NVIDIA's "128 GB/s"
    # is both directions before 128b/130b encoding (32 GT/s x 16 lanes x 2 / 8).
    pcie5 = CATALOG.link("pcie5-x16")
    assert_quantity_close(pcie5.bandwidth.per_direction(), Q_(63, "GB/s"), rel=0.01)
    assert_quantity_close(pcie5.bandwidth.both_directions(), Q_(126, "GB/s"), rel=0.01)
    raw_both = Q_(32e9, "1/s") * 16 * 2 * Q_(1, "bit")
    assert_quantity_close(raw_both, Q_(128, "GB/s"))
    assert_quantity_close(raw_both * 128 / 130, pcie5.bandwidth.both_directions(), rel=0.01)


def test_pcie_generations_double():
    # Wikipedia PCI Express / ml-engineering: 15.75, 31.5, 63, 121, 242 GB/s per direction for x16.
    rates = [CATALOG.link(f"pcie{gen}-x16").bandwidth.per_direction() for gen in (3, 4, 5, 6, 7)]
    for slower, faster in zip(rates, rates[1:], strict=False):
        assert_quantity_close(faster / slower, Q_(2, ""), rel=0.05)


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
    assert_quantity_close(achieved.per_direction(), Q_(per_link * links, "GB/s"))


def test_the_cliff_ratios():
    # ml-engineering and NVIDIA: H100 NVLink 450 GB/s per direction vs NDR 50 GB/s = 9:1 like for like;
    # 18:1 comes from dividing the both-directions sum by a one-direction port; B200 is 900/50 = 18:1.
    ndr = CATALOG.link("ib-ndr").bandwidth.per_direction()
    h100 = CATALOG.gpu("h100-sxm").scaleup_bandwidth
    b200 = CATALOG.gpu("b200").scaleup_bandwidth
    assert_quantity_close(h100.per_direction() / ndr, Q_(9, ""))
    assert_quantity_close(h100.both_directions() / ndr, Q_(18, ""))
    assert_quantity_close(b200.per_direction() / ndr, Q_(18, ""))
    claims = " ".join(q["claim"] for q in CATALOG.link("nvlink4").quoted)
    assert "18 to 1" in claims


def test_amd_and_intel_scale_up():
    # ml-engineering: MI300X 7 x 64 GB/s = 448 GB/s all-to-all per direction; MI355X 7 x 76.5 = 535.5.
    assert_quantity_close(CATALOG.gpu("mi300x").scaleup_bandwidth.per_direction(), Q_(448, "GB/s"))
    assert_quantity_close(CATALOG.link("xgmi-mi300x").per_link.per_direction(), Q_(64, "GB/s"))
    assert_quantity_close(CATALOG.gpu("mi355x").scaleup_bandwidth.per_direction(), Q_(535.5, "GB/s"))
    assert CATALOG.gpu("mi300x").disagreements  # AMD's 128 GB/s per link has no stated direction
    # Intel Gaudi docs, Network Configuration: 21 x 200 Gbit/s = 525 GB/s unidirectional scale-up,
    # 3 x 200 Gbit/s = 75 GB/s per direction scale-out per card.
    gaudi = CATALOG.gpu("gaudi3")
    assert_quantity_close(gaudi.scaleup_bandwidth.per_direction(), Q_(525, "GB/s"))
    nic = CATALOG.link(gaudi.typical_nic)
    assert_quantity_close(nic.bandwidth.per_direction() * gaudi.typical_nics_per_gpu, Q_(75, "GB/s"))


def test_disagreements_are_recorded():
    # Sources disagree: B200 180 (NVIDIA DGX B200 guide) vs 192 GB, H200 141 vs 144 GB, Gaudi 3 BF16 1835 vs 1677.
    assert CATALOG.gpu("b200").memory.quantity == Q_(180, "GB")
    assert any("192" in text for text in CATALOG.gpu("b200").disagreements)
    assert CATALOG.gpu("h200").memory.quantity == Q_(141, "GB")
    assert any("144" in text for text in CATALOG.gpu("h200").disagreements)
    assert any("1677" in text for text in CATALOG.gpu("gaudi3").disagreements)
    assert any("900 GB/s bidirectional" in text for text in CATALOG.link("nvlink5").disagreements)


def test_v100_has_no_bf16_and_says_so():
    # NVIDIA V100 data sheet (SXM2): 125 TFLOPS tensor, FP16; V100 has no BF16.
    v100 = CATALOG.gpu("v100")
    assert v100.bf16_dense.quantity == Q_(125, "TFLOP/s")
    assert "FP16" in v100.bf16_dense.note


@pytest.mark.parametrize("gpu_id", GPU_IDS)
def test_dense_format_names_fp16_only_where_there_is_no_bf16(gpu_id):
    # NVIDIA P100 and V100 data sheets: half precision (FP16) only; every later GPU here has BF16.
    gpu = CATALOG.gpu(gpu_id)
    assert gpu.dense_format == ("FP16" if gpu_id in ("p100", "v100") else "BF16")
    if gpu.dense_format == "FP16":
        assert "no BF16" in gpu.bf16_dense.note


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
        return CATALOG.nic(node.nic).bandwidth.per_direction() * node.nics

    for node_id in ("dgx-h100", "aws-p5", "aws-p5en", "aws-p6-b200"):
        assert_quantity_close(egress(node_id), Q_(3.2, "Tbit/s"), msg=node_id)
    nvl72 = CATALOG.node("gb200-nvl72")
    assert (nvl72.gpus, nvl72.scaleup_domain, nvl72.nics) == (72, 72, 72)
    assert CATALOG.node("dgx-a100").nic == "ib-hdr"
    assert CATALOG.node("dgx-b300").nic == "ib-xdr"
    assert CATALOG.node("gaudi3-server").nics == 24
    assert CATALOG.gpu("v100").typical_nics_per_gpu == pytest.approx(CATALOG.node("dgx-1-v100").nics / 8)


def test_long_reach_figures():
    # OIF: 400ZR "distances up to 120 km"; NVIDIA via ml-engineering: MetroX "up to 40 kilometers";
    # NVIDIA LinkX MMS4X50: 2 x FR4, 2 km.
    assert_quantity_close(CATALOG.link("400zr").reach.quantity, Q_(120, "km"))
    assert_quantity_close(CATALOG.link("metrox").reach.quantity, Q_(40, "km"))
    assert_quantity_close(CATALOG.link("campus-400g-fr4").reach.quantity, Q_(2, "km"))
    # AWS EC2 network bandwidth docs: single flow limited to 5 Gbit/s outside a cluster placement group.
    wan = CATALOG.link("cloud-cross-region")
    assert wan.bandwidth.quantity == Q_(5, "Gbit/s")
    # acomputerscientistlearnsaws (2017): us-east-1 to us-west-2 86.98 ms, a round trip.
    assert wan.latency.quantity == Q_(86.98, "ms")
    assert "Round-trip" in wan.latency.note


def test_everyday_and_historical_figures():
    # FCC 2024 benchmark (Benton): 100 Mbit/s down, 20 up.
    assert CATALOG.link("home-broadband").bandwidth.quantity == Q_(100, "Mbit/s")
    laplink = CATALOG.link("laplink-parallel")
    assert (laplink.duplex, laplink.bandwidth.direction) == ("half", "shared")
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
    # No official maximum NVLink cable length was found; NVL72 copper stays in the rack (setloop, locsic).
    for link_id in ("nvlink5", "nvlink5-switch"):
        reach = CATALOG.link(link_id).reach
        assert reach.quantity <= Q_(2, "m")
        assert "No official maximum" in reach.note
        assert reach.basis == "estimate", link_id  # its own note calls it an estimate
    assert any("tens of centimetres" in q["claim"] for q in CATALOG.link("nvlink5").quoted)


def test_every_source_is_cited_by_some_entry():
    # A source nobody cites cannot be reached from the app; prose-only sources go in an entry's `sources`.
    catalog = load_catalog()
    entries = [*catalog.entries(), *catalog.media.values()]
    cited = {source.id for entry in entries for source in catalog.sources_of(entry)}
    from interconnect.catalog import load_claims

    cited |= {source_id for claim in load_claims(catalog) for source_id in claim.source_ids}  # the Claims page
    from interconnect.topics.crossdc.model import get_crossdc_data

    cited |= get_crossdc_data().source_ids()  # the Across sites page's figures
    from interconnect.hardware.wires import get_wires

    cited |= get_wires().source_ids()  # the protocols and media of the Reach page
    from interconnect.hardware.fabric import get_fabric_data

    cited |= get_fabric_data().source_ids()  # the Fabric page's switches and designs
    from interconnect.topics.crossdc.data import load_weight_sync_data

    cited |= {source for row in load_weight_sync_data() for source in row.sources}  # weight-sync measurements
    from interconnect.topics.crossdc.data import load_pipeline_cases

    cited |= {source for row in load_pipeline_cases() for source in row.sources}  # CrossPipe's cases
    assert set(catalog.sources) - cited == set()



def test_prose_sources_must_exist(tmp_path):
    data = Path(str(resources.files("interconnect").joinpath("data")))
    for path in data.glob("*.toml"):
        shutil.copy(path, tmp_path / path.name)
    historical = tmp_path / "historical.toml"
    historical.write_text(historical.read_text().replace('"wikipedia-laplink"', '"no-such-source"'))
    with pytest.raises(CatalogError, match="laplink-parallel.*no-such-source"):
        load_catalog(tmp_path)


# --- source addresses ---------------------------------------------------------------------------


@pytest.mark.parametrize("source_id", SOURCE_IDS)
def test_source_url_is_well_formed(source_id):
    url = CATALOG.source(source_id).url
    assert check_url(url) is None, (source_id, url, check_url(url))
    host = url.split("://", 1)[1].split("/", 1)[0]
    assert "." in host and not host.endswith(".")
    assert "action=edit" not in url and not re.search(r"\s", url)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/file",
        "https://techterms.com./definition/wi-fi_6",
        "https://zalansite.site/mediawiki/index.php?action=edit&title=Parallel_port",
        "https://hpc-notes.pages.dev/reference/pcie",
        "https://example.org/a page",
        "https://localhost/x",
        "example.org/no-scheme",
        "https:///no-host",
    ],
)
def test_check_url_rejects_odd_addresses(url):
    assert check_url(url) is not None


def test_loader_rejects_a_source_with_an_edit_link(tmp_path):
    _write_catalog(tmp_path, _base_links(), [_gpu()], [_node()])
    bad = {"id": "edit-link", "title": "An edit page", "kind": "third-party",
           "url": "https://en.wikipedia.org/w/index.php?title=Laplink&action=edit"}
    with (tmp_path / "sources.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + _toml("source", [bad]))
    with pytest.raises(CatalogError, match="edit-link.*action=edit"):
        load_catalog(tmp_path)


def test_makers_own_pages_back_the_headline_figures():
    # Maker first: NVIDIA for NVLink and its GPUs, AMD for MI300X, Intel for Gaudi 3.
    assert CATALOG.source("nvidia-nvlink-page").url.startswith("https://www.nvidia.com/")
    assert "nvidia-nvlink-page" in CATALOG.gpu("b200").scaleup_bandwidth.source_ids
    assert "nvidia-p100-datasheet" in CATALOG.gpu("p100").memory_bandwidth.source_ids
    assert "nvidia-h100-page" in CATALOG.gpu("h100-sxm").memory_bandwidth.source_ids
    assert "nvidia-dgx-b200-guide" in CATALOG.gpu("b200").memory.source_ids
    assert "amd-mi300x-platform" in CATALOG.gpu("mi300x").scaleup_per_peer.source_ids
    assert "intel-gaudi3-whitepaper" in CATALOG.gpu("gaudi3").scaleup_brand.source_ids
    for source in CATALOG.sources.values():
        host = source.url.split("://", 1)[1].split("/", 1)[0]
        if host.endswith(("nvidia.com", "amd.com", "intel.com", "habana.ai")):
            assert source.kind == "primary", source.id


# --- figures with different up and down rates -----------------------------------------------


def test_asymmetric_broadband_adds_up_and_down():
    # FCC 2024 benchmark (Benton, Converge Digest): 100 Mbit/s down, 20 Mbit/s up.
    broadband = CATALOG.link("home-broadband").bandwidth
    assert broadband.is_asymmetric
    assert broadband.per_direction() == Q_(100, "Mbit/s")
    assert broadband.upstream_rate() == Q_(20, "Mbit/s")
    assert_quantity_close(broadband.both_directions(), Q_(120, "Mbit/s"))  # not 200
    assert_quantity_close(broadband.in_direction("both_directions"), Q_(120, "Mbit/s"))
    assert "down" in broadband.text() and "up" in broadband.text()


def test_symmetric_figures_are_unchanged_by_the_upstream_field():
    ndr = CATALOG.link("ib-ndr").bandwidth
    assert not ndr.is_asymmetric
    assert ndr.upstream_rate() == ndr.per_direction()
    assert_quantity_close(ndr.both_directions(), Q_(100, "GB/s"))


def test_upstream_loads_from_toml(tmp_path):
    row = _link("slow-uplink", "everyday", bandwidth={**_figure("1 Gbit/s"), "upstream": "50 Mbit/s"})
    catalog = load_catalog(_write_catalog(tmp_path, [*_base_links(), row], [_gpu()], [_node()]))
    figure = catalog.link("slow-uplink").bandwidth
    assert_quantity_close(figure.both_directions(), Q_(1050, "Mbit/s"))


# --- each GPU's own reference server ---------------------------------------------------------

REFERENCE_SERVERS = {
    # gpu: (nic, nics per server, gpus per server), with the maker's source for each
    "p100": ("ib-edr", 4, 8),  # Mellanox/NVIDIA DGX-1: four ConnectX-4 EDR for eight P100
    "v100": ("ib-edr", 4, 8),  # NVIDIA DGX-1 V100 white paper: four 100 Gb InfiniBand cards
    "a100-sxm": ("ib-hdr", 8, 8),  # NCCL #812: DGX A100 has 8 x 200 Gbit/s InfiniBand
    "h100-sxm": ("ib-ndr", 8, 8),  # NVIDIA DGX BasePOD: eight single-port ConnectX-7, 400 Gbit/s
    "h200": ("ib-ndr", 8, 8),  # same DGX H200/H100 platform
    "b200": ("ib-ndr", 8, 8),  # NVIDIA DGX B200 user guide: 8 x ConnectX-7, InfiniBand up to 400 Gbit/s
    "gb200": ("ib-ndr", 72, 72),  # NVIDIA DGX GB200 guide / Crusoe MLCommons: 4 ConnectX-7 per 4-GPU tray
    "b300": ("ib-xdr", 8, 8),  # NVIDIA DGX B300: 8 ConnectX-8 at up to 800 Gbit/s
    "mi300x": ("roce-400g", 8, 8),  # AMD ROCm MoRI guide: 8 ConnectX-7, 1:1
    "mi325x": ("roce-400g", 8, 8),  # same guide, MI300X/MI325X
    "mi355x": ("roce-400g", 8, 8),  # AMD ROCm: 8 Pensando Pollara 400
    "gaudi3": ("roce-200g", 24, 8),  # Intel Gaudi docs: 3 of 24 on-chip 200 GbE ports per card go out
    "gaudi2": ("roce-100g", 24, 8),  # Intel Gaudi docs: 3 of 24 on-chip 100 GbE ports per card go out
    "h800": ("ib-ndr", 8, 8),  # DeepSeek (arXiv 2505.09343): 8 x 400 Gbit/s ConnectX-7 InfiniBand per H800 node
}


def test_every_gpu_has_its_reference_server_listed():
    assert set(REFERENCE_SERVERS) == set(GPU_IDS)


@pytest.mark.parametrize("gpu_id", sorted(REFERENCE_SERVERS))
def test_reference_server_nic(gpu_id):
    nic = CATALOG.reference_server_nic(gpu_id)
    assert isinstance(nic, ReferenceNic)
    assert tuple(nic) == REFERENCE_SERVERS[gpu_id]
    gpu = CATALOG.gpu(gpu_id)
    node = CATALOG.reference_node(gpu_id)
    assert node.gpu == gpu_id and node.id == gpu.reference_node
    assert gpu.typical_nic == nic.nic_id
    assert gpu.typical_nics_per_gpu == pytest.approx(nic.nics_per_gpu)


def test_gaudi3_server_egress_is_six_800g_osfp():
    # Intel Gaudi docs: 3 scale-out ports of 200 Gbit/s per card, bundled into OSFP links of 4 x 200 Gbit/s;
    # 8 cards: 3 x 8 x 200 Gbit/s = 600 GB/s per direction = 6 OSFP of 800 Gbit/s.
    nic = CATALOG.reference_server_nic("gaudi3")
    egress = CATALOG.nic(nic.nic_id).bandwidth.per_direction() * nic.nics
    assert_quantity_close(egress, Q_(600, "GB/s"))
    assert nic.nics / 4 == 6
    assert_quantity_close(egress, Q_(6 * 800, "Gbit/s"))


def test_loader_rejects_a_gpu_whose_nic_disagrees_with_its_reference_server(tmp_path):
    _write_catalog(tmp_path, _base_links(), [_gpu(id="odd-gpu", reference_node="odd-node", typical_nics_per_gpu=3)],
                   [_node(id="odd-node", gpu="odd-gpu")])
    with pytest.raises(CatalogError, match="odd-gpu.*disagree"):
        load_catalog(tmp_path)


def test_loader_rejects_a_reference_node_of_another_gpu(tmp_path):
    _write_catalog(tmp_path, _base_links(), [_gpu(), _gpu(id="other-gpu")], [_node()])
    with pytest.raises(CatalogError, match="other-gpu.*reference_node"):
        load_catalog(tmp_path)


# --- each maker's own words and wiring -------------------------------------------------------

VENDOR_WORDS = {  # vendor: (scale-up brand, collective library)
    "NVIDIA": ("NVLink", "NCCL"),  # NVIDIA NVLink page; NCCL's own repository
    "AMD": ("Infinity Fabric", "RCCL"),  # AMD MI300X platform page; ROCm "What is RCCL?"
    "Intel": ("Gaudi on-chip RoCE (200 GbE)", "HCCL"),  # Intel Gaudi network configuration and HCCL docs
}
#: Gaudi 2's on-chip ports run at 100 GbE (Intel Gaudi network configuration docs; Gaudi 2 white paper)
GPU_WORDS = {"gaudi2": ("Gaudi on-chip RoCE (100 GbE)", "HCCL")}


@pytest.mark.parametrize("gpu_id", GPU_IDS)
def test_gpu_uses_its_makers_words(gpu_id):
    gpu = CATALOG.gpu(gpu_id)
    brand, library = GPU_WORDS.get(gpu_id, VENDOR_WORDS[gpu.vendor])
    assert (gpu.scaleup_brand.name, gpu.collective_library.name) == (brand, library)
    assert gpu.scaleup_brand.source_ids and gpu.collective_library.source_ids
    if gpu.vendor != "NVIDIA":
        assert "NVLink" not in gpu.scaleup_brand.name and gpu.collective_library.name != "NCCL"


@pytest.mark.parametrize("gpu_id", GPU_IDS)
def test_topology_matches_the_scaleup_link(gpu_id):
    gpu = CATALOG.gpu(gpu_id)
    assert gpu.topology == ("switched" if CATALOG.link(gpu.scaleup_link).switched else "mesh")
    peer = gpu.peer_bandwidth()
    if gpu.topology == "switched":
        assert peer is gpu.scaleup_bandwidth
    else:
        assert peer.per_direction() < gpu.scaleup_bandwidth.per_direction()


@pytest.mark.parametrize(
    ("gpu_id", "per_peer", "peers"),
    [
        # ml-engineering's Infinity Fabric table (AMD's per-link peaks halved): 64 x 7 = 448; 76.5 x 7 = 535.5.
        ("mi300x", 64, 7),
        ("mi325x", 64, 7),
        ("mi355x", 76.5, 7),
        # Intel Gaudi docs: 21/7 = 3 ports of 200 Gbit/s per peer = 75 GB/s; 7 x 75 = 525.
        ("gaudi3", 75, 7),
    ],
)
def test_full_mesh_per_peer_times_peers_is_the_sum(gpu_id, per_peer, peers):
    gpu = CATALOG.gpu(gpu_id)
    assert gpu.topology == "mesh"
    assert_quantity_close(gpu.scaleup_per_peer.per_direction(), Q_(per_peer, "GB/s"))
    assert_quantity_close(gpu.scaleup_bandwidth.per_direction(), Q_(per_peer * peers, "GB/s"))


def test_loader_rejects_a_mesh_without_a_per_peer_figure(tmp_path):
    links = [_link("test-up", "scale-up", switched=False), _link("test-host", "host"), _link("test-nic", "scale-out")]
    _write_catalog(tmp_path, links, [_gpu(id="mesh-gpu", topology="mesh")], [_node(gpu="mesh-gpu")])
    with pytest.raises(CatalogError, match="mesh-gpu.*scaleup_per_peer"):
        load_catalog(tmp_path)


def test_loader_rejects_a_topology_that_contradicts_the_link(tmp_path):
    _write_catalog(tmp_path, _base_links(), [_gpu(id="odd-gpu", topology="mesh",
                                                  scaleup_per_peer=_figure("64 GB/s"))], [_node(gpu="odd-gpu")])
    with pytest.raises(CatalogError, match="odd-gpu.*topology"):
        load_catalog(tmp_path)


def test_loader_rejects_a_vendor_word_without_sources(tmp_path):
    _write_catalog(tmp_path, _base_links(), [_gpu(collective_library={"name": "TCCL", "sources": []})], [_node()])
    with pytest.raises(CatalogError, match="collective_library"):
        load_catalog(tmp_path)


# --- the data fixes, one test each -------------------------------------------------------------


def test_p100_memory_bandwidth_is_the_shipping_figure():
    # NVIDIA Tesla P100 data sheet: "CoWoS HBM2 Stacked Memory Bandwidth 732 GB/s"; 720 was the launch figure.
    p100 = CATALOG.gpu("p100")
    assert p100.memory_bandwidth.quantity == Q_(732, "GB/s")
    assert any("720" in text for text in p100.disagreements)


def test_nvl72_aggregate_is_both_directions():
    # NVIDIA NVLink page: "130TB/s of GPU bandwidth in one NVL72" = 72 x 1.8 TB/s (bidirectional per GPU).
    nvl72 = CATALOG.node("gb200-nvl72")
    aggregate = nvl72.scaleup_aggregate
    assert aggregate.direction == "both_directions"
    per_gpu = CATALOG.gpu(nvl72.gpu).scaleup_bandwidth.both_directions()
    assert_quantity_close(aggregate.quantity, per_gpu * 72, rel=0.01)
    assert_quantity_close(aggregate.per_direction(), Q_(65, "TB/s"))


@pytest.mark.parametrize("node_id", ["dgx-b200", "hgx-b200"])
def test_hgx_b200_aggregate_is_eight_gpus_both_directions(node_id):
    # NVIDIA DGX B200 guide: "14.4 TB/s aggregate bandwidth" = 8 x 1.8 TB/s.
    node = CATALOG.node(node_id)
    per_gpu = CATALOG.gpu(node.gpu).scaleup_bandwidth.both_directions()
    assert_quantity_close(node.scaleup_aggregate.both_directions(), per_gpu * node.gpus)


def test_nvlink_c2c_direction_has_a_source_that_states_it():
    # Lockwood from NVIDIA Hot Chips 34: 10 links x 45 GB/s per direction = 450 GB/s each way, 900 both.
    c2c = CATALOG.link("nvlink-c2c").bandwidth
    assert c2c.direction == "both_directions"
    assert "klockwood-nvlink" in c2c.source_ids
    assert_quantity_close(c2c.per_direction(), Q_(10 * 45, "GB/s"))


def test_b300_pcie_generation_is_marked_an_estimate():
    b300 = CATALOG.gpu("b300")
    assert b300.host_link == "pcie6-x16"
    assert b300.host_link_basis == "estimate" and "Not found" in b300.host_link_note
    assert all(gpu.host_link_basis == "spec" for gpu in CATALOG.gpus.values() if gpu.id != "b300")


def test_infiniband_latencies_have_a_primary_source_or_are_estimates():
    # NVIDIA ConnectX-6 manual: "sub-600ns latency" (HDR); EDR's 0.5 us has no primary source.
    for link in CATALOG.nics().values():
        if link.latency is None:
            continue
        primary = any(CATALOG.source(s).kind == "primary" for s in link.latency.source_ids)
        assert primary or link.latency.basis == "estimate", link.id
    assert "nvidia-connectx6-manual" in CATALOG.link("ib-hdr").latency.source_ids
    assert CATALOG.link("ib-edr").latency.basis == "estimate"


def test_maintainer_statements_cite_threads_that_contain_them():
    # nccl-tests #160 and #267 do not contain the 24 and 48 GB/s figures; #119 and #319 do.
    urls = {source.url for source in CATALOG.sources.values()}
    assert not any(url.endswith(("/nccl-tests/issues/160", "/nccl-tests/issues/267")) for url in urls)
    assert "nccl-tests-119" in CATALOG.link("ib-hdr").achieved.source_ids
    assert "nccl-tests-319" in CATALOG.link("ib-ndr").achieved.source_ids


def test_same_region_latency_is_within_one_zone():
    # xkyle.com: 0.25 ms is aps1-az1 to aps1-az1 (one zone); between zones up to 3.37 ms.
    latency = CATALOG.link("cloud-same-region").latency
    assert latency.quantity == Q_(0.25, "ms")
    assert "same Availability Zone" in latency.note and "3.37" in latency.note


def test_laplink_speed_is_the_cable_not_a_tape_backup():
    # IEEE 1284 tutorial: nibble mode "approximately 50K bytes per second"; Linux Net-HOWTO: PLIP
    # "about 20 kilobytes per second"; freeholdcomputer.com's 700K/minute was a compressed tape backup.
    laplink = CATALOG.link("laplink-parallel")
    assert laplink.bandwidth.quantity == Q_(50, "kB/s") and laplink.bandwidth.basis == "spec"
    assert laplink.achieved.quantity == Q_(20, "kB/s")
    assert "freehold-interlnk" not in laplink.bandwidth.source_ids
    assert "tape backup" in laplink.notes
    # The episode's 60 KB/s sits between the two sourced figures, the same order of size.
    assert laplink.achieved.quantity < Q_(60, "kB/s") < 1.5 * laplink.bandwidth.quantity
    sixty = next(q for q in laplink.quoted if "sixty" in q["claim"])
    assert "50 kB/s" in sixty["correction"] and "tape backup" in sixty["correction"]


def test_plip_handshake_timeouts():
    # Linux plip.rst: trigger timeout 500 us; net-tools plipconfig(8): nibble 3000 us, trigger 500 us.
    timeout = CATALOG.link("laplink-parallel").timeout
    assert timeout.quantity == Q_(500, "us")
    assert "3000 us" in timeout.note
    assert {"linux-plip", "net-tools-plipconfig"} <= set(timeout.source_ids)


def test_parallel_cable_reaches():
    # connectworld: IEEE 1284 AB cable 6 m, CC cable 10 m; Linux PLIP: 15 m for the LapLink cable.
    assert CATALOG.link("ieee1284-compat").reach.quantity == Q_(10, "m")
    assert "6 m" in CATALOG.link("laplink-parallel").reach.note


# --- every medium the Reach page draws ---------------------------------------------------------

REACH_MEDIA = [
    # (link id, reach in metres, source) in order of reach
    ("nvlink4", 0.5, "estimate: an 8-GPU baseboard inside one chassis"),
    ("pcie5-x16", 0.5, "estimate: inside one server"),
    ("nvlink5-switch", 2, "estimate: the NVL72 copper spine stays in the rack"),
    ("dac-400g-passive", 3, "NVIDIA LinkX 100G-PAM4 overview: DAC up to 3 m"),
    ("acc-400g", 5, "NVIDIA LinkX: linear active copper 3, 4, 5 m"),
    ("laplink-parallel", 15, "Linux plip.rst: 'Limited range, 15 m'"),
    ("aoc-200g", 30, "NVIDIA MFS1S50 (a 200G to 2 x 100G splitter): 3 to 30 m"),
    ("400g-sr4-multimode", 50, "NVIDIA LinkX: multimode 50 m maximum"),
    ("400g-sr8", 100, "TIA FOTC: 400GBASE-SR8 100 m on OM4"),
    ("400g-dr4", 500, "NVIDIA MMS4X00-NM: 100 to 500 m"),
    ("campus-400g-fr4", 2_000, "NVIDIA MMS4X50: 2 km"),
    ("400g-lr8", 10_000, "TIA FOTC: 400GBASE-LR8 10 km"),
    ("metrox", 40_000, "NVIDIA via ml-engineering: up to 40 km"),
    ("400zr", 120_000, "OIF: up to 120 km"),
    ("800zr", 120_000, "Converge Digest: 80-120 km"),
    ("wan-100g-wave", 4_250_000, "T8: 100 Gbit/s carried 4,250 km"),
]


@pytest.mark.parametrize(("link_id", "metres", "why"), REACH_MEDIA)
def test_reach_page_medium_has_rate_and_reach(link_id, metres, why):
    link = CATALOG.link(link_id)
    assert_quantity_close(link.reach.quantity, Q_(metres, "m"), msg=why)
    assert link.bandwidth.per_direction().magnitude > 0
    if link.reach.basis == "estimate":
        assert "not found" in link.reach.note.lower() or "no official maximum" in link.reach.note.lower()


def test_passive_dac_reaches_a_rack_not_a_row():
    dac = CATALOG.link("dac-400g-passive").reach.quantity
    assert dac >= Q_(1.5, "m") and dac < Q_(30, "m")


def test_faster_copper_is_shorter_than_optics():
    reach = {link_id: CATALOG.link(link_id).reach.quantity for link_id, _, _ in REACH_MEDIA}
    assert reach["dac-400g-passive"] < reach["acc-400g"] < reach["aoc-200g"] < reach["400g-sr8"]
    assert reach["400g-sr8"] < reach["400g-dr4"] < reach["campus-400g-fr4"] < reach["400g-lr8"] < reach["400zr"]


@pytest.mark.parametrize("link_id", LINK_IDS)
def test_propagation_medium_exists(link_id):
    medium_id = CATALOG.link(link_id).propagation_medium
    if medium_id is not None:
        assert isinstance(CATALOG.medium(medium_id), Medium)


def test_fibre_delay_and_group_index():
    # Fibre maker's data sheet: group index 1.468-1.469; MapYourTech: 4.897 us/km. 1000 km is about 4.9 ms.
    fibre = CATALOG.medium("fibre")
    assert fibre.group_index() == pytest.approx(1.47, abs=0.01)
    assert_quantity_close(fibre.one_way(Q_(1000, "km")), Q_(4.9, "ms"), rel=0.01)
    assert_quantity_close(fibre.velocity(), Q_(204_000, "km/s"), rel=0.01)


def test_copper_and_vacuum_delays():
    # NVIDIA MCP1650 DAC spec: at most 4.5 ns/m; NIST: c = 299,792,458 m/s.
    assert CATALOG.medium("copper-twinax").velocity_factor() == pytest.approx(0.74, abs=0.01)
    vacuum = CATALOG.medium("vacuum")
    assert_quantity_close(vacuum.velocity(), Q_(299_792_458, "m/s"), rel=1e-6)
    assert vacuum.velocity_factor() == pytest.approx(1, rel=1e-6)
    assert CATALOG.medium("fibre").delay.quantity > vacuum.delay.quantity


def test_loader_rejects_a_medium_with_a_speed_instead_of_a_delay(tmp_path):
    medium = {"id": "bad-medium", "name": "Bad", "kind": "fibre", "summary": "Wrong unit.",
              "delay": _figure("200000 km/s", "n/a")}
    _write_catalog(tmp_path, _base_links(), [_gpu()], [_node()], [medium])
    with pytest.raises(CatalogError, match="bad-medium.*expected delay"):
        load_catalog(tmp_path)


def test_claims_load_with_known_sources_and_pages():
    from interconnect.catalog import VERDICTS, load_claims
    from interconnect.ui.pages import PAGES

    claims = load_claims()
    assert {c.id for c in claims} >= {"cliff-18-to-1", "hierarchical-87-percent", "overlap-85-30", "laplink-3m"}
    for claim in claims:
        assert claim.verdict in VERDICTS and claim.page in PAGES


def test_claims_loader_rejects_unknown_sources(tmp_path):
    from interconnect.catalog import CatalogError, load_claims

    (tmp_path / "bad.toml").write_text(
        '[[claim]]\nid = "x"\nclaim = "c"\nby = "b"\nverdict = "wrong"\ncorrection = "c"\nwhy = "w"\n'
        'sources = ["no-such-source"]\npage = "cliff"\nparams = {}\n')
    with pytest.raises(CatalogError, match="no-such-source"):
        load_claims(directory=tmp_path)


def test_driver_reported_memory_is_what_the_seating_chart_can_fill():
    # Modal's table of what NVML reports (thundergolfer.com, "Why does an NVIDIA H100 80GB card offer 85.52 GB?"):
    # H100 81,559 MiB = 85.52 GB, H200 143,771 MiB = 150.75 GB, A100 80GB 81,920 MiB = 85.89 GB
    for gpu_id, label_gb, reported_gb in (("h100-sxm", 80, 85.52), ("h200", 141, 150.75), ("a100-sxm", 80, 85.89)):
        gpu = CATALOG.gpu(gpu_id)
        assert gpu.memory.quantity.to("GB").magnitude == pytest.approx(label_gb)
        assert gpu.usable_memory().quantity.to("GB").magnitude == pytest.approx(reported_gb, abs=0.01)
    # a GPU without a reported figure falls back to its label
    assert CATALOG.gpu("mi300x").usable_memory() is CATALOG.gpu("mi300x").memory


def test_check_url_refuses_plain_http_with_the_reason():
    assert "https" in (check_url("http://www.nvidia.com/en-us/data-center/h100/") or "")
    assert check_url("https://www.nvidia.com/en-us/data-center/h100/") is None
