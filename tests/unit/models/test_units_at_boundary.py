"""Units at the model boundary: an argument whose name carries a unit also takes a Quantity.

``@expects`` (interconnect/units.py) converts a Quantity to the unit in the argument's name and
refuses one of the wrong dimension, naming the argument. These tests hold every public function of
the model modules (and the log reader) to that, and check on real calls that a Quantity in another
unit gives exactly the float answer.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import numpy as np
import pytest

from interconnect.units import Q_, UnitMismatchError, ureg

MODULES = [
    "interconnect.topics.cliff.model",
    "interconnect.hardware.cluster",
    "interconnect.topics.units.model",
    "interconnect.topics.crossdc.model",
    "interconnect.topics.crossdc.view",
    "interconnect.topics.overlap.ddp_benchmark",
    "interconnect.topics.overlap.model",
    "interconnect.topics.seating.model",
    "interconnect.workloads.presets",
    "interconnect.topics.reach.model",
    "interconnect.io.nccl_tests",
]

#: What an argument's name says about its unit, most specific first (the project's naming rule).
SUFFIX_DIMENSIONS = [
    (r"_bytes_per_s$", "[information] / [time]"),
    (r"_flops_per_s$|^flops_per_s$", "[compute] / [time]"),
    (r"_s_per_m$", "[time] / [length]"),
    (r"_gbps$", "[information] / [time]"),
    (r"_bytes$|^bytes_per_", "[information]"),
    (r"_us$|_s$", "[time]"),
    (r"_m$", "[length]"),
]


def _dimension_of(name: str) -> str | None:
    for pattern, dimension in SUFFIX_DIMENSIONS:
        if re.search(pattern, name):
            return dimension
    return None


def _modules():
    """Each module of MODULES, and every submodule of those that are packages (overlap/, parallelism/, ...)."""
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        yield module_name, module
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=f"{module_name}."):
            yield info.name, importlib.import_module(info.name)


def _public_functions():
    for module_name, module in _modules():
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module_name:
                continue
            if inspect.isfunction(value):
                yield f"{module_name}.{name}", value
            elif inspect.isclass(value):
                for attr, member in vars(value).items():
                    if not attr.startswith("_") and inspect.isfunction(member):
                        yield f"{module_name}.{name}.{attr}", member


FUNCTIONS = dict(_public_functions())


@pytest.mark.parametrize("qualname", sorted(FUNCTIONS))
def test_every_argument_named_with_a_unit_is_checked_in_that_unit(qualname: str) -> None:
    function = FUNCTIONS[qualname]
    declared = getattr(function, "__expects__", {})
    for parameter in inspect.signature(function).parameters:
        dimension = _dimension_of(parameter)
        if dimension is None:
            assert parameter not in declared, f"{qualname}({parameter}) is converted but its name has no unit"
            continue
        assert parameter in declared, f"{qualname}({parameter}=...) carries a unit in its name but no @expects"
        assert str(ureg.Unit(declared[parameter]).dimensionality) == dimension, (qualname, parameter)


def test_the_boundary_covers_the_functions_that_matter() -> None:
    checked = [name for name, function in FUNCTIONS.items() if getattr(function, "__expects__", None)]
    assert len(checked) >= 30  # a rename that drops the decorators everywhere would pass the test above
    assert "interconnect.topics.reach.model.two_sites.two_site_allreduce" in checked
    # functions of the packages are found in their submodules
    assert "interconnect.topics.seating.model.traffic.dp_traffic_bytes" in checked
    assert any(name.startswith("interconnect.topics.overlap.model.") and name.count(".") >= 4 for name in checked)


def _cluster():
    from interconnect.hardware.cluster import resolve_cluster

    return resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)[0]


def _workload():
    from interconnect.topics.overlap.model import ModelShape

    return ModelShape.from_params(8e9, 32)


def _cases():
    import interconnect.topics.crossdc.model as crossdc
    import interconnect.topics.overlap.model as overlap
    import interconnect.topics.reach.model as reach
    import interconnect.topics.seating.model as parallelism
    from interconnect.io import nccl_tests

    fibre = reach.PROPAGATION["fibre"].delay_s_per_m
    diloco = crossdc.make_method("diloco", inner_steps=100, bits=16)
    # (call, float arguments in the named units, the same in other units, argument to spoil, wrong value)
    return {
        "one_way_delay_s": (reach.one_way_delay_s, {"distance_m": 1.5e6, "delay_s_per_m": fibre},
                            {"distance_m": Q_(1500, "km"), "delay_s_per_m": Q_(fibre * 1e9, "us/km")},
                            "distance_m", Q_(3, "s")),
        "bdp_bytes": (reach.bdp_bytes, {"rate_bytes_per_s": 50e9, "rtt_s": 0.0098},
                      {"rate_bytes_per_s": Q_(400, "Gbit/s"), "rtt_s": Q_(9.8, "ms")}, "rtt_s", Q_(9.8, "m")),
        "distance_at_timeout_m": (reach.distance_at_timeout_m, {"timeout_s": 500e-6, "delay_s_per_m": 5e-9},
                                  {"timeout_s": Q_(500, "us"), "delay_s_per_m": Q_(5, "ns/m")},
                                  "delay_s_per_m", Q_(5, "ns")),
        "two_site_allreduce": (lambda **k: reach.two_site_allreduce(_cluster(), **k).ring_us,
                               {"size_bytes": 2**30, "distance_m": [0.0, 1e6]},
                               {"size_bytes": Q_(1, "GiB"), "distance_m": Q_([0, 1000], "km")},
                               "size_bytes", Q_(1, "GHz")),
        "sync_time_s": (lambda **k: crossdc.sync_time_s(sites=2, topology="hierarchical", **k),
                        {"payload_bytes": 2e9, "wan_bytes_per_s": 1.25e9, "rtt_s": 0.02},
                        {"payload_bytes": Q_(2, "GB"), "wan_bytes_per_s": Q_(10, "Gbit/s"), "rtt_s": Q_(20, "ms")},
                        "wan_bytes_per_s", Q_(10, "GHz")),
        "required_bandwidth": (lambda **k: crossdc.required_bandwidth(
                                   target_utilization=0.95, method=diloco, layers=24, overlap=True,
                                   backward_fraction=2 / 3, sites=2, topology="hierarchical", **k),
                               {"payload_bytes": 2e9, "step_s": 0.1, "rtt_s": 0.02},
                               {"payload_bytes": Q_(2000, "MB"), "step_s": Q_(100, "ms"), "rtt_s": Q_(20, "ms")},
                               "step_s", Q_(0.1, "GB")),
        "step_time_s": (lambda **k: crossdc.step_time_s(1e9, 1e6, 8, mfu=0.4, **k),
                        {"peak_flops_per_s": 989.4e12}, {"peak_flops_per_s": Q_(989.4, "TFLOP/s")},
                        "peak_flops_per_s", Q_(989.4, "TB/s")),
        "step_schedule": (lambda **k: overlap.step_schedule(_cluster(), _workload(), 4096, **k).step_s,
                          {"bucket_bytes": 25 * 2**20}, {"bucket_bytes": Q_(25, "MiB")},
                          "bucket_bytes", Q_(25, "MB/s")),
        "make_buckets": (lambda **k: overlap.make_buckets(**k).count, {"gradient_bytes": 16e9, "bucket_bytes": 25e6},
                         {"gradient_bytes": Q_(128, "Gbit"), "bucket_bytes": Q_(25, "MB")}, "gradient_bytes",
                         Q_(16, "s")),
        "overlap_step_time": (lambda **k: overlap.overlap_step_time(overlap_fraction=0.85, **k),
                              {"compute_s": 0.1, "comm_s": 0.05}, {"compute_s": Q_(100, "ms"), "comm_s": Q_(50, "ms")},
                              "comm_s", Q_(50, "m")),
        "dp_traffic_bytes": (lambda **k: parallelism.dp_traffic_bytes(dp=8, zero=3, **k), {"gradient_bytes": 1e9},
                             {"gradient_bytes": Q_(8, "Gbit")}, "gradient_bytes", Q_(8, "Gbit/s")),
        "parse_nccl_tests": (lambda **k: nccl_tests.parse_nccl_tests("1048576 262144 float sum -1 8.52 123.07 215.37 0",
                                                                     **k).time_us,
                             {"max_bytes": 4096}, {"max_bytes": Q_(4, "KiB")}, "max_bytes", Q_(4, "s")),
    }


CASES = sorted(_cases())


@pytest.mark.parametrize("case", CASES)
def test_a_quantity_in_another_unit_gives_the_answer_of_the_float_in_the_named_unit(case: str) -> None:
    call, floats, quantities, _, _ = _cases()[case]
    np.testing.assert_allclose(call(**quantities), call(**floats), rtol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_a_quantity_of_the_wrong_dimension_is_refused_naming_the_argument(case: str) -> None:
    call, floats, _, argument, wrong = _cases()[case]
    with pytest.raises(UnitMismatchError, match=rf"\({argument}=\.\.\.\) expects .* pass a Quantity such as"):
        call(**{**floats, argument: wrong})
