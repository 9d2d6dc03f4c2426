"""The link to the All-reduce page reproduces the cluster the log describes, and carries nothing of the log."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from interconnect import site
from interconnect.hardware.cluster import resolve_cluster
from interconnect.inputs.cluster import CLUSTER_KEYS, cluster_inputs
from interconnect.inputs.links import link_to_page
from interconnect.inputs.params import parse_state
from interconnect.io.nccl_debug import read_nccl_debug
from interconnect.topics.explain.model import explain, explain_source

DATA = Path(__file__).resolve().parents[2] / "data" / "nccl_debug_logs"
LOGS = sorted(DATA.glob("*.log"))


def _link(query):
    return link_to_page(site.pages()["allreduce"][0], site.page_specs()["allreduce"](), query)


def _opened_cluster(href):
    """The cluster the All-reduce page builds from the link, as the page reads its own link."""
    parts = urlsplit(href)
    assert parts.path == "./All_reduce"
    values, warnings = parse_state(site.page_specs()["allreduce"](), dict(parse_qsl(parts.query)))
    assert not warnings
    return resolve_cluster(values["gpu"], **cluster_inputs(values))[0]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_link_opens_the_cluster_the_log_describes(path):
    out = explain_source(path.read_bytes())
    href, warnings = _link(out.cluster_query)
    assert not warnings
    cluster = _opened_cluster(href)
    facts = out.facts
    assert cluster.gpu == facts["gpu"]
    assert cluster.nodes == (facts["nodes"]["value"] or 1)
    if facts["gpus_per_node"]["value"]:
        assert cluster.gpus_per_node == facts["gpus_per_node"]["value"]
    if out.measured:  # the model's curve is drawn on exactly the cluster the link opens
        assert out.measured["cluster"] == cluster.describe()


def test_two_node_infiniband_link():
    out = explain_source((DATA / "azure-aks-30-ib-gdrdma-cumem.log").read_bytes())
    href, _ = _link(out.cluster_query)
    assert href == "./All_reduce?gpu=h100-sxm&gpn=8&nodes=2&fabric=infiniband"
    cluster = _opened_cluster(href)
    assert (cluster.nodes, cluster.gpus_per_node, cluster.fabric) == (2, 8, "infiniband")


def test_link_carries_nothing_from_the_log():
    log = ("secret-host-<b>:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
           "secret-host-<b>:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to secret0\n"
           "secret-host-<b>:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n")
    out = explain(read_nccl_debug(log))
    href, _ = _link(out.cluster_query)
    assert set(out.cluster_query) <= set(CLUSTER_KEYS)
    assert "secret" not in href and "<" not in href
    assert dict(parse_qsl(urlsplit(href).query)) == {"gpu": "h100-sxm", "gpn": "1", "nodes": "2",
                                                     "fabric": "ethernet"}


def test_a_key_the_page_does_not_read_is_left_out_with_a_warning():
    href, warnings = _link({"gpu": "h100-sxm", "log": "whatever"})
    assert href == "./All_reduce?gpu=h100-sxm" and warnings[0].key == "log"
