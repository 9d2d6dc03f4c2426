"""Model presets: the published shape of well-known models (Llama 3 8B, 70B, 405B, ...).

The numbers live in ``interconnect/data/models.toml`` with the ids of their sources in
``sources.toml``; :func:`load_model_presets` reads them into frozen :class:`ModelPreset` objects and
refuses, naming the file and the entry, a missing or unknown key, a value of the wrong type, a
non-positive size, or a source id that ``sources.toml`` does not have. Mixture-of-experts models
add ``experts`` and ``top_k``.

>>> presets = load_model_presets()
>>> llama = presets["llama3-70b"]
>>> llama.layers, llama.hidden, llama.kv_heads
(80, 8192, 8)
>>> f"{llama.architecture_params():.4g}"
'7.055e+10'
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from interconnect.catalog import CatalogError, get_catalog

__all__ = ["ModelPreset", "ModelPresetError", "load_model_presets", "model_presets"]


class ModelPresetError(CatalogError):
    """``models.toml`` is inconsistent; the message names the file and the entry."""


@dataclass(frozen=True)
class ModelPreset:
    """One model's shape. Sizes are plain counts (parameters, tokens, widths).

    Attributes
    ----------
    params : float
        Nominal parameter count as the publisher states it (``8e9`` for "8B").
    layers, hidden, ffn, heads, kv_heads, vocab : int
        Transformer blocks, model width, feed-forward width (per expert), attention heads,
        key/value heads, vocabulary rows.
    seq_len : int
        Pre-training sequence length in tokens.
    tied_embeddings : bool
        True when the input embedding and the output layer share one matrix.
    experts, top_k : int or None
        Mixture of experts: experts per MoE layer and experts each token visits (None when dense).
    source_ids : tuple of str
        Ids in ``sources.toml``.
    """

    id: str
    name: str
    params: float
    layers: int
    hidden: int
    ffn: int
    heads: int
    kv_heads: int
    vocab: int
    seq_len: int
    source_ids: tuple[str, ...]
    tied_embeddings: bool = False
    experts: int | None = None
    top_k: int | None = None
    note: str = ""

    @property
    def head_dim(self) -> int:
        """Width of one attention head: hidden / heads."""
        return self.hidden // self.heads

    @property
    def embedding_params(self) -> int:
        """Parameters of the input embedding table (vocab x hidden)."""
        return self.vocab * self.hidden

    @property
    def output_params(self) -> int:
        """Parameters of the output (un-embedding) layer; 0 when it shares the input embedding."""
        return 0 if self.tied_embeddings else self.vocab * self.hidden

    def block_params(self) -> int:
        """Parameters of one transformer block: attention (q, k, v, o), SwiGLU feed-forward, two norms.

        .. math:: h^2 + 2 h (n_{kv} d_{head}) + h^2 + E \\cdot 3 h f + E_{router} h + 2h

        (the feed-forward has three h x f matrices; a MoE layer has E of them and a router).
        """
        kv = self.kv_heads * self.head_dim
        attention = 2 * self.hidden * self.hidden + 2 * self.hidden * kv
        experts = self.experts or 1
        router = self.hidden * self.experts if self.experts else 0
        return attention + experts * 3 * self.hidden * self.ffn + router + 2 * self.hidden

    def architecture_params(self) -> int:
        """Every parameter counted from the shape: embedding, blocks, final norm, output layer."""
        return self.embedding_params + self.layers * self.block_params() + self.hidden + self.output_params

    @property
    def active_params(self) -> float:
        """Parameters one token uses: all of them for a dense model; top_k of E experts for MoE."""
        if not self.experts or not self.top_k:
            return self.params
        ffn_all = self.layers * self.experts * 3 * self.hidden * self.ffn
        return self.params - ffn_all * (1 - self.top_k / self.experts)


_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "id": str, "name": str, "params": (int, float), "layers": int, "hidden": int, "ffn": int, "heads": int,
    "kv_heads": int, "vocab": int, "seq_len": int, "tied_embeddings": bool, "sources": list,
}
_OPTIONAL: dict[str, type | tuple[type, ...]] = {"experts": int, "top_k": int, "note": str}
_POSITIVE = ("params", "layers", "hidden", "ffn", "heads", "kv_heads", "vocab", "seq_len", "experts", "top_k")


def _check_row(where: str, row: Mapping[str, Any], source_ids: set[str]) -> dict[str, Any]:
    allowed = set(_REQUIRED) | set(_OPTIONAL)
    unknown = sorted(set(row) - allowed)
    if unknown:
        raise ModelPresetError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")
    missing = sorted(set(_REQUIRED) - set(row))
    if missing:
        raise ModelPresetError(f"{where}: missing required key(s) {', '.join(missing)}")
    for key, kind in {**_REQUIRED, **_OPTIONAL}.items():
        if key not in row:
            continue
        value = row[key]
        if isinstance(value, bool) and kind is not bool:
            raise ModelPresetError(f"{where}: '{key}' must be a number, not a boolean")
        if not isinstance(value, kind):
            raise ModelPresetError(f"{where}: '{key}' has the wrong type ({type(value).__name__})")
    for key in _POSITIVE:
        if key in row and not (math.isfinite(row[key]) and row[key] > 0):
            raise ModelPresetError(f"{where}: '{key}' must be positive")
    if row["hidden"] % row["heads"] or row["heads"] % row["kv_heads"]:
        raise ModelPresetError(f"{where}: hidden must divide into heads, and heads into kv_heads groups")
    if ("experts" in row) != ("top_k" in row) or row.get("top_k", 0) > row.get("experts", 0):
        raise ModelPresetError(f"{where}: a mixture of experts needs both experts and top_k, top_k <= experts")
    sources = row["sources"]
    if not sources or any(not isinstance(s, str) or s not in source_ids for s in sources):
        raise ModelPresetError(f"{where}: sources must be a non-empty list of ids from sources.toml")
    fields = {key: value for key, value in row.items() if key != "sources"}
    fields["params"] = float(fields["params"])
    fields["source_ids"] = tuple(sources)
    return fields


def load_model_presets(path: str | Path | None = None) -> dict[str, ModelPreset]:
    """Read and check ``models.toml`` (default: the packaged one); presets by id, in file order."""
    if path is None:
        file = Path(str(resources.files("interconnect").joinpath("data/models.toml")))
    else:
        file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ModelPresetError(f"{file.name}: not valid TOML: {exc}") from exc
    if set(data) - {"model"}:
        raise ModelPresetError(f"{file.name}: unknown table(s) {', '.join(sorted(set(data) - {'model'}))}")
    rows = data.get("model", [])
    if not isinstance(rows, list):
        raise ModelPresetError(f"{file.name}: 'model' must be an array of tables ([[model]])")
    source_ids = set(get_catalog().sources)
    presets: dict[str, ModelPreset] = {}
    for row in rows:
        where = f"{file.name}: model '{row.get('id', '?')}'"
        fields = _check_row(where, row, source_ids)
        if fields["id"] in presets:
            raise ModelPresetError(f"{where}: duplicate id")
        presets[fields["id"]] = ModelPreset(**fields)
    return presets


@functools.lru_cache(maxsize=1)
def model_presets() -> Mapping[str, ModelPreset]:
    """The packaged presets, read once per process (a read-only mapping)."""
    return MappingProxyType(load_model_presets())
