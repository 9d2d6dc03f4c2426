"""Layouts and workloads: what a layout asks for and whether it can run.

The degrees TP x CP x PP x DP (EP inside DP) and the ZeRO stage; the workload's batch, sequence,
schedule, recomputation and precision; the defaults the Seating chart page and ``interconnect plan``
share; the checks that say what to change; fitting a layout to a GPU count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from interconnect.hardware.cluster import Cluster
from interconnect.units import InterconnectError
from interconnect.workloads.presets import ModelPreset

__all__ = [
    "ATTENTION_KERNELS",
    "CHUNK_DP_SYNCS",
    "DDP_MODES",
    "DIMENSIONS",
    "DIMENSION_LABELS",
    "Layout",
    "LayoutError",
    "PLAN_DEFAULTS",
    "RECOMPUTE_MODULES",
    "RECOMPUTE_WORDS",
    "SCHEDULES",
    "SELECTIVE_POLICIES",
    "Workload",
    "GRAD_ACCUMULATIONS",
    "INTERLEAVED_P2PS",
    "ZERO3_FETCHES",
    "check_layout",
    "fit_layout",
    "layout_problems",
]


DIMENSIONS = ("tp", "cp", "ep", "dp", "pp")
#: Pipeline schedules, with the idle time each pays in units of one micro-batch's forward and backward
#: on the slowest stage: 1F1B p - 1 (Narayanan et al. 2021, arXiv 2104.04473, section 2.2.1);
#: interleaved 1F1B with v model chunks per GPU (p - 1) / v, for v times the stage-boundary sends
#: (same paper, section 2.2.2); zero-bubble ZB-H1 about a third of 1F1B's at 1F1B's memory, by
#: splitting the backward pass into input and weight gradients and filling the bubble with the latter
#: (Qi et al. 2023, arXiv 2401.10241, section 3); DualPipe, bidirectional, as DeepSeek-V3 trained:
#: (p/2 - 1)(F&B + B - 3W), i.e. (p/2 - 1) x 2/3 micro-batch times with F = W = 1, B = 2, F&B = F + B,
#: for two copies of the weights and p + 1 micro-batches in flight, with the expert all-to-all of one
#: chunk hidden behind the other's compute (deepseek-ai/DualPipe README; DeepSeek-V3 report,
#: arXiv 2412.19437, section 3.2.1).
#: Attention kernels a workload may name (see :class:`Workload`).
ATTENTION_KERNELS = ("flash", "flash2", "unfused")
#: What ``selective`` recomputation recomputes (see :class:`Workload`).
SELECTIVE_POLICIES = ("megatron", "torchtitan-op")
#: Megatron-Core's output-discarding recomputation modules a workload may name (``Workload.recompute_modules``).
RECOMPUTE_MODULES = ("mla_up_proj", "layernorm", "moe_act")
#: How a recomputation mode reads before the word "recomputation" ("no recomputation", "full recomputation").
RECOMPUTE_WORDS = {"none": "no", "selective": "selective", "full": "full"}
#: How data-parallel gradients are bucketed and when they move (see :class:`Workload`).
DDP_MODES = ("bucketed", "megatron-core", "after-backward", "per-tensor", "deepspeed-bf16")
#: Which data-parallel syncs the interleaved schedule starts model chunk by model chunk (see :class:`Workload`).
CHUNK_DP_SYNCS = ("", "grads", "grads-params")
#: How the interleaved schedule's stage-boundary exchanges run (``Workload.interleaved_p2p``).
INTERLEAVED_P2PS = ("overlap", "blocking")
#: How a mixture of experts' local experts run their GEMMs (see :class:`Workload`).
EXPERT_GEMMS = ("grouped", "per-expert")
#: When ZeRO-3 gathers a layer's weights (see :class:`Workload`).
ZERO3_FETCHES = ("prefetch", "on-demand")
#: How a replica's whole gradients are accumulated over the micro-batches of a step (``Workload.grad_accumulation``).
GRAD_ACCUMULATIONS = ("fused", "buffer", "autograd")
SCHEDULES = {"1f1b": "1F1B", "interleaved": "interleaved 1F1B", "zero-bubble": "zero-bubble (ZB-H1)",
             "dualpipe": "DualPipe"}
DIMENSION_LABELS = {"tp": "Tensor (TP)", "cp": "Context (CP)", "ep": "Expert (EP)", "dp": "Data (DP)",
                    "pp": "Pipeline (PP)"}


#: Defaults shared by the Seating chart page and ``interconnect plan`` (the page's link keys in brackets):
#: Llama 3 70B on 8 nodes of 8 H100, TP 8 x PP 4 with DP taking the rest, ZeRO-1 (the distributed
#: optimizer), 1F1B, selective recomputation, sequence parallelism, BF16, micro-batch 1, global batch 256; the
#: training stack Megatron-Core, TP-communication overlap its default (off; see model/stack_defaults.py).
PLAN_DEFAULTS = {"model": "llama3-70b", "gpu": "h100-sxm", "nodes": 8, "tp": 8, "pp": 4, "cp": 1, "ep": 1, "zero": 1,
                 "micro_batch": 1, "global_batch": 256, "recompute": "selective", "sequence_parallel": True,
                 "schedule": "1f1b", "virtual_stages": 0, "attention": "flash", "dtype": "bf16",
                 "stack": "megatron-core", "tp_overlap": "auto"}


def fit_layout(model: ModelPreset, gpus: int, tp: int, pp: int, cp: int = 1, ep: int = 1,
               zero: int = 1) -> tuple[Layout, str]:
    """Fit a layout to a GPU count: keep TP, shrink PP, let DP take the rest; say what changed.

    Parameters
    ----------
    model : ModelPreset
        The model (TP must divide its heads, PP may not exceed its layers).
    gpus : int
        The cluster's GPU count.
    tp, pp, cp, ep, zero : int
        The layout asked for (DP is what is left).

    Returns
    -------
    layout : Layout
        ``tp x pp x cp x dp = gpus``; TP, then CP, are kept when they divide the GPU count, PP is the
        largest that still does, DP takes the rest; EP becomes 1 when it no longer divides TP x CP x DP.
    change : str
        One sentence saying what changed, or "" when the layout fitted as asked.

    Examples
    --------
    >>> from interconnect.workloads.presets import load_model_presets
    >>> layout, change = fit_layout(load_model_presets()["llama3-70b"], 16, tp=8, pp=4)
    >>> layout.label()
    'TP8 × PP2 × DP1, ZeRO-1'
    >>> print(change)
    The cluster has 16 GPUs, not the 32 that TP 8 × PP 4 needs: kept TP 8, PP 4 → 2, DP takes the rest (1).
    """
    gpus = max(1, int(gpus))
    tp0, pp0, cp0 = max(1, tp), max(1, pp), max(1, cp)
    if gpus % (tp0 * pp0 * cp0) == 0 or model.heads % tp0:  # fits, or TP itself is wrong: say so, do not guess
        dp = max(1, gpus // (tp0 * pp0 * cp0))
        new_ep = _fitted_ep(ep, tp0 * cp0 * dp)
        change = "" if new_ep == max(ep, 1) else f"The cluster has {gpus:,} GPUs: {_ep_change(ep, tp0, cp0, dp)}."
        return Layout(tp=tp0, pp=pp0, dp=dp, cp=cp0, ep=new_ep, zero=zero), change
    new_tp = tp0 if gpus % tp0 == 0 else max(d for d in _divisors(gpus) if d <= tp0 and model.heads % d == 0)
    rest = gpus // new_tp
    new_cp = cp0 if rest % cp0 == 0 else 1
    rest //= new_cp
    new_pp = max(d for d in _divisors(rest) if d <= min(pp0, model.layers))
    dp = rest // new_pp
    new_ep = _fitted_ep(ep, new_tp * new_cp * dp)
    kept = [f"kept TP {tp0}" if new_tp == tp0 else f"TP {tp0} → {new_tp}"]
    if cp0 > 1:
        kept.append(f"kept CP {cp0}" if new_cp == cp0 else f"CP {cp0} → {new_cp}")
    kept.append(f"kept PP {pp0}" if new_pp == pp0 else f"PP {pp0} → {new_pp}")
    if new_ep != max(ep, 1):
        kept.append(_ep_change(ep, new_tp, new_cp, dp))
    need = tp0 * pp0 * cp0
    why = (f"not the {need:,} that TP {tp0} × PP {pp0}" + (f" × CP {cp0}" if cp0 > 1 else "") + " needs"
           if need > gpus else f"which TP {tp0} × PP {pp0}" + (f" × CP {cp0}" if cp0 > 1 else "") + " does not divide")
    change = f"The cluster has {gpus:,} GPUs, {why}: {', '.join(kept)}, DP takes the rest ({dp:,})."
    return Layout(tp=new_tp, pp=new_pp, dp=dp, cp=new_cp, ep=new_ep, zero=zero), change


def _fitted_ep(ep: int, spread: int) -> int:
    """EP as asked when it divides the GPUs the experts can spread over (TP x CP x DP), else 1."""
    return ep if ep > 1 and spread % ep == 0 else 1


def _ep_change(ep: int, tp: int, cp: int, dp: int) -> str:
    """Why EP fell to 1: it must divide TP x CP x DP (the GPUs a stage's experts spread over)."""
    spread = "TP × CP × DP" if cp > 1 else "TP × DP"
    return f"EP {ep} → 1 (EP must divide {spread} = {tp * cp * dp:,})"


class LayoutError(InterconnectError, ValueError):
    """A layout that cannot run; the message says what to change.

    For example degrees that do not multiply to the GPU count, TP not dividing the heads, or EP
    without experts.
    """


@dataclass(frozen=True)
class Layout:
    """Degrees of parallelism and the ZeRO stage.

    ``tp * cp * dp * pp`` is the GPU count. With ``ep > 1`` the expert layers have their own grid on the ranks of
    a pipeline stage (Megatron-Core's MoE parallel folding, megatron/core/parallel_state.py: expert TP x EP x
    expert DP x PP = the GPU count): expert TP 1, as Megatron-Bridge's MoE recipes run, so ``ep`` divides
    ``tp * cp * dp`` and expert-data parallelism is ``tp * cp * dp / ep``. With ``ep = 1`` the experts are
    split over TP like the dense layers.
    """

    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    zero: int = 0

    @property
    def gpus(self) -> int:
        """GPUs the layout uses: tp x pp x dp x cp."""
        return self.tp * self.pp * self.dp * self.cp

    def as_dict(self) -> dict[str, int]:
        """Return the degrees and the ZeRO stage as a dict.

        Returns
        -------
        dict of str to int
            ``tp``, ``pp``, ``dp``, ``cp``, ``ep`` and ``zero`` (JSON-ready).

        Examples
        --------
        >>> Layout(tp=8, dp=2, zero=1).as_dict()
        {'tp': 8, 'pp': 1, 'dp': 2, 'cp': 1, 'ep': 1, 'zero': 1}
        """
        return {"tp": self.tp, "pp": self.pp, "dp": self.dp, "cp": self.cp, "ep": self.ep, "zero": self.zero}

    def label(self) -> str:
        """Write the layout for people.

        Returns
        -------
        str
            TP, PP and DP always, CP and EP above 1 only, and the ZeRO stage.

        Examples
        --------
        >>> Layout(tp=8, dp=2, zero=1).label()
        'TP8 × PP1 × DP2, ZeRO-1'
        """
        parts = [f"TP{self.tp}", f"PP{self.pp}", f"DP{self.dp}"]
        parts += [f"CP{self.cp}"] if self.cp > 1 else []
        parts += [f"EP{self.ep}"] if self.ep > 1 else []
        return " × ".join(parts) + f", ZeRO-{self.zero}"


@dataclass(frozen=True)
class Workload:
    """The training job besides the model and the layout.

    ``micro_batch`` and ``global_batch`` count sequences; ``seq_len`` tokens (None: the model's
    pre-training length); ``dtype_bytes`` of weights, activations and gradients on the wire (2 for
    BF16); ``recompute`` ``none``, ``selective`` or ``full``; ``compute_efficiency`` overrides the
    sourced kernel figures with one share of the GPU's dense BF16 peak for every kernel (None: use
    :mod:`interconnect.topics.seating.kernels`, what GEMM and attention kernels reach on this GPU family at
    these matrix shapes); ``bucket_bytes`` the gradient bucket of data parallelism (PyTorch DDP's
    25 MB default, Playbook appendix A3; 0 or less: one per transformer layer, as FSDP reduces).

    ``schedule`` is the pipeline schedule (see :data:`SCHEDULES`); ``virtual_stages`` the model
    chunks per GPU of the interleaved schedule (0: the fastest the stage's layers allow);
    ``lighter_ends`` gives the first and the last pipeline stage one transformer layer fewer, to
    make room for the embedding and the output layer (Llama 3, arXiv 2407.21783, section 3.3.2);
    ``attention`` ``flash`` (fused, scores never stored; the newest FlashAttention for the GPU family),
    ``flash2`` (FlashAttention-2, which runs at a lower share of a Hopper GPU's peak: runs made before
    FlashAttention-3, July 2024), ``cudnn`` (cuDNN's fused attention, which Transformer Engine's
    DotProductAttention picks over FlashAttention on Hopper and newer GPUs; at the family's newest fused
    kernel's rate where cuDNN's is not published; not offered on the page or the command line) or
    ``unfused`` (scores written to memory, as Megatron-LM before 2023);
    ``dropout`` whether the layers apply dropout, which stores a 1-byte mask per value after attention
    and after the MLP (Megatron-LM's GPT default; Llama-style models train without it), and, as Megatron-LM's
    defaults pair them, dropout of the attention probabilities inside the attention call (cuDNN's fused attention
    then takes the family's measured ``cudnn_dropout_ratio`` of its time, rule R58);
    ``pipeline_engine`` who runs the pipeline schedule: ``megatron`` (Megatron-LM: sends
    overlap compute, gradient buckets reduced during the last backward) or ``deepspeed`` (DeepSpeed's
    PipelineEngine, as MT-NLG and BLOOM trained: blocking sends and receives, gradients reduced after the
    last micro-batch); ``context_parallel`` how CP ranks share K and V: ``ring`` (ring attention, passed
    around while attention runs, as Transformer Engine's ring runs it for Megatron-Core: load-balanced chunks, so
    every step after the first is a call without a causal mask, outputs merged and gradients summed in 16 bits; see
    :func:`interconnect.topics.seating.model.stacks.te_ring_hbm_bytes`), ``all-gather`` (gathered before attention,
    as Llama 3 did) or ``pytorch``
    (PyTorch's experimental ``context_parallel`` as torchtitan ran it: round-robin load balancing, so every ring
    step after the first is a call without a causal mask; K and V repeated to the query heads and all-gathered
    behind the first step; each step's output merged into an FP32 one and the gradients accumulated in FP32, K's
    and V's sent on after every backward step; see
    :func:`interconnect.topics.seating.model.stacks.pytorch_ring_hbm_bytes`);
    ``cp_waits_at_issue`` whether that ring ran compiled, so that each of its collectives is waited for where it is
    issued (torch.compile traces PyTorch's functional collectives with the wait right after the call and Inductor of
    the period moves it only when asked to; rule R48 of ``training-runs.toml``): every gather of K and V and every pass
    of their gradients then runs alone instead of behind a ring step's attention;
    ``grad_bytes`` bytes per gradient value kept and reduced across data parallelism (0: as the weights;
    4 where gradients are accumulated and reduce-scattered in FP32, as Llama 3 did);
    ``tp_comm_overlap`` whether TP's all-gathers and reduce-scatters run inside the GEMMs they feed (Transformer
    Engine's userbuffers overlap, which NeMo's and Megatron-Bridge's performance recipes switch on: NVIDIA/NeMo
    nemo/collections/llm/recipes/llama3_70b.py, MegatronCommOverlapCallback(tp_comm_overlap=True); Megatron-Bridge
    CommOverlapConfig(tp_comm_overlap=True)), with sequence parallelism only: each GEMM runs beside its collective
    as Transformer Engine runs it (:func:`interconnect.topics.seating.model.step._tp_overlap_extra`: chunked GEMMs,
    the SMs the collectives hold, what outlasts the GEMMs) (off: all of it waits);
    ``tp_overlap_config`` with ``tp_comm_overlap``, the userbuffers configuration by the name Megatron-Bridge gives
    it ("" for Transformer Engine's defaults): which GEMMs run as ring-exchange chunks, as a pipeline of column
    chunks or beside a bulk collective, and the SMs each collective holds
    (:data:`interconnect.topics.seating.model.tp_overlap.UB_CONFIGS`);
    ``fp8_recipe`` (FP8 only) how FP8 scales are found: ``delayed`` (amax history, fused into the cast),
    ``current-scaling`` and ``tensorwise`` (an amax pass over the tensor before each cast), ``mxfp8`` and
    ``blockwise`` (per-block scales computed inside the cast);
    ``selective_policy`` what ``selective`` recomputation recomputes: ``megatron`` (the attention scores and
    what follows them before the projection, Korthikanti et al. 2022, arXiv 2205.05198, section 5) or
    ``torchtitan-op`` (torchtitan's operator-level policy: every matmul output of a block's forward is saved
    except every second one, and attention's output is saved; the other matmuls and every non-matmul operator,
    norms, rotary, activations and residual adds, run again in the backward pass: pytorch/torchtitan
    torchtitan/parallelisms/parallelize_llama.py at 9dec370, ``_save_list`` and ``_custom_policy``, "Saves output
    of all compute ops, except every second mm");
    ``hbm_bytes_per_s`` the GPU's memory bandwidth where the GPU that ran is a variant the catalog does not list
    (0: the catalog's figure for the GPU), such as Meta's Grand Teton H100 with 96 GB of HBM2e at 2.4 TB/s;
    ``power_limit_w`` the board power limit the GPUs ran at, W, where it is below the part's rated one (0: the rated
    limit): the tensor-core rates keep :meth:`~interconnect.topics.seating.kernels.KernelFigures.power_scale` of
    the family's, such as the Grand Teton H100s at their default 500 W;
    ``ddp`` how the data-parallel gradients are cut and when they move: ``bucketed`` (``bucket_bytes`` buckets, or
    one per layer, reduced while the last backward runs: PyTorch DDP, FSDP), ``megatron-core`` (Megatron-Core's
    DistributedDataParallel default, buckets of max(40M, 1M x DP) parameters, overlapped the same way) or
    ``after-backward`` (the whole gradient buffer in one call after the last backward, nothing overlapped:
    Megatron-LM 2021's ``--DDP-impl local``, its default, megatron/training.py train_step at 6985e58) or
    ``per-tensor`` (DeepSpeed's ZeRO-3 of 2021: each weight matrix all-gathered in its own call, see
    :data:`interconnect.topics.seating.model.stacks.DEEPSPEED_GATHERED_PER_LAYER`, and the gradients, without
    ``contiguous_gradients``, its default, all-reduced whole in buckets of
    :data:`interconnect.topics.seating.model.stacks.DEEPSPEED_ALLREDUCE_ELEMENTS` beside the backward pass, each bucket
    flattened, divided and copied back, rule R25) or ``deepspeed-bf16`` (DeepSpeed's
    BF16_Optimizer under its pipeline engine, as BLOOM trained: every micro-batch's gradients are cast to FP32 and
    added into FP32 buffers, :data:`interconnect.topics.seating.model.stacks.BF16_ACCUMULATION_BYTES` of HBM a
    parameter, and after the last micro-batch those buffers are all-reduced whole, in buckets of
    :data:`interconnect.topics.seating.model.stacks.DEEPSPEED_ALLREDUCE_ELEMENTS`, even under its ZeRO-1; rule R35
    of ``training-runs.toml``);
    ``expert_gemm`` how a mixture of experts' local experts run their GEMMs: ``grouped`` (one kernel for all of
    them, each expert's GEMM costing its FLOPs) or ``per-expert`` (Transformer Engine's GroupedLinear, which
    Megatron-Core's ``--moe-grouped-gemm`` uses: one cuBLASLt GEMM per local expert issued over several CUDA
    streams, each call paying a fixed cost however few tokens it has, see
    :data:`interconnect.topics.seating.model.step.PER_EXPERT_GEMM_S`);
    ``memory_bytes`` the GPU's memory, B, where the GPU that ran is a variant the catalog does not list (0: the
    catalog's usable figure), such as the Grand Teton H100 with 96 GB of HBM2e;
    ``offload_layers`` the transformer layers whose activations are copied to the host during the forward pass and
    back for the backward (Megatron-Core's ``cpu_offloading_num_layers``, which runs through Transformer Engine's CPU
    offload context; Megatron-Core allows it only without pipeline parallelism and without recomputation,
    megatron/core/transformer/transformer_config.py at 6cc29a2): memory only, the copies are taken as hidden;
    ``pipeline_fsdp_unsharded`` whether, with pipeline parallelism and more than one micro-batch per step, ZeRO-2/3
    keep the stage's weights gathered and its gradients whole until the last micro-batch (PyTorch FSDP2 under
    PyTorch's pipelining, as torchtitan runs it; memory only, see ``step._memory``);
    ``loss_fp32_copies`` how many FP32 tensors the size of the output layer's logits are alive at the loss's peak: 1
    for Megatron-Core's vocab-parallel cross entropy, which casts the logits to FP32 once and turns them into the
    softmax and its gradient in place (megatron/core/tensor_parallel/cross_entropy.py at 6cc29a2), 3 for PyTorch's
    ``cross_entropy`` on logits cast to FP32 (torchtitan's loss at 9dec370, train.py ``loss_fn``): its backward
    holds the saved log-softmax, the gradient arriving at it and the gradient it returns at once.
    ``loss_bytes_per_logit`` the bytes the loss's memory-bound passes read and write per logit, forward and backward
    together, on the last stage (rule R59 of training-runs.toml): 52 for Megatron-Core's unfused vocab-parallel cross
    entropy and Megatron-LM 2021's (the cast to FP32, 6; max, 4; subtract, exp and divide in place, 8 each; sum, 4;
    the backward's in-place multiply, 8; the gradient's cast back to BF16, 6), 10 for Transformer Engine's fused
    Triton kernels as Megatron-Bridge's performance recipes set them, 48 for PyTorch's ``cross_entropy`` on logits
    cast to FP32 (torchtitan).
    ``zero3_fetch`` when ZeRO-3 gathers the weights: ``prefetch`` (a layer ahead, beside the compute, kept for the
    backward pass when recomputation does not drop them: FSDP, DeepSpeed since mid-2021) or ``on-demand`` (each
    module's weights gathered when it runs and waited for before its compute, released after every use, so again
    in the recomputed forward and in the backward: DeepSpeed's ZeRO-3 of April 2021, whose prefetch never fired,
    rule R31 of ``training-runs.toml``);
    ``grad_accumulation`` how the 16-bit weight gradients of each micro-batch are added to the step's (the
    ``deepspeed-bf16`` mode of ``ddp`` has its own): ``fused`` (inside the weight-gradient GEMM, which writes into
    the accumulation buffer: Megatron-LM since February 2022 and Megatron-Core, ``gradient_accumulation_fusion``;
    or the gradients are sharded and reduced every micro-batch; nothing charged), ``buffer`` (a separate add of
    every micro-batch's gradient into a contiguous buffer in a backward hook: Megatron-LM 2021's local DDP,
    ``param.main_grad.add_(param.grad)``, 2 bytes read and the buffer's bytes read and written a parameter) or
    ``autograd`` (PyTorch's own in-place add into ``.grad`` from the second micro-batch on, the first assigning it:
    PyTorch DDP under ``no_sync`` and DeepSpeed's ZeRO-1 without ``overlap_comm``, 3 x 2 bytes a parameter); see
    :func:`interconnect.topics.seating.model.stacks.accumulation_bytes`, rule R36 of ``training-runs.toml``;
    ``fsdp2_copies`` whether ZeRO-3 is PyTorch's FSDP2 (as torchtitan runs it), which moves every gathered weight and
    every reduced gradient through HBM outside its collectives: the copy-in and copy-out of each all-gather, the
    reduce-scatter's copy-in in the reduce dtype and, under PyTorch's pipelining, the FP32 accumulation of the
    unsharded gradients (:func:`interconnect.topics.seating.model.stacks.fsdp2_copy_bytes`, rule R37 of
    ``training-runs.toml``);
    ``fp8_param_gather`` whether, in FP8 training, ZeRO gathers the weights in FP8, one byte a weight, not two
    (Megatron-Core's ``fp8_param_gather``, which Megatron-Bridge's FP8 presets turn on; rule R40);
    ``recompute_modules`` Megatron-Core's output-discarding recomputation modules (``--recompute-modules``, with
    ``--recompute-granularity selective``; megatron/core/transformer/transformer_config.py of core_r0.15/0.16) besides
    ``recompute``, which keeps its meaning (``selective`` is Megatron-Core's "core_attn", ``none`` without it): each
    module runs under a checkpoint that frees its outputs once the next operator has used them and runs it again when
    the backward pass reaches them, so they leave the stored activations and their forward work joins the backward
    pass. ``mla_up_proj`` (multi-head latent attention only): the latents' norms, the query and key-value
    up-projections and the rotary embedding, whose outputs are the normed latents, the queries, keys and values
    (multi_latent_attention.py, ``qkv_up_proj_and_rope_apply`` under ``CheckpointWithoutOutput``); ``layernorm``: the
    norms that are modules of their own, the pre-MLP norm of a mixture of experts' layer (before the router) and the
    input norm under MLA (before the down-projections); other norms are fused into the GEMM that follows them
    (Transformer Engine's LayerNormLinear; the layer's own norm is an ``IdentityOp``, gpt_layer_specs.py) and stay
    stored; ``moe_act``: the routed experts' activation function, whose output is the second expert GEMM's input
    (experts.py, ``TEGroupedMLP``). In FP8 the GEMMs after ``layernorm`` and ``moe_act`` keep the 16-bit input that is
    freed, not an FP8 copy (``set_save_original_input``). Ignored under ``full`` recomputation; see
    :func:`interconnect.topics.seating.model.memory.recompute_module_bytes`.
    ``recompute_num_layers`` (``full`` recomputation only; 0: every layer) recomputes whole only the first that many
    layers of each model chunk, the rest keeping what ``none`` keeps: Megatron-Core's ``recompute_method`` "block"
    (megatron/core/transformer/transformer_block.py, ``_checkpointed_forward``: layers below
    ``recompute_num_layers`` of the chunk run under a checkpoint, the others plainly); see
    :func:`interconnect.topics.seating.model.memory.full_recompute_share`.
    ``ep_a2a_overlap`` runs a mixture of experts' dispatch and combine all-to-alls beside another micro-batch's compute
    in the 1F1B steady state, Megatron-Core's ``overlap_moe_expert_parallel_comm`` with ``delay_wgrad_compute``
    (rule R45 of ``training-runs.toml``;
    :func:`interconnect.topics.seating.model.architecture.a2a_overlap_pair_s`); it needs EP > 1 to change anything
    and refuses full recomputation, as Megatron-Core does.
    ``mtp_layers`` the multi-token-prediction depths trained beside the model (DeepSeek-V3: 1; 0: none), each run on
    the last pipeline stage after the decoder as Megatron-Core runs it (megatron/core/transformer/
    multi_token_prediction.py): the norms of the shifted tokens' embedding and of the decoder's output, a projection
    of 2h to h, one more transformer layer like the model's, and the shared output layer with its own loss; its
    weights are extra to the model's count, with a copy of the input embedding on that stage when it is not the
    first (see :func:`interconnect.topics.seating.model.architecture.mtp_params`, rule R46 of ``training-runs.toml``);
    ``last_stage_layers`` the transformer layers on the last pipeline rank, over all its model chunks, where a
    pipeline layout fixes them (0: the even split of :func:`~interconnect.topics.seating.model.schedules.stage_layers`;
    Megatron-Core's ``num_layers_in_last_pipeline_stage``); the other ranks share the rest evenly.
    ``chunk_dp_sync`` which data-parallel syncs Megatron-Core's interleaved schedule starts one model chunk at a time
    (rule R53 of ``training-runs.toml``; it acts with the interleaved schedule, more than one chunk a rank, Megatron's
    pipeline engine and ZeRO-0/1): ``grads-params`` (the default, the Megatron-Core family's: each chunk's gradients
    reduced once its last micro-batch's backward is done, each chunk's weights gathered from the warm-up's forwards,
    ``grad_sync_func`` and ``param_sync_func``), ``grads`` (the gradients so, the weights gathered bucket after bucket
    as the forward reaches them: Megatron-Core r0.8 without ``--delay-param-gather``) or ``""`` (neither: the syncs
    hide behind the step's last backward and first forward only, as every other stack runs them); see
    :func:`interconnect.topics.seating.model.data_parallel.chunked_sync_exposed_s`.
    ``p2p_blocking`` whether the 1F1B schedule without interleaving waits for each stage-boundary exchange before its
    next forward or backward, as Megatron-LM's does at every version read (rule R54 of ``training-runs.toml``: the
    requests waited for and the device synchronized after each batched exchange); it acts with the ``1f1b`` schedule,
    Megatron's pipeline engine and PP > 1, and charges the transfers of
    :func:`~interconnect.topics.seating.model.schedules.blocking_1f1b_sends` as exposed, none hidden. PyTorch's
    Schedule1F1B, torchtitan's, waits in the same order (rule R57). False: only the sends of filling and draining the
    pipeline wait.
    ``dp_bucket_params`` the gradient bucket, in parameters, that a recipe hands Megatron-Core's
    DistributedDataParallel (``ddp = "megatron-core"`` only; 0: Megatron-Core's own max(40M, 1M x DP));
    Megatron-Bridge's performance recipes set 128 x 1024 x 1024 (rule R55 of ``training-runs.toml``; see
    :func:`interconnect.topics.seating.model.data_parallel.megatron_core_bucket_params`).
    ``interleaved_p2p`` how the interleaved schedule's stage-boundary exchanges run: ``overlap`` (the default,
    Megatron-Core's, which turns ``overlap_p2p_comm`` on with interleaving: the sends of filling and draining the
    pipeline exposed, the rest beside compute) or ``blocking`` (Megatron-LM of 2021-2022, rule R56 of
    ``training-runs.toml``: one batched exchange with both neighbours after each forward-backward chunk pair, waited
    for and followed by a device synchronize, then a TP gather per tensor received without sequence parallelism); it
    acts with the ``interleaved`` schedule, Megatron's pipeline engine and PP > 1, and charges the transfers and
    gathers of :func:`~interconnect.topics.seating.model.schedules.blocking_interleaved_transfers` as exposed, none
    hidden.
    ``stack`` the training stack whose defaults filled the fields above (a key of
    :data:`~interconnect.topics.seating.model.STACKS`, or ``other``; "": not said). The step ignores it; the error
    band reads it to pick the published runs like this case (:mod:`interconnect.topics.seating.accuracy`).
    """

    micro_batch: int = 1
    global_batch: int = 256
    seq_len: int | None = None
    dtype_bytes: int = 2
    recompute: str = "selective"
    sequence_parallel: bool = True
    compute_efficiency: float | None = None
    bucket_bytes: float = 25e6
    schedule: str = "1f1b"
    virtual_stages: int = 0
    lighter_ends: bool = False
    attention: str = "flash"
    dropout: bool = False
    pipeline_engine: str = "megatron"
    context_parallel: str = "ring"
    grad_bytes: int = 0
    tp_comm_overlap: bool = False
    tp_overlap_config: str = ""
    fp8_recipe: str = "delayed"
    selective_policy: str = "megatron"
    hbm_bytes_per_s: float = 0.0
    power_limit_w: float = 0.0
    ddp: str = "bucketed"
    expert_gemm: str = "grouped"
    memory_bytes: float = 0.0
    offload_layers: int = 0
    pipeline_fsdp_unsharded: bool = False
    loss_fp32_copies: int = 1
    loss_bytes_per_logit: float = 52.0
    zero3_fetch: str = "prefetch"
    grad_accumulation: str = "fused"
    fp8_param_gather: bool = False
    fsdp2_copies: bool = False
    recompute_modules: tuple[str, ...] = ()
    recompute_num_layers: int = 0
    ep_a2a_overlap: bool = False
    mtp_layers: int = 0
    last_stage_layers: int = 0
    cp_waits_at_issue: bool = False
    chunk_dp_sync: str = "grads-params"
    p2p_blocking: bool = True
    dp_bucket_params: float = 0.0
    interleaved_p2p: str = "overlap"
    stack: str = ""

    @property
    def tp_userbuffers(self) -> bool:
        """Whether TP's all-gathers and reduce-scatters run inside the GEMMs: asked for, with sequence parallelism.

        Without sequence parallelism TP has no all-gather or reduce-scatter to hide, so the overlap does not act (with
        TP 1 there is nothing to overlap either; the layout decides that).

        >>> Workload(tp_comm_overlap=True).tp_userbuffers, Workload(tp_comm_overlap=True,
        ...                                                          sequence_parallel=False).tp_userbuffers
        (True, False)
        """
        return bool(self.tp_comm_overlap and self.sequence_parallel)

    def tokens(self, model: ModelPreset) -> int:
        """Return the sequence length in tokens: the workload's, else the model's pre-training length.

        Parameters
        ----------
        model : ModelPreset
            The model.

        Returns
        -------
        int
            Tokens per sequence.

        Examples
        --------
        >>> from interconnect.workloads.presets import load_model_presets
        >>> Workload().tokens(load_model_presets()["llama3-8b"]), Workload(seq_len=4096).tokens(None)
        (8192, 4096)
        """
        return int(self.seq_len or model.seq_len)




def layout_problems(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload) -> list[str]:
    """Say why a layout cannot run, one sentence each.

    Parameters
    ----------
    model : ModelPreset
        The model (heads, layers, experts).
    cluster : Cluster
        The cluster (GPU count).
    layout : Layout
        The degrees.
    workload : Workload
        Batch and sequence length.

    Returns
    -------
    list of str
        Empty when the layout can run.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.workloads.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> for problem in layout_problems(load_model_presets()["llama3-8b"], cluster, Layout(tp=3, dp=2), Workload()):
    ...     print(problem[:59])
    TP × PP × DP × CP = 3 × 1 × 2 × 1 = 6 GPUs, but the cluster
    TP = 3 does not divide the model's 32 attention heads.
    """
    problems: list[str] = []
    degrees = {"TP": layout.tp, "PP": layout.pp, "DP": layout.dp, "CP": layout.cp, "EP": layout.ep}
    for name, value in degrees.items():
        if value < 1:
            problems.append(f"{name} must be at least 1 (got {value}).")
    if problems:
        return problems
    if layout.gpus != cluster.ranks:
        problems.append(f"TP × PP × DP × CP = {layout.tp} × {layout.pp} × {layout.dp} × {layout.cp} = "
                        f"{layout.gpus:,} GPUs, but the cluster has {cluster.ranks:,}; the degrees must multiply "
                        f"to the GPU count.")
    if model.heads % layout.tp:
        problems.append(f"TP = {layout.tp} does not divide the model's {model.heads} attention heads.")
    if layout.pp > model.layers:
        problems.append(f"PP = {layout.pp} is more stages than the model's {model.layers} layers.")
    if workload.schedule not in SCHEDULES:
        problems.append(f"Schedule '{workload.schedule}' is not one of {', '.join(SCHEDULES)}.")
    elif workload.schedule == "dualpipe" and layout.pp % 2:
        problems.append(f"DualPipe needs an even number of pipeline stages (got PP = {layout.pp}).")
    if workload.recompute not in ("none", "selective", "full"):
        problems.append(f"Recomputation '{workload.recompute}' is not none, selective or full.")
    if workload.recompute_num_layers < 0:
        problems.append(f"Recompute layers {workload.recompute_num_layers} is negative; 0 recomputes every layer.")
    elif workload.recompute_num_layers and workload.recompute != "full":
        problems.append(f"Recomputing {workload.recompute_num_layers} whole layers per model chunk needs full "
                        f"recomputation (got '{workload.recompute}').")
    if workload.ep_a2a_overlap and workload.recompute == "full":
        problems.append("Overlapping the expert all-to-alls with another micro-batch's compute does not run with full "
                        "recomputation (Megatron-Core refuses the pair); choose selective or none.")
    if workload.mtp_layers < 0:
        problems.append(f"Multi-token prediction depth {workload.mtp_layers} is negative; 0 trains none.")
    if workload.last_stage_layers < 0:
        problems.append(f"Last-stage layers {workload.last_stage_layers} is negative; 0 splits the layers evenly.")
    elif workload.last_stage_layers and layout.pp < 2:
        problems.append(f"Fixing the last pipeline stage's layers ({workload.last_stage_layers}) needs pipeline "
                        f"parallelism (got PP = {layout.pp}).")
    elif workload.last_stage_layers and workload.last_stage_layers > model.layers - (layout.pp - 1):
        problems.append(f"The last stage's {workload.last_stage_layers} layers leave fewer than one of the model's "
                        f"{model.layers} for each of the other {layout.pp - 1} stages.")
    unknown = [m for m in workload.recompute_modules if m not in RECOMPUTE_MODULES]
    if unknown:
        problems.append(f"Recompute module(s) {', '.join(repr(m) for m in unknown)} not one of "
                        f"{', '.join(RECOMPUTE_MODULES)}.")
    if "mla_up_proj" in workload.recompute_modules and not model.is_mla:
        problems.append(f"Recompute module 'mla_up_proj' needs multi-head latent attention; {model.name} has none.")
    if "moe_act" in workload.recompute_modules and not model.is_moe:
        problems.append(f"Recompute module 'moe_act' needs a mixture-of-experts model; {model.name} has no experts.")
    if not workload.dp_bucket_params >= 0:
        problems.append(f"Data-parallel bucket {workload.dp_bucket_params:g} parameters: it must be 0 "
                        "(Megatron-Core's own size) or more.")
    for label, value, choices in (("Interleaved exchange mode", workload.interleaved_p2p, INTERLEAVED_P2PS),
                                  ("Chunk-wise data-parallel sync", workload.chunk_dp_sync, CHUNK_DP_SYNCS),
                                  ("Data-parallel mode", workload.ddp, DDP_MODES),
                                  ("Expert GEMM mode", workload.expert_gemm, EXPERT_GEMMS),
                                  ("ZeRO-3 fetch mode", workload.zero3_fetch, ZERO3_FETCHES),
                                  ("Gradient accumulation", workload.grad_accumulation, GRAD_ACCUMULATIONS),
                                  ("Selective recomputation policy", workload.selective_policy, SELECTIVE_POLICIES)):
        if value not in choices:
            problems.append(f"{label} '{str(value)[:40]}' is not one of {', '.join(repr(c) for c in choices)}.")
    if workload.offload_layers < 0 or workload.offload_layers >= model.layers:
        problems.append(f"Activation offload must cover 0 to {model.layers - 1} layers "
                        f"(got {workload.offload_layers}).")
    if workload.loss_fp32_copies < 1:
        problems.append(f"The loss keeps at least one FP32 copy of the logits (got {workload.loss_fp32_copies}).")
    if not workload.loss_bytes_per_logit >= 0:
        problems.append(f"The loss's bytes per logit must be 0 or more (got {workload.loss_bytes_per_logit}).")
    if workload.tokens(model) % layout.cp:
        problems.append(f"CP = {layout.cp} does not divide the sequence length of {workload.tokens(model):,} tokens.")
    if layout.ep > 1 and not model.is_moe:
        problems.append(f"EP = {layout.ep} needs a mixture-of-experts model; {model.name} has no experts.")
    elif layout.ep > 1:
        if model.experts % layout.ep:
            problems.append(f"EP = {layout.ep} does not divide the model's {model.experts} experts.")
        if (layout.tp * layout.cp * layout.dp) % layout.ep:
            problems.append(f"EP = {layout.ep} must divide TP × CP × DP = {layout.tp * layout.cp * layout.dp} (the "
                            f"expert layers are laid out on the ranks of one pipeline stage with expert TP 1, "
                            f"Megatron-Core's MoE parallel folding).")
    if layout.zero not in (0, 1, 2, 3):
        problems.append(f"ZeRO stage must be 0, 1, 2 or 3 (got {layout.zero}).")
    batch = layout.dp * workload.micro_batch
    if workload.global_batch % batch:
        problems.append(f"The global batch of {workload.global_batch:,} sequences is not a multiple of DP × "
                        f"micro-batch = {batch:,}.")
    return problems


def check_layout(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload) -> None:
    """Raise :class:`LayoutError` with every problem of the layout, or return quietly.

    Parameters
    ----------
    model, cluster, layout, workload
        As for :func:`layout_problems`.

    Returns
    -------
    None
        When the layout can run.

    Raises
    ------
    LayoutError
        With every sentence of :func:`layout_problems`.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.workloads.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> check_layout(load_model_presets()["llama3-8b"], cluster, Layout(tp=8), Workload(global_batch=8))
    """
    problems = layout_problems(model, cluster, layout, workload)
    if problems:
        raise LayoutError(" ".join(problems))




def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, int(math.isqrt(n)) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))
