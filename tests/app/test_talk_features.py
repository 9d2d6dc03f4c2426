"""AppTest of the talk features: the guided tour, presentation mode and the link to the view."""

from urllib.parse import parse_qs, urlsplit

import pytest

from interconnect.ui.pages import PAGES
from interconnect.ui.share import LINK_OPEN_KEY
from interconnect.ui.talk import tour_steps
from tests.app.conftest import run_page

STEPS = tour_steps()


def script(page: str) -> str | None:
    return None if page == "home" else PAGES[page][0]


@pytest.mark.parametrize("number", range(1, len(STEPS) + 1))
def test_every_tour_step_renders_its_page_with_its_caption(number):
    step = STEPS[number - 1]
    at = run_page(script(step.page), {**dict(step.params), "tour": "1", "stop": str(number)})
    assert not at.exception and not at.warning  # no stop's own link draws a warning
    assert f"step {number} of {len(STEPS)}" in at.get("progress")[0].proto.text
    assert at.query_params["tour"] == "1" and at.query_params["stop"] == str(number)
    for key, value in step.params:
        assert at.query_params[key] == value  # the step's view, not the session's


def test_tour_step_to_the_same_page_with_new_parameters_replaces_the_widgets():
    first, second = STEPS[1], STEPS[2]  # two Bandwidth-cliff steps: H100, then B200
    assert first.page == second.page == "cliff"
    at = run_page(PAGES["cliff"][0], {**dict(first.params), "tour": "1", "stop": "2"})
    assert at.selectbox(key="cliff.gpu").value == "h100-sxm"
    for key in list(at.query_params):
        del at.query_params[key]
    for key, value in {**dict(second.params), "tour": "1", "stop": "3"}.items():
        at.query_params[key] = value
    at.run()
    assert at.selectbox(key="cliff.gpu").value == "b200"


@pytest.mark.parametrize("key", ["stop", "step"])  # step: the key of links made before stop existed
@pytest.mark.parametrize("step", ["999", "0", "-1", "<script>", "9^9^8", "\u00b2", "\u0663", "\uff18", "9" * 4301])
def test_a_broken_tour_step_falls_back_to_the_first_and_says_so(key, step):
    at = run_page(None, {"tour": "1", key: step})
    assert not at.exception
    assert "step 1 of" in at.get("progress")[0].proto.text
    assert any(f"link parameter `{key}`" in warning.value and "using `1`" in warning.value for warning in at.warning)


@pytest.mark.parametrize("number", range(1, len(STEPS) + 1))
def test_a_published_tour_link_with_step_opens_the_same_stop(number):
    step = STEPS[number - 1]
    at = run_page(script(step.page), {**dict(step.params), "tour": "1", "step": str(number)})
    assert not at.exception and not at.warning
    assert f"step {number} of {len(STEPS)}" in at.get("progress")[0].proto.text
    assert at.query_params["stop"] == str(number)  # rewritten to the new key
    assert dict(at.query_params).get("step") in (None, "typed")  # only Across sites has one: its mode


@pytest.mark.parametrize("mode", ["typed", "derived"])
def test_the_across_sites_step_mode_and_the_tour_stop_travel_together(mode):
    number = next(i for i, step in enumerate(STEPS, start=1) if step.page == "crossdc")
    for query in ({"tour": "1", "stop": str(number), "step": mode}, {"tour": "1", "step": mode}):
        at = run_page(PAGES["crossdc"][0], query)
        assert not at.exception and not at.warning
        # the mode's radio is in "More settings", drawn only while open (a link with step=typed leaves it closed)
        assert at.session_state["crossdc.step"] == mode
        if mode != "typed":
            assert at.radio(key="crossdc.step").value == mode
        shown = int(query.get("stop", "1"))
        assert f"step {shown} of {len(STEPS)}" in at.get("progress")[0].proto.text


def test_presentation_mode_stays_in_the_link_and_enlarges_chart_text():
    at = run_page(PAGES["allreduce"][0], {"present": "1", "nodes": "2"})
    assert not at.exception
    assert at.query_params["present"] == "1" and at.query_params["nodes"] == "2"


CUSTOM = {"gpu": "custom", "gpu_bw": "3.6 TB/s", "gpu_name": "Next", "nic": "custom", "nic_bw": "800 Gbit/s"}


@pytest.mark.parametrize(("name", "opened"), [("cliff", {}), ("allreduce", {}), ("catalog", {}), ("claims", {}),
                                              ("units", {}), ("cliff", CUSTOM), ("allreduce", CUSTOM)])
def test_the_link_to_the_view_holds_every_control_of_the_page(name, opened):
    at = run_page(PAGES[name][0], opened)
    assert not at.exception
    assert not at.code  # the address is drawn only while "Link to this view" is open
    at.session_state[LINK_OPEN_KEY] = True  # as opening the pop-over does (it reruns the page)
    at.run()
    assert not at.exception
    link = next(code.value for code in at.code if "?" in code.value)
    query = {key: values[-1] for key, values in parse_qs(urlsplit(link).query, keep_blank_values=True).items()}
    assert query == {key: at.query_params[key] for key in at.query_params}
    prefix = {"allreduce": "allreduce.", "cliff": "cliff.", "catalog": "catalog.", "claims": "claims.",
              "units": "units."}[name]
    controls = {widget.key.removeprefix(prefix) for kind in WIDGET_KINDS for widget in at.get(kind)
                if widget.key and widget.key.startswith(prefix) and not widget.key.endswith((".upload", ".paste"))}
    # Every control travels in the link, but for the cluster's fabric keys, which stay out of it while no
    # fabric is chosen (so links written before they existed keep their form; absent means the default).
    from interconnect.inputs.cluster import TOPOLOGY_KEYS

    quiet = set(TOPOLOGY_KEYS) if query.get("topo", "none") == "none" else set()
    if query.get("view", "auto") == "auto":  # the further chart, at its default, stays out of the link too
        quiet.add("view")
    assert controls and controls - quiet <= set(query), controls - quiet - set(query)
    if opened:  # a custom GPU's and NIC's own controls are drawn, and travel too
        assert {"gpu_bw", "gpu_name", "gpu_base", "nic_bw"} <= controls


WIDGET_KINDS = ("selectbox", "number_input", "text_input", "radio", "toggle", "checkbox", "slider",
                "select_slider", "segmented_control", "multiselect")


def _preview(at) -> dict[str, str]:
    """The preview metadata a page writes into the document head: {field: content}."""
    import json
    import re

    script = next(block.proto.body for block in at.get("html") if "og:title" in block.proto.body)
    calls = re.findall(r'put\(("[^"]*"), ("[^"]*"), ("(?:[^"\\]|\\.)*")\);', script)
    return {json.loads(name): json.loads(content) for _, name, content in calls}


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_gives_a_link_preview_its_title_and_one_line(name):
    from interconnect.ui.pages import page_exists

    if not page_exists(name):
        pytest.skip(f"{name} is not in this build")
    at = run_page(script(name))
    assert not at.exception
    preview = _preview(at)
    heading = at.title[0].value
    assert preview["og:title"] == preview["twitter:title"] == f"{heading} · Interconnect Explorer"
    description = preview["description"]
    assert preview["og:description"] == description and preview["og:site_name"] == "Interconnect Explorer"
    assert 20 <= len(description) <= 200 and "\n" not in description and description.endswith(".")
    # The line is the page's own: its caption's first sentence (each page has a different one).
    assert description.rstrip(".") in " ".join(caption.value for caption in at.caption)


CONTROL_KINDS = ("slider", "select_slider", "selectbox", "multiselect", "number_input", "radio", "text_input",
                 "toggle", "checkbox", "segmented_control")


def controls(block) -> list[str]:
    return sorted(str(widget.key) for kind in CONTROL_KINDS for widget in block.get(kind))


@pytest.mark.parametrize("number", [n for n, step in enumerate(STEPS, start=1) if step.chart])
def test_presentation_mode_puts_the_step_chart_first_and_folds_the_controls_away(number):
    from interconnect.ui.talk import REST_LABEL

    step = STEPS[number - 1]
    query = {**dict(step.params), "tour": "1", "stop": str(number)}
    at = run_page(script(step.page), {**query, "present": "1"})
    assert not at.exception and not at.warning
    rest = [expander for expander in at.main.get("expander") if expander.label == REST_LABEL]
    assert len(rest) == 1 and not rest[0].proto.expanded  # collapsed until the speaker opens it
    charts = [str(chart.key) for chart in at.main.get("plotly_chart")]
    assert step.chart in charts and step.chart not in [str(c.key) for c in rest[0].get("plotly_chart")]
    # Every control of the page is in the folded part (the head keeps only the way out of the mode) and
    # keeps its key, so the same link opens the same view in either mode.
    assert controls(rest[0]) == controls(at.main)
    normal = run_page(script(step.page), query)
    assert controls(normal.main) == controls(at.main)
    assert not [expander for expander in normal.main.get("expander") if expander.label == REST_LABEL]
