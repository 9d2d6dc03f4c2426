"""Published training runs (``data/published/training-runs.toml``) and what the seating model says of them.

Each run is a model shape, a cluster, a layout and a workload as its paper gives them, with the
throughput per GPU the paper reports; :mod:`interconnect.topics.seating.reference_data` reads and checks the
file (its record's fields are a run's keys), and :class:`ReferenceRun` adds what the model needs of one.
:func:`predict` runs :func:`~interconnect.topics.seating.model.plan` on it with the sourced kernel figures
(nothing set per run) and counts the FLOPs the way the paper counted them, so that model / paper compares
like with like.

>>> runs = load_reference_runs()
>>> len(runs) >= 10, len({r.source for r in runs}) >= 5
(True, True)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from interconnect.datafiles.presets import MLA_KEYS
from interconnect.hardware.cluster import Cluster, resolve_cluster
from interconnect.topics.seating.model import Layout, Plan, Stack, Workload, plan, stack_for_run
from interconnect.topics.seating.reference_data import PublishedRun, ReferenceRunDataError, packaged_training_runs
from interconnect.workloads.presets import ModelPreset

__all__ = ["Prediction", "PublishedRun", "ReferenceRun", "ReferenceRunDataError", "load_reference_runs", "paper_flops",
           "predict", "reference_sources"]

_PRECISION_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1}


class ReferenceRun(PublishedRun):
    """One published run as the model sees it: the record's fields, and its model, cluster, layout and workload.

    The fields are :class:`~interconnect.topics.seating.reference_data.PublishedRun`'s (a ``[[run]]``'s keys).
    """

    def model(self) -> ModelPreset:
        """Return the run's model as a preset (id ``ref:<run id>``)."""
        return ModelPreset(id=f"ref:{self.id}", name=self.name, params=self.params, layers=self.layers,
                           hidden=self.hidden, ffn_hidden=self.ffn, heads=self.heads, kv_heads=self.kv_heads,
                           vocab=self.vocab, seq_len=self.seq_len, experts=self.experts, top_k=self.top_k,
                           active_params=self.flop_params, source_ids=(), note=self.note,
                           tied_embeddings=self.tied_embeddings, attention_head_dim=self.head_dim,
                           attention_window=self.attention_window, window_layers=self.window_layers,
                           **{key: getattr(self, key) for key in MLA_KEYS})

    def cluster(self) -> Cluster:
        """Return the run's cluster: 8 GPUs per node, its NIC, its NVLink domain (8, or 72 on GB200 NVL72)."""
        per_node = min(8, self.gpus)
        cluster, _ = resolve_cluster(self.gpu, gpus_per_node=per_node, nodes=max(1, self.gpus // per_node),
                                     nic=self.nic, nics_per_node=self.nics_per_node,
                                     scaleup_domain=max(per_node, self.nvlink_domain))
        return cluster

    def layout(self) -> Layout:
        """Return the run's degrees and ZeRO stage."""
        return Layout(tp=self.tp, pp=self.pp, dp=self.dp, cp=self.cp, ep=self.ep, zero=self.zero)

    def workload(self) -> Workload:
        """Return the run's batch, sequence, recomputation, schedule and precision (kernels sourced)."""
        return Workload(micro_batch=self.micro_batch, global_batch=self.global_batch, seq_len=self.seq_len,
                        dtype_bytes=_PRECISION_BYTES[self.precision], recompute=self.recompute,
                        sequence_parallel=self.sequence_parallel, schedule=self.schedule,
                        virtual_stages=self.virtual_stages, lighter_ends=self.uneven_stages,
                        attention=self.attention_kernel, dropout=self.dropout,
                        pipeline_engine=self.pipeline_engine, context_parallel=self.context_parallel_mode,
                        grad_bytes=self.grad_bytes, bucket_bytes=0.0 if self.dp_bucket_per_layer else 25e6,
                        tp_comm_overlap=self.tp_overlap, tp_overlap_config=self.tp_overlap_config,
                        fp8_recipe=self.fp8_recipe or "delayed",
                        selective_policy=self.stack_row.selective_policy,
                        hbm_bytes_per_s=self.hbm_tb_s * 1e12, power_limit_w=self.power_limit_w,
                        ddp=self.ddp_mode, expert_gemm=self.expert_gemm_mode,
                        memory_bytes=self.memory_gb * 1e9, offload_layers=self.offload_layers,
                        pipeline_fsdp_unsharded=self.stack_row.fsdp2,
                        loss_fp32_copies=self.stack_row.loss_fp32_copies,
                        loss_bytes_per_logit=self.stack_row.loss_bytes_per_logit, zero3_fetch=self.zero3_fetch_mode,
                        grad_accumulation=self.grad_accumulation_mode,
                        fp8_param_gather=self.precision == "fp8" and self.stack_row.fp8_param_gather,
                        fsdp2_copies=self.stack_row.fsdp2, recompute_modules=tuple(self.recompute_modules),
                        recompute_num_layers=self.recompute_num_layers, ep_a2a_overlap=self.ep_a2a_overlap,
                        mtp_layers=self.mtp_layers, last_stage_layers=self.last_stage_layers,
                        cp_waits_at_issue=self.cp_waits_at_issue, chunk_dp_sync=self.chunk_dp_sync_mode,
                        p2p_blocking=self.stack_row.p2p_blocking,
                        dp_bucket_params=float(self.dp_bucket_params), interleaved_p2p=self.interleaved_p2p_mode,
                        stack=self.stack_row.id)

    # the stack's defaults (selective-recomputation policy, FP32 copies of the logits at the loss, FSDP2's copies and
    # gathered weights under a pipeline, FP8 weight gathers ...) are its row of the stack table, the same row the
    # Seating chart page and `plan` use for a stack a user picks (model/stack_defaults.py, with their sources)

    @property
    def stack_row(self) -> Stack:
        """The run's row of the stack table (:data:`~interconnect.topics.seating.model.STACKS`), by its ``stack``."""
        return stack_for_run(self.stack)

    @property
    def megatron_core(self) -> bool:
        """Whether the run's stack is Megatron-Core's (Megatron-Bridge, NeMo or Megatron-Core itself), by its row of the
        stack table: those rows, and only those, run attention through Transformer Engine (``Stack.te_attention``)."""
        return self.stack_row.te_attention

    @property
    def torchtitan(self) -> bool:
        """Whether the run's stack is torchtitan's, by its name."""
        return self.stack_row.id == "torchtitan"

    @property
    def expert_gemm_mode(self) -> str:
        """How the run's experts ran their GEMMs (rule R24 of training-runs.toml, written before the comparison).

        A mixture of experts trained with Megatron-Core (Megatron-Bridge, NeMo, Megatron-Core) ran its experts
        through Transformer Engine's GroupedLinear, one cuBLASLt GEMM per local expert ("per-expert"): Megatron-
        Bridge's MoE model providers and performance configs set ``moe_grouped_gemm = True``, and the Megatron-Core
        MoE guide (megatron/core/transformer/moe/README.md) recommends ``--moe-grouped-gemm``; every other run
        "grouped".
        """
        return self.stack_row.expert_gemm if self.experts > 0 else "grouped"

    @property
    def context_parallel_mode(self) -> str:
        """How the run's CP ranks shared K and V (rule R32 of training-runs.toml, written before the comparison).

        torchtitan's ring attention with CP > 1 is PyTorch's experimental ``context_parallel`` ("pytorch": K and V
        repeated to the query heads and all-gathered, outputs merged and gradients accumulated in FP32, round-robin
        load balancing); every other run as its ``context_parallel`` key says.
        """
        if self.cp > 1 and self.context_parallel == "ring":
            return self.stack_row.cp_ring
        return self.context_parallel

    @property
    def chunk_dp_sync_mode(self) -> str:
        """Which data-parallel syncs the run's interleaved schedule started chunk by chunk (rule R53 of the runs file).

        The stack's (Megatron-Core, NeMo and Megatron-Bridge: gradients and weights; every other stack: none), but
        only the gradients for the stacks of mid-2024, Megatron-Core r0.8 and NeMo 24.07, whose weight gathers ran
        bucket after bucket unless delay_param_gather was given (Megatron-LM training.py at f2e5db402c; NeMo
        megatron_gpt_model.py at adcc72bfbb), which their sources do not give.

        Examples
        --------
        >>> from dataclasses import replace
        >>> run = next(r for r in load_reference_runs() if r.id == "mlm-readme-70b-768")
        >>> run.chunk_dp_sync_mode, replace(run, stack="Megatron-Bridge 25.11 (Megatron-Core)").chunk_dp_sync_mode
        ('grads', 'grads-params')
        """
        mode = self.stack_row.chunk_dp_sync
        if mode and ("Megatron-Core r0.8" in self.stack or "NeMo 24.07" in self.stack):
            return "grads"
        return mode

    @property
    def interleaved_p2p_mode(self) -> str:
        """How the run's interleaved schedule ran its stage-boundary exchanges (rule R56 of training-runs.toml).

        "blocking" where the run's ``stack`` names Megatron-LM of 2021 or 2022 (before Megatron-Core): each batched
        exchange with both neighbours waited for and followed by a device synchronize (megatron/p2p_communication.py
        at 6985e589); every other run "overlap", Megatron-Core's and the Workload's default. It acts only with the
        interleaved schedule.

        Examples
        --------
        >>> from dataclasses import replace
        >>> run = next(r for r in load_reference_runs() if r.id == "narayanan-145.6b-1536")
        >>> run.interleaved_p2p_mode, replace(run, stack="").interleaved_p2p_mode
        ('blocking', 'overlap')
        """
        return "blocking" if any(f"Megatron-LM ({year})" in self.stack for year in (2021, 2022)) else "overlap"

    @property
    def cp_waits_at_issue(self) -> bool:
        """Whether the run's CP ring waited for each collective where it issued it (rule R48 of training-runs.toml).

        PyTorch's ring compiled with the TransformerBlock (torchtitan with CP > 1 and torch.compile, as the run's
        ``stack`` names them): traced functional collectives wait right after the call, and nothing in the period's
        Inductor moved the wait later unless asked. Every other run: no.
        """
        return self.context_parallel_mode == "pytorch" and "torch.compile" in self.stack

    @property
    def grad_accumulation_mode(self) -> str:
        """How the run added each micro-batch's gradients to the step's (rule R36 of training-runs.toml, written first).

        The run's ``grad_accumulation`` where it sets one; else ``buffer`` for Megatron-LM 2021's local DDP (``ddp``
        "after-backward", whose backward hook adds every gradient into its contiguous buffer), and ``fused`` for
        every other run (Megatron-Core and Megatron-LM from 2022 fuse the add into the weight-gradient GEMM; ZeRO-2/3
        and FSDP runs reduce-scatter each micro-batch's gradients).
        """
        if self.grad_accumulation:
            return self.grad_accumulation
        return "buffer" if self.ddp_mode == "after-backward" else "fused"

    @property
    def zero3_fetch_mode(self) -> str:
        """When the run's ZeRO-3 gathered its weights (rule R31 of training-runs.toml, written before the comparison).

        DeepSpeed's ZeRO-3 of April 2021 (``stack`` "DeepSpeed ZeRO-3 (2021)") registered the root module's
        sub-module hook before the hook that resets the trace step, so the step ran one behind the recorded trace
        and its prefetcher returned nothing ("Tracing failed. Prefetching is disabled", deepspeed/runtime/zero/
        stage3.py at c83e49f, setup_zero_stage3_hooks and get_params_to_prefetch; the off-by-one DeepSpeed's
        maintainers traced in issue 1069 and fixed in pull request 1170): every module gathered its weights when it
        ran and waited for them ("on-demand"). Every other run "prefetch".
        """
        return "on-demand" if self.stack == "DeepSpeed ZeRO-3 (2021)" else "prefetch"

    @property
    def attention_kernel(self) -> str:
        """The attention kernel as the run's stack called it (rule R26 of training-runs.toml, written first).

        Megatron-Core, NeMo and Megatron-Bridge call attention through Transformer Engine's DotProductAttention,
        which on Hopper and newer GPUs prefers its FusedAttention backend (cuDNN) to FlashAttention whenever both
        can run ("Disabling FlashAttention to give FusedAttention preference on Hopper+ for performance reasons":
        NVIDIA/TransformerEngine transformer_engine/pytorch/attention.py at 4356938, June 2024, and
        attention/dot_product_attention/utils.py today): a "flash" run of those stacks on such a GPU ran "cudnn".
        Every other run keeps its ``attention``.
        """
        from interconnect.topics.seating.kernels import kernel_figures

        k = kernel_figures(self.gpu)
        sm90_or_newer = k is not None and k.family in ("hopper", "blackwell")
        te_prefers_cudnn = self.stack_row.te_attention and sm90_or_newer
        return "cudnn" if self.attention == "flash" and te_prefers_cudnn else self.attention

    @property
    def ddp_mode(self) -> str:
        """How the gradients moved across data parallelism: the run's ``ddp``, else the stack's default.

        Megatron-Core's DistributedDataParallel (Megatron-Bridge, NeMo, Megatron-Core runs that are not FSDP) sizes
        its buckets by the DP degree when the recipe sets none (Workload.ddp "megatron-core"); everything else
        reduces buckets of ``bucket_bytes`` or one layer at a time ("bucketed").
        """
        if self.ddp:
            return self.ddp
        return "bucketed" if self.dp_bucket_per_layer else self.stack_row.ddp

    @property
    def tp_overlap(self) -> bool:
        """Whether TP communication runs inside the GEMMs: the run's ``tp_comm_overlap``, else the stack's default.

        NeMo's and Megatron-Bridge's performance recipes switch Transformer Engine's userbuffers overlap on
        (NVIDIA/NeMo nemo/collections/llm/recipes/llama3_70b.py: MegatronCommOverlapCallback(tp_comm_overlap=True);
        NVIDIA-NeMo/Megatron-Bridge performance configs: CommOverlapConfig(tp_comm_overlap=True)); Megatron-LM's
        own default (--tp-comm-overlap) is off, and other stacks do not have it.
        """
        if self.tp_comm_overlap is not None:
            return self.tp_comm_overlap
        return self.stack_row.tp_comm_overlap


@functools.lru_cache(maxsize=1)
def _read() -> tuple[tuple[ReferenceRun, ...], dict[str, dict]]:
    runs, sources = packaged_training_runs()
    return tuple(ReferenceRun(**vars(run)) for run in runs), sources


def load_reference_runs() -> list[ReferenceRun]:
    """Read every ``[[run]]`` of ``training-runs.toml``.

    Returns
    -------
    list of ReferenceRun
        In file order.

    Examples
    --------
    >>> run = load_reference_runs()[0]
    >>> run.name, run.achieved_tflops, run.counts
    ('Llama 3 405B, 8,192 H100', 430, 'model')
    """
    return list(_read()[0])


def reference_sources() -> dict[str, dict]:
    """Return the ``[[source]]`` entries (title, url) of the reference runs by id.

    Returns
    -------
    dict of str to dict
        Title and url per source id.

    Examples
    --------
    >>> reference_sources()["llama3"]["url"]
    'https://arxiv.org/abs/2407.21783'
    """
    return dict(_read()[1])


def paper_flops(run: ReferenceRun) -> float:
    r"""FLOPs of one step counted the way the run's source counts them.

    Parameters
    ----------
    run : ReferenceRun
        The run.

    Returns
    -------
    float
        FLOP per step, all GPUs.

    Notes
    -----
    ``megatron-hardware`` and ``megatron-model``: Narayanan et al. 2021, eq. 3,

    .. math:: F = k \, B s l h^2 \left(1 + \frac{s}{6h} + \frac{V}{16 l h}\right)

    with :math:`k = 96` when full recomputation is counted, 72 otherwise. ``model``: PaLM's
    :math:`6N + 12 l h s` per token (arXiv 2204.02311, appendix B), with :math:`N` the parameters one token
    uses (``active_params`` for a mixture of experts).

    Examples
    --------
    >>> run = next(r for r in load_reference_runs() if r.id == "narayanan-1t-3072")
    >>> f"{paper_flops(run) / 3072 / 1e15:.1f} PFLOP per GPU per step"
    '16.7 PFLOP per GPU per step'
    """
    B, s, n_layers, h, V = run.global_batch, run.seq_len, run.layers, run.hidden, run.vocab
    if run.counts.startswith("megatron"):
        k = 96 if run.counts == "megatron-hardware" and run.recompute == "full" else 72
        return k * B * s * n_layers * h * h * (1 + s / (6 * h) + V / (16 * n_layers * h))
    return (6 * run.flop_params + 12 * n_layers * h * s) * B * s


@dataclass(frozen=True)
class Prediction:
    """What the model says of a run: its bill and the TFLOP/s per GPU counted as the paper counts."""

    run: ReferenceRun
    bill: Plan
    tflops: float

    @property
    def ratio(self) -> float:
        """Model / paper, achieved TFLOP/s per GPU."""
        return self.tflops / self.run.achieved_tflops


def predict(run: ReferenceRun) -> Prediction:
    """Run the seating model on a published run.

    Parameters
    ----------
    run : ReferenceRun
        The run.

    Returns
    -------
    Prediction
        The bill, and the predicted TFLOP/s per GPU counted as the source counts them.

    Examples
    --------
    >>> p = predict(load_reference_runs()[0])
    >>> 0.5 < p.ratio < 2.0
    True
    """
    bill = plan(run.model(), run.cluster(), run.layout(), run.workload())
    return Prediction(run, bill, paper_flops(run) / run.gpus / bill.step_s / 1e12)
