"""``models.toml``, read and checked: the transformer presets (Llama 3, Mixtral, DeepSeek-V3) and their sources.

Each preset is a frozen :class:`ModelPreset` with plain numbers (counts of parameters, layers, heads,
tokens) and the ids of the sources its figures come from (the model's paper and its published
``config.json``, as ``[[source]]`` entries of the same file). The loader is strict like the hardware
catalog's: an unknown or missing key, a wrong type, an inconsistent figure (active parameters above
the total, experts without top-k) or an unknown source id is a :class:`ModelPresetError` naming the
entry. The arithmetic on a preset (the parallelism model, a model described by hand) is in
:mod:`interconnect.workloads.presets` and :mod:`interconnect.topics.seating.model`, which re-export these names.

>>> presets = load_model_presets()
>>> m = presets["llama3-70b"]
>>> m.layers, m.hidden, m.heads, m.kv_heads, f"{m.params / 1e9:.1f}B"
(80, 8192, 64, 8, '70.6B')
>>> presets["mixtral-8x7b"].experts, presets["mixtral-8x7b"].top_k
(8, 2)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from interconnect.catalog import CatalogError
from interconnect.datafiles.records import SOURCE, Field, Record
from interconnect.datafiles.tables import DataFile, packaged_data_file

__all__ = ["MLA_KEYS", "MODELS_FILE", "ModelPreset", "ModelPresetError", "ModelSource", "load_model_presets",
           "model_sources"]

MODELS_FILE = packaged_data_file("models.toml")

_COUNTS = ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq_len")
#: Multi-head latent attention's shape (DeepSeek-V2/V3): optional, all or none of them
MLA_KEYS = ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
#: A ``[[model]]`` of ``models.toml``; its ``sources`` name the file's own ``[[source]]`` entries.
MODEL = Record("model", (
    Field("id"), Field("name"), Field("sources", list),
    Field("params", float, positive=True), Field("active_params", float, positive=True),
    *(Field(key, int, minimum=1) for key in _COUNTS),
    Field("experts", int, minimum=0), Field("top_k", int, minimum=0),
    *(Field(key, int, required=False, default=None, minimum=1) for key in MLA_KEYS),
    Field("note", required=False, default=""),
))

class ModelPresetError(CatalogError):
    """``models.toml`` is malformed; the message names the entry and the problem."""


class _ModelsFile(DataFile):
    error = ModelPresetError


@dataclass(frozen=True)
class ModelSource:
    """A ``[[source]]`` entry of ``models.toml``: a model's paper or published configuration."""

    id: str
    title: str
    url: str
    kind: str
    note: str = ""


@dataclass(frozen=True)
class ModelPreset:
    """A transformer as the parallelism model needs it. Counts are plain numbers (parameters, tokens).

    ``ffn_hidden`` is the MLP width (per expert in MoE layers); ``seq_len`` the pre-training sequence
    length in tokens; ``experts`` the routed experts per MoE layer (0 for a dense model) and ``top_k``
    how many of them one token uses.
    """

    id: str
    name: str
    params: float
    layers: int
    hidden: int
    ffn_hidden: int
    heads: int
    kv_heads: int
    vocab: int
    seq_len: int
    experts: int
    top_k: int
    active_params: float
    source_ids: tuple[str, ...]
    note: str = ""
    #: the output layer reuses the input embedding's matrix (GPT-2/3, Megatron-LM's GPT, BLOOM): one ``V h``
    #: matrix in the parameter count instead of two
    tied_embeddings: bool = False
    #: width of one attention head where heads x head_dim is not the hidden size (Qwen3, GPT-OSS); 0: hidden / heads
    attention_head_dim: int = 0
    #: sliding-window attention: the tokens before its own a query sees in a windowed layer (Transformer Engine's
    #: ``window_size`` left bound), and how many of the layers are windowed (GPT-OSS: 128 and 18 of 36); 0: every
    #: layer attends causally to the whole sequence
    attention_window: int = 0
    window_layers: int = 0
    #: multi-head latent attention (DeepSeek-V2/V3; None for every other model): the queries and the keys and values
    #: pass through low-rank latents (``q_lora_rank``, ``kv_lora_rank``; a query without a latent where
    #: ``q_lora_rank`` is None), and a head's query and key are ``qk_nope_head_dim`` wide plus a rotary part of
    #: ``qk_rope_head_dim`` shared by the heads' keys, its value ``v_head_dim`` (the authors' config.json keys)
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None

    @property
    def is_mla(self) -> bool:
        """Whether attention is multi-head latent attention (keys and values through a latent of ``kv_lora_rank``)."""
        return self.kv_lora_rank is not None

    @property
    def qk_head_dim(self) -> int:
        """Width of one head's query and key (a count): the non-rotary and rotary parts under MLA, else head_dim."""
        if self.is_mla:
            return int(self.qk_nope_head_dim or 0) + int(self.qk_rope_head_dim or 0)
        return self.head_dim

    @property
    def value_head_dim(self) -> int:
        """Width of one head's value and of its share of attention's output (a count): v_head_dim, else head_dim."""
        return int(self.v_head_dim or 0) if self.is_mla else self.head_dim

    @property
    def query_width(self) -> int:
        """Values of the queries per token: heads x the query/key head width (a count)."""
        return self.heads * self.qk_head_dim

    @property
    def kv_width(self) -> int:
        """Values of the keys and values together per token, as attention reads them (a count).

        KV heads x (key width + value width): ``2 kv_heads head_dim`` for (grouped-query) multi-head attention; under
        MLA every head has its own key and value, decompressed from the latent: ``heads (192 + 128)`` for DeepSeek-V3.
        """
        return self.kv_heads * (self.qk_head_dim + self.value_head_dim)

    @property
    def attention_out_width(self) -> int:
        """Values of attention's output per token, the output projection's input (a count): heads x value width."""
        return self.heads * self.value_head_dim

    @property
    def attention_params(self) -> float:
        r"""Weights of one layer's attention projections (a count; norms left out).

        Multi-head or grouped-query attention: :math:`h (q + w_{kv}) + q h`, the fused QKV and the output
        projection. Multi-head latent attention (DeepSeek-V3 report, arXiv 2412.19437, section 2.1.1, equations
        1-11): the query's down- and up-projection (:math:`h r_q + r_q\,n_h d_{qk}`; :math:`h\,n_h d_{qk}` without a
        query latent), the keys' and values' joint down-projection with the shared rotary key
        (:math:`h (r_{kv} + d_{rope})`), their up-projection (:math:`r_{kv}\,n_h (d_{nope} + d_v)`) and the output
        projection (:math:`n_h d_v h`).

        >>> m = load_model_presets()["deepseek-v3"]
        >>> f"{m.attention_params / 1e6:.1f}M per layer (4 h^2 would be {4 * m.hidden ** 2 / 1e6:.1f}M)"
        '187.1M per layer (4 h^2 would be 205.5M)'
        """
        h, q = float(self.hidden), float(self.query_width)
        if not self.is_mla:
            return h * (q + self.kv_width) + q * h
        rq = self.q_lora_rank
        query = h * q if rq is None else h * rq + rq * q
        rkv, rope = float(self.kv_lora_rank or 0), float(self.qk_rope_head_dim or 0)
        keys_values = h * (rkv + rope) + rkv * self.heads * (float(self.qk_nope_head_dim or 0) + self.value_head_dim)
        return query + keys_values + float(self.attention_out_width) * h

    @property
    def is_moe(self) -> bool:
        """Whether the model routes tokens to experts (a mixture of experts)."""
        return self.experts > 0

    @property
    def head_dim(self) -> int:
        """Width of one attention head: ``attention_head_dim`` where given, else hidden / heads (a count)."""
        return self.attention_head_dim or self.hidden // self.heads

    @property
    def expert_params(self) -> float:
        r"""Parameters in routed experts, from the published totals (a count; 0 for a dense model).

        Notes
        -----
        Our derivation: with :math:`e` parameters per expert, :math:`E` experts and top-:math:`k`
        routing, the published totals are :math:`N = N_{dense} + E e` and :math:`N_{active} =
        N_{dense} + k e`, so

        .. math:: E e = \frac{E \, (N - N_{active})}{E - k}

        Examples
        --------
        >>> round(load_model_presets()["mixtral-8x7b"].expert_params / 1e9, 1)
        45.1
        """
        if not self.is_moe or self.experts <= self.top_k:
            return 0.0
        return self.experts * (self.params - self.active_params) / (self.experts - self.top_k)

    @property
    def dense_params(self) -> float:
        """Parameters every token uses (attention, embeddings, dense MLPs, shared experts): N - E e."""
        return self.params - self.expert_params


def _model(data: DataFile, values: dict) -> ModelPreset:
    """Check what the declaration cannot say (how the counts of one model agree) and build the preset."""
    where = f"{data.name}: model {values['id']!r}"
    if values["hidden"] % values["heads"] or values["heads"] % values["kv_heads"]:
        raise ModelPresetError(f"{where}: heads must divide hidden and kv_heads must divide heads")
    if values["active_params"] > values["params"]:
        raise ModelPresetError(f"{where}: active_params is more than params")
    if (values["experts"] == 0) != (values["top_k"] == 0) or values["top_k"] > values["experts"]:
        raise ModelPresetError(f"{where}: experts and top_k must both be 0 (dense) or 1 <= top_k <= experts")
    if values["experts"] == 0 and values["active_params"] != values["params"]:
        raise ModelPresetError(f"{where}: a dense model's active_params must equal params")
    given = [key for key in MLA_KEYS if values.get(key) is not None]
    if given and set(given) != set(MLA_KEYS) - ({"q_lora_rank"} if values.get("q_lora_rank") is None else set()):
        raise ModelPresetError(f"{where}: multi-head latent attention needs {', '.join(k for k in MLA_KEYS[1:])} "
                               "(q_lora_rank may be left out: queries without a latent)")
    values["source_ids"] = tuple(values.pop("sources"))
    values["params"], values["active_params"] = float(values["params"]), float(values["active_params"])
    return ModelPreset(**values)


def _read(path: Path) -> tuple[dict[str, ModelPreset], dict[str, ModelSource]]:
    data = _ModelsFile(path, source_ids=())
    data.only_tables(("model", "source"))
    sources = {key: ModelSource(**values) for key, values in SOURCE.read_all(data).items()}
    for source in sources.values():
        if not source.url.startswith(("https://", "http://")):
            raise ModelPresetError(f"{path.name}: source {source.id!r}: 'url' must be http(s), got {source.url!r}")
    data.source_ids = frozenset(sources)  # a model's sources are this file's own
    presets = {key: _model(data, values) for key, values in MODEL.read_all(data).items()}
    if not presets:
        raise ModelPresetError(f"{path.name}: no [[model]] entries")
    return presets, sources


@functools.lru_cache(maxsize=1)
def _packaged() -> tuple[dict[str, ModelPreset], dict[str, ModelSource]]:
    return _read(MODELS_FILE)


def load_model_presets(path: str | Path | None = None) -> dict[str, ModelPreset]:
    """Read every ``[[model]]`` of ``models.toml``, by id.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file (read once per process) by default.

    Returns
    -------
    dict of str to ModelPreset
        Counts as plain numbers (parameters, layers, heads, tokens).

    Raises
    ------
    ModelPresetError
        When the file is malformed; the message names the entry and the problem.

    Examples
    --------
    >>> m = load_model_presets()["llama3-8b"]
    >>> m.layers, m.hidden, f"{m.params / 1e9:.1f}B parameters"
    (32, 4096, '8.0B parameters')
    """
    if path is None:
        return dict(_packaged()[0])
    return _read(Path(path))[0]


def model_sources(path: str | Path | None = None) -> dict[str, ModelSource]:
    """Read the ``[[source]]`` entries of ``models.toml``, by id.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another file in the same format; the packaged file by default.

    Returns
    -------
    dict of str to ModelSource
        Title, URL and kind per source.

    Examples
    --------
    >>> model_sources()["llama3-paper"].url
    'https://arxiv.org/abs/2407.21783'
    """
    if path is None:
        return dict(_packaged()[1])
    return _read(Path(path))[1]
