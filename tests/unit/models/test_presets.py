"""Model presets: the packaged Llama 3 shapes against Meta's published figures, and the strict loader."""

from pathlib import Path

import pytest

from interconnect.catalog import get_catalog
from interconnect.models.presets import ModelPreset, ModelPresetError, load_model_presets, model_presets

DATA = Path(__file__).resolve().parents[3] / "interconnect" / "data" / "models.toml"

# Meta llama-models models/llama3_1/api/sku_list.py: dim, n_layers, n_heads, n_kv_heads, vocab 128256.
META_SKUS = {
    "llama3-8b": (4096, 32, 32, 8),
    "llama3-70b": (8192, 80, 64, 8),
    "llama3-405b": (16384, 126, 128, 8),
}
# Meta's FeedForward (models/llama3/reference_impl/model.py) with the sku's multiplier and multiple_of.
FFN_RULE = {"llama3-8b": (1.3, 1024), "llama3-70b": (1.3, 4096), "llama3-405b": (1.2, 4096)}


def meta_ffn(hidden: int, multiplier: float, multiple_of: int) -> int:
    width = int(multiplier * int(2 * 4 * hidden / 3))
    return multiple_of * ((width + multiple_of - 1) // multiple_of)


@pytest.mark.parametrize("preset_id", sorted(META_SKUS))
def test_llama_shapes_match_meta_sku_list(preset_id):
    preset = model_presets()[preset_id]
    assert (preset.hidden, preset.layers, preset.heads, preset.kv_heads) == META_SKUS[preset_id]
    assert preset.vocab == 128256 and not preset.tied_embeddings
    assert preset.ffn == meta_ffn(preset.hidden, *FFN_RULE[preset_id])
    assert preset.seq_len == 8192


@pytest.mark.parametrize("preset_id", sorted(META_SKUS))
def test_counting_every_matrix_gives_the_nominal_size_within_one_percent(preset_id):
    # The model cards name 8B, 70B and 405B; the shapes give 8.03e9, 70.55e9 and 405.85e9.
    preset = model_presets()[preset_id]
    assert preset.architecture_params() == pytest.approx(preset.params, rel=0.01)


def test_llama3_8b_count_is_the_published_8_03_billion():
    # 8,030,261,248 is the parameter count of Meta-Llama-3-8B's safetensors (4096 wide, 32 blocks).
    assert model_presets()["llama3-8b"].architecture_params() == 8_030_261_248


def test_every_preset_cites_known_sources():
    sources = get_catalog().sources
    for preset in model_presets().values():
        assert preset.source_ids and all(source in sources for source in preset.source_ids)


def test_moe_fields_count_active_parameters():
    moe = ModelPreset(id="toy-moe", name="toy", params=1e9, layers=2, hidden=64, ffn=128, heads=4, kv_heads=4,
                      vocab=100, seq_len=128, source_ids=("mle-network",), experts=8, top_k=2)
    ffn_all = 2 * 8 * 3 * 64 * 128
    assert moe.active_params == pytest.approx(1e9 - ffn_all * 6 / 8)
    assert moe.block_params() > ModelPreset(**{**moe.__dict__, "experts": None, "top_k": None}).block_params()


def _write(tmp_path, text):
    path = tmp_path / "models.toml"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = DATA.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace("kv_heads = 8", "kv_heads = 8\nwidth = 3", 1), "unknown key"),
        (lambda t: t.replace("vocab = 128256\n", "", 1), "missing required key"),
        (lambda t: t.replace("layers = 32", "layers = 0", 1), "must be positive"),
        (lambda t: t.replace("layers = 32", 'layers = "32"', 1), "wrong type"),
        (lambda t: t.replace('"meta-llama31-skus", ', '"no-such-source", ', 1), "sources"),
        (lambda t: t.replace("heads = 32\n", "heads = 30\n", 1), "divide"),
        (lambda t: t.replace("tied_embeddings = false", "tied_embeddings = false\nexperts = 8", 1), "top_k"),
        (lambda t: t + '\n[[gpu]]\nid = "x"\n', "unknown table"),
        (lambda t: t.replace('id = "llama3-70b"', 'id = "llama3-8b"', 1), "duplicate"),
    ],
)
def test_loader_refuses_bad_data_naming_file_and_entry(tmp_path, change, message):
    with pytest.raises(ModelPresetError, match=message) as info:
        load_model_presets(_write(tmp_path, change(GOOD)))
    assert "models.toml" in str(info.value)


def test_loader_reads_the_packaged_file_in_order():
    assert list(load_model_presets(DATA)) == ["llama3-8b", "llama3-70b", "llama3-405b"]
