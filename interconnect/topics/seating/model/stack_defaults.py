"""The training stack as an input: what each stack does by default for the settings the model has, declared once.

One row per stack (:data:`STACKS`) holds its defaults for the fields of
:class:`~interconnect.topics.seating.model.layout.Workload` that a stack, not the user, decides, each with where
its code or recipe says so. The published runs read their stack-keyed defaults from this table
(:class:`~interconnect.topics.seating.reference_runs.ReferenceRun`, by the words of its ``stack``), and the Seating
chart page and ``interconnect plan`` read it for the stack a user picks
(:func:`stack_workload`), so a default is written in one place.

What the page and ``plan`` take from the chosen stack are the settings they have no input of their own for
(:data:`PLAN_FIELDS`): TP-communication overlap (with an ``auto`` / ``on`` / ``off`` input, ``auto`` the stack's),
the selective-recomputation policy, the FP32 copies of the logits at the loss, FSDP2's copies and its gathered weights
under a pipeline, PyTorch's ring for context parallelism, FP8 weight gathers, the pipeline engine, whether the
interleaved schedule starts the data-parallel syncs chunk by chunk and whether 1F1B waits for its exchanges. Three
defaults of the Megatron-Core family stay with the published runs only: its DistributedDataParallel's bucket sizing,
Transformer Engine's per-expert GEMMs and its preference for cuDNN attention on Hopper and newer GPUs; the page and
``plan`` keep their own 25 MB buckets, grouped expert GEMMs and attention-kernel input for every stack, as they always
have, so that a link or a command written before the stack existed reads the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from interconnect.topics.seating.model.layout import PLAN_DEFAULTS, Workload

__all__ = ["DEFAULT_STACK", "OTHER_STACK", "PLAN_FIELDS", "STACKS", "TP_OVERLAP_CHOICES", "Stack", "stack_for_run",
           "stack_workload", "tp_overlap_note"]


@dataclass(frozen=True)
class Stack:
    """What one training stack does by default, for the Workload fields a stack decides.

    ``name`` is how people write it (the NeMo and Megatron-Bridge rows are their performance recipes, as their
    published runs ran); ``words`` the words that name it in a published run's ``stack``
    (:func:`stack_for_run`);
    ``tp_comm_overlap`` Transformer Engine's userbuffers TP overlap; ``ddp`` the data-parallel mode when gradients
    are not reduced a layer at a time; ``expert_gemm`` how a mixture of experts' local experts run (``per-expert``:
    Transformer Engine's GroupedLinear); ``te_attention`` whether attention goes through Transformer Engine's
    DotProductAttention, which prefers cuDNN's fused attention on Hopper and newer GPUs; ``selective_policy``,
    ``loss_fp32_copies`` and ``pipeline_engine`` as the Workload's fields; ``fsdp2`` PyTorch FSDP2 as torchtitan runs
    it (its copies around each collective, Workload.fsdp2_copies, and its weights kept gathered under a pipeline,
    Workload.pipeline_fsdp_unsharded); ``cp_ring`` the Workload.context_parallel mode its ring attention is;
    ``fp8_param_gather`` whether FP8 training gathers the weights in FP8; ``source`` where the row is read from;
    ``chunk_dp_sync`` which data-parallel syncs its interleaved schedule starts chunk by chunk (Workload.chunk_dp_sync,
    rule R53 of training-runs.toml; "": none); ``p2p_blocking`` whether its 1F1B schedule without interleaving waits
    for each stage-boundary exchange (Workload.p2p_blocking, rule R54; torchtitan's PyTorch schedule too, rule R57);
    ``loss_bytes_per_logit`` the bytes its cross entropy's memory-bound passes move per logit (Workload's field, rule
    R59).
    """

    id: str
    name: str
    words: tuple[str, ...]
    tp_comm_overlap: bool
    ddp: str
    expert_gemm: str
    te_attention: bool
    selective_policy: str
    loss_fp32_copies: int
    fsdp2: bool
    cp_ring: str
    fp8_param_gather: bool
    pipeline_engine: str
    source: str
    chunk_dp_sync: str = ""
    p2p_blocking: bool = True
    loss_bytes_per_logit: float = 52.0

    def summary(self) -> str:
        """One line of what the stack sets on the page and in ``plan``.

        Examples
        --------
        >>> print(STACKS["nemo"].summary())
        NeMo: TP overlap on, chunk-by-chunk DP syncs when interleaved
        >>> print(*STACKS["torchtitan"].summary().split(", "), sep="\\n")
        torchtitan: TP overlap off
        op-level selective recomputation
        3 FP32 copies of the logits
        FSDP2 copies
        PyTorch's ring for CP
        >>> print(STACKS["deepspeed"].summary())
        DeepSpeed: TP overlap off, DeepSpeed's pipeline engine
        """
        parts = [f"TP overlap {'on' if self.tp_comm_overlap else 'off'}"]
        if self.selective_policy == "torchtitan-op":
            parts.append("op-level selective recomputation")
        if self.loss_fp32_copies != 1:
            parts.append(f"{self.loss_fp32_copies} FP32 copies of the logits")
        if self.fsdp2:
            parts.append("FSDP2 copies")
        if self.cp_ring == "pytorch":
            parts.append("PyTorch's ring for CP")
        if self.fp8_param_gather:
            parts.append("FP8 weight gathers")
        if self.pipeline_engine != "megatron":
            parts.append(f"{_ENGINE_NAMES.get(self.pipeline_engine, self.pipeline_engine)}'s pipeline engine")
        if self.chunk_dp_sync:
            parts.append("chunk-by-chunk DP syncs when interleaved")
        return f"{self.name}: {', '.join(parts)}"


#: How the pipeline engines are written in the stacks' summaries.
_ENGINE_NAMES = {"megatron": "Megatron-LM", "deepspeed": "DeepSpeed"}

_MCORE_DDP = ("Megatron-Core's DistributedDataParallel sizes its buckets by the DP degree when the recipe sets none "
              "(megatron/core/distributed/distributed_data_parallel_config.py)")
_TE_PATHS = ("Megatron-Core's MoE layers run their experts through Transformer Engine's GroupedLinear "
             "(--moe-grouped-gemm, megatron/core/transformer/moe/README.md; rule R24 of training-runs.toml) and its "
             "attention through DotProductAttention, which prefers FusedAttention (cuDNN) on Hopper and newer "
             "(NVIDIA/TransformerEngine attention/dot_product_attention/utils.py; rule R26)")

_MEGATRON_CORE = Stack(
    "megatron-core", "Megatron-Core", ("Megatron-Core",), tp_comm_overlap=False, ddp="megatron-core",
    expert_gemm="per-expert", te_attention=True, selective_policy="megatron", loss_fp32_copies=1, fsdp2=False,
    cp_ring="ring", fp8_param_gather=False, pipeline_engine="megatron", chunk_dp_sync="grads-params",
    source="Megatron-LM's own defaults: --tp-comm-overlap is off unless given (megatron/training/arguments.py); "
           f"{_MCORE_DDP}; {_TE_PATHS}; its vocab-parallel cross entropy casts the logits to FP32 once "
           "(megatron/core/tensor_parallel/cross_entropy.py); selective recomputation of the attention scores "
           "(Korthikanti et al. 2022, arXiv 2205.05198); with the interleaved schedule each model chunk's gradients "
           "are reduced and its weights gathered on their own, align_grad_reduce and align_param_gather being on "
           "unless switched off (megatron/training/arguments.py at core_v0.15.0; rule R53); without interleaving each "
           "pipeline exchange is waited for before the next forward or backward (megatron/core/pipeline_parallel/"
           "p2p_communication.py at core_v0.15.0: the requests waited for, then torch.cuda.synchronize() under "
           "batch_p2p_comm and batch_p2p_sync, both on by default; rule R54)")

#: The row for a published run whose stack is none of :data:`STACKS` (Megatron-LM before Megatron-Core, MosaicML's
#: llm-foundry, in-house stacks): the Workload's own defaults, except that no data-parallel sync is started chunk by
#: chunk (``chunk_dp_sync`` "", where the Workload's default is Megatron-Core's "grads-params"; rule R53).
OTHER_STACK = Stack("other", "another stack", (), tp_comm_overlap=False, ddp="bucketed", expert_gemm="grouped",
                    te_attention=False, selective_policy="megatron", loss_fp32_copies=1, fsdp2=False, cp_ring="ring",
                    fp8_param_gather=False, pipeline_engine="megatron",
                    source="the Workload's defaults: PyTorch DDP's 25 MB buckets, nothing of Transformer Engine's")

#: The stacks a user may pick, by link value (``stack=``, ``--stack``); the first is the default. NeMo's and
#: Megatron-Bridge's performance recipes are Megatron-Core with what the recipes switch on.
STACKS: dict[str, Stack] = {s.id: s for s in (
    _MEGATRON_CORE,
    replace(_MEGATRON_CORE, id="nemo", name="NeMo", words=("NeMo",), tp_comm_overlap=True,
            source="NVIDIA/NeMo nemo/collections/llm/recipes/llama3_70b.py: the performance recipe adds "
                   "MegatronCommOverlapCallback(tp_comm_overlap=True), with sequence parallelism; otherwise "
                   "Megatron-Core's defaults"),
    replace(_MEGATRON_CORE, id="megatron-bridge", name="Megatron-Bridge", words=("Megatron-Bridge",),
            tp_comm_overlap=True, fp8_param_gather=True, loss_bytes_per_logit=10.0,
            source="NVIDIA-NeMo/Megatron-Bridge performance configs: CommOverlapConfig(tp_comm_overlap=True) with "
                   "sequence parallelism, and its FP8 presets turn on fp8_param_gather (rule R40 of "
                   "training-runs.toml); the model providers' cross_entropy_loss_fusion (on) with "
                   "cross_entropy_fusion_impl 'te' set by the performance scripts (v0.2.0 utils/helpers.py, v0.3.0 "
                   "utils/overrides.py): Transformer Engine's Triton cross entropy, 10 bytes a logit (rule R59); "
                   "otherwise Megatron-Core's defaults"),
    Stack("torchtitan", "torchtitan", ("torchtitan",), tp_comm_overlap=False, ddp="bucketed", expert_gemm="grouped",
          te_attention=False, selective_policy="torchtitan-op", loss_fp32_copies=3, fsdp2=True, cp_ring="pytorch",
          fp8_param_gather=False, pipeline_engine="megatron", loss_bytes_per_logit=48.0,
          source="pytorch/torchtitan at 9dec370: selective_ac_option 'op' by default (parallelize_llama.py, "
                 "'Saves output of all compute ops, except every second mm'); the loss is PyTorch's cross_entropy on "
                 "FP32 logits (train.py, rule R29 of training-runs.toml); FSDP2 copies each gathered weight and "
                 "reduced gradient through HBM (rule R37) and, under PyTorch's pipelining, keeps the weights "
                 "gathered until the last micro-batch (rule R29); ring attention is PyTorch's experimental "
                 "context_parallel (rule R32); no TP-communication overlap of Transformer Engine's kind; its "
                 "pipeline is PyTorch's own: its Schedule1F1B waits for each steady-state exchange in Megatron-LM's "
                 "order (torch.distributed.pipelining schedules.py, rule R57), so its 1F1B is charged as R54 "
                 "charges Megatron-LM's; its interleaved schedule keeps the charge of filling and draining alone"),
    replace(OTHER_STACK, id="deepspeed", name="DeepSpeed", words=("DeepSpeed",), pipeline_engine="deepspeed",
            source="DeepSpeed's PipelineEngine runs pipeline parallelism with blocking sends and receives and reduces "
                   "the gradients after the last micro-batch (deepspeed/runtime/pipe/engine.py; as MT-NLG and BLOOM "
                   "trained, training-runs.toml); no TP-communication overlap; otherwise the plain defaults"),
)}

#: The stack the page and ``plan`` assume unless told: Megatron-Core, TP overlap off.
DEFAULT_STACK: str = PLAN_DEFAULTS["stack"]

#: TP-communication overlap as the page and ``plan`` take it: the stack's default, or on, or off.
TP_OVERLAP_CHOICES = {"auto": "The stack's default", "on": "On", "off": "Off"}

#: The Workload fields the page and ``plan`` take from the chosen stack (see the module's docstring); ``stack`` names
#: it, for the error band's rule of like stacks.
PLAN_FIELDS = ("tp_comm_overlap", "selective_policy", "loss_fp32_copies", "fsdp2_copies", "pipeline_fsdp_unsharded",
               "context_parallel", "fp8_param_gather", "pipeline_engine", "chunk_dp_sync", "p2p_blocking",
               "loss_bytes_per_logit", "stack")


def stack_for_run(stack: str) -> Stack:
    """The row of a published run's ``stack`` text: the one of :data:`STACKS` whose word comes first in it.

    A run's ``stack`` names the software that ran it first and what that builds on after, in brackets
    ("NeMo 24.07 (Megatron-Core)"), so the earliest word wins; a text naming none is :data:`OTHER_STACK`.

    Examples
    --------
    >>> [stack_for_run(s).id for s in ("Megatron-Bridge 25.11 (Megatron-Core)", "NeMo 24.07 (Megatron-Core)",
    ...                                "torchtitan (FSDP2, torch.compile)", "Megatron-LM (2021)")]
    ['megatron-bridge', 'nemo', 'torchtitan', 'other']
    """
    found = [(stack.find(word), i) for i, row in enumerate(STACKS.values()) for word in row.words if word in stack]
    return list(STACKS.values())[min(found)[1]] if found else OTHER_STACK


def stack_workload(workload: Workload, stack: str = DEFAULT_STACK, tp_overlap: str = "auto",
                   pipeline_engine: str | None = None) -> Workload:
    """The workload with the chosen stack's defaults for :data:`PLAN_FIELDS`.

    Parameters
    ----------
    workload : Workload
        What the page or the command line set (batch, precision, recomputation, CP mode ...).
    stack : str
        A key of :data:`STACKS`.
    tp_overlap : str
        ``auto`` (the stack's default), ``on`` or ``off``; it acts only with sequence parallelism and TP > 1
        (:func:`tp_overlap_note` says so).
    pipeline_engine : str, optional
        The pipeline engine where the user named one (``plan --pipeline-engine``); None: the stack's.

    Returns
    -------
    Workload
        With the stack's settings; for the default stack and ``auto``, fields equal to the Workload's defaults.

    Raises
    ------
    ValueError
        For a stack or TP-overlap choice that is not one of the declared ones (the page and the CLI check first).

    Examples
    --------
    >>> stack_workload(Workload()) == replace(Workload(), stack="megatron-core")
    True
    >>> w = stack_workload(Workload(), "nemo")
    >>> w.tp_comm_overlap, w.selective_policy
    (True, 'megatron')
    >>> stack_workload(Workload(), "torchtitan", "on").tp_comm_overlap
    True
    """
    if stack not in STACKS:
        raise ValueError(f"Unknown training stack '{stack[:40]}'; known: {', '.join(STACKS)}.")
    if tp_overlap not in TP_OVERLAP_CHOICES:
        raise ValueError(f"TP overlap must be {', '.join(TP_OVERLAP_CHOICES)} (got '{tp_overlap[:40]}').")
    row = STACKS[stack]
    overlap = row.tp_comm_overlap if tp_overlap == "auto" else tp_overlap == "on"
    ring = workload.context_parallel == "ring"
    return replace(workload, tp_comm_overlap=overlap, selective_policy=row.selective_policy,
                   loss_fp32_copies=row.loss_fp32_copies, fsdp2_copies=row.fsdp2, pipeline_fsdp_unsharded=row.fsdp2,
                   context_parallel=row.cp_ring if ring else workload.context_parallel,
                   fp8_param_gather=row.fp8_param_gather and workload.dtype_bytes == 1,
                   pipeline_engine=pipeline_engine or row.pipeline_engine, chunk_dp_sync=row.chunk_dp_sync,
                   p2p_blocking=row.p2p_blocking, loss_bytes_per_logit=row.loss_bytes_per_logit, stack=stack)


def tp_overlap_note(workload: Workload, tp: int | None, stack: str = DEFAULT_STACK, tp_overlap: str = "auto") -> str:
    """One sentence when TP-communication overlap was asked for but cannot act, else "".

    ``tp`` is the layout's TP degree (None: a search, where it acts on the layouts with TP > 1).

    Examples
    --------
    >>> print(*tp_overlap_note(stack_workload(Workload(sequence_parallel=False), "nemo"), 8, "nemo").split(": "),
    ...       sep=":\\n")
    TP-communication overlap (NeMo's default) needs sequence parallelism:
    without it TP has no all-gather or reduce-scatter to hide, so TP communication was not overlapped.
    >>> print(tp_overlap_note(stack_workload(Workload(), "nemo", "on"), 1, "nemo", "on")[:53])
    TP-communication overlap (on) needs TP > 1: with TP 1
    >>> tp_overlap_note(Workload(), 8)
    ''
    """
    if not workload.tp_comm_overlap:
        return ""
    why = f"{STACKS[stack].name}'s default" if tp_overlap == "auto" else tp_overlap
    if not workload.sequence_parallel:
        return (f"TP-communication overlap ({why}) needs sequence parallelism: without it TP has no all-gather or "
                "reduce-scatter to hide, so TP communication was not overlapped.")
    if tp is not None and tp <= 1:
        return (f"TP-communication overlap ({why}) needs TP > 1: with TP {tp} there is no TP communication, so "
                "nothing was overlapped.")
    return ""
