"""AppTest of the Seating Chart page: defaults, every control from the link, comparisons, hostile input."""

from __future__ import annotations

import pytest

from interconnect.inputs.params import to_query
from interconnect.topics.seating.inputs import seating_specs
from interconnect.ui.error_band import NO_BREAK_PERCENT
from interconnect.units import format_seconds
from tests.app.conftest import chart_keys, diagram_scenes, run_page

PAGE = "pages/4_Seating_chart.py"
DEFAULTS = to_query(seating_specs(), {})  # every parameter in use at its default


def metric(at, label):
    return next(m for m in at.metric if m.label == label)


def test_defaults_render_the_seating_chart_first_and_write_the_url():
    # issue 26: a plain link draws the main chart (and the live chart) only; the bill's and memory's charts
    # are one click (or view=) away, their tables and figures stay
    at = run_page(PAGE)
    assert not at.exception and not at.warning and not at.error
    assert chart_keys(at) == ["seating-grid"]  # the grid, drawn as SVG without Plotly
    assert dict(at.query_params) == DEFAULTS
    # against what the driver reports for an "80 GB" H100: 81,559 MiB = 85.5 GB (Modal's NVML table)
    assert metric(at, "Memory per GPU").value.endswith(" / 85.5 GB")
    grid = diagram_scenes(at)[0]
    assert "64 GPUs in 8 nodes" in grid["title"]
    markers = next(layer for layer in grid["layers"] if layer["kind"] == "markers")
    assert len(markers["x"]) == 64 and len(markers["palette"]) == 8  # one square per GPU, one colour per TP group


def test_every_control_from_the_link():
    query = {**DEFAULTS, "gpu": "b200", "nodes": "4", "model": "mixtral-8x7b", "seq": "4096", "mb": "2",
             "gb": "128", "dtype": "fp8", "recompute": "full", "sp": "0", "eff": "0.4", "tp": "2", "pp": "2",
             "dp": "8", "cp": "1", "ep": "4", "zero": "2", "colour": "dp", "cmp": "none"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning and not at.error
    assert dict(at.query_params) == query
    assert at.selectbox(key="seating.model").value == "mixtral-8x7b"
    assert at.number_input(key="seating.ep").value == 4
    assert at.radio(key="seating.colour").value == "dp"
    assert "coloured by data-parallel replica" in diagram_scenes(at)[0]["title"]
    table = next(m.value for m in at.markdown if m.value.startswith("| dimension |"))
    assert "| Expert \\(EP\\) |" in table  # one row per dimension, escaped Markdown


def test_custom_model_fields():
    query = {"model": "custom", "params": "13", "layers": "40", "hidden": "5120", "heads": "40", "nodes": "2",
             "tp": "8", "pp": "1", "dp": "2", "gb": "64"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.error
    assert at.number_input(key="seating.layers").value == 40
    assert chart_keys(at) == ["seating-grid"]


def test_tp_across_nodes_is_flagged_and_compared():
    at = run_page(PAGE, {"nodes": "2", "tp": "16", "pp": "1", "dp": "1", "zero": "3", "gb": "16", "cmp": "tp"})
    assert not at.exception
    names = [entry["name"] for entry in diagram_scenes(at)[0]["legend"]]
    assert any("straddles" in name for name in names) and "traffic over the NIC" in names
    steps = [m.value for m in at.metric if m.label == "Step time"]
    assert len(steps) == 3  # this layout, TP inside, TP across
    assert any("TP traffic on **NVLink**" in m.value for m in at.markdown)
    assert any("TP traffic on **network (NIC)**" in m.value for m in at.markdown)


def test_search_and_use_the_layout():
    at = run_page(PAGE, {"cmp": "search"})
    assert not at.exception
    assert any(m.value.startswith("Tried ") for m in at.markdown)
    at.button(key="seating.use-best").click().run()
    assert not at.exception
    assert int(at.query_params["tp"]) <= 8
    assert at.query_params["cmp"] == "search"


def test_search_says_when_its_pick_reduce_scatters_every_micro_batch():
    # Llama 3 8B on one node: the search's pick holds ZeRO-2's gradient shard under 32 micro-batches; the page says
    # what that costs and which Megatron-Core stage runs it
    at = run_page(PAGE, {"model": "llama3-8b", "nodes": "1", "gb": "256", "cmp": "search"})
    assert not at.exception
    notes = [c.value for c in at.caption if "reduce-scatter theirs" in c.value]
    assert len(notes) == 1 and "ZeRO-2" in notes[0] and "Megatron-FSDP" in notes[0]


def test_impossible_layout_gives_a_clear_message():
    at = run_page(PAGE, {"tp": "3", "pp": "1", "dp": "7"})
    assert not at.exception
    message = at.error[0].value
    assert "cannot run" in message and "attention heads" in message and "GPU count" in message
    assert chart_keys(at) == []
    at2 = run_page(PAGE, {"ep": "2"})
    assert "needs a mixture\\-of\\-experts model" in at2.error[0].value


def test_a_million_gpus_skip_the_grid_but_keep_the_bill():
    # 100,000 nodes x 1,024 GPUs is clamped to the model's 1,000,000-rank limit (976 nodes, 999,424 GPUs)
    at = run_page(PAGE, {"nodes": "976", "gpn": "1024", "tp": "8", "pp": "4", "dp": "0", "gb": "31232",
                         "view": "bill"})
    assert not at.exception and not at.error
    assert any("draws up to 20,000 GPUs" in i.value for i in at.info)
    assert chart_keys(at) == ["seating-bill"]  # the bill's chart, not the grid


def test_does_not_fit_is_shown():
    at = run_page(PAGE, {"nodes": "1", "tp": "8", "pp": "1", "dp": "1", "zero": "0", "gb": "8"})
    assert not at.exception
    assert metric(at, "Memory per GPU").delta == "does not fit"
    assert any("Does not fit" in e.value for e in at.error)


@pytest.mark.parametrize(
    "query",
    [
        {"tp": "0", "pp": "-3", "dp": "abc", "zero": "9"},
        {"model": "gpt-9", "colour": "<script>", "cmp": "rm -rf"},
        {"seq": "9^9^8", "gb": "1e999", "eff": "nan", "mb": "0"},
        {"nodes": "100000", "gpn": "1024"},
        {"nodes": "72", "gpu": "gb200", "gpn": "72", "tp": "8", "pp": "9", "dp": "72"},
        {"model": "x" * 5000},
    ],
)
def test_hostile_links_warn_and_still_render(query):
    at = run_page(PAGE, query)
    assert not at.exception


def test_a_smaller_cluster_keeps_tp_and_shrinks_pp():
    # issue 22: /Seating_chart?nodes=2 drew nothing (TP 8 x PP 4 needs 32 GPUs); now the layout follows the cluster
    at = run_page(PAGE, {"nodes": "2", "view": "memory"})
    assert not at.exception
    assert any("kept TP 8, PP 4 → 2" in i.value for i in at.info)
    assert chart_keys(at) == ["seating-grid", "seating-memory"]  # the seating chart and the memory chart asked for
    # 70B on 16 GPUs with ZeRO-1 does not fit in 80 GB: said plainly, with the chart still drawn
    assert all("Does not fit" in e.value for e in at.error)


def test_schedule_and_stages_from_the_link():
    at = run_page(PAGE, {"sched": "interleaved", "vs": "2", "ends": "1", "attn": "unfused"})
    assert not at.exception and not at.error
    assert at.selectbox(key="seating.sched").value == "interleaved"
    assert any("Interleaved 1F1B with 2 model chunks per GPU" in c.value for c in at.caption)
    one = run_page(PAGE, {"sched": "1f1b"})
    # the interleaved schedule idles (p-1)/v instead of p-1 micro-batch times
    def bubble(page):
        return float(metric(page, "Pipeline bubble").value.rstrip("%"))

    assert bubble(at) < bubble(one)


def test_search_says_what_would_fit_when_nothing_does():
    at = run_page(PAGE, {"model": "llama3-405b", "nodes": "1", "gb": "8", "cmp": "search"})
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    assert "No layout of 8 GPUs" in message and "would fit" in message


@pytest.mark.parametrize("query", [{}, {"nodes": "2", "sched": "interleaved", "recompute": "full", "gb": "64"},
                                   {"stack": "torchtitan", "tpov": "on"}])
def test_plan_json_and_the_page_agree(query, capsys):
    import json

    from interconnect.cli import main

    at = run_page(PAGE, query)
    values = {**DEFAULTS, **query}
    argv = ["plan", "--nodes", values["nodes"], "--global-batch", values["gb"], "--recompute", values["recompute"],
            "--schedule", values["sched"], "--stack", values["stack"], "--tp-overlap", values["tpov"], "--json"]
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    assert metric(at, "TFLOP/s per GPU").value == f"{payload['tflops_per_gpu']['value']:.0f}"
    assert metric(at, "TFLOP/s per GPU").delta == f"{payload['mfu']:.0%} MFU"


def test_published_runs_and_the_misses_are_on_the_page():
    at = run_page(PAGE)
    assert not any(m.value.startswith("| run |") for m in at.markdown)  # drawn only once the expander is open
    at.session_state["seating-reference"] = True
    at.session_state["seating-sources"] = True
    at.run()
    assert any("arxiv.org/abs/1910.02054" in m.value for m in at.markdown)  # the Sources expander's list
    table = next(m.value for m in at.markdown if m.value.startswith("| run |"))
    assert table.count("\n") >= 11 and "model / paper" in table  # header, rule and one row per run
    misses = next(m.value for m in at.markdown if m.value.startswith("**Where the model misses"))
    assert "MT\\-NLG" in misses or "MT-NLG" in misses


def test_a_vanishing_efficiency_override_is_raised_to_the_clis_floor_without_numpy_warnings():
    # every key at the smallest double once overflowed the model's divisions (numpy RuntimeWarnings); an override
    # below 0.01 of peak is now read as 0.01, as `plan --efficiency` refuses anything lower
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        at = run_page(PAGE, {"eff": "5e-324"})
    assert not at.exception
    assert any("used 0" in w.value and "01" in w.value for w in at.warning)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize(("view", "keys"), [("bill", ["seating-grid", "seating-bill"]),
                                            ("memory", ["seating-grid", "seating-memory"]),
                                            ("none", ["seating-grid"]), ("auto", ["seating-grid"])])
def test_the_view_key_draws_only_the_chart_asked_for(view, keys):
    at = run_page(PAGE, {"view": view})
    assert not at.exception and not at.warning
    assert chart_keys(at) == keys  # the grid a diagram (no Plotly), the view's chart a Plotly chart
    assert at.radio(key="seating.view").value == view
    # the bill's table and the memory caption are there whatever the view
    assert any("sent per step per GPU" in m.value for m in at.markdown)
    assert any("Activations with this layout" in c.value for c in at.caption)


def test_more_settings_are_drawn_only_while_open_and_keep_their_values_closed():
    # issue 26: a plain link sends neither "More settings"' widgets (the run's and the cluster's)
    at = run_page(PAGE)
    assert not at.exception
    keys = {w.key for w in at.selectbox} | {w.key for w in at.number_input} | {w.key for w in at.toggle}
    assert not keys & {"seating.sched", "seating.recompute", "seating.sp", "seating.domain", "seating.sharp"}
    # a link that sets any of them opens its expander, with the link's values
    query = {"sched": "interleaved", "vs": "2", "recompute": "full", "domain": "16", "sharp": "1"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.error
    assert at.selectbox(key="seating.sched").value == "interleaved"
    assert at.number_input(key="seating.domain").value == 16
    # closed, the values stay in the link and in the model, through a full run and a node-count change
    at.session_state["seating-run-more"] = False
    at.session_state["seating-cluster-more"] = False
    at.run()
    assert not at.exception
    assert not [w for w in at.selectbox if w.key == "seating.sched"]
    at.number_input(key="seating.nodes").set_value(4).run()
    assert not at.exception
    assert at.query_params["nodes"] == "4"
    for key, value in query.items():
        assert at.query_params[key] == value, key
    assert any("Interleaved 1F1B with 2 model chunks per GPU" in c.value for c in at.caption)
    # opened again, the widgets show the values they kept
    at.session_state["seating-run-more"] = True
    at.run()
    assert at.selectbox(key="seating.recompute").value == "full"


def test_the_headline_figures_say_how_right_they_are():
    at = run_page(PAGE)
    captions = [c.value for c in at.caption if c.value.startswith("**How right:**")]
    assert len(captions) == 1 and "published runs like this: the model reads" in captions[0]
    assert any(p.proto.popover.label.endswith("published runs of this band") for p in at.get("popover"))
    # MoE runs are published (DeepSeek-V3, Qwen3, GPT-OSS in training-runs.toml): the layout and the search's
    # proposal each show the band of the published MoE runs, with the rules that held.
    at = run_page(PAGE, {"model": "mixtral-8x7b", "cmp": "search"})
    captions = [c.value for c in at.caption if c.value.startswith("**How right:**")]
    assert len(captions) == 2 and all("published runs like this" in c and "MoE" in c for c in captions)


def test_the_headline_says_what_a_measurement_would_likely_read():
    # The band read the other way, in the headline's own units: MFU over (1 + high) .. (1 + low) of the band's
    # model / published error, the step time (the inverse) times them. Checked against the page's own rounded
    # figures (the metric's MFU and step, the band's whole percents), so within what that rounding allows.
    import re

    at = run_page(PAGE)
    caption = next(c.value for c in at.caption if c.value.startswith("**How right:**")).replace("\\", "").replace(
        NO_BREAK_PERCENT, " %")
    low, high = (1 + int(x) / 100 for x in re.search(r"reads ([+-]\d+) % to ([+-]\d+) %", caption).groups())
    read = re.search(r"a measurement would likely read (\d+)–(\d+)% MFU \(about \d+%\), "
                     r"([\d.]+)–([\d.]+) s per step \(about [\d.]+ s\)", caption)
    assert read, caption
    metrics = {m.label: m for m in at.metric}
    mfu = int(metrics["TFLOP/s per GPU"].delta.split("%")[0]) / 100
    step = float(metrics["Step time"].value.removesuffix(" s"))
    assert int(read[1]) / 100 == pytest.approx(mfu / high, abs=0.015)
    assert int(read[2]) / 100 == pytest.approx(mfu / low, abs=0.015)
    assert (float(read[3]), float(read[4])) == pytest.approx((step * low, step * high), rel=0.015)
    at = run_page(PAGE, {"dtype": "fp32"})  # no published FP32 run: the band says so, and nothing more
    caption = next(c.value for c in at.caption if c.value.startswith("**How right:**"))
    assert caption.startswith("**How right:** extrapolation") and "likely read" not in caption


def _live_readout(at) -> str:
    import json

    from tests.app.conftest import live_charts

    spec = json.loads(live_charts(at)[0].proto.json)
    return spec["readouts"][spec["slider"]["index"]]


def test_one_memory_verdict_everywhere(capsys):
    # issue: TP16 of Llama 3 70B on 2 x 8 H100 is tight (82 of 85.5 GB, inside the allowance); the live chart's
    # readout said "It does not fit in memory" while the metric and the yellow box said tight
    from interconnect.cli import main

    query = {"model": "llama3-70b", "gpu": "h100-sxm", "gpn": "8", "nodes": "2", "tp": "16", "pp": "1", "cmp": "tp"}
    at = run_page(PAGE, query)
    assert not at.exception
    memory = metric(at, "Memory per GPU")
    assert memory.value == "82 / 85.5 GB" and memory.delta == "tight"
    assert any(w.value.startswith("**Tight:**") for w in at.warning)
    assert "Memory 82 / 85.5 GB per GPU, tight." in _live_readout(at)
    assert "not fit" not in _live_readout(at)
    cards = [m.value for m in at.warning if m.value.startswith("Memory: ")]
    assert cards == ["Memory: 82 / 85.5 GB per GPU, tight"]  # TP across two domains is this layout
    assert main(["plan", "--model", "llama3-70b", "--gpus-per-node", "8", "--nodes", "2", "--tp", "16",
                 "--pp", "1"]) == 0
    assert "memory: 82 / 85.5 GB per GPU, tight (" in capsys.readouterr().out


def test_comparisons_say_when_a_layout_does_not_fit():
    # issue: TP8 against TP16 of Llama 3 70B on 2 x 8 H100 showed both step times without saying that TP8 does not
    # fit (111 GB) and TP16 is tight; the search called the page's layout "0.89x the fastest" though it cannot run
    query = {"model": "llama3-70b", "gpu": "h100-sxm", "gpn": "8", "nodes": "2", "tp": "8", "pp": "1"}
    at = run_page(PAGE, {**query, "cmp": "tp"})
    assert not at.exception
    red = [e.value for e in at.error if e.value.startswith("Memory: ")]
    assert red == ["Memory: 111 / 85.5 GB per GPU, does not fit"]
    assert [w.value for w in at.warning if w.value.startswith("Memory: ")] == ["Memory: 82 / 85.5 GB per GPU, tight"]
    assert any(e.value.startswith("**TP inside does not fit in memory:**") for e in at.error)
    at = run_page(PAGE, {**query, "cmp": "search"})
    caption = next(c.value for c in at.caption if c.value.startswith("This page's layout"))
    assert "the fastest)" not in caption and "does not fit" in caption, caption


def test_search_names_why_no_layout_can_run():
    # issue: 800,000 GPUs for DeepSeek-V3 were said not to fit "this model in memory"; the global batch of 256
    # cannot be split over that many replicas, so no layout can run at all
    at = run_page(PAGE, {"model": "deepseek-v3", "gpn": "8", "nodes": "100000", "cmp": "search"})
    assert not at.exception
    error = next(e.value for e in at.error if e.value.startswith("No layout"))
    assert "in memory" not in error and "global batch" in error, error


def test_a_layout_that_was_published_says_what_it_measured():
    # NVIDIA's Megatron-Bridge 25.11 table ran Llama 3 70B on 64 H100 at TP4 PP8 DP2 in FP8-CS (781.8 TFLOP/s per GPU,
    # training-runs.toml); the same layout in BF16 on the page names that run, its precision against the case's, what
    # it measured and what the model reads for it; the default layout (TP8 PP4) was published by no one
    at = run_page(PAGE, {"tp": "4", "pp": "8"})
    caption = next(c.value for c in at.caption if c.value.startswith("**How right:**")).replace("\\", "").replace(
        NO_BREAK_PERCENT, " %")
    assert "Published with this layout: Llama 3 70B, 64 H100 FP8-CS, TP4 PP8" in caption
    assert "in FP8 (this case: 16-bit), measured 782 TFLOP/s per GPU; the model reads that run at" in caption
    at = run_page(PAGE)
    assert not any("Published with this layout" in c.value for c in at.caption)


def test_the_search_pick_says_who_published_its_layout():
    # the check: Llama 3 70B on 64 H100 in BF16 (the page's defaults). The search proposes TP4 x PP8 x DP2,
    # the layout of Megatron-Bridge 25.11's FP8-CS run (training-runs.toml), and its band says so
    at = run_page(PAGE, {"cmp": "search"})
    captions = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("**How right:**")]
    assert len(captions) == 2
    assert "Published with this layout: Llama 3 70B, 64 H100 FP8-CS, TP4 PP8" in captions[1]


def _step_s(at) -> float:
    value = metric(at, "Step time").value
    assert value.endswith(" s"), value
    return float(value[:-2])


def test_the_training_stack_and_tp_overlap_from_the_link():
    # issue 41: a TP8 layout's step falls when TP communication is overlapped; the keys round-trip
    base = run_page(PAGE, {"tp": "8", "pp": "4"})
    assert not base.exception and not base.info
    query = {**DEFAULTS, "stack": "nemo", "tpov": "on"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning and not at.error
    assert dict(at.query_params) == query
    assert at.selectbox(key="seating.stack").value == "nemo"
    assert at.selectbox(key="seating.tpov").value == "on"
    assert _step_s(at) < _step_s(base)  # 34.6 -> 31.5 s for Llama 3 70B on 64 H100
    # auto takes the stack's default: NeMo's performance recipes overlap, Megatron-Core's own default does not
    auto = run_page(PAGE, {"stack": "nemo"})
    assert _step_s(auto) == _step_s(at)
    assert _step_s(run_page(PAGE, {"stack": "nemo", "tpov": "off"})) == _step_s(base)
    assert _step_s(run_page(PAGE, {"tpov": "on"})) == _step_s(at)


def test_tp_overlap_that_cannot_act_says_why():
    at = run_page(PAGE, {"tpov": "on", "sp": "0"})
    assert not at.exception
    assert any("needs sequence parallelism" in i.value for i in at.info)
    at = run_page(PAGE, {"tpov": "on", "tp": "1", "pp": "8"})
    assert not at.exception
    assert any("needs TP" in i.value and "with TP 1" in i.value for i in at.info)


@pytest.mark.parametrize("query, key", [({"tpov": "<script>"}, "tpov"), ({"stack": "nonsense"}, "stack")])
def test_a_hostile_stack_or_overlap_is_named_and_the_default_used(query, key):
    at = run_page(PAGE, query)
    assert not at.exception and not at.error
    warning = " ".join(w.value for w in at.warning)
    assert f"link parameter `{key}`" in warning and "not a known choice" in warning
    assert at.query_params.get(key) is None or at.query_params[key] != query[key]
    assert _step_s(at) == _step_s(run_page(PAGE))


def test_the_search_uses_the_stacks_settings():
    off = run_page(PAGE, {"cmp": "search"})
    on = run_page(PAGE, {"cmp": "search", "stack": "nemo"})
    assert not off.exception and not on.exception

    def pick(at):
        line = next(m.value for m in at.markdown if "Fastest: **" in m.value)
        return line.split("Fastest: ")[1].split(":")[0], float(line.split(": step ")[1].split(" s,")[0])

    # every layout tried with NeMo's TP overlap: the fastest runs 31.3 -> 29.5 s. Two layouts are within 0.3 % of
    # each other there (TP4 x PP8 x DP2 interleaved, TP8 x PP2 x DP4 at micro-batch 2), so which one leads is not
    # asserted; the default stack's pick is held by test_public_interface.py
    assert pick(on)[1] < pick(off)[1]
    assert pick(off)[0].startswith("**TP4 × PP8 × DP2")


MOE_LINK = {"model": "deepseek-v3", "tp": "1", "pp": "8", "dp": "8", "ep": "8"}


def test_recompute_modules_and_the_all_to_all_overlap_from_the_link(capsys):
    # plan's --recompute-module and --ep-a2a-overlap as link keys: they round-trip, open "More settings", move the
    # step (the overlap hides all-to-all time; recomputing adds forward work and frees activation memory) and agree
    # with plan --json
    import json

    from interconnect.cli import main

    plain = run_page(PAGE, MOE_LINK)
    query = {**MOE_LINK, "rcmla": "1", "rcact": "1", "a2a": "1"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning
    for key, value in query.items():
        assert at.query_params[key] == value, key
    assert at.query_params["rcln"] == "0"
    assert at.toggle(key="seating.rcmla").value and not at.toggle(key="seating.rcmla").disabled
    assert at.toggle(key="seating.a2a").value and not at.toggle(key="seating.a2a").disabled
    assert metric(at, "Step time").value != metric(plain, "Step time").value
    assert float(metric(at, "Memory per GPU").value.split(" / ")[0]) < float(
        metric(plain, "Memory per GPU").value.split(" / ")[0])
    argv = ["plan", "--model", "deepseek-v3", "--tp", "1", "--pp", "8", "--dp", "8", "--ep", "8",
            "--recompute-module", "mla_up_proj", "--recompute-module", "moe_act", "--ep-a2a-overlap", "--json"]
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["workload"]["recompute_modules"] == ["mla_up_proj", "moe_act"]
    assert payload["workload"]["ep_a2a_overlap"] is True
    assert metric(at, "TFLOP/s per GPU").value == f"{payload['tflops_per_gpu']['value']:.0f}"
    assert metric(at, "Step time").value == format_seconds(payload["step_time"]["value"])


def test_moe_switches_are_disabled_where_they_cannot_act():
    # a dense model without latent attention: the MLA and expert switches and the overlap are disabled, and a link that
    # sets them leaves the bill as it was
    at = run_page(PAGE, {"rcmla": "1", "rcact": "1", "a2a": "1", "rcln": "1"})
    assert not at.exception and not at.error and not at.warning
    assert at.toggle(key="seating.rcmla").disabled and at.toggle(key="seating.rcact").disabled
    assert at.toggle(key="seating.a2a").disabled and not at.toggle(key="seating.rcln").disabled
    assert at.query_params["rcmla"] == "1"  # the link keeps the value
    only_ln = run_page(PAGE, {"rcln": "1"})
    assert metric(at, "Step time").value == metric(only_ln, "Step time").value
    # full recomputation disables the overlap
    full = run_page(PAGE, {**MOE_LINK, "a2a": "1", "recompute": "full"})
    assert not full.exception
    assert full.toggle(key="seating.a2a").disabled and "full recomputation" in full.toggle(key="seating.a2a").label


@pytest.mark.parametrize("query", [{**MOE_LINK, "rcmla": "<script>", "a2a": "2"}, {"rcact": "x" * 5000, "a2a": "on"}])
def test_hostile_moe_switches_warn(query):
    at = run_page(PAGE, query)
    assert not at.exception
    assert any("link parameter" in w.value for w in at.warning)
    assert at.query_params.get("rcmla", "0") in ("0", "1")


def test_a_fitted_layout_that_drops_ep_says_so_and_that_the_overlap_is_left_out():
    # one node of 8 GPUs at TP 2 x PP 4 leaves DP 1: EP 8 cannot divide TP x DP = 2, so the page's fitted layout has
    # EP 1, and the all-to-all overlap the link asks for has nothing to act on; both are said, not done quietly
    query = {"model": "mixtral-8x7b", "nodes": "1", "tp": "2", "pp": "4", "ep": "8", "a2a": "1"}
    at = run_page(PAGE, query)
    assert not at.exception
    text = " ".join(i.value for i in at.info).replace("\\", "")  # the page escapes Markdown
    assert "EP 8 → 1 (EP must divide TP × DP = 2)" in text
    assert "all-to-all overlap has nothing to hide and is left out" in text
    assert at.query_params["ep"] == "8" and at.query_params["a2a"] == "1"  # the link keeps what it asked for
    assert "8 GPUs in 1 node, coloured by" in diagram_scenes(at)[0]["title"]  # one node, not "1 nodes"
