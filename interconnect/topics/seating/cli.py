"""CLI sub-command ``plan``: the seating chart's bill for one layout, or the fastest layout that fits.

``python -m interconnect plan --model llama3-70b --gpu h100-sxm --gpus-per-node 8 --nodes 2 --tp 8
--pp 1 --dp 2 --zero 1`` prints one row per parallelism dimension (collective, tier, bytes and calls
per step, time, overlap, exposed time), the step time, utilisation and pipeline bubble, and the
memory per GPU; ``--search`` tries every factorization of the GPU count and reports the fastest that
fits. ``--json`` gives ``step_time``, ``exposed_comm``, ``memory_per_gpu``, ``tflops_per_gpu`` (model FLOPs,
as MFU counts them) and ``hardware_tflops_per_gpu`` (recomputation counted, as Megatron-LM's tables)
as ``{"value", "unit"}``, ``fits``, ``layout``, ``workload`` (what ``--search`` chose too),
``schedule``, ``dimensions`` and ``error_band`` (the model's error on the published runs like this one,
:mod:`interconnect.topics.seating.accuracy`: ``low``, ``high`` and ``median`` model / published TFLOP/s,
``n``, ``basis``, and ``expected``: what a measurement would likely read, the estimate read through the band,
``{"step_time", "tflops_per_gpu", "mfu"}`` each ``{"low", "central", "high", "unit", "quantity"}``, null for
an extrapolation; the text output prints the band as one line and the expected readings as another).
``--model custom`` with ``--params --layers --hidden --heads``
describes any published run; ``--schedule`` and ``--virtual-stages`` its pipeline. ``--stack`` names the training
stack whose defaults fill what no flag sets (:data:`~interconnect.topics.seating.model.STACKS`; Megatron-Core by
default) and ``--tp-overlap auto|on|off`` overlaps TP communication with the GEMMs (``auto``: the stack's); the text
names both on its ``stack:`` line and the JSON's ``workload`` as ``stack`` and ``tp_comm_overlap`` (whether TP
communication was overlapped: asked for, with sequence parallelism and TP > 1). A layout that
cannot run (degrees that do not multiply to the GPU count, TP not dividing the heads, EP without
experts) is a one-line error, exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from interconnect.catalog import UnknownIdError, get_catalog
from interconnect.cli.output import CliError, print_json
from interconnect.hardware.accuracy import expected_text, seconds_in_unit_of
from interconnect.hardware.cluster import FABRICS, resolve_cluster
from interconnect.topics.seating.accuracy import case_band, layout_runs_text, plan_expected, published_layout_runs
from interconnect.topics.seating.model import (
    ATTENTION_KERNELS,
    GRAD_ACCUMULATIONS,
    PLAN_DEFAULTS,
    RECOMPUTE_MODULES,
    RECOMPUTE_WORDS,
    REJECTIONS,
    SCHEDULES,
    STACKS,
    TP_OVERLAP_CHOICES,
    LayoutError,
    Plan,
    Workload,
    fit_layout,
    plan,
    search_layouts,
    stack_workload,
    tp_overlap_note,
)
from interconnect.units import IntegerInputError, QuantityInputError, format_seconds, parse_quantity, read_int
from interconnect.workloads.presets import custom_model, load_model_presets

__all__ = ["register", "run_plan"]


def _whole(minimum: int):
    def parse(text: str) -> int:
        try:
            return read_int(text, minimum=minimum)
        except IntegerInputError as exc:
            reason = f"must be at least {minimum}" if exc.nearest is not None else "expected a whole number"
            raise argparse.ArgumentTypeError(f"{reason}, got '{text[:40]}'") from None
    return parse


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got '{text}'") from None
    if not 0.01 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0.01 and 1, got {text}")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


_DTYPE_BYTES = {"bf16": 2, "fp8": 1, "fp32": 4}


def register(commands: Any) -> None:
    d = PLAN_DEFAULTS
    parser = commands.add_parser("plan", help="seat TP x PP x DP (x CP, EP) on a cluster: traffic per tier, "
                                              "step time, memory; --search for the fastest layout that fits")
    parser.add_argument("--model", default=d["model"],
                        help=f"model preset ({', '.join(load_model_presets())}) or 'custom' with --params, "
                             f"--layers, --hidden, --heads (default {d['model']})")
    custom = parser.add_argument_group("custom model (--model custom)")
    custom.add_argument("--params", type=_positive, help="parameters, e.g. 175e9")
    custom.add_argument("--layers", type=_whole(1), help="transformer layers")
    custom.add_argument("--hidden", type=_whole(1), help="hidden size")
    custom.add_argument("--heads", type=_whole(1), help="attention heads")
    custom.add_argument("--kv-heads", type=_whole(1), help="key/value heads (default: = heads)")
    custom.add_argument("--ffn", type=_whole(1), help="MLP width (default 4 x hidden)")
    custom.add_argument("--vocab", type=_whole(1), help="vocabulary (default 128,256)")
    custom.add_argument("--experts", type=_whole(0), default=0, help="routed experts (default 0: dense)")
    custom.add_argument("--top-k", type=_whole(0), default=0, help="experts per token")
    custom.add_argument("--active-params", type=_positive, help="parameters one token uses (MoE)")
    parser.add_argument("--gpu", default=d["gpu"], help=f"GPU catalog id (default {d['gpu']})")
    parser.add_argument("--gpus-per-node", type=_whole(1), help="GPUs per server (default: the GPU's reference node)")
    parser.add_argument("--nodes", type=_whole(1), default=d["nodes"], help=f"servers (default {d['nodes']})")
    parser.add_argument("--nic", help="NIC catalog id (ib-ndr) or bandwidth per NIC ('400 Gbit/s')")
    parser.add_argument("--nics-per-node", type=_whole(1), help="NICs per server (default one per GPU)")
    parser.add_argument("--fabric", choices=sorted(FABRICS), help="scale-out fabric (default: from the NIC)")
    parser.add_argument("--scaleup-domain", type=_whole(1), help="GPUs per NVLink domain (default: preset)")
    parser.add_argument("--tp", type=_whole(1), default=d["tp"], help=f"tensor-parallel degree (default {d['tp']})")
    parser.add_argument("--pp", type=_whole(1), default=d["pp"],
                        help=f"pipeline stages; need not divide the layers (default {d['pp']})")
    parser.add_argument("--dp", type=_whole(1), help="data-parallel replicas (default: GPUs / (TP x PP x CP); when "
                                                      "TP x PP x CP does not fit the GPUs, PP shrinks first)")
    parser.add_argument("--cp", type=_whole(1), default=d["cp"], help=f"context-parallel degree (default {d['cp']})")
    parser.add_argument("--ep", type=_whole(1), default=d["ep"], help=f"expert-parallel degree, inside DP "
                                                                        f"(default {d['ep']})")
    parser.add_argument("--zero", type=_whole(0), choices=(0, 1, 2, 3), default=d["zero"],
                        help=f"ZeRO stage (default {d['zero']}: the distributed optimizer)")
    parser.add_argument("--schedule", choices=tuple(SCHEDULES), default=d["schedule"],
                        help=f"pipeline schedule (default {d['schedule']})")
    parser.add_argument("--virtual-stages", type=_whole(0), default=d["virtual_stages"],
                        help="model chunks per GPU for --schedule interleaved (default 0: the fastest)")
    parser.add_argument("--lighter-ends", action="store_true",
                        help="first and last stage hold one layer fewer (room for embedding and output, as Llama 3)")
    parser.add_argument("--micro-batch", type=_whole(1), default=d["micro_batch"],
                        help=f"sequences per micro-batch (default {d['micro_batch']})")
    parser.add_argument("--global-batch", type=_whole(1), default=d["global_batch"],
                        help=f"sequences per step (default {d['global_batch']})")
    parser.add_argument("--seq-len", type=_whole(1), help="tokens per sequence (default: the model's)")
    parser.add_argument("--recompute", choices=("none", "selective", "full"), default=d["recompute"],
                        help=f"activation recomputation (default {d['recompute']})")
    parser.add_argument("--recompute-module", choices=RECOMPUTE_MODULES, action="append", default=[],
                        help="also recompute this Megatron-Core module, its outputs freed after use (repeatable: "
                             "mla_up_proj for latent attention, layernorm, moe_act for experts; none by default)")
    parser.add_argument("--ep-a2a-overlap", action="store_true",
                        help="run each MoE layer's expert all-to-alls beside another micro-batch's compute "
                             "(Megatron-Core's overlap_moe_expert_parallel_comm; needs EP > 1, not with full "
                             "recomputation)")
    parser.add_argument("--no-sequence-parallel", action="store_true", help="TP without sequence parallelism")
    parser.add_argument("--attention", choices=ATTENTION_KERNELS, default=d["attention"],
                        help="attention kernel: flash (the newest FlashAttention for the GPU), flash2 "
                             "(FlashAttention-2, slower on Hopper) or unfused (scores stored; default flash)")
    parser.add_argument("--dropout", action="store_true",
                        help="the layers apply dropout (stores a 1-byte mask after attention and after the MLP)")
    parser.add_argument("--stack", choices=tuple(STACKS), default=d["stack"],
                        help="training stack whose defaults fill what no flag sets: TP-communication overlap (on for "
                             "the nemo and megatron-bridge performance recipes), torchtitan's op-level selective "
                             "recomputation, FP32 logits at the loss, FSDP2 copies and PyTorch ring for CP, "
                             "Megatron-Bridge's FP8 weight gathers, the Megatron family's chunk-by-chunk "
                             "data-parallel syncs under the interleaved schedule, deepspeed's pipeline engine unless "
                             f"--pipeline-engine is given (default {d['stack']}; every stack's 1F1B waits for its "
                             "pipeline exchanges)")
    parser.add_argument("--tp-overlap", choices=tuple(TP_OVERLAP_CHOICES), default=d["tp_overlap"],
                        help="overlap TP's all-gathers and reduce-scatters with the GEMMs (Transformer Engine's "
                             "userbuffers); needs sequence parallelism and TP > 1 (default auto: the stack's)")
    parser.add_argument("--pipeline-engine", choices=("megatron", "deepspeed"), default=None,
                        help="who runs the pipeline: megatron (sends overlap compute) or deepspeed (blocking sends, "
                             "gradients reduced after the last micro-batch) (default: the stack's, megatron but for "
                             "--stack deepspeed)")
    parser.add_argument("--context-parallel", choices=("ring", "all-gather"), default="ring",
                        help="how CP ranks share K and V: ring (behind attention) or all-gather (before it, as "
                             "Llama 3) (default ring)")
    parser.add_argument("--fp32-gradients", action="store_true",
                        help="keep and reduce gradients in FP32 (4 bytes per value), as Llama 3 did")
    parser.add_argument("--grad-accumulation", choices=GRAD_ACCUMULATIONS, default="fused",
                        help="how each micro-batch's gradients are added to the step's: fused (inside the "
                             "weight-gradient GEMM, Megatron-Core), buffer (a separate add into a gradient buffer, "
                             "Megatron-LM 2021) or autograd (PyTorch's in-place add from the second micro-batch, DDP "
                             "no_sync or DeepSpeed ZeRO-1) (default fused)")
    parser.add_argument("--dp-bucket", choices=("25MB", "layer"), default="25MB",
                        help="gradient reduction unit: 25 MB buckets (PyTorch DDP) or one layer (FSDP) "
                             "(default 25MB)")
    parser.add_argument("--dtype", choices=tuple(_DTYPE_BYTES), default=d["dtype"],
                        help=f"training precision (default {d['dtype']})")
    parser.add_argument("--efficiency", type=_share, default=None,
                        help="override: one share of the GPU's BF16 peak for every kernel (default: the sourced "
                             "GEMM and attention figures of the GPU family, at the layout's matrix shapes)")
    parser.add_argument("--search", action="store_true", help="find the fastest layout that fits (ignores --tp ...)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_plan)


def _quantity(value: float, unit: str, digits: int = 6) -> dict[str, Any]:
    return {"value": round(float(value), digits), "unit": unit}


def _cluster(args: argparse.Namespace):
    if args.nic is not None and args.nic not in get_catalog().links:
        try:
            parse_quantity(args.nic, "bandwidth")
        except QuantityInputError as exc:
            raise CliError(f"--nic: {exc}") from exc
    try:
        return resolve_cluster(args.gpu, gpus_per_node=args.gpus_per_node, nodes=args.nodes, nic=args.nic,
                               nics_per_node=args.nics_per_node, fabric=args.fabric,
                               scaleup_domain=args.scaleup_domain)
    except UnknownIdError as exc:
        raise CliError(str(exc)) from exc


def _band_json(bill: Plan) -> dict[str, Any]:
    """The plan's ``error_band``, with ``expected``: the likely measured step time, TFLOP/s and MFU (None if none)."""
    band = case_band(bill.model, bill.cluster, bill.workload, bill.layout)
    readings = plan_expected(band, bill)
    expected = None if readings is None else {key: value.as_json() for key, value in readings.items()}
    return {**band.as_json(), "expected": expected}


def tp_overlapped(bill: Plan) -> bool:
    """Whether the plan's TP communication ran inside its GEMMs: asked for, with sequence parallelism and TP > 1."""
    return bill.workload.tp_userbuffers and bill.layout.tp > 1


def _payload(bill: Plan, warnings: list[str], search: dict[str, Any] | None, stack: str) -> dict[str, Any]:
    memory = bill.memory
    return {
        "model": {"id": bill.model.id, "name": bill.model.name, "sources": list(bill.model.source_ids)},
        "cluster": bill.cluster.as_dict(),
        "description": bill.cluster.describe(),
        "layout": bill.layout.as_dict(),
        "workload": {"micro_batch": bill.workload.micro_batch, "global_batch": bill.workload.global_batch,
                     "seq_len": bill.workload.tokens(bill.model), "recompute": bill.workload.recompute,
                     "recompute_modules": list(bill.workload.recompute_modules),
                     "ep_a2a_overlap": bill.workload.ep_a2a_overlap,
                     "sequence_parallel": bill.workload.sequence_parallel, "schedule": bill.workload.schedule,
                     "attention": bill.workload.attention, "dtype_bytes": bill.workload.dtype_bytes,
                     "dropout": bill.workload.dropout, "pipeline_engine": bill.workload.pipeline_engine,
                     "context_parallel": bill.workload.context_parallel,
                     "grad_bytes": bill.workload.grad_bytes or bill.workload.dtype_bytes,
                     "dp_bucket": "layer" if bill.workload.bucket_bytes <= 0 else bill.workload.bucket_bytes,
                     "grad_accumulation": bill.workload.grad_accumulation,
                     "stack": stack, "tp_comm_overlap": tp_overlapped(bill)},
        "step_time": _quantity(bill.step_s, "s"),
        "compute_time": _quantity(bill.compute_s, "s"),
        "exposed_comm": _quantity(bill.exposed_s, "s"),
        "bubble_fraction": round(bill.bubble_fraction, 6),
        "mfu": round(bill.mfu, 6),
        "tflops_per_gpu": _quantity(bill.tflops_per_gpu / 1e12, "TFLOP/s"),
        "hardware_tflops_per_gpu": _quantity(bill.hardware_tflops_per_gpu / 1e12, "TFLOP/s"),
        "schedule": {"name": bill.workload.schedule, "virtual_stages": bill.virtual_stages,
                     "bubble": bill.bubble_reason},
        "stage_layers": {"fullest": bill.stage_layers[0], "last": bill.stage_layers[1]},
        "compute_basis": bill.efficiency_basis,
        "micro_batches": bill.micro_batches,
        "memory_per_gpu": _quantity(memory.total / 1e9, "GB"),
        "memory": {
            "params": _quantity(memory.params / 1e9, "GB"), "grads": _quantity(memory.grads / 1e9, "GB"),
            "optimizer": _quantity(memory.optimizer / 1e9, "GB"),
            "activations": _quantity(memory.activations / 1e9, "GB"),
            "capacity": _quantity(memory.capacity / 1e9, "GB"),
            "reserved": _quantity(memory.reserved / 1e9, "GB"),
        },
        "fits": bill.fits,
        "memory_verdict": memory.verdict,
        "dimensions": [d.as_json() for d in bill.dimensions],
        "notes": list(bill.notes),
        "warnings": warnings,
        "error_band": _band_json(bill),
        "published_runs": published_layout_runs(bill.model, bill.cluster, bill.layout),
        **({"search": search} if search is not None else {}),
    }


def _print_bill(bill: Plan, stack: str, tp_overlap: str) -> None:
    print(f"{bill.model.name} on {bill.cluster.describe()}")
    w = bill.workload
    print(f"layout: {bill.layout.label()}  ({bill.micro_batches} micro-batches of {w.micro_batch} per step; "
          f"{RECOMPUTE_WORDS[w.recompute]} recomputation{''.join(f' + {m}' for m in w.recompute_modules)}, "
          f"{SCHEDULES[w.schedule]}, "
          f"{w.attention} attention{', expert all-to-alls overlapped' if w.ep_a2a_overlap else ''})")
    overlapped = "overlapped with the GEMMs" if tp_overlapped(bill) else "not overlapped"
    print(f"stack: {STACKS[stack].name}; TP communication {overlapped} (--tp-overlap {tp_overlap})")
    print(f"{'dimension':<14} {'deg':>4}  {'collective':<38} {'tier':<14} {'GB/step':>9} {'calls':>8} "
          f"{'time ms':>9} {'exposed ms':>10}")
    for d in bill.dimensions:
        if d.degree <= 1:
            continue
        print(f"{d.label:<14} {d.degree:>4}  {d.collective:<38} {d.tier:<14} {d.bytes_per_step / 1e9:>9.2f} "
              f"{d.calls_per_step:>8.0f} {d.time_s * 1e3:>9.1f} {d.exposed_s * 1e3:>10.1f}")
    print(f"step time {bill.step_s:.3f} s: compute {bill.compute_s:.3f} s, pipeline bubble "
          f"{bill.bubble_fraction:.1%}, exposed communication {bill.exposed_s:.3f} s; utilisation (MFU) {bill.mfu:.1%}")
    print(f"throughput {bill.tflops_per_gpu / 1e12:.0f} TFLOP/s per GPU (model FLOPs), "
          f"{bill.hardware_tflops_per_gpu / 1e12:.0f} with recomputation; kernels: {bill.efficiency_basis}")
    band = case_band(bill.model, bill.cluster, bill.workload, bill.layout)
    print(f"error band (TFLOP/s and MFU, model / published; step time the inverse): {band.text()}; {band.basis}")
    readings = plan_expected(band, bill)
    if readings is not None:
        print(expected_text((readings["tflops_per_gpu"], lambda x: f"{x:.0f} TFLOP/s", "per GPU"),
                            (readings["mfu"], lambda x: f"{x:.0%}", "MFU"),
                            (readings["step_time"], seconds_in_unit_of(format_seconds, bill.step_s), "per step")))
    ran = layout_runs_text(published_layout_runs(bill.model, bill.cluster, bill.layout), bill.workload.dtype_bytes)
    if ran:
        print(ran)
    print(f"schedule: {bill.bubble_reason}")
    for note in bill.notes:
        print(f"note: {note}")
    m = bill.memory
    print(f"memory: {m.summary} ({m.reserved / 1e9:.3g} GB more allowed for buffers and fragmentation): weights "
          f"{m.params / 1e9:.1f}, gradients {m.grads / 1e9:.1f}, optimizer {m.optimizer / 1e9:.1f}, activations "
          f"{m.activations / 1e9:.1f} GB")


def _model(args: argparse.Namespace, warnings: list[str]):
    presets = load_model_presets()
    if args.model == "custom":
        missing = [f"--{k}" for k in ("params", "layers", "hidden", "heads") if getattr(args, k) is None]
        if missing:
            raise CliError(f"--model custom needs {', '.join(missing)}")
        model, notes = custom_model(args.params, args.layers, args.hidden, args.heads,
                                    seq_len=args.seq_len or 8192, experts=args.experts, top_k=args.top_k,
                                    active_params=args.active_params, kv_heads=args.kv_heads, ffn_hidden=args.ffn,
                                    vocab=args.vocab)
        warnings.extend(notes)
        return model
    if args.model not in presets:
        raise CliError(f"--model: unknown model '{args.model}'; known: {', '.join(presets)}, custom")
    return presets[args.model]


def _workload(args: argparse.Namespace) -> Workload:
    """The workload the flags describe, with the chosen stack's defaults for what no flag sets."""
    workload = Workload(micro_batch=args.micro_batch, global_batch=args.global_batch, seq_len=args.seq_len,
                        dtype_bytes=_DTYPE_BYTES[args.dtype], recompute=args.recompute,
                        sequence_parallel=not args.no_sequence_parallel, compute_efficiency=args.efficiency,
                        schedule=args.schedule, virtual_stages=args.virtual_stages, lighter_ends=args.lighter_ends,
                        attention=args.attention, dropout=args.dropout,
                        context_parallel=args.context_parallel, grad_bytes=4 if args.fp32_gradients else 0,
                        bucket_bytes=0.0 if args.dp_bucket == "layer" else 25e6,
                        grad_accumulation=args.grad_accumulation,
                        recompute_modules=tuple(dict.fromkeys(args.recompute_module)),
                        ep_a2a_overlap=args.ep_a2a_overlap)
    return stack_workload(workload, args.stack, args.tp_overlap, args.pipeline_engine)


def run_plan(args: argparse.Namespace) -> int:
    cluster, warnings = _cluster(args)
    model = _model(args, warnings)
    workload = _workload(args)
    for warning in warnings:
        if not args.json:
            print(f"interconnect: warning: {warning}")
    search_info = None
    if args.search:
        found = search_layouts(model, cluster, workload)
        search_info = {"tried": found.tried, "valid": found.valid, "fitting": found.fitting,
                       "rejected": {k: v for k, v in found.rejected.items() if k in REJECTIONS}}
        if found.best is None:
            message = " ".join((found.headline(cluster.ranks, model.name), *found.advice))
            if args.json:
                print_json({"model": {"id": model.id, "name": model.name}, "cluster": cluster.as_dict(),
                            "layout": None, "fits": False, "message": message, "search": search_info,
                            "warnings": warnings})
            else:
                print(message)
            return 0
        bill = found.best
    else:
        if args.dp is not None:
            from interconnect.topics.seating.model import Layout

            layout = Layout(tp=args.tp, pp=args.pp, dp=args.dp, cp=args.cp, ep=args.ep, zero=args.zero)
        else:
            layout, change = fit_layout(model, cluster.ranks, args.tp, args.pp, args.cp, args.ep, args.zero)
            if change:
                warnings.append(change)
                if not args.json:
                    print(f"interconnect: note: {change}")
        try:
            bill = plan(model, cluster, layout, workload)
        except LayoutError as exc:
            raise CliError(str(exc)) from exc
    overlap_note = tp_overlap_note(bill.workload, bill.layout.tp, args.stack, args.tp_overlap)
    if overlap_note:
        warnings.append(overlap_note)
    if args.json:
        print_json(_payload(bill, warnings, search_info, args.stack))
        return 0
    if overlap_note:
        print(f"interconnect: note: {overlap_note}")
    if search_info is not None:
        print(f"fastest of {search_info['fitting']} fitting layouts ({search_info['valid']} valid):")
    _print_bill(bill, args.stack, args.tp_overlap)
    return 0
