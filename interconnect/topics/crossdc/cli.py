"""CLI sub-command ``crossdc``: what training across sites sends over the WAN, and how busy the GPUs stay.

``python -m interconnect crossdc --params 1e9 --sites 2 --method diloco --step-time "1 s"
--wan-bandwidth "10 Gbit/s" --rtt "20 ms"`` prints the payload per synchronisation, the sync time,
the exposed time per round with and without overlap, the compute utilisation and the WAN bandwidth
needed for a target utilisation (``--target-utilization``, default 0.95). The step time is typed
(``--step-time``) or derived from the model size, the tokens per step and the GPU's FLOP/s
(``--tokens-per-step``, ``--gpu``, ``--gpus-per-site``, ``--mfu``). ``--json`` gives every quantity
as ``{"value", "unit"}``, including ``bytes_per_sync``, ``compute_utilization`` and
``required_wan_bandwidth``, and ``time_to_target``: per method, the published steps to data parallel's loss
(``steps_to_target_ratio``), the wall-clock per step on this link, their product against data parallel's and
the wall-clock to data parallel's loss (``time_to_target``) when data parallel takes ``--target-steps``
steps; ``steps_to_target_ratio`` and ``wall_clock_to_target`` at the top are the chosen method's. Methods:
data parallel, DiLoCo (16-bit or int8), Streaming DiLoCo, SparseLoCo, CoCoDC, MT-DAO and CrossPipe (a
pipeline with one stage per site: activations, not weights, cross the WAN). User errors exit with status 2
and one line on stderr.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from typing import Any

from interconnect.catalog import UnknownIdError, get_catalog
from interconnect.cli.output import CliError, print_json, quantity_json
from interconnect.topics.crossdc.model import (
    EXCHANGES,
    METHODS,
    CrossDCError,
    Scenario,
    evaluate,
    get_crossdc_data,
    make_method,
    method_scenarios,
    parse_params,
    site_allreduce_algbw,
    step_time_s,
    time_to_target,
)
from interconnect.units import (
    Q_,
    IntegerInputError,
    QuantityInputError,
    format_bandwidth,
    format_duration,
    format_quantity,
    parse_quantity,
    read_int,
)

DEFAULT_STEP_TIME = "1 s"
DEFAULT_WAN = "10 Gbit/s"
DEFAULT_RTT = "20 ms"
DEFAULT_MFU = 0.4
#: Data parallel's steps to its loss unless typed: DiLoCo's main run, 24,000 + 64,000 steps (arXiv 2311.08105 §3).
DEFAULT_TARGET_STEPS = 88_000
#: One site's tokens per step for CrossPipe's activations when the step time is typed (the page's default).
DEFAULT_TOKENS_PER_STEP = 1e6


def _int(text: str) -> int:
    try:
        return read_int(text)
    except IntegerInputError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text[:40]}'") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got '{text}'")
    return value


def register(commands: Any) -> None:
    parser = commands.add_parser("crossdc", help="WAN traffic, utilisation and bandwidth needed to train across sites")
    parser.add_argument("--params", default="1e9", help="model parameters: 1e9, 7B, 1.5T (default 1e9)")
    parser.add_argument("--sites", type=_int, default=2, help="data centres, one model replica each (default 2)")
    parser.add_argument("--gpus-per-site", type=_int, default=8, help="GPUs per site (default 8)")
    parser.add_argument("--gpu", default="h100-sxm", help="GPU catalog id, for derived step times and the in-site "
                        "all-reduce (default h100-sxm)")
    parser.add_argument("--method", choices=METHODS, default="diloco", help="synchronisation method (default diloco)")
    knobs = parser.add_argument_group("method knobs (default: what each method's paper ran)")
    knobs.add_argument("--inner-steps", type=_int, help="H, inner steps between synchronisations")
    knobs.add_argument("--bits", type=_int, help="bits per value sent (dense: 32, 16, 8 or 4; sparseloco: value bits)")
    knobs.add_argument("--topology", choices=EXCHANGES, help="how the sites exchange (default: the method's)")
    knobs.add_argument("--fragments", type=_int, help="streaming-diloco, cocodc: fragments (default: one per 3 "
                       "layers)")
    knobs.add_argument("--overlap-steps", type=_int, help="streaming-diloco, cocodc: tau, inner steps a fragment "
                       "overlaps")
    knobs.add_argument("--layers", type=_int, default=0, help="transformer layers (default: from the model size)")
    knobs.add_argument("--chunk", type=_int, help="sparseloco: values per chunk (default 4096)")
    knobs.add_argument("--topk", type=_int, help="sparseloco: values kept per chunk (default 64)")
    knobs.add_argument("--index-bits", type=_int, help="sparseloco: bits per index (default 12)")
    knobs.add_argument("--micro-batches", type=_int, help="crosspipe: micro-batches per step of the global batch "
                       "(default 32)")
    knobs.add_argument("--hidden", type=_int, default=0, help="crosspipe: hidden size of the activations (default: "
                       "from the size and layers, N = 12 L d^2)")
    knobs.add_argument("--no-overlap", action="store_true", help="block on every sync (default: overlap with compute)")
    timing = parser.add_argument_group("step time: typed, or derived from 6 x params x tokens / (GPUs x FLOP/s x MFU)")
    timing.add_argument("--step-time", help=f"time of one inner step (default {DEFAULT_STEP_TIME})")
    timing.add_argument("--tokens-per-step", type=_float, help="tokens one site processes per inner step")
    timing.add_argument("--mfu", type=_float, default=DEFAULT_MFU, help=f"model FLOP utilisation (default "
                        f"{DEFAULT_MFU})")
    network = parser.add_argument_group("the link between sites")
    network.add_argument("--network", choices=tuple(get_crossdc_data().networks),
                         help="a CrossPipe network class: sets the bandwidth and RTT unless they are given")
    network.add_argument("--wan-bandwidth", help=f"per site, each direction (default {DEFAULT_WAN})")
    network.add_argument("--rtt", help=f"round-trip time between sites (default {DEFAULT_RTT})")
    parser.add_argument("--target-utilization", type=_float, default=0.95,
                        help="compute utilisation to size the WAN for, as a fraction (default 0.95)")
    parser.add_argument("--target-steps", type=_int, default=DEFAULT_TARGET_STEPS,
                        help=f"steps data parallel takes to the target loss, for the wall-clock to it (default "
                        f"{DEFAULT_TARGET_STEPS:,}: DiLoCo's main run)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_crossdc)
    register_weight_sync(commands)
    register_pipeline(commands)


#: The Across-sites page's link key of each typed flag: the command line accepts the page's range.
_PAGE_KEYS = {"--step-time": "t", "--wan-bandwidth": "bw", "--rtt": "rtt"}


def _quantity(flag: str, text: str, dimension: str, unit: str, *, allow_zero: bool = False) -> float:
    try:
        value = float(parse_quantity(text, dimension, allow_zero=allow_zero).quantity.to(unit).magnitude)
    except QuantityInputError as exc:
        raise CliError(f"{flag}: {exc}") from exc
    if flag in _PAGE_KEYS:  # outside the page's range (1e-320 Gbit/s): one line, not infinities and warnings
        from interconnect.topics.crossdc.inputs import crossdc_specs

        spec = next(spec for spec in crossdc_specs() if spec.key == _PAGE_KEYS[flag])
        used, problem = spec.parse(text)
        if problem and used in (spec.minimum, spec.maximum) and not (allow_zero and value == 0):
            raise CliError(f"{flag}: {problem} (got '{text[:40]}')")
    return value


def _scenario(args: argparse.Namespace) -> tuple[Scenario, str]:
    try:
        params = parse_params(args.params)
    except CrossDCError as exc:
        raise CliError(f"--params: {exc}") from exc
    if not 0 < args.target_utilization < 1:
        hint = " (a fraction: 0.95, not 95)" if 1 < args.target_utilization <= 100 else ""
        raise CliError(f"--target-utilization: must lie between 0 and 1{hint}, got {args.target_utilization:g}")
    catalog = get_catalog()
    try:
        gpu = catalog.gpu(args.gpu)
    except UnknownIdError as exc:
        raise CliError(f"--gpu: {exc}") from exc
    if args.step_time is not None and args.tokens_per_step is not None:
        raise CliError("give --step-time or --tokens-per-step, not both")
    if args.gpus_per_site < 1:
        raise CliError(f"--gpus-per-site: must be at least 1, got {args.gpus_per_site}")
    if not 1 <= args.target_steps <= 10**12:
        raise CliError(f"--target-steps: must be from 1 to 1e12, got {args.target_steps}")
    if args.tokens_per_step is not None:
        peak = float(gpu.bf16_dense.quantity.to("FLOP/s").magnitude)
        try:
            step = step_time_s(params, args.tokens_per_step, args.gpus_per_site, peak, args.mfu,
                               get_crossdc_data().compute.flops_per_param_per_token)
        except CrossDCError as exc:
            raise CliError(f"step time: {exc}") from exc
        how = (f"derived: 6 x {params:.3g} params x {args.tokens_per_step:.3g} tokens / ({args.gpus_per_site} x "
               f"{gpu.name} at {gpu.bf16_dense.text()} x MFU {args.mfu:g})")
    else:
        step = _quantity("--step-time", args.step_time or DEFAULT_STEP_TIME, "time", "s")
        how = "typed"
    preset = get_crossdc_data().networks.get(args.network) if args.network else None
    if args.wan_bandwidth is not None or preset is None:
        bandwidth = _quantity("--wan-bandwidth", args.wan_bandwidth or DEFAULT_WAN, "bandwidth", "B/s")
    else:
        bandwidth = preset.bandwidth_bytes_per_s
    if args.rtt is not None or preset is None:
        rtt = _quantity("--rtt", args.rtt or DEFAULT_RTT, "time", "s", allow_zero=True)
    else:
        rtt = preset.rtt_s
    try:
        method = make_method(args.method, inner_steps=args.inner_steps, bits=args.bits, topology=args.topology,
                             fragments=args.fragments, overlap_steps=args.overlap_steps, chunk=args.chunk,
                             topk=args.topk, index_bits=args.index_bits, micro_batches=args.micro_batches)
        if args.hidden and not method.pipeline:
            raise CrossDCError("--hidden applies to crosspipe only")
        scenario = Scenario(params, args.sites, step, bandwidth, rtt, method, gpus_per_site=args.gpus_per_site,
                            layers=args.layers, overlap=not args.no_overlap,
                            target_utilization=args.target_utilization,
                            backward_fraction=get_crossdc_data().compute.backward_fraction,
                            tokens_per_step=args.tokens_per_step or DEFAULT_TOKENS_PER_STEP, hidden=args.hidden)
    except CrossDCError as exc:
        raise CliError(str(exc)) from exc
    if method.topology == "hierarchical":  # the in-site all-reduce, from the collectives model
        scenario = replace(scenario, site_algbw_bytes_per_s=site_allreduce_algbw(gpu.id, args.gpus_per_site))
    return scenario, how


def _time_to_target_json(scenario: Scenario, site_algbw_bytes_per_s: float, target_steps: int) -> dict[str, Any]:
    """Every method's steps and time to data parallel's loss on this link (the others at their papers' settings);
    the wall-clock to it is the method's steps (its ratio x ``target_steps``) times its wall-clock per step."""
    base = replace(scenario, site_algbw_bytes_per_s=site_algbw_bytes_per_s)
    results = {k: evaluate(s if k != scenario.method.id else scenario) for k, s in method_scenarios(base).items()}
    out: dict[str, Any] = {}
    for t in time_to_target(results):
        row = t.row
        out[row.id] = {
            "name": row.name,
            "timing_from": row.timing or None,
            "steps_ratio": round(t.steps_ratio, 6),
            "steps_to_target_ratio": round(t.steps_ratio, 6),
            "time_to_target": _q(t.steps_ratio * target_steps * t.step_wall_s, "h", "s"),
            "steps_ratio_published": row.steps_ratio,
            "steps_ratio_against": row.relative_to,
            "basis": t.basis,
            "law": row.law or None,
            "law_note": t.law_note or None,
            "compute_utilization": _percent(t.utilization) if math.isfinite(t.utilization) else None,
            "wall_clock_per_step": _q(t.step_wall_s, "s", "s"),
            "time_to_target_vs_dp": round(t.relative_time, 6) if math.isfinite(t.relative_time) else None,
            "published_time_ratio_vs_dp": row.time_ratio or None,
            "measured_at": {"params": row.params or None, "replicas": row.replicas or None,
                            "inner_steps": row.inner_steps or None},
            "this_case": {"params": t.params, "sites": t.sites, "inner_steps": t.inner_steps if row.timing else None},
            "sources": list(row.sources),
            "where": row.where,
        }
    return out


def _q(value: float, unit: str, base: str) -> dict[str, Any]:
    if not math.isfinite(value):
        return {"value": None, "unit": unit}
    return quantity_json(Q_(value, base), unit)


def _percent(fraction: float) -> dict[str, Any]:
    return {"value": round(fraction * 100, 4), "unit": "%"}


def _pipeline_json(scenario: Scenario, result: Any) -> dict[str, Any]:
    """CrossPipe's own quantities (empty for the other methods)."""
    if not scenario.method.pipeline:
        return {}
    m = scenario.method.micro_batches
    return {"pipeline": {
        "stages": scenario.sites, "micro_batches": m, "hidden": scenario.resolved_hidden,
        "global_tokens_per_step": scenario.sites * scenario.tokens_per_step,
        "activation_bits": scenario.method.bits,
        "message_per_micro_batch": _q(result.payload_bytes, "MB", "B"),
        "transfer_time_per_micro_batch": _q(result.payload_bytes / scenario.wan_bytes_per_s, "ms", "s"),
        "stage_time_per_micro_batch": _q(scenario.step_s / m, "ms", "s"),
        "bubble": _percent((scenario.sites - 1) / m),
        "wall_clock_per_step": _q(scenario.step_s + result.exposed_s, "s", "s"),
        "one_way_latency": _q(scenario.rtt_s / 2, "ms", "s"),
    }}


def _crossdc_error_band(scenario: Scenario, result: Any) -> dict[str, Any]:
    """The headline's ``error_band`` (:func:`interconnect.topics.crossdc.accuracy.crossdc_band`): the WAN needed's for a
    replica method, the step's for CrossPipe; ``expected`` the likely published figure, ``note`` what is arithmetic."""
    from interconnect.topics.crossdc.accuracy import crossdc_band, expected_json

    band, expected, note = crossdc_band(scenario, result)
    return {**band.as_json(), "expected": expected_json(expected), "note": note}


def run_crossdc(args: argparse.Namespace) -> int:
    scenario, how = _scenario(args)
    result = evaluate(scenario)
    method = scenario.method
    defaults = get_crossdc_data().methods[method.id]
    table = _time_to_target_json(scenario, site_allreduce_algbw(get_catalog().gpu(args.gpu).id, args.gpus_per_site),
                                 args.target_steps)
    if args.json:
        print_json({
            "method": method.id,
            "method_name": defaults.name,
            "params": scenario.params,
            "sites": scenario.sites,
            "gpus_per_site": scenario.gpus_per_site,
            "topology": method.topology,
            "inner_steps": method.inner_steps,
            "bits_per_param": method.bits_per_param,
            "layers": result.layers,
            "fragments": result.fragments,
            "overlap": scenario.overlap,
            "step_time": _q(scenario.step_s, "s", "s"),
            "step_time_from": how,
            "wan_bandwidth": _q(scenario.wan_bytes_per_s, "Gbit/s", "B/s"),
            "rtt": _q(scenario.rtt_s, "ms", "s"),
            "bytes_per_sync": _q(result.payload_bytes, "GB", "B"),
            "bytes_per_step": _q(result.bytes_per_step, "GB", "B"),
            "wan_bytes_per_sync": _q(result.wan_bytes_per_sync, "GB", "B"),
            "sync_time": _q(result.sync_s, "s", "s"),
            "compute_time_per_round": _q(result.compute_s, "s", "s"),
            "exposed_time_per_round": _q(result.exposed_s, "s", "s"),
            "exposed_time_per_round_without_overlap": _q(result.exposed_no_overlap_s, "s", "s"),
            "exposed_time_per_round_with_overlap": _q(result.exposed_overlap_s, "s", "s"),
            "compute_utilization": _percent(result.utilization),
            "compute_utilization_without_overlap": _percent(result.utilization_no_overlap),
            "compute_utilization_with_overlap": _percent(result.utilization_overlap),
            "target_utilization": _percent(scenario.target_utilization),
            "required_wan_bandwidth": _q(result.required_bytes_per_s, "Gbit/s", "B/s"),
            "required_wan_bandwidth_without_overlap": _q(result.required_no_overlap_bytes_per_s, "Gbit/s", "B/s"),
            "required_wan_bandwidth_with_overlap": _q(result.required_overlap_bytes_per_s, "Gbit/s", "B/s"),
            "method_sources": list(defaults.sources),
            **_pipeline_json(scenario, result),
            "target_steps": args.target_steps,
            "steps_to_target_ratio": table[method.id]["steps_to_target_ratio"],
            "wall_clock_to_target": table[method.id]["time_to_target"],
            "time_to_target": table,
            "error_band": _crossdc_error_band(scenario, result),
        })
        return 0
    needed = result.required_bytes_per_s
    needed_text = format_bandwidth(Q_(needed, "B/s"), "bit/s") if math.isfinite(needed) else \
        "out of reach (the round trips alone take longer than the time allowed)"
    overlap = "with overlap" if scenario.overlap else "without overlap"
    if method.pipeline:
        shape = (f"one stage per site, {method.micro_batches} micro-batches of the global batch, {method.bits}-bit "
                 f"activations at hidden size {scenario.resolved_hidden}")
    else:
        shape = f"{method.topology}, H = {method.inner_steps}, {method.bits_per_param:g} bits per parameter"
    print(f"{defaults.name}: {scenario.params:.3g} parameters, {scenario.sites} sites x {scenario.gpus_per_site} GPUs, "
          f"{shape}")
    print(f"  payload per sync {_gb(result.payload_bytes)}"
          + (f" (one of {result.fragments} fragments)" if result.fragments > 1 else "")
          + f"; per step {_gb(result.bytes_per_step)}; over the WAN per site {_gb(result.wan_bytes_per_sync)}")
    print(f"  step {_duration(scenario.step_s)} ({how}); WAN "
          f"{format_bandwidth(Q_(scenario.wan_bytes_per_s, 'B/s'), 'bit/s')}, RTT {_duration(scenario.rtt_s)}")
    print(f"  sync {_duration(result.sync_s)}; per round of {_duration(result.compute_s)} "
          f"compute, exposed {_duration(result.exposed_overlap_s)} with overlap, "
          f"{_duration(result.exposed_no_overlap_s)} without")
    print(f"  compute utilisation {result.utilization:.1%} ({overlap}); "
          f"WAN needed for {scenario.target_utilization:.0%}: {needed_text}")
    mine = table[method.id]
    wall = mine["time_to_target"]["value"]
    print(f"  steps to data parallel's loss: {mine['steps_to_target_ratio']:g}x data parallel's ({mine['basis']}); "
          f"wall-clock to it, if data parallel takes {args.target_steps:,} steps: "
          + (f"{_duration(wall * 3600)}" if wall is not None else "not modelled")
          + (f" ({mine['time_to_target_vs_dp']:.3g}x data parallel's)" if mine["time_to_target_vs_dp"] else ""))
    band = _crossdc_error_band(scenario, result)
    print(f"  how right, {'step' if method.pipeline else 'WAN needed'}: {_band_text(band)}")
    return 0


def _band_text(band: dict[str, Any]) -> str:
    """One line of an ``error_band`` dict: "published figures like this: the model reads -7 % to +20 % (...)"."""
    from interconnect.hardware.accuracy import ErrorBand

    return ErrorBand(band["low"], band["high"], band["median"], band["n"], band["basis"], noun="figures").text()


def _duration(seconds: float) -> str:
    return format_duration(Q_(seconds, "s")) if seconds > 0 else "0 s"


def _gb(size_bytes: float) -> str:
    return format_quantity(Q_(size_bytes, "B"))


# --- weight-sync: RL weights from the trainer to its generators ------------------------------------------

DEFAULT_SYNC_WAN = "100 Gbit/s"


def register_weight_sync(commands: Any) -> None:
    """The ``weight-sync`` sub-command (registered with ``crossdc`` by :func:`register`)."""
    from interconnect.topics.crossdc.model.weight_sync import BYTES_PER_VALUE, DELIVERIES, MODES, ROUTES

    parser = commands.add_parser("weight-sync", help="RL weight sync: trainer to generators, in a site or across "
                                 "sites, and whether it hides behind generation")
    parser.add_argument("--params", default="70e9", help="model parameters: 7B, 70e9, 1T (default 70e9)")
    parser.add_argument("--precision", choices=tuple(BYTES_PER_VALUE), default="bf16",
                        help="precision the generators receive (default bf16)")
    parser.add_argument("--mode", choices=MODES, default="full", help="send every value, the changed ones (delta) "
                        "or the top-k share (default full)")
    parser.add_argument("--fraction", type=_float, default=0.02,
                        help="delta/topk: share of values sent, as a fraction (default 0.02)")
    parser.add_argument("--index-bits", type=_int, default=32,
                        help="delta/topk: bits of position per value (default 32)")
    parser.add_argument("--route", choices=ROUTES, help="node (NVLink), site (the site's NICs) or wan (another "
                        "site) (default site, or wan when --wan-bandwidth or --rtt is given)")
    parser.add_argument("--receivers", type=_int, help="generator GPUs (route node) or generator nodes (site, wan) "
                        "(default 8)")
    parser.add_argument("--generators", type=_int, help="generator GPUs in all: the receivers are these GPUs (route "
                        "node) or their nodes, --gpus-per-node each (site, wan); instead of --receivers")
    parser.add_argument("--gpus-per-node", type=_int, default=8, help="with --generators: generator GPUs per node, "
                        "one replica each (default 8)")
    parser.add_argument("--topology", choices=DELIVERIES, default="tree",
                        help="pipelined broadcast tree, or fan-out from the trainer (default tree)")
    parser.add_argument("--gpu", default="h100-sxm", help="GPU catalog id: its server's NVLink and NICs (default "
                        "h100-sxm)")
    parser.add_argument("--wan-bandwidth", help=f"between sites (default {DEFAULT_SYNC_WAN})")
    parser.add_argument("--rtt", help="round trip between sites (default 20 ms)")
    parser.add_argument("--staging", help="rate of the software path (gather, cast, reload), e.g. '70 GB/s' "
                        "(default: the wire alone)")
    parser.add_argument("--generation-time", default="60 s", help="generation time per step (default 60 s)")
    parser.add_argument("--paused", action="store_true", help="pause generation during the sync (default: background)")
    parser.add_argument("--swap-time", default="0 s", help="background: pause to swap the new weights in (default 0 s)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_weight_sync)


def _weight_sync_scenario(args: argparse.Namespace):
    from interconnect.topics.crossdc.model.weight_sync import (
        BYTES_PER_VALUE,
        WeightSyncError,
        WeightSyncScenario,
        site_link,
    )

    try:
        params = parse_params(args.params)
    except CrossDCError as exc:
        raise CliError(f"--params: {exc}") from exc
    if not 0 < args.fraction <= 1:
        raise CliError(f"--fraction: must lie in (0, 1] (a fraction: 0.02, not 2), got {args.fraction:g}")
    from interconnect.topics.crossdc.inputs import weight_sync_specs

    records = {spec.key: spec for spec in weight_sync_specs()}
    bits, receivers = records["wsibits"], records["wsrecv"]
    if not bits.minimum <= args.index_bits <= bits.maximum:
        raise CliError(f"--index-bits: must lie between {bits.minimum} and {bits.maximum}, got {args.index_bits}")
    if args.route is None:  # a WAN figure given means the generators are in another site
        args.route = "wan" if args.wan_bandwidth is not None or args.rtt is not None else "site"
    if args.generators is not None and args.receivers is not None:
        raise CliError("give --generators or --receivers, not both")
    if not 1 <= args.gpus_per_node <= 1_000_000:
        raise CliError(f"--gpus-per-node: must lie between 1 and 1000000, got {args.gpus_per_node}")
    if args.generators is not None:
        if not 1 <= args.generators <= 1_000_000_000:
            raise CliError(f"--generators: must lie between 1 and 1000000000, got {args.generators}")
        args.receivers = args.generators if args.route == "node" else -(-args.generators // args.gpus_per_node)
    elif args.receivers is None:
        args.receivers = 8
    if not receivers.minimum <= args.receivers <= receivers.maximum:
        raise CliError(f"--receivers: must lie between {receivers.minimum} and {receivers.maximum}, "
                       f"got {args.receivers}")
    try:
        nvlink, egress, hop = site_link(args.gpu)
    except UnknownIdError as exc:
        raise CliError(f"--gpu: {exc}") from exc
    wan = _quantity("--wan-bandwidth", args.wan_bandwidth or DEFAULT_SYNC_WAN, "bandwidth", "B/s")
    rtt = _quantity("--rtt", args.rtt or "20 ms", "time", "s", allow_zero=True)
    staging = _quantity("--staging", args.staging, "bandwidth", "B/s") if args.staging else math.inf
    generation = _quantity("--generation-time", args.generation_time, "time", "s")
    swap = _quantity("--swap-time", args.swap_time, "time", "s", allow_zero=True)
    try:
        return WeightSyncScenario(params, BYTES_PER_VALUE[args.precision], args.mode, args.fraction, args.index_bits,
                                  route=args.route, receivers=args.receivers, topology=args.topology,
                                  nvlink_bytes_per_s=nvlink, site_bytes_per_s=egress, site_latency_s=hop,
                                  wan_bytes_per_s=wan, wan_rtt_s=rtt, staging_bytes_per_s=staging,
                                  generation_s=generation, background=not args.paused, swap_s=swap)
    except WeightSyncError as exc:
        raise CliError(str(exc)) from exc


def _weight_sync_error_band(s: Any) -> dict[str, Any]:
    """The sync's ``error_band``: how its time scales (the ratio rows), with ``payload`` the payload's own band and
    ``note`` what is arithmetic; ``expected`` is None (the absolute time is not judged)."""
    from interconnect.topics.crossdc.accuracy import weight_sync_bands

    time, payload, note = weight_sync_bands(s)
    return {**time.as_json(), "expected": None, "payload": payload.as_json(), "note": note}


def run_weight_sync(args: argparse.Namespace) -> int:
    from interconnect.topics.crossdc.model.weight_sync import evaluate_weight_sync

    s = _weight_sync_scenario(args)
    r = evaluate_weight_sync(s)
    if args.json:
        print_json({
            "params": s.params, "precision": args.precision, "mode": s.mode, "route": s.route,
            "receivers": s.receivers, "generators": args.generators, "topology": s.topology, "gpu": args.gpu,
            "background": s.background,
            "payload": _q(r.payload_bytes, "GB", "B"),
            "bytes_per_sync": _q(r.payload_bytes, "GB", "B"),
            "time_per_sync": _q(r.sync_s, "s", "s"),
            "full_payload": _q(r.full_bytes, "GB", "B"),
            "bottleneck_bandwidth": _q(r.bottleneck_bytes_per_s, "Gbit/s", "B/s"),
            "route_latency": _q(r.latency_s, "ms", "s"),
            "sync_time": _q(r.sync_s, "s", "s"),
            "tree_sync_time": _q(r.tree_sync_s, "s", "s"),
            "fanout_sync_time": _q(r.fanout_sync_s, "s", "s"),
            "generation_time": _q(s.generation_s, "s", "s"),
            "exposed_time_per_step": _q(r.hiding.exposed_s, "s", "s"),
            "staleness_steps": r.hiding.staleness_steps,
            "generation_share": _percent(r.hiding.generation_share),
            "hidden": r.hiding.hidden,
            "bandwidth_to_hide": _q(r.required_bytes_per_s, "Gbit/s", "B/s"),
            "error_band": _weight_sync_error_band(s),
        })
        return 0
    how = "in the background" if s.background else "with generation paused"
    print(f"Weight sync: {s.params:.3g} parameters, {args.precision}, {s.mode}; {s.route} route to {s.receivers} "
          f"{'GPUs' if s.route == 'node' else 'nodes'}, {s.topology}")
    print(f"  payload {_gb(r.payload_bytes)} (full {_gb(r.full_bytes)}); slowest stage "
          f"{format_bandwidth(Q_(r.bottleneck_bytes_per_s, 'B/s'), 'bit/s')}, latency {_duration(r.latency_s)}")
    print(f"  sync {_duration(r.sync_s)} (tree {_duration(r.tree_sync_s)}, fan-out {_duration(r.fanout_sync_s)})")
    hidden = "hides behind" if r.hiding.hidden else "does not hide behind"
    print(f"  {how}: {_duration(r.hiding.exposed_s)} lost per step, weights {r.hiding.staleness_steps} step(s) old, "
          f"generating {r.hiding.generation_share:.1%} of the time; the sync {hidden} "
          f"{_duration(s.generation_s)} of generation")
    band = _weight_sync_error_band(s)
    print(f"  how right, how the time scales: {_band_text(band)}; payload: {_band_text(band['payload'])} (the time "
          "itself is bytes over the slowest link plus latencies)")
    return 0


# --- crossdc-pipeline: the model's stages split across sites ----------------------------------------------

PIPELINE_PRECISIONS = {"bf16": 2.0, "fp8": 1.0, "fp32": 4.0}
PIPELINE_COMPARED = ("dp", "diloco", "streaming-diloco")


def register_pipeline(commands: Any) -> None:
    """The ``crossdc-pipeline`` sub-command (registered with ``crossdc`` by :func:`register`)."""
    parser = commands.add_parser("crossdc-pipeline", help="a pipeline across sites: activations over the WAN per "
                                 "micro-batch, the schedule's step, against data parallel and DiLoCo on the same WAN")
    parser.add_argument("--params", default="70e9", help="model parameters: 70e9, 405B (default 70e9)")
    parser.add_argument("--hidden", type=_int, default=8192, help="hidden size d (default 8192)")
    parser.add_argument("--seq-len", type=_int, default=4096, help="tokens per sequence (default 4096)")
    parser.add_argument("--micro-batch", type=_int, default=1, help="sequences per micro-batch (default 1)")
    parser.add_argument("--micro-batches", type=_int, default=32, help="micro-batches per step per pipeline, m "
                        "(default 32)")
    parser.add_argument("--stages", type=_int, default=8, help="pipeline stages p, split evenly over the sites "
                        "(default 8)")
    parser.add_argument("--gpus-per-stage", type=_int, default=8, help="GPUs per stage (tensor parallel) (default 8)")
    parser.add_argument("--pipelines", type=_int, default=1, help="data-parallel copies of the pipeline; their cuts "
                        "share the WAN (default 1)")
    parser.add_argument("--sites", type=_int, default=2, help="sites (default 2)")
    parser.add_argument("--precision", choices=tuple(PIPELINE_PRECISIONS), default="bf16",
                        help="precision of the activations sent (default bf16)")
    parser.add_argument("--gpu", default="h100-sxm", help="GPU catalog id, for the derived stage time (default "
                        "h100-sxm)")
    parser.add_argument("--mfu", type=_float, default=DEFAULT_MFU, help=f"model FLOP utilisation (default "
                        f"{DEFAULT_MFU})")
    parser.add_argument("--stage-time", help="typed forward + backward of one micro-batch on one stage (default: "
                        "6 x params x tokens / (stages x GPUs x FLOP/s x MFU))")
    parser.add_argument("--wan-bandwidth", default=DEFAULT_SYNC_WAN, help=f"per site, each direction (default "
                        f"{DEFAULT_SYNC_WAN})")
    parser.add_argument("--latency", default="10 ms", help="one-way latency between sites (default 10 ms)")
    parser.add_argument("--schedule", default="1f1b", help="pipeline schedule: 1f1b, interleaved (2 chunks per "
                        "stage), zb-h1, zb-h2 or zbv (zero bubble; the backward split evenly into input and weight "
                        "gradients) (default 1f1b)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_pipeline)


#: The pipeline command's whole-number flags and the link keys of the page's pipeline section whose bounds they
#: share (written once, in ``inputs.pipeline_specs``).
_PIPELINE_FLAG_KEYS = {"--hidden": "pphidden", "--seq-len": "ppseq", "--micro-batch": "ppmb", "--micro-batches": "ppm",
                       "--stages": "ppstages", "--gpus-per-stage": "ppgps", "--pipelines": "pplines",
                       "--sites": "ppsites"}


def _pipeline_scenario(args: argparse.Namespace):
    from interconnect.topics.crossdc.model.pipeline import SCHEDULES, PipelineScenario

    try:
        params = parse_params(args.params)
    except CrossDCError as exc:
        raise CliError(f"--params: {exc}") from exc
    from interconnect.topics.crossdc.inputs import pipeline_specs

    records = {spec.key: spec for spec in pipeline_specs()}
    for flag, key in _PIPELINE_FLAG_KEYS.items():
        value, high = getattr(args, flag[2:].replace("-", "_")), records[key].maximum
        if not 1 <= value <= high:  # --sites below 2 has its own message, below
            raise CliError(f"{flag}: must lie between 1 and {high}, got {value}")
    if args.sites < 2:
        raise CliError(f"--sites: a pipeline across sites needs at least 2, got {args.sites}")
    if not 0 < args.mfu <= 1:
        hint = " (a fraction: 0.4, not 40)" if 1 < args.mfu <= 100 else ""
        raise CliError(f"--mfu: must lie in (0, 1]{hint}, got {args.mfu:g}")
    try:
        gpu = get_catalog().gpu(args.gpu)
    except UnknownIdError as exc:
        raise CliError(f"--gpu: {exc}") from exc
    stage = _quantity("--stage-time", args.stage_time, "time", "s") if args.stage_time else 0.0
    wan = _quantity("--wan-bandwidth", args.wan_bandwidth, "bandwidth", "B/s")
    latency = _quantity("--latency", args.latency, "time", "s", allow_zero=True)
    peak = float(gpu.bf16_dense.quantity.to("FLOP/s").magnitude)
    if args.schedule not in SCHEDULES:
        raise CliError(f"--schedule: unknown schedule {args.schedule[:40]!r}: choose one of {', '.join(SCHEDULES)}")
    try:
        return PipelineScenario(params, args.hidden, seq_len=args.seq_len, micro_batch=args.micro_batch,
                                micro_batches=args.micro_batches, stages=args.stages,
                                gpus_per_stage=args.gpus_per_stage, pipelines=args.pipelines, sites=args.sites,
                                bytes_per_value=PIPELINE_PRECISIONS[args.precision], wan_bytes_per_s=wan,
                                latency_s=latency, peak_flops_per_s=peak, mfu=args.mfu, stage_s=stage,
                                schedule=args.schedule), gpu
    except CrossDCError as exc:
        raise CliError(str(exc)) from exc


def _pipeline_error_band(s: Any, r: Any) -> dict[str, Any]:
    """The step's ``error_band`` against CrossPipe's figures; ``expected`` the likely step time in s, ``message`` the
    message's own band, ``note`` what is arithmetic."""
    from interconnect.topics.crossdc.accuracy import expected_json, pipeline_section_band

    band, expected, note, message = pipeline_section_band(s, r)
    return {**band.as_json(), "expected": expected_json(expected), "message": message.as_json(), "note": note}


def run_pipeline(args: argparse.Namespace) -> int:
    from interconnect.topics.crossdc.model.pipeline import SCHEDULES
    from interconnect.topics.crossdc.model.pipeline_compare import compare

    s, gpu = _pipeline_scenario(args)
    schedule = SCHEDULES[s.schedule]
    algbw = site_allreduce_algbw(gpu.id, max(1, s.gpus // s.sites))
    r, alternatives = compare(s, PIPELINE_COMPARED, algbw)
    names = get_crossdc_data().methods
    how = "typed" if s.stage_s > 0 else (f"derived: 6 x {s.params:.3g} params x {s.micro_batch * s.seq_len} tokens / "
                                         f"({s.stages} stages x {s.gpus_per_stage} x {gpu.name} at "
                                         f"{gpu.bf16_dense.text()} x MFU {s.mfu:g})")
    if args.json:
        print_json({
            "schedule": schedule, "schedule_id": s.schedule, "params": s.params, "hidden": s.hidden,
            "seq_len": s.seq_len,
            "micro_batch": s.micro_batch, "micro_batches": s.micro_batches, "stages": s.stages,
            "gpus_per_stage": s.gpus_per_stage, "pipelines": s.pipelines, "sites": s.sites, "gpus": s.gpus,
            "precision": args.precision, "gpu": gpu.id,
            "wan_bandwidth": _q(s.wan_bytes_per_s, "Gbit/s", "B/s"), "latency": _q(s.latency_s, "ms", "s"),
            "stage_time": _q(r.stage_s, "ms", "s"), "stage_time_from": how,
            "forward_time": _q(r.forward_s, "ms", "s"),
            "message_per_micro_batch": _q(r.message_bytes, "MB", "B"),
            "transfer_time": _q(r.transfer_s, "ms", "s"),
            "wan_bound": r.wan_bound,
            "bubble": _percent(r.bubble_fraction),
            "activation_memory_micro_batches": r.activation_memory,
            "crossings_per_micro_batch": r.crossings,
            "step_time": _q(r.step_s, "s", "s"),
            "one_site_step_time": _q(r.one_site_step_s, "s", "s"),
            "slowdown_vs_one_site": round(r.slowdown, 6),
            "ideal_step_time": _q(r.ideal_step_s, "s", "s"),
            "slowdown_vs_ideal": round(r.slowdown_vs_ideal, 6),
            "extra_micro_batches_in_flight": r.in_flight_extra,
            "wan_bytes_per_step": _q(r.wan_bytes_per_step, "GB", "B"),
            "alternatives": {a.id: {"name": names[a.id].name, "step_time": _q(a.step_s, "s", "s"),
                                    "vs_pipeline": round(a.vs_pipeline, 6) if math.isfinite(a.vs_pipeline) else None}
                             for a in alternatives},
            "sources": ["arxiv-crosspipe"] + ([] if s.schedule in ("1f1b", "interleaved")
                                               else ["arxiv-zero-bubble", "hf-zero-bubble-space"]),
            "error_band": _pipeline_error_band(s, r),
        })
        return 0
    print(f"Pipeline across {s.sites} sites: {s.params:.3g} parameters, {s.stages} stages x {s.gpus_per_stage} GPUs"
          f" x {s.pipelines} pipeline(s), {s.micro_batches} micro-batches of {s.micro_batch} x {s.seq_len} tokens; "
          f"{schedule}")
    print(f"  stage {_duration(r.stage_s)} per micro-batch ({how}); message {_gb(r.message_bytes)} per micro-batch "
          f"each way, {_duration(r.transfer_s)} on the WAN "
          f"({'the WAN sets the pace' if r.wan_bound else 'hidden behind compute'})")
    print(f"  step {_duration(r.step_s)} (one site {_duration(r.one_site_step_s)}, x{r.slowdown:.3f}; no bubble "
          f"{_duration(r.ideal_step_s)}, x{r.slowdown_vs_ideal:.3f}); bubble {r.bubble_fraction:.1%}; peak "
          f"activations {r.activation_memory:g} micro-batches of a stage; {r.crossings} message(s) per micro-batch "
          f"per cut each way; {r.in_flight_extra} extra micro-batch(es) in flight to hide the round trip")
    for a in alternatives:
        print(f"  {names[a.id].name}: {_duration(a.step_s)} per step, x{a.vs_pipeline:.2f} the pipeline's")
    band = _pipeline_error_band(s, r)
    print(f"  how right, step: {_band_text(band)}; message: {_band_text(band['message'])}")
    return 0
