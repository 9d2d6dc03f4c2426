"""Model presets: published figures, sources, and a loader that refuses a bad file."""

from __future__ import annotations

import pytest

from interconnect.workloads.presets import ModelPresetError, load_model_presets, model_sources

PRESETS = load_model_presets()


@pytest.mark.parametrize(
    ("model_id", "layers", "hidden", "ffn", "heads", "kv", "vocab"),
    [
        # Llama 3 paper (arXiv 2407.21783) Table 3 and the models' config.json
        ("llama3-8b", 32, 4096, 14336, 32, 8, 128256),
        ("llama3-70b", 80, 8192, 28672, 64, 8, 128256),
        ("llama3-405b", 126, 16384, 53248, 128, 8, 128256),
        # Mixtral paper (arXiv 2401.04088) Table 1
        ("mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000),
        # DeepSeek-V3 report (arXiv 2412.19437) section 4.2 and config.json (expert width 2048)
        ("deepseek-v3", 61, 7168, 2048, 128, 128, 129280),
    ],
)
def test_published_shapes(model_id, layers, hidden, ffn, heads, kv, vocab):
    m = PRESETS[model_id]
    assert (m.layers, m.hidden, m.ffn_hidden, m.heads, m.kv_heads, m.vocab) == (layers, hidden, ffn, heads, kv, vocab)


def test_parameter_counts_and_experts():
    assert PRESETS["llama3-70b"].params == pytest.approx(70.6e9)
    mixtral = PRESETS["mixtral-8x7b"]
    # Mixtral paper: 47B parameters, 13B active per token, 8 experts, top-2
    assert (mixtral.experts, mixtral.top_k) == (8, 2)
    assert mixtral.params == pytest.approx(47e9, rel=0.02) and mixtral.active_params == pytest.approx(13e9, rel=0.02)
    # E·e = E (total - active)/(E - k): 8 x (46.7 - 12.9)/6 = 45.1B in experts, 1.6B shared
    assert mixtral.expert_params == pytest.approx(45.07e9, rel=1e-3)
    assert mixtral.dense_params == pytest.approx(1.63e9, rel=0.01)
    deepseek = PRESETS["deepseek-v3"]
    assert (deepseek.experts, deepseek.top_k, deepseek.params, deepseek.active_params) == (256, 8, 671e9, 37e9)
    assert not PRESETS["llama3-8b"].is_moe and PRESETS["llama3-8b"].expert_params == 0


def test_every_preset_cites_known_sources():
    sources = model_sources()
    for preset in PRESETS.values():
        assert preset.source_ids and all(s in sources for s in preset.source_ids), preset.id
    assert all(s.url.startswith("https://") for s in sources.values())
    cited = {s for p in PRESETS.values() for s in p.source_ids}
    assert cited == set(sources)


def _write(tmp_path, model_overrides: dict, drop: str | None = None) -> str:
    row = {"id": "m", "name": "M", "params": 1e9, "layers": 2, "hidden": 64, "ffn_hidden": 128, "heads": 4,
           "kv_heads": 2, "vocab": 100, "seq_len": 16, "experts": 0, "top_k": 0, "active_params": 1e9,
           "sources": ["s"]}
    row.update(model_overrides)
    if drop:
        row.pop(drop)

    def value(v):
        if isinstance(v, str):
            return f'"{v}"'
        if isinstance(v, list):
            return "[" + ", ".join(f'"{x}"' for x in v) + "]"
        return repr(v)

    text = '[[source]]\nid = "s"\ntitle = "t"\nurl = "https://example.org/"\nkind = "primary"\n\n[[model]]\n'
    text += "".join(f"{k} = {value(v)}\n" for k, v in row.items())
    path = tmp_path / "models.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_loader_accepts_a_good_file(tmp_path):
    assert list(load_model_presets(_write(tmp_path, {}))) == ["m"]
    mla = {"kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8}
    m = load_model_presets(_write(tmp_path, mla))["m"]   # multi-head latent attention without a query latent
    assert m.is_mla and m.q_lora_rank is None and (m.qk_head_dim, m.value_head_dim) == (12, 8)
    assert not load_model_presets(_write(tmp_path, {}))["m"].is_mla


@pytest.mark.parametrize(
    ("overrides", "drop", "message"),
    [
        ({}, "heads", r"missing key\(s\) heads"),
        ({"colour": "blue"}, None, r"unknown key\(s\) colour"),
        ({"layers": 0}, None, "'layers' must be at least 1"),
        ({"heads": 5}, None, "heads must divide hidden"),
        ({"active_params": 2e9}, None, "more than params"),
        ({"experts": 8}, None, "experts and top_k"),
        ({"sources": ["nope"]}, None, "'sources' must list known source ids"),
        ({"params": float("nan")}, None, "positive number"),
        ({"kv_lora_rank": 16}, None, "multi-head latent attention needs"),
        ({"q_lora_rank": 16, "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4}, None,
         "multi-head latent attention needs"),
        ({"v_head_dim": 0}, None, "'v_head_dim' must be at least 1"),
    ],
)
def test_loader_refuses_a_bad_entry(tmp_path, overrides, drop, message):
    with pytest.raises(ModelPresetError, match=message):
        load_model_presets(_write(tmp_path, overrides, drop))


def test_hardware_catalog_ignores_the_model_file():
    from interconnect.catalog import get_catalog

    assert "models.toml" not in get_catalog().files
