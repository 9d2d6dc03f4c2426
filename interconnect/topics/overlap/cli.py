"""CLI sub-command ``overlap``: one data-parallel training step, bucket by bucket, on a cluster.

``python -m interconnect overlap --params 8e9 --tokens-per-gpu 4096 --gpu h100-sxm --gpus-per-node 8
--nodes 4 --bucket "25 MiB" --mode overlap`` prints the step time, the exposed communication, the
compute share and the tokens per GPU from which the all-reduce hides, next to the Scaling Book's
roofline; ``--json`` adds the event list (every bucket's all-reduce), with times as
``{"value", "unit"}``. ``--model llama3-70b`` uses a preset's exact shape instead of ``--params``.
User errors (0 tokens, "5 parsecs" as a bucket size, an unknown GPU) exit with status 2 and one
line on stderr; a bucket larger than the whole gradient is a warning (one bucket, no overlap).
What a bucket costs besides its bytes (``--bucket-launch-us``, ``--sm-contention``,
``--gpu-spread``) defaults to the sourced values the Overlap page uses (``load_bucket_costs``).
``error_band`` is the model's error on the published DDP runs like this step (of the time the extra GPUs
add over compute); its ``expected`` is ``{"step_time": {"low", "central", "high", "unit", "quantity"}}``,
what a measured step would likely read (the rest of the step as modelled plus that time read through the band;
ms),
null for an extrapolation.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from interconnect.cli.cluster_flags import add_cluster_flags, cluster_from_args, warn
from interconnect.cli.output import CliError, print_json
from interconnect.hardware.accuracy import expected_text, seconds_in_unit_of
from interconnect.topics.overlap.accuracy import overlap_band, step_expected
from interconnect.topics.overlap.inputs import overlap_specs
from interconnect.topics.overlap.model import (
    GRADIENT_BYTES,
    MODE_LABELS,
    MODES,
    ModelShape,
    StepResult,
    check_claim,
    cluster_roofline_tokens,
    load_bucket_costs,
    step_schedule,
)
from interconnect.units import (
    Q_,
    IntegerInputError,
    QuantityInputError,
    format_duration,
    format_size,
    parse_quantity,
    read_int,
)
from interconnect.workloads.presets import load_model_presets

DEFAULT_BUCKET = "25 MiB"


def _number(name: str, low: float, high: float, *, whole: bool = False):
    def parse(text: str) -> float:
        if whole:
            try:
                value = read_int(text)
            except IntegerInputError as exc:
                raise argparse.ArgumentTypeError(f"{name}: {exc.reason}, got '{text[:40]}'") from None
            if not low <= value <= high:
                raise argparse.ArgumentTypeError(f"{name} must be between {low:g} and {high:g}, got {value:,}")
            return value
        try:
            value = float(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got '{text[:40]}'") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got '{text[:40]}'")
        if whole and value != int(value):
            raise argparse.ArgumentTypeError(f"expected a whole number, got '{text[:40]}'")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be between {low:g} and {high:g}, got {value:g}")
        return value

    return parse


def register(commands: Any) -> None:
    parser = commands.add_parser("overlap", help="one data-parallel training step: compute, bucketed all-reduce, "
                                                 "what stays exposed")
    # The bounds (and the defaults of the counts) of the flags that stand for the page's link keys are those
    # keys' records; the page counts parameters in billions and the GPU spread in percent.
    records = {record.key: record for record in overlap_specs()}
    params, layers, tokens = records["params"], records["layers"], records["tokens"]
    model = parser.add_mutually_exclusive_group()
    model.add_argument("--params", type=_number("--params", params.minimum * 1e9, params.maximum * 1e9),
                       help="parameter count, e.g. 8e9 (gradients stream out evenly)")
    model.add_argument("--model", choices=sorted(load_model_presets()),
                       help=f"a model preset with its published shape (default {records['model'].default})")
    parser.add_argument("--layers", type=_number("--layers", layers.minimum, layers.maximum, whole=True),
                        default=float(layers.default),
                        help=f"transformer blocks, with --params (default {layers.default})")
    parser.add_argument("--tokens-per-gpu",
                        type=_number("--tokens-per-gpu", tokens.minimum, tokens.maximum, whole=True),
                        default=float(tokens.default),
                        help=f"tokens one GPU processes per step (default {tokens.default})")
    parser.add_argument("--bucket", default=DEFAULT_BUCKET,
                        help=f"gradient bucket size (default {DEFAULT_BUCKET}, PyTorch DDP's bucket_cap_mb=25)")
    parser.add_argument("--mode", choices=MODES, default="overlap",
                        help="overlap (bucketed, as DDP), none, or ideal (default overlap)")
    parser.add_argument("--gradient-dtype", choices=sorted(GRADIENT_BYTES), default="bf16",
                        help="bytes per gradient element sent (default bf16)")
    costs = load_bucket_costs()
    launch, sm, spread = records["launch"], records["sm"], records["spread"]
    parser.add_argument("--bucket-launch-us", type=_number("--bucket-launch-us", launch.minimum, launch.maximum),
                        default=costs.launch_s * 1e6,
                        help=f"compute-lane time per bucket, microseconds (default {costs.launch.text}: "
                             "PyTorch's DDP benchmark, one GPU, 1 MB against 25 MB buckets)")
    parser.add_argument("--sm-contention", type=_number("--sm-contention", sm.minimum, sm.maximum),
                        default=costs.contention,
                        help=f"share of compute speed lost while communication kernels run (default "
                             f"{costs.contention:g}: arXiv 2507.03114, average measured slowdown)")
    parser.add_argument("--gpu-spread", type=_number("--gpu-spread", spread.minimum / 100, spread.maximum / 100),
                        default=costs.spread,
                        help=f"range of speeds between GPUs of one model, a fraction; the step waits for the "
                             f"slowest (default {costs.spread:g}: Sinha et al., SC22)")
    parser.add_argument("--efficiency", type=_number("--efficiency", 0.01, 1.0), default=1.0,
                        help="share of the GPU's dense BF16 peak the matmuls reach (default 1)")
    add_cluster_flags(parser)
    parser.set_defaults(handler=run_overlap)


def _bucket_bytes(text: str, warnings: list[str]) -> float:
    """``--bucket`` read as the Overlap page reads its ``bucket`` (1 KiB to 1 TiB): a size outside is
    clamped with the page's message, added to ``warnings``; text that is not a size is an error."""
    spec = next(spec for spec in overlap_specs() if spec.key == "bucket")
    value, problem = spec.parse(text)
    if problem and value in (spec.minimum, spec.maximum):
        warnings.append(f"--bucket: {problem} (got '{text[:40]}'); using {value}")
    elif problem:
        raise CliError(f"--bucket: {problem}")
    try:
        quantity = parse_quantity(value, "size").quantity
    except QuantityInputError as exc:
        raise CliError(f"--bucket: {exc}") from exc
    return float(quantity.to("B").magnitude)


def _ms(seconds: float) -> dict[str, Any]:
    """A time as ``{"value", "unit"}`` in ms (built without pint: an event list can be 30,000 long)."""
    return {"value": round(seconds * 1e3, 6), "unit": "ms"}


def _workload(args: argparse.Namespace) -> ModelShape:
    if args.params is not None:
        return ModelShape.from_params(args.params, int(args.layers))
    return ModelShape.from_preset(load_model_presets()[args.model or "llama3-8b"])


def _band_json(step: StepResult, cluster: Any) -> dict[str, Any]:
    """The step's ``error_band``, with ``expected``: the likely measured step time in ms (None if extrapolating)."""
    band = overlap_band(cluster, step.mode)
    read = step_expected(band, step, 1e3, "ms")
    return {**band.as_json(), "expected": None if read is None else {"step_time": read.as_json()}}


def _payload(step: StepResult, cluster: Any, args: argparse.Namespace, roofline: float,
             warnings: list[str]) -> dict[str, Any]:
    claim = check_claim(step)
    buckets = step.buckets
    return {
        "model": {"label": step.workload.label, "preset": step.workload.preset_id, "params": step.workload.params},
        "cluster": cluster.as_dict(),
        "description": cluster.describe(),
        "mode": step.mode,
        "tokens_per_gpu": int(step.tokens_per_gpu),
        "gradient_dtype": args.gradient_dtype,
        "sm_contention": args.sm_contention,
        "bucket_launch_per_bucket": {"value": round(args.bucket_launch_us, 6), "unit": "us"},
        "gpu_spread": args.gpu_spread,
        "efficiency": args.efficiency,
        "step_time": _ms(step.step_s),
        "exposed_comm": _ms(step.exposed_comm_s),
        "compute_utilization": round(step.compute_utilization, 6),
        "hide_threshold_tokens": round(step.hide_threshold_tokens, 1) if math.isfinite(step.hide_threshold_tokens)
        else None,
        "scaling_book_roofline_tokens": round(roofline, 1),
        "compute": {"forward": _ms(step.forward_s), "backward": _ms(step.backward_s),
                    "optimizer": _ms(step.optimizer_s), "sm_contention": _ms(step.contention_s),
                    "bucket_launches": _ms(step.launch_s), "slowest_gpu_wait": _ms(step.wait_s)},
        "communication": {"total": _ms(step.comm_s), "overlap_fraction": round(step.overlap_fraction, 6),
                          "after_backward": _ms(step.tail_s),
                          "algorithm": step.algorithm,
                          "bucket_count": buckets.count,
                          "bucket_size": {"value": buckets.size_bytes, "unit": "B"},
                          "last_bucket_size": {"value": buckets.last_bytes, "unit": "B"},
                          "bucket_time": _ms(step.bucket_time_s), "last_bucket_time": _ms(step.last_bucket_time_s)},
        "saved_vs_no_overlap": _ms(step.saved_s),
        "claim_check": {"claimed_overlap_fraction": claim.claimed_fraction, "claimed_saving": claim.claimed_saving,
                        "needed_comm_share": round(claim.needed_comm_share, 6),
                        "this_step_comm_share": round(claim.step_comm_share, 6),
                        "this_step_saving": round(claim.step_saving, 6)},
        "warnings": warnings,
        "error_band": _band_json(step, cluster),
        "events": [{"start": _ms(row["start_s"]), "end": _ms(row["end_s"]), "lane": row["lane"],
                    "label": row["label"]} for row in step.events.rows()],
    }


def run_overlap(args: argparse.Namespace) -> int:
    cluster, warnings = cluster_from_args(args)
    bucket = _bucket_bytes(args.bucket, warnings)
    workload = _workload(args)
    try:
        step = step_schedule(cluster, workload, args.tokens_per_gpu, bucket_bytes=bucket,
                             gradient_dtype=args.gradient_dtype, sm_contention=args.sm_contention, mode=args.mode,
                             efficiency=args.efficiency, algorithm=args.algorithm,
                             bucket_launch_s=args.bucket_launch_us * 1e-6, speed_spread=args.gpu_spread)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    warnings = [*warnings, *step.notes]
    roofline = cluster_roofline_tokens(cluster, args.gradient_dtype)
    if args.json:
        print_json(_payload(step, cluster, args, roofline, warnings))
        return 0
    warn(warnings)

    def t(seconds: float) -> str:
        return format_duration(Q_(seconds, "s")) if seconds > 0 else "0 s"

    buckets = step.buckets
    name = workload.label if workload.preset_id == "custom" else f"{workload.label} ({workload.params:.4g} parameters)"
    print(f"{name}, {int(step.tokens_per_gpu):,} tokens per GPU, {args.gradient_dtype} gradients")
    print(cluster.describe())
    print(f"mode: {MODE_LABELS[step.mode]}")
    print(f"  step time            {t(step.step_s)}")
    print(f"    compute            {t(step.compute_s)} (forward {t(step.forward_s)}, backward {t(step.backward_s)}, "
          f"optimizer {t(step.optimizer_s)})")
    print(f"    exposed comm       {t(step.exposed_comm_s)} (step time - compute), of which:")
    if step.wait_s > 0:
        print(f"      slowest GPU wait {t(step.wait_s)} (the slowest of {cluster.ranks:,} GPUs sets the pace, "
              f"speeds spread {args.gpu_spread:.0%})")
    if step.launch_s > 0:
        print(f"      bucket launches  {t(step.launch_s)} ({buckets.count:,} x {t(args.bucket_launch_us * 1e-6)})")
    if step.contention_s > 0:
        print(f"      SM contention    {t(step.contention_s)} (compute {args.sm_contention:.0%} slower while "
              "all-reduces run)")
    print(f"      after backward   {t(step.tail_s)} (all-reduce the optimizer waits for)")
    plural = "bucket" if buckets.count == 1 else "buckets"
    print(f"  all-reduce           {buckets.count:,} {plural} of {format_size(Q_(buckets.size_bytes, 'B'))} x "
          f"{t(step.bucket_time_s)} ({step.algorithm}) = {t(step.comm_s)}; {step.overlap_fraction:.0%} hidden")
    print(f"  compute utilization  {step.compute_utilization:.1%}")
    print(f"  saved by overlap     {t(step.saved_s)} of {t(step.no_overlap_step_s)} without overlap")
    hides = (f"{step.hide_threshold_tokens:,.0f} tokens per GPU" if math.isfinite(step.hide_threshold_tokens)
             else "never (one bucket)")
    print(f"  hides from           {hides} (Scaling Book C/W for this cluster: {roofline:,.0f})")
    band = overlap_band(cluster, step.mode)
    print(f"  error band           {band.text()}; {band.basis}")
    read = step_expected(band, step)
    if read is not None:
        print(f"  expected             {expected_text((read, seconds_in_unit_of(t, step.step_s), 'per step'))}")
    return 0
