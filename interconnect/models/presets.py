"""Model presets (Llama 3, Mixtral, DeepSeek-V3) for the parallelism model, read from ``data/models.toml``.

Each preset is a frozen :class:`ModelPreset` with plain numbers (counts of parameters, layers, heads,
tokens) and the ids of the sources its figures come from (the model's paper and its published
``config.json``, as ``[[source]]`` entries of the same file). The loader is strict like the hardware
catalog's: an unknown or missing key, a wrong type, an inconsistent figure (active parameters above
the total, experts without top-k) or an unknown source id is a :class:`ModelPresetError` naming the
entry.

>>> presets = load_model_presets()
>>> m = presets["llama3-70b"]
>>> m.layers, m.hidden, m.heads, m.kv_heads, f"{m.params / 1e9:.1f}B"
(80, 8192, 64, 8, '70.6B')
>>> presets["mixtral-8x7b"].experts, presets["mixtral-8x7b"].top_k
(8, 2)
"""

from __future__ import annotations

import functools
import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from interconnect.units import InterconnectError

__all__ = ["ModelPreset", "ModelPresetError", "ModelSource", "custom_model", "load_model_presets", "model_sources"]

MODELS_FILE = Path(str(resources.files("interconnect").joinpath("data/models.toml")))

_INT_KEYS = ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq_len", "experts", "top_k")
_FLOAT_KEYS = ("params", "active_params")
_MODEL_KEYS = {"id", "name", "sources", "note", *_INT_KEYS, *_FLOAT_KEYS}
_SOURCE_KEYS = {"id", "title", "url", "kind"}
_SOURCE_OPTIONAL = {"note"}


class ModelPresetError(InterconnectError, ValueError):
    """``models.toml`` is malformed; the message names the entry and the problem."""


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

    @property
    def is_moe(self) -> bool:
        """Whether the model routes tokens to experts (a mixture of experts)."""
        return self.experts > 0

    @property
    def head_dim(self) -> int:
        """Width of one attention head: hidden / heads (a count of dimensions)."""
        return self.hidden // self.heads

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


def _check_model(where: str, row: dict, source_ids: set[str]) -> ModelPreset:
    missing = _MODEL_KEYS - {"note"} - set(row)
    unknown = set(row) - _MODEL_KEYS
    if missing or unknown:
        parts = [f"missing {', '.join(sorted(missing))}" if missing else "",
                 f"unknown {', '.join(sorted(unknown))}" if unknown else ""]
        raise ModelPresetError(f"{where}: " + "; ".join(p for p in parts if p))
    for key in _INT_KEYS:
        if isinstance(row[key], bool) or not isinstance(row[key], int) or row[key] < 0:
            raise ModelPresetError(f"{where}: {key} must be a whole number >= 0, got {row[key]!r}")
    for key in _FLOAT_KEYS:
        value = row[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            raise ModelPresetError(f"{where}: {key} must be a positive number, got {value!r}")
    for key in ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq_len"):
        if row[key] < 1:
            raise ModelPresetError(f"{where}: {key} must be at least 1")
    if row["hidden"] % row["heads"] or row["heads"] % row["kv_heads"]:
        raise ModelPresetError(f"{where}: heads must divide hidden and kv_heads must divide heads")
    if row["active_params"] > row["params"]:
        raise ModelPresetError(f"{where}: active_params is more than params")
    if (row["experts"] == 0) != (row["top_k"] == 0) or row["top_k"] > row["experts"]:
        raise ModelPresetError(f"{where}: experts and top_k must both be 0 (dense) or 1 <= top_k <= experts")
    if row["experts"] == 0 and row["active_params"] != row["params"]:
        raise ModelPresetError(f"{where}: a dense model's active_params must equal params")
    sources = row["sources"]
    if not isinstance(sources, list) or not sources or any(s not in source_ids for s in sources):
        raise ModelPresetError(f"{where}: sources must be a non-empty list of [[source]] ids of this file")
    values = {key: row[key] for key in (*_INT_KEYS, *_FLOAT_KEYS)}
    return ModelPreset(id=row["id"], name=row["name"], source_ids=tuple(sources), note=row.get("note", ""),
                       **{k: float(v) if k in _FLOAT_KEYS else int(v) for k, v in values.items()})


def _read(path: Path) -> tuple[dict[str, ModelPreset], dict[str, ModelSource]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ModelPresetError(f"{path.name}: not valid TOML: {exc}") from exc
    if set(data) - {"model", "source"}:
        raise ModelPresetError(f"{path.name}: unknown tables {sorted(set(data) - {'model', 'source'})}")
    sources: dict[str, ModelSource] = {}
    for row in data.get("source", []):
        where = f"{path.name}: source '{row.get('id', '?')}'"
        if not _SOURCE_KEYS <= set(row) or set(row) - _SOURCE_KEYS - _SOURCE_OPTIONAL:
            raise ModelPresetError(f"{where}: needs exactly {', '.join(sorted(_SOURCE_KEYS))} (and an optional note)")
        if row["id"] in sources or not str(row["url"]).startswith(("https://", "http://")):
            raise ModelPresetError(f"{where}: duplicate id or a url that is not http(s)")
        sources[row["id"]] = ModelSource(**row)
    presets: dict[str, ModelPreset] = {}
    for row in data.get("model", []):
        where = f"{path.name}: model '{row.get('id', '?')}'"
        preset = _check_model(where, row, set(sources))
        if preset.id in presets:
            raise ModelPresetError(f"{where}: duplicate id")
        presets[preset.id] = preset
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


def custom_model(params: float, layers: int, hidden: int, heads: int, *, seq_len: int = 8192, experts: int = 0,
                 top_k: int = 0, active_params: float | None = None, kv_heads: int | None = None,
                 ffn_hidden: int | None = None, vocab: int | None = None) -> tuple[ModelPreset, list[str]]:
    r"""Describe a model by hand, adjusting what is inconsistent.

    Parameters
    ----------
    params : float
        Parameter count.
    layers, hidden, heads : int
        Transformer layers, hidden width and attention heads.
    seq_len : int, default 8192
        Sequence length in tokens.
    experts, top_k : int, default 0
        Routed experts per MoE layer and how many one token uses (0 for a dense model).
    active_params : float, optional
        Parameters one token uses (MoE only).
    kv_heads, ffn_hidden, vocab : int, optional
        Key/value heads (grouped-query attention), MLP width and vocabulary; defaults below.

    Returns
    -------
    model : ModelPreset
        The model, with id ``"custom"``.
    notes : list of str
        What had to be adjusted, one sentence each.

    Notes
    -----
    Assumptions for what is not given (ours): MLP width 4 x hidden, key/value heads = heads, a
    128,256-token vocabulary (Llama 3's, https://arxiv.org/abs/2407.21783, section 3.2). Heads are
    lowered to the nearest divisor of hidden; top-k is clamped to 1..experts for a mixture of
    experts and ignored for a dense model; active parameters default to all of them (dense) or

    .. math:: N_{active} = N \, k / E

    for a mixture of experts (a lower bound: nothing shared).

    Examples
    --------
    >>> model, notes = custom_model(7e9, 32, 4096, 30)
    >>> model.heads, notes
    (32, ['heads: 30 does not divide the hidden size 4096; using 32'])
    >>> moe, _ = custom_model(47e9, 32, 4096, 32, experts=8, top_k=2)
    >>> f"{moe.active_params / 1e9:.2f}B active parameters"
    '11.75B active parameters'
    """
    notes: list[str] = []
    layers, hidden = max(1, int(layers)), max(1, int(hidden))
    heads = max(1, int(heads))
    if hidden % heads:
        divisors = [d for d in range(1, hidden + 1) if hidden % d == 0]
        better = min(divisors, key=lambda d: (abs(d - heads), -d))
        notes.append(f"heads: {heads} does not divide the hidden size {hidden}; using {better}")
        heads = better
    experts, top_k = max(0, int(experts)), max(0, int(top_k))
    if experts == 0:
        if top_k:
            notes.append("top-k: ignored for a dense model (experts = 0)")
        top_k = 0
    elif not 1 <= top_k <= experts:
        clamped = min(max(top_k, 1), experts)
        notes.append(f"top-k: {top_k} is not between 1 and {experts} experts; using {clamped}")
        top_k = clamped
    params = float(params)
    if experts == 0:
        active = params
    elif active_params and 0 < active_params <= params:
        active = float(active_params)
    else:
        active = params * top_k / experts
    kv = heads if kv_heads is None else max(1, int(kv_heads))
    if heads % kv:
        better = max(d for d in range(1, heads + 1) if heads % d == 0 and d <= kv)
        notes.append(f"kv-heads: {kv} does not divide the {heads} heads; using {better}")
        kv = better
    ffn = 4 * hidden if ffn_hidden is None else max(1, int(ffn_hidden))
    vocab_size = 128256 if vocab is None else max(1, int(vocab))
    given = [name for name, value in (("KV heads", kv_heads), ("MLP width", ffn_hidden), ("vocabulary", vocab))
             if value is not None]
    note = ("Described by hand" + (f" ({', '.join(given)} given)" if given else "")
            + ": the rest as assumed (MLP 4 x hidden, KV heads = heads, Llama 3's vocabulary).")
    model = ModelPreset(id="custom", name="Custom model", params=params, layers=layers, hidden=hidden,
                        ffn_hidden=ffn, heads=heads, kv_heads=kv, vocab=vocab_size, seq_len=max(1, int(seq_len)),
                        experts=experts, top_k=top_k, active_params=active, source_ids=(), note=note)
    return model, notes
