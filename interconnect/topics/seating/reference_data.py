"""``published/training-runs.toml``, read and checked: the published training runs the seating model is judged by.

Each ``[[run]]`` is one configuration as its paper gives it (model shape, GPUs and network, layout,
schedule, workload) with the throughput per GPU it reports; each ``[[source]]`` is a paper or report
the runs cite. The record :class:`PublishedRun` holds a run's fields as plain numbers and words; the
keys a ``[[run]]`` may hold are its fields (those with a default are optional), so a new field needs
no change here. Each run's ``[run.provenance]`` says where every model input (:data:`MODEL_INPUTS`) comes
from: ``"stated: "`` and a quote or an exact pointer into the source, or ``"inferred: "`` and the name of
one of the inference rules (``R1``, ``R2``, ...) that the file's header comment writes out. What the
seating model makes of a run is :mod:`interconnect.topics.seating.reference_runs`,
whose ``ReferenceRun`` adds the cluster, layout and workload to this record.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interconnect.catalog import CatalogError
from interconnect.datafiles.presets import MLA_KEYS
from interconnect.datafiles.records import CITED, Field, Record
from interconnect.datafiles.tables import DataFile, packaged_data_file
from interconnect.topics.seating.model.layout import RECOMPUTE_MODULES as _RECOMPUTE_MODULES

__all__ = ["MODEL_INPUTS", "OPTIONAL_INPUTS", "PublishedRun", "ReferenceRunDataError", "inference_rules",
           "load_training_runs", "packaged_training_runs"]

_DATA_FILE = "published/training-runs.toml"
#: A paper or report the runs cite; ``holdout = true`` puts its runs in the held-out set.
_SOURCE = Record("source", (*CITED.fields, Field("holdout", bool, required=False, default=False)))

#: The keys of a ``[[run]]`` the seating model reads (model shape, cluster, layout, workload, and the measured
#: figure with how it was counted); each needs a ``[run.provenance]`` entry.
MODEL_INPUTS = ("params", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "tied_embeddings",
                "gpu", "gpus", "nic", "nics_per_node", "tp", "cp", "pp", "dp", "ddp", "zero",
                "virtual_stages", "schedule", "uneven_stages", "recompute", "sequence_parallel", "precision",
                "attention", "dropout", "pipeline_engine", "context_parallel", "grad_bytes", "dp_bucket_per_layer",
                "seq_len", "global_batch", "micro_batch", "achieved_tflops", "counts",
                "stack", "fp8_recipe", "tp_comm_overlap", "tp_overlap_config", "active_params", "experts", "top_k",
                "shared_experts", "expert_ffn", "dense_ffn", "dense_layers", "ep", "head_dim", "attention_window",
                "window_layers", *MLA_KEYS, "nvlink_domain", "hbm_tb_s", "power_limit_w", "memory_gb", "offload_layers",
                "peak_memory_gib", "grad_accumulation", "recompute_modules", "recompute_num_layers",
                "ep_a2a_overlap", "mtp_layers", "last_stage_layers", "dp_bucket_params")
#: Model inputs a run may leave out (the record's default is then the value, rule R1, and no provenance entry is
#: needed); every other model input needs one.
OPTIONAL_INPUTS = frozenset({"tied_embeddings", "nics_per_node", "dropout", "pipeline_engine", "context_parallel",
                             "grad_bytes", "dp_bucket_per_layer", "stack", "fp8_recipe", "tp_comm_overlap",
                             "tp_overlap_config",
                             "active_params", "experts", "top_k", "shared_experts", "expert_ffn", "dense_ffn",
                             "dense_layers", "ep", "head_dim", "attention_window", "window_layers", *MLA_KEYS,
                             "nvlink_domain", "hbm_tb_s", "ddp",
                             "power_limit_w", "memory_gb", "offload_layers", "peak_memory_gib", "grad_accumulation",
                             "recompute_modules", "recompute_num_layers", "ep_a2a_overlap", "mtp_layers",
                             "last_stage_layers", "dp_bucket_params"})
#: Keys of a run that are not model inputs but may still carry a provenance entry.
_PROVENANCE_EXTRA = frozenset({"gated_mlp", "mfu"})
#: Model inputs that need no provenance entry: the software that ran is what the source's own title names.
_NO_PROVENANCE = frozenset({"stack"})
_STATED, _INFERRED = "stated: ", "inferred: "

_RULE_LINE = re.compile(r"^#\s+(R\d+)\s")
_RULE_USE = re.compile(r"^(R\d+)\b")


class ReferenceRunDataError(CatalogError):
    """``training-runs.toml`` is inconsistent; the message names the file, the run and the key."""


class _RunsFile(DataFile):
    error = ReferenceRunDataError


@dataclass(frozen=True)
class PublishedRun:
    """One published run: the fields of a ``[[run]]`` entry (counts as plain numbers).

    ``provenance`` maps each of :data:`MODEL_INPUTS` to where its value comes from (``"stated: ..."`` or
    ``"inferred: R<n> ..."``).
    """

    id: str
    name: str
    source: str
    table: str
    params: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    gated_mlp: bool
    gpu: str
    gpus: int
    nic: str
    tp: int
    cp: int
    pp: int
    dp: int
    virtual_stages: int
    schedule: str
    uneven_stages: bool
    recompute: str
    sequence_parallel: bool
    zero: int
    precision: str
    attention: str
    seq_len: int
    global_batch: int
    micro_batch: int
    achieved_tflops: float
    counts: str
    ran: bool
    checked: str
    note: str
    provenance: dict[str, str] = dataclasses.field(compare=False)  # not hashed: a dict
    nics_per_node: int | None = None
    mfu: float | None = None
    from_table: str = ""
    dropout: bool = False
    pipeline_engine: str = "megatron"
    context_parallel: str = "ring"
    grad_bytes: int = 0
    dp_bucket_per_layer: bool = False
    tied_embeddings: bool = False
    #: the software that ran the step (sets stack-dependent defaults, such as TP-communication overlap)
    stack: str = ""
    #: FP8 scaling recipe: "delayed", "current-scaling", "mxfp8", "blockwise" or "tensorwise" ("" for BF16)
    fp8_recipe: str = ""
    #: TP communication overlapped with the GEMMs (None: the stack's default, on for NeMo and Megatron-Bridge)
    tp_comm_overlap: bool | None = None
    #: the userbuffers configuration the recipe hands Transformer Engine, by Megatron-Bridge's name ("": TE's own)
    tp_overlap_config: str = ""
    #: MoE: parameters one token uses (None: all of ``params``), experts and their shape, expert parallelism
    active_params: float | None = None
    experts: int = 0
    top_k: int = 0
    shared_experts: int = 0
    expert_ffn: int = 0
    dense_ffn: int = 0
    dense_layers: int = 0
    ep: int = 1
    #: width of one attention head where heads x head_dim is not the hidden size (0: hidden / heads)
    head_dim: int = 0
    #: sliding-window attention: tokens before its own a query sees in a windowed layer, and the windowed layers
    #: (0: none; rule R41)
    attention_window: int = 0
    window_layers: int = 0
    #: multi-head latent attention's shape (rule R42; None: not MLA), as ModelPreset's fields of the same names
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None
    #: GPUs on one NVLink domain (GB200 NVL72: 72)
    nvlink_domain: int = 8
    #: the GPUs' memory bandwidth, TB/s, where the source states one the catalog's GPU does not have (0: the catalog's)
    hbm_tb_s: float = 0.0
    #: the GPUs' board power limit, W, where the source states one below the part's rated limit (0: the rated one)
    power_limit_w: float = 0.0
    #: how the data-parallel gradients moved ("bucketed", "megatron-core", "after-backward", "per-tensor",
    #: "deepspeed-bf16"; "": the stack's default)
    ddp: str = ""
    #: the GPUs' memory, GB, where the source states a variant the catalog's GPU does not have (0: the catalog's)
    memory_gb: float = 0.0
    #: transformer layers whose activations were offloaded to the host (Megatron-Core's cpu_offloading_num_layers)
    offload_layers: int = 0
    #: the peak memory per GPU the source measured, GiB (0: not given); compared with the model, never fed to it
    peak_memory_gib: float = 0.0
    #: how each micro-batch's gradients were added to the step's ("fused", "buffer", "autograd"; "": by rule R36)
    grad_accumulation: str = ""
    #: Megatron-Core's output-discarding recompute modules the run used besides ``recompute`` ("mla_up_proj",
    #: "layernorm", "moe_act"; Workload.recompute_modules; rule R44)
    recompute_modules: tuple[str, ...] = ()
    #: with recompute "full", the layers of each model chunk recomputed whole, the others not (Megatron-Core's
    #: recompute_method "block" with recompute_num_layers; 0: every layer; Workload.recompute_num_layers)
    recompute_num_layers: int = 0
    #: Megatron-Core's overlap_moe_expert_parallel_comm (the recipe's moe_a2a_overlap): the expert all-to-alls beside
    #: another micro-batch's compute in the 1F1B steady state (Workload.ep_a2a_overlap; rule R45)
    ep_a2a_overlap: bool = False
    #: multi-token-prediction depths trained beside the model (0: none; Workload.mtp_layers; rule R46)
    mtp_layers: int = 0
    #: transformer layers on the last pipeline rank where the run's layout fixes them (0: the even split;
    #: Workload.last_stage_layers; rule R46)
    last_stage_layers: int = 0
    #: parameters per gradient bucket the recipe handed Megatron-Core's DistributedDataParallel (0: none given,
    #: Megatron-Core's own max(40M, 1M x DP); Workload.dp_bucket_params; rule R55)
    dp_bucket_params: int = 0

    @property
    def flop_params(self) -> float:
        """Parameters one token uses: ``active_params`` for a mixture of experts, else ``params``."""
        return float(self.active_params) if self.active_params else float(self.params)


def _run_keys() -> tuple[dict[str, type], dict[str, type]]:
    """Return the keys of a ``[[run]]``: the record's fields and the type each must have (``X | None``: X).

    A ``tuple[...]`` field is a TOML array (a list).
    """
    hints = typing.get_type_hints(PublishedRun)
    required: dict[str, type] = {}
    optional: dict[str, type] = {}
    for field in dataclasses.fields(PublishedRun):
        kind: Any = hints[field.name]
        if isinstance(kind, types.UnionType):
            kind = next(k for k in typing.get_args(kind) if k is not type(None))
        kind = typing.get_origin(kind) or kind
        kind = list if kind is tuple else kind
        has_default = field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
        (optional if has_default else required)[field.name] = kind
    return required, optional


def load_training_runs(path: str | Path | None = None) -> tuple[tuple[PublishedRun, ...], dict[str, dict]]:
    """Read and check ``training-runs.toml``.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file by default.

    Returns
    -------
    runs : tuple of PublishedRun
        In file order, values as the file gives them.
    sources : dict of str to dict
        The ``[[source]]`` entries (``id``, ``title``, ``url``, ``holdout``) by id.

    Raises
    ------
    ReferenceRunDataError
        For an unknown or missing table or key, a wrong type, a duplicate id, a run citing a source the
        file does not list, degrees TP x CP x PP x DP that do not make the run's GPU count, or a
        provenance that misses a model input, names a key that is not one, does not start with
        ``"stated: "`` or ``"inferred: "``, or cites a rule the header comment does not define; the
        message names the file, the run and the key.

    Examples
    --------
    >>> runs, sources = load_training_runs()
    >>> runs[0].name, runs[0].achieved_tflops, sources[runs[0].source]["url"]
    ('Llama 3 405B, 8,192 H100', 430, 'https://arxiv.org/abs/2407.21783')
    """
    data = _RunsFile(packaged_data_file(_DATA_FILE) if path is None else path, source_ids=())
    rules = inference_rules(data.path)
    data.only_tables(("source", "run"))
    sources = _SOURCE.read_all(data)
    for source in sources.values():
        if not source["url"].startswith(("https://", "http://")):
            data.fail(f"source {source['id']!r}: 'url' must be an http(s) address")
    required, optional = _run_keys()
    runs: list[PublishedRun] = []
    for raw in data.rows("run"):
        row = data.table(f"{data.name}: run {_id(raw)!r}", raw, required, optional)
        if any(run.id == row.get("id") for run in runs):
            row.fail("duplicate id")
        if row.get("source") not in sources:
            row.fail(f"cites unknown source {row.get('source')!r}")
        if row.get("tp") * row.get("cp") * row.get("pp") * row.get("dp") != row.get("gpus"):
            row.fail("TP x CP x PP x DP is not its GPU count")
        ep = row.get("ep", 1)
        if ep > 1 and (row.get("experts", 0) % ep or (row.get("tp") * row.get("cp") * row.get("dp")) % ep):
            row.fail("EP must divide the experts and TP x CP x DP (Megatron-Core's expert grid, expert TP 1)")
        if row.get("hbm_tb_s", 0.0) < 0:
            row.fail("'hbm_tb_s' must be a memory bandwidth in TB/s (0: the catalog GPU's)")
        if row.get("power_limit_w", 0.0) < 0:
            row.fail("'power_limit_w' must be a board power limit in W (0: the GPU's rated one)")
        if row.get("memory_gb", 0.0) < 0 or row.get("peak_memory_gib", 0.0) < 0:
            row.fail("'memory_gb' and 'peak_memory_gib' must be memory sizes (0: the catalog GPU's, not given)")
        if not 0 <= row.get("offload_layers", 0) < row.get("layers"):
            row.fail("'offload_layers' must be 0 to the run's layers minus one (Megatron-Core's limit)")
        ddp_modes = ("", "bucketed", "megatron-core", "after-backward", "per-tensor", "deepspeed-bf16")
        if row.get("ddp", "") not in ddp_modes:
            row.fail("'ddp' must be bucketed, megatron-core, after-backward, per-tensor or deepspeed-bf16 (or left "
                     "out: the stack's default)")
        if row.get("grad_accumulation", "") not in ("", "fused", "buffer", "autograd"):
            row.fail("'grad_accumulation' must be fused, buffer or autograd (or left out: rule R36)")
        if not 0 <= row.get("recompute_num_layers", 0) <= row.get("layers"):
            row.fail("'recompute_num_layers' must be 0 (every layer) to the run's layers")
        if row.get("recompute_num_layers", 0) and row.get("recompute") != "full":
            row.fail("'recompute_num_layers' needs recompute = \"full\" (Megatron-Core's block method)")
        if row.get("ep_a2a_overlap", False) and row.get("recompute") == "full":
            row.fail("'ep_a2a_overlap' does not run with recompute = \"full\" (Megatron-Core refuses the pair, R45)")
        if row.get("dp_bucket_params", 0) < 0:
            row.fail("'dp_bucket_params' must be a bucket size in parameters (0: Megatron-Core's default)")
        if row.get("dp_bucket_params", 0) and (row.get("ddp", "") not in ("", "megatron-core")
                                               or row.get("dp_bucket_per_layer", False)):
            row.fail("'dp_bucket_params' sizes Megatron-Core's DDP buckets; it needs ddp megatron-core (or the stack's "
                     "default) and no per-layer buckets")
        if row.get("mtp_layers", 0) < 0:
            row.fail("'mtp_layers' must be 0 (no multi-token prediction) or more")
        if row.get("last_stage_layers", 0) and not (
                row.get("pp") > 1 and 0 < row.get("last_stage_layers") <= row.get("layers") - (row.get("pp") - 1)):
            row.fail("'last_stage_layers' needs PP > 1 and must leave each other stage at least one layer")
        modules = row.get("recompute_modules", [])
        if not all(m in _RECOMPUTE_MODULES for m in modules) or len(set(modules)) != len(modules):
            row.fail(f"'recompute_modules' must name each of {', '.join(_RECOMPUTE_MODULES)} at most once")
        _check_provenance(row, rules)
        runs.append(PublishedRun(**{**raw, **({"recompute_modules": tuple(modules)} if modules else {})}))
    return tuple(runs), sources


@functools.lru_cache(maxsize=1)
def packaged_training_runs() -> tuple[tuple[PublishedRun, ...], dict[str, dict]]:
    """Return the packaged ``training-runs.toml`` (runs and sources), read once per process."""
    return load_training_runs()


def inference_rules(path: str | Path | None = None) -> dict[str, str]:
    """Return the inference rules the header comment of ``training-runs.toml`` defines, by name.

    A rule is a comment line of the file's opening comment block that starts with its name
    (``#   R3  micro-batch: ...``); the lines after it that are indented further continue it.

    Examples
    --------
    >>> rules = inference_rules()
    >>> "R1" in rules and "R2" in rules
    True
    """
    text = Path(packaged_data_file(_DATA_FILE) if path is None else path).read_text(encoding="utf-8")
    rules: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        match = _RULE_LINE.match(line)
        if match:
            current = match.group(1)
            rules[current] = line[match.end():].strip()
        elif current and line.startswith("#     "):
            rules[current] += " " + line[1:].strip()
        else:
            current = None
    return rules


def _check_provenance(row: Any, rules: dict[str, str]) -> None:
    provenance = row.get("provenance")
    unknown = sorted(set(provenance) - set(MODEL_INPUTS) - _PROVENANCE_EXTRA)
    if unknown:
        row.fail(f"provenance for key(s) that are not model inputs: {', '.join(unknown)}")
    missing = [key for key in MODEL_INPUTS if key not in provenance and key not in _NO_PROVENANCE
               and (key not in OPTIONAL_INPUTS or row.get(key) is not None)]
    if missing:
        row.fail(f"provenance missing for {', '.join(missing)}")
    for key, value in provenance.items():
        if not isinstance(value, str) or not value.startswith((_STATED, _INFERRED)):
            row.fail(f"provenance of {key!r} must start with 'stated: ' or 'inferred: ', got {value!r}")
        text = value.split(": ", 1)[1].strip()
        if not text:
            row.fail(f"provenance of {key!r} says nothing after its prefix")
        if value.startswith(_INFERRED):
            rule = _RULE_USE.match(text)
            if rule is None or rule.group(1) not in rules:
                row.fail(f"provenance of {key!r} cites no rule of the header comment ({', '.join(rules)}): {value!r}")


def _id(raw: object) -> str:
    return raw.get("id", "?") if isinstance(raw, dict) else "?"
