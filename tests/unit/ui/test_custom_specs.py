"""The custom GPU's link keys: parsing, writing only while in use, and the way into resolve_cluster."""

import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.inputs.cluster import (
    CLUSTER_KEYS,
    CUSTOM_GPU_KEYS,
    NameParam,
    cluster_inputs,
    cluster_specs,
    cluster_widget_values,
)
from interconnect.inputs.params import parse_state, to_query
from interconnect.site import known_link_keys
from interconnect.topics.cliff.inputs import cliff_specs
from interconnect.topics.crossdc.inputs import crossdc_specs

QUERY = {"gpu": "custom", "gpu_base": "b200", "gpu_bw": "3.6 TB/s", "gpu_name": "Next", "nic": "custom",
         "nic_bw": "800 Gbit/s", "nics": "4"}


def test_custom_keys_are_cluster_keys_known_to_every_page():
    assert set(CUSTOM_GPU_KEYS) <= set(CLUSTER_KEYS) and set(CUSTOM_GPU_KEYS) <= known_link_keys()
    for specs in (cluster_specs(), cliff_specs(), crossdc_specs()):
        keys = {spec.key for spec in specs}
        assert set(CUSTOM_GPU_KEYS) <= keys and "custom" in next(s for s in specs if s.key == "gpu").choices


def test_a_custom_link_resolves_to_its_cluster():
    values, warnings = parse_state(cluster_specs(), QUERY)
    assert not warnings
    cluster, notes = resolve_cluster(values["gpu"], **cluster_inputs(values))
    assert not notes
    assert (cluster.gpu, cluster.gpu_name, cluster.scaleup_spec_gbps, cluster.gpu_custom) == ("b200", "Next", 3600.0,
                                                                                            True)
    assert cluster.nic_line_gbps == 100.0 and cluster.nics_per_node == 4


def test_custom_keys_are_written_only_while_the_gpu_is_custom():
    values, _ = parse_state(cluster_specs(), QUERY)
    assert {key: to_query(cluster_specs(), values)[key] for key in QUERY} == QUERY
    values["gpu"] = "b200"
    assert not set(CUSTOM_GPU_KEYS) & set(to_query(cluster_specs(), values))
    cliff, _ = parse_state(cliff_specs(), {"nic": "ib-ndr", "nic_bw": "800 Gbit/s"})
    assert "nic_bw" not in to_query(cliff_specs(), cliff)  # the cliff writes a custom NIC rate only in use


def test_set_the_cluster_to_a_custom_system_round_trips():
    inputs = {"gpu": "custom", "gpu_base": "b200", "scaleup_bandwidth": "3.6 TB/s", "gpu_name": "Next", "nodes": 2,
              "nic": "800 Gbit/s", "nics_per_node": 4}
    widgets = cluster_widget_values(inputs, ["ib-ndr"])
    assert {key: widgets[key] for key in ("gpu", "gpu_base", "gpu_bw", "gpu_name", "nic", "nic_bw")} == {
        "gpu": "custom", "gpu_base": "b200", "gpu_bw": "3.6 TB/s", "gpu_name": "Next", "nic": "custom",
        "nic_bw": "800 Gbit/s"}
    assert "gpu_bw" not in cluster_widget_values({**inputs, "gpu": "b200"}, ["ib-ndr"])


@pytest.mark.parametrize("raw", ["<img src=x onerror=alert(1)>", "a" * 41, "`code`", "x\u202ey", "**bold**"])
def test_a_name_that_is_not_plain_words_is_refused(raw):
    value, problem = NameParam("gpu_name", "Custom GPU").parse(raw)
    assert value == "Custom GPU" and problem
