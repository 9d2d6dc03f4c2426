"""A transformer described by hand for the parallelism model; the presets themselves are data.

The presets of ``data/models.toml`` (Llama 3, Mixtral, DeepSeek-V3) are read and checked by
:mod:`interconnect.datafiles.presets`; their names are re-exported here, where the pages, the CLI and the
tests import them. :func:`custom_model` builds a :class:`ModelPreset` from a few numbers and says what
it had to adjust.
"""

from __future__ import annotations

from interconnect.datafiles.presets import (
    ModelPreset,
    ModelPresetError,
    ModelSource,
    load_model_presets,
    model_sources,
)

__all__ = ["ModelPreset", "ModelPresetError", "ModelSource", "custom_model", "load_model_presets", "model_sources"]


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
