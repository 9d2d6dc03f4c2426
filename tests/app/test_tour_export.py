"""The exported talk is the rehearsed talk: ``interconnect export --tour`` renders every step with exactly
the state the live tour has at that step.

The live tour is walked as a speaker walks it, in one session from step 1 (each step opened by the
link its Previous step's Next button holds, so values a page shares with the next one carry over);
the export renders each step on its own from the step's link. Every chart must be identical.
"""

import json

import plotly.graph_objects as go
from streamlit.testing.v1 import AppTest

from interconnect.cli.export import tour_jobs
from interconnect.figures.diagram import diagram_scene
from interconnect.ui.export import render_charts
from interconnect.ui.pages import PAGES
from interconnect.ui.talk import tour_query, tour_steps
from tests.app.conftest import ROOT, diagrams


def _specs(pairs) -> list[tuple[str, str]]:
    return [(key, json.dumps(figure.to_plotly_json(), sort_keys=True, default=str)) for key, figure in pairs]


def test_every_exported_step_matches_the_live_tour_walked_from_step_one():
    steps = tour_steps()
    jobs = tour_jobs()
    assert len(jobs) == len(steps)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    compared = 0
    for number, (step, job) in enumerate(zip(steps, jobs, strict=True), start=1):
        for key in list(at.query_params):
            del at.query_params[key]
        for key, value in tour_query(number, False).items():
            at.query_params[key] = value
        at.switch_page(PAGES[step.page][0])
        at.run()
        assert not at.exception, (number, at.exception)
        live = [(str(chart.key), chart.proto.spec) for chart in at.get("plotly_chart")]
        live = [(key, json.dumps(json.loads(spec), sort_keys=True, default=str)) for key, spec in live]
        # a diagram (the seating grid) is SVG on the page and a Plotly figure in the export: the same scene
        scenes = {str(shown.key): json.loads(shown.proto.json) for shown in diagrams(at)}
        script, params = job[0], job[1]
        assert params == dict(step.params)
        exported = _specs(render_charts(script, params))
        assert [key for key, _ in exported if key not in scenes] == [key for key, _ in live], number
        assert {key for key, _ in exported} == {key for key, _ in live} | set(scenes), number
        figures = dict(exported)
        for key, live_spec in live:
            assert live_spec == figures[key], f"step {number}, chart {key}: the export differs from the live tour"
        for key, scene in scenes.items():
            assert diagram_scene(go.Figure(json.loads(figures[key]))) == scene, f"step {number}, diagram {key}"
        compared += len(live) + len(scenes)
        if step.chart:  # the step's own chart exists on its page (presentation mode puts it first)
            assert step.chart in [key for key, _ in live] + list(scenes), (number, step.chart)
    # charts were really compared: at least each step's own chart (the Claims step has none, and Home now
    # draws only its layers picture unless the link asks for the reach map)
    assert compared >= sum(1 for step in steps if step.chart) > 0


def test_later_steps_hold_the_gpu_of_the_step_that_introduced_it():
    """Step 3 moves the story to B200; every later step that shows a GPU names it in its own link."""
    steps = tour_steps()
    introduced = next(n for n, step in enumerate(steps) if dict(step.params).get("gpu") == "b200")
    for step in steps[introduced + 1:]:
        if step.page not in ("home", "claims"):
            assert dict(step.params).get("gpu") == "b200", step.title
