"""The offline export's pure parts: caption Markdown, the index and the deck."""

import time

import plotly.graph_objects as go

from interconnect.figures.export import DeckStep, ExportedView, deck_html, index_html, markdown_html


def test_captions_render_their_marks_and_escape_everything_else():
    assert markdown_html("*Interconnect* names **9 to 1**") == "<em>Interconnect</em> names <strong>9 to 1</strong>"
    assert markdown_html("<script>alert(1)</script> **x") == "&lt;script&gt;alert(1)&lt;/script&gt; **x"
    assert markdown_html("`<b>`") == "<code>&lt;b&gt;</code>"


def _best_time(n: int) -> float:
    text = "*" * n + "`" * (n + 1) + "a**" * (n // 2)
    best = float("inf")
    for _ in range(5):  # the fastest of five: a worker sharing its core with others is paused now and then
        started = time.perf_counter()
        markdown_html(text)
        best = min(best, time.perf_counter() - started)
    return best


def test_caption_rendering_is_linear_on_hostile_input():
    # Sixteen times the text takes about sixteen times as long; quadratic work would take 256 times. The
    # wide margin (64) keeps a loaded machine's noise from failing a linear parser.
    assert _best_time(160_000) < 64 * _best_time(10_000)


def test_the_index_numbers_each_view_once():
    views = [ExportedView("One word, three jobs", "*Interconnect*", "/", ("v1.html",)),
             ExportedView("The cliff", "**9 to 1**", "/Bandwidth_cliff", ("v2.html",))]
    page = index_html(views, deck="deck.html")
    assert page.count("<li>") == 2 and "<ol>" in page  # the list numbers them
    assert "1. One word" not in page and "<h2>One word, three jobs</h2>" in page
    assert "<strong>9 to 1</strong>" in page and "**" not in page


def test_the_deck_has_a_slide_per_step_keys_a_counter_and_no_network():
    figure = go.Figure(go.Bar(x=["a"], y=[1], name="</script><script>alert(1)</script>"))
    steps = [DeckStep(f"Step {n}", "a **b**", f"/?n={n}", (figure,)) for n in range(1, 4)]
    deck = deck_html(steps, plotly_js="/* plotly */")
    assert deck.count("<section class='slide'") == 3 and deck.count("class='chart'") == 3
    assert "ArrowRight" in deck and "ArrowLeft" in deck and "Step ${current + 1} of ${slides.length}" in deck
    assert "</script><script>alert" not in deck  # a trace name cannot end the figures' script early
    assert "http://" not in deck and "https://" not in deck
