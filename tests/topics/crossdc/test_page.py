"""AppTest of the Across-sites page: defaults, every parameter from the link, presets, hostile links."""

import pytest

from interconnect.inputs.params import parse_state
from interconnect.topics.crossdc.inputs import CROSSDC_VIEWS, crossdc_inputs, crossdc_specs
from interconnect.topics.crossdc.model import METHODS, get_crossdc_data
from interconnect.topics.crossdc.view import crossdc_view
from interconnect.units import Q_, format_bandwidth
from tests.app.conftest import chart_specs, live_charts, run_page

PAGE = "pages/6_Across_sites.py"
MORE = "crossdc-more"  # the key of the "More settings" expander


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def expected_view(query):
    values, warnings = parse_state(crossdc_specs(), query)
    assert not warnings
    return crossdc_view(crossdc_inputs(values))


def test_defaults_render_the_live_chart_the_cards_and_write_the_url():
    at = run_page(PAGE)
    assert not at.exception and not at.warning
    assert len(live_charts(at)) == 1 and len(at.get("plotly_chart")) == 0  # view=auto: no further chart
    # 1e9 parameters of dense DiLoCo at 16 bits between two sites: 2 GB per sync.
    assert metric(at, "Payload per sync") == "2 GB"
    assert any(m.label == "Exposed per 500 steps" for m in at.metric)
    assert at.query_params["method"] == "diloco" and at.query_params["bw"] == "10 Gbit/s"
    markdown = " ".join(block.value for block in at.markdown).replace("\\", "")  # text is Markdown-escaped
    for card in get_crossdc_data().reported:
        assert card.work in markdown, card.id
    assert "Often quoted" in markdown and "arxiv.org/abs/2501.18512" in markdown
    at.radio(key="crossdc.view").set_value("utilization").run()
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    assert len(titles) == 1 and titles[0].startswith("Compute utilisation against WAN bandwidth")


def test_every_parameter_from_the_link():
    query = {"params": "10B", "sites": "4", "gpus": "16", "gpu": "a100-sxm", "method": "streaming-diloco", "h": "50",
             "bits": "8", "topo": "ring", "frag": "4", "tau": "2", "layers": "48", "chunk": "4096", "topk": "64",
             "ibits": "12", "nmb": "16", "overlap": "0", "target": "90", "step": "derived", "t": "1 s",
             "tokens": "2M", "mfu": "35", "bw": "40 Gbit/s", "rtt": "5 ms"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning
    # The weight-sync section's keys (ws...) are tested in test_weight_sync.py, the pipeline's (pp...) in
    # test_pipeline.py.
    assert {k: v for k, v in at.query_params.items() if not k.startswith(("ws", "pp"))} == query
    assert at.selectbox(key="crossdc.topo").value == "ring"
    assert at.number_input(key="crossdc.frag").value == 4
    view = expected_view(query)
    assert view.scenario.method.inner_steps == 50 and view.result.fragments == 4
    assert metric(at, "Compute utilisation") == f"{view.result.utilization:.1%}"
    needed = format_bandwidth(Q_(view.result.required_bytes_per_s, "B/s"), "bit/s")
    assert metric(at, "WAN needed for 90 %") == needed
    assert any("Step time: 6 ×" in caption.value for caption in at.caption)


def test_sparseloco_link_shows_its_knobs():
    query = {"method": "sparseloco", "chunk": "2048", "topk": "32", "ibits": "11", "sites": "20"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning
    assert at.number_input(key="crossdc.topk").value == 32
    view = expected_view(query)
    assert view.scenario.method.bits_per_param == pytest.approx(32 / 2048 * 13)
    assert view.scenario.method.topology == "allgather"


def test_crosspipe_link_round_trips_and_sizes_the_activations():
    query = {"method": "crosspipe", "nmb": "16", "tokens": "2M", "params": "70B", "layers": "80", "bw": "100 Gbit/s",
             "rtt": "20 ms", "t": "2 s"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning
    assert {k: at.query_params[k] for k in query} == query
    assert at.number_input(key="crossdc.nmb").value == 16
    view = expected_view(query)
    # By hand: hidden sqrt(70e9 / (12 x 80)) = 8539 -> 8512; 2 sites x 2M tokens in 16 micro-batches of
    # 250,000 tokens; 250,000 x 8512 x 2 bytes = 4.256 GB per micro-batch each way.
    assert view.scenario.resolved_hidden == 8512
    assert view.result.payload_bytes == pytest.approx(4.256e9)
    assert metric(at, "Payload per sync") == "4.26 GB"
    assert any(m.label == "Exposed per step" for m in at.metric)  # a pipeline crosses every step: singular
    assert any("one pipeline stage each (hidden size 8,512)" in c.value and "a bubble of 6.2%" in c.value
               for c in at.caption)


def test_cocodc_link_keeps_streaming_knobs_and_old_links_keep_their_meaning():
    at = run_page(PAGE, {"method": "cocodc", "frag": "4", "tau": "2"})
    assert not at.exception and not at.warning
    view = expected_view({"method": "cocodc", "frag": "4", "tau": "2"})
    assert view.result.fragments == 4 and view.scenario.method.overlap_steps == 2
    # A link from before the new methods: no `mb`, an old method; the same answer as before.
    old = expected_view({"method": "streaming-diloco", "frag": "4"})
    assert old.scenario.method.id == "streaming-diloco" and old.result.fragments == 4
    assert old.result.payload_bytes == pytest.approx(1e9 * 4 / 8 / 4)


@pytest.mark.parametrize("method", METHODS)
def test_each_method_renders(method):
    at = run_page(PAGE, {"method": method})
    assert not at.exception and not at.warning
    assert at.query_params["method"] == method and at.selectbox(key="crossdc.method").value == method
    assert len(live_charts(at)) == 1
    for view in CROSSDC_VIEWS.labels:  # each further chart, one at a time
        at.radio(key="crossdc.view").set_value(view).run()
        assert not at.exception
        assert [chart.key for chart in at.get("plotly_chart")] == [f"crossdc-{view}"]


def test_a_network_class_button_sets_bandwidth_and_round_trip():
    # CrossPipe §2.3 (arXiv 2507.00217): cross-region cloud, 30-100 ms and 1.4-5.0 Gbit/s; the preset is 50 ms
    # one way (100 ms round trip) at 2.5 Gbit/s.
    at = run_page(PAGE)
    at.button(key="crossdc.net.cross-region").click().run()
    assert not at.exception
    assert at.text_input(key="crossdc.bw").value == "2.5 Gbit/s"
    assert not [w for w in at.text_input if w.key == "crossdc.rtt"]  # "More settings" is closed: not drawn
    at.session_state[MORE] = True  # AppTest's expander has no open(): set its key as a click would
    at.run()
    assert at.text_input(key="crossdc.rtt").value == "100 ms"


def test_knob_that_does_not_fit_the_method_is_dropped_with_a_warning():
    at = run_page(PAGE, {"method": "diloco", "bits": "2"})
    assert not at.exception
    assert any("Bits per value" in w.value and "using the method's default" in w.value for w in at.warning)
    assert metric(at, "Payload per sync") == "2 GB"  # 16 bits, the default


def test_unreachable_target_says_so():
    at = run_page(PAGE, {"method": "dp", "t": "10 ms", "rtt": "1 s"})
    assert not at.exception
    assert metric(at, "WAN needed") == "out of reach"


@pytest.mark.parametrize(("query", "key"), [
    ({"sites": "-3"}, "sites"),
    ({"h": "-1"}, "h"),
    ({"bw": "5 km"}, "bw"),
    ({"params": "9^9^8"}, "params"),
    ({"params": "1e999"}, "params"),
    ({"rtt": "1e999 s"}, "rtt"),
    ({"target": "abc"}, "target"),
    ({"method": "telepathy"}, "method"),
    ({"t": "0 s"}, "t"),
    ({"tokens": "-5"}, "tokens"),
    ({"gpu": "<script>"}, "gpu"),
    ({"topo": "x" * 5000}, "topo"),
    ({"method": "crosspipe", "nmb": "0"}, "nmb"),
    ({"method": "crosspipe", "nmb": "many"}, "nmb"),
])
def test_hostile_links_warn_and_still_render(query, key):
    at = run_page(PAGE, query)
    assert not at.exception
    assert any(f"`{key}`" in w.value for w in at.warning), [w.value for w in at.warning]
    assert len(live_charts(at)) == 1


def test_more_settings_are_drawn_only_while_open_and_keep_their_values_closed():
    # issue 26: a plain link sends none of "More settings"' widgets, and a view link does not open it either
    for query in ({}, {"view": "bytes"}):
        at = run_page(PAGE, query)
        assert not at.exception
        assert not {w.key for w in at.number_input} & {"crossdc.gpus", "crossdc.h", "crossdc.layers"}
        assert not [w for w in at.text_input if w.key == "crossdc.rtt"]
    # a link that sets any of them opens it, with the link's values
    query = {"method": "sparseloco", "topk": "32", "h": "40", "rtt": "5 ms", "target": "90"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning
    assert at.number_input(key="crossdc.topk").value == 32
    assert at.text_input(key="crossdc.rtt").value == "5 ms"
    expected = metric(at, "Compute utilisation")
    # closed, the values stay in the link and in the model, through a full run and a change of the site count
    at.session_state[MORE] = False
    at.run()
    assert not at.exception
    assert not [w for w in at.number_input if w.key == "crossdc.topk"]
    assert metric(at, "Compute utilisation") == expected
    # kept in the session too, not only in the link: a fragment's rerun in the browser reads no link
    # (AppTest reruns the whole page, which reads the link again; the browser test proves the fragment's case)
    for key, value in {"topk": 32, "h": 40, "rtt": "5 ms", "target": 90.0}.items():
        assert at.session_state[f"crossdc.{key}"] == value, key
    at.number_input(key="crossdc.sites").set_value(3).run()
    assert not at.exception
    assert at.query_params["sites"] == "3"
    for key, value in query.items():
        assert at.query_params[key] == value, key
    view = expected_view({**query, "sites": "3"})
    assert metric(at, "Compute utilisation") == f"{view.result.utilization:.1%}"
    # another method hides top-k even while open; it keeps its value for when sparseloco comes back
    at.session_state[MORE] = True
    at.run()
    at.selectbox(key="crossdc.method").set_value("diloco").run()
    assert not [w for w in at.number_input if w.key == "crossdc.topk"]
    assert at.query_params["topk"] == "32"
    at.selectbox(key="crossdc.method").set_value("sparseloco").run()
    assert at.number_input(key="crossdc.topk").value == 32
