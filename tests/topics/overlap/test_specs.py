"""The Overlap page's link parameters: any query string gives valid values the core accepts, quickly."""

import math
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect.hardware.cluster import resolve_cluster
from interconnect.inputs.cluster import cluster_inputs
from interconnect.inputs.params import parse_state, to_query
from interconnect.topics.overlap.inputs import overlap_specs
from interconnect.topics.overlap.model import ModelShape, step_schedule
from interconnect.units import parse_quantity
from interconnect.workloads.presets import load_model_presets

SPECS = overlap_specs()
KEYS = [spec.key for spec in SPECS] + ["unknown"]
HOSTILE = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["0", "-1", "nan", "inf", "1e999", "9^9^8 B", "10^400 B", "5 parsecs", "1 TB", "1 KiB",
                     "<script>alert(1)</script>", "8e 9", "1e30", "custom", "llama3-405b", "none", "ring", "nvls",
                     "collnet", "fp32", "x" * 300]),
)


def test_defaults_round_trip():
    values, warnings = parse_state(SPECS, {})
    assert warnings == []
    query = to_query(SPECS, values)
    # params in billions, as on the Seating page (the same key means the same thing on every page)
    assert query["params"] == "8" and query["bucket"] == "25 MiB" and query["mode"] == "overlap"
    assert parse_state(SPECS, query) == (values, [])


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), HOSTILE, max_size=8))
def test_any_query_gives_values_the_core_accepts(query):
    values, _ = parse_state(SPECS, query)
    cluster, _ = resolve_cluster(values["gpu"], **cluster_inputs(values))
    bucket = float(parse_quantity(values["bucket"], "size").quantity.to("B").magnitude)
    if values["model"] == "custom":
        workload = ModelShape.from_params(values["params"] * 1e9, values["layers"])
    else:
        workload = ModelShape.from_preset(load_model_presets()[values["model"]])
    start = time.perf_counter()
    step = step_schedule(cluster, workload, values["tokens"], bucket_bytes=bucket, gradient_dtype=values["dtype"],
                         sm_contention=values["sm"], mode=values["mode"], efficiency=values["eff"],
                         algorithm=values["algo"])
    assert time.perf_counter() - start < 2.0
    assert math.isfinite(step.step_s) and step.step_s > 0
    assert step.step_s >= step.compute_s - 1e-12
    assert parse_state(SPECS, to_query(SPECS, values))[1] == []  # what the page writes back reads cleanly
