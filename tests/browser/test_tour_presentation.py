"""The guided tour in presentation mode, walked in a real browser: from a cold server (its first
request is the tour's link), and at two projector sizes on the shared server. At 1920 x 1080 the walk also
takes :mod:`layout_checks`'s measures of each step (chart text, overflow, broken words, cut titles, a
filled screen), for ``test_widths``, which measures the pages off the tour.

A speaker opens the tour's first step with ``present=1`` and moves on with the banner's Next link
or the right arrow key. Each step must change the link's ``step``, open the step's page with a
chart drawn, show a different chart than the step before, and keep the sidebar out of the way.
"""

from __future__ import annotations

import pytest
from browser_helpers import (
    CHART,
    FIRST_RENDER_TIMEOUT_MS,
    assert_healthy,
    open_cold,
    open_page,
    poll,
    query_of,
    wait_for_charts,
    wait_for_run,
)
from layout_checks import present

from interconnect.ui.talk import tour_steps

pytestmark = pytest.mark.browser

STEPS = tour_steps()
SIDEBAR = '[data-testid="stSidebar"]'
SIDEBAR_OPENER = '[data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"]'


def chart_signature(page) -> str:
    """What the first chart shows: its title and its axis labels (different charts differ in both)."""
    chart = page.locator(CHART).first
    title = " ".join(chart.locator(".gtitle").all_text_contents())
    ticks = " ".join(chart.locator(".xtick, .ytick").all_text_contents())
    return f"{title} | {ticks}"


def assert_presenting(page, number: int) -> None:
    """The link holds the step and presentation mode; the step's banner and chart are shown; no sidebar."""
    query = query_of(page.url)
    assert query.get("present") == "1" and query.get("tour") == "1" and query.get("stop") == str(number), page.url
    for key, value in STEPS[number - 1].params:
        assert query.get(key) == value, (key, page.url)
    assert page.get_by_text(f"step {number} of {len(STEPS)}").count() >= 1
    assert page.get_by_text("Exit presentation mode").count() == 1
    sidebar = page.locator(SIDEBAR)
    assert sidebar.count() == 0 or not sidebar.first.is_visible(), "the sidebar shows in presentation mode"
    openers = page.locator(SIDEBAR_OPENER)
    assert all(not openers.nth(i).is_visible() for i in range(openers.count())), "a sidebar opener shows"


#: What a room must not see, and what must fit the first screen (Streamlit scrolls inside stMain).
STAGE_CHECK_JS = """(chartKey) => {
  const width = window.innerWidth, height = window.innerHeight;
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const problems = [];
  // Warnings and errors (an info or success box is the page's content, not a problem).
  document.querySelectorAll('[data-testid="stAlertContentWarning"], [data-testid="stAlertContentError"], '
    + '[data-testid="stException"], [data-testid="stToast"]')
    .forEach((el) => { if (visible(el)) problems.push('shown to the room: ' + el.innerText.slice(0, 120)); });
  // Controls on the first screen: wholly inside the window, and their labels not cut short.
  const controls = document.querySelectorAll('[data-testid="stMain"] button, [data-testid="stPageLink-NavLink"], '
    + '[data-testid="stMain"] input, [data-testid="stMain"] [data-baseweb="select"]');
  controls.forEach((el) => {
    if (!visible(el)) return;
    const r = el.getBoundingClientRect();
    if (r.top >= height) return;  // below the fold: the speaker scrolls to it
    const name = (el.innerText || el.getAttribute('aria-label') || el.tagName).trim().slice(0, 60);
    if (r.top < 0 || r.left < 0 || r.right > width + 0.5 || r.bottom > height + 0.5 && r.top < height - r.height)
      problems.push(`control outside the window: ${name} (${Math.round(r.left)},${Math.round(r.top)})`);
    el.querySelectorAll('p, span, div').forEach((text) => {
      if (text.children.length === 0 && text.scrollWidth > text.clientWidth + 1
          && getComputedStyle(text).textOverflow === 'ellipsis')
        problems.push(`label cut short: ${name}`);
    });
  });
  let chart = null;
  if (chartKey) {
    chart = document.querySelector(`.st-key-${chartKey} .js-plotly-plot`);
    if (!chart) problems.push(`the step's chart ${chartKey} is missing`);
    else {
      const r = chart.getBoundingClientRect();
      if (r.top < 0 || r.bottom > height + 0.5 || r.right > width + 0.5)
        problems.push(`the step's chart is not wholly on the first screen: top ${Math.round(r.top)}, `
          + `bottom ${Math.round(r.bottom)} of ${height}`);
    }
  }
  const caption = document.querySelector('.st-key-talk-banner');
  if (!caption || caption.getBoundingClientRect().bottom > height) problems.push('the tour caption is not on screen');
  const description = document.querySelector('meta[name="description"]');
  return {problems, title: document.title, description: description ? description.content : ''};
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_every_step_is_stage_ready(request, page, size):
    """Each step in presentation mode at a projector's size (1280 x 720, 1920 x 1080), reached from step 1 as a
    speaker moves on: by the banner's Next link to step 2, then by the right arrow key. Each step changes the
    link's ``stop`` and carries its parameters, shows its banner and a chart other than the step before's, and
    keeps the sidebar out of the way; no warning, error or exception; no control outside the window or with a
    cut label; the step's caption and its chart wholly on the first screen; the page's own title and
    description in the document head. The 1280 x 720 walk starts on a cold server, so the tour's link is its
    first request."""
    assert len(STEPS) >= 4 and STEPS[0].page == "home"
    cold = size == (1280, 720)
    server = request.getfixturevalue("cold_server" if cold else "streamlit_server")
    page.set_viewport_size({"width": size[0], "height": size[1]})
    (open_cold if cold else open_page)(page, server, "/?tour=1&stop=1&present=1")
    before = ""
    report = {}
    headings = []
    for number, step in enumerate(STEPS, start=1):
        if number == 2:  # the banner's Next link, then the right arrow key, as a speaker moves on
            page.get_by_role("link", name=f"Next: {step.title}").click()
        elif number > 2:
            page.locator("h1").first.click()  # focus the page, not a text field
            page.keyboard.press("ArrowRight")
        if number > 1:
            assert poll(page, lambda n=number: query_of(page.url).get("stop") == str(n)
                        and page.get_by_text(f"step {n} of {len(STEPS)}").count() > 0, timeout_s=30), \
                f"step {number} never opened: {page.url}"
        wait_for_run(page, server, timeout_ms=FIRST_RENDER_TIMEOUT_MS)
        assert_healthy(page, server)
        assert_presenting(page, number)
        if step.chart:
            wait_for_charts(page)
            now = poll(page, lambda b=before: (s := chart_signature(page)) != b and s, timeout_s=30)
            assert now and now != before, f"step {number} still shows the chart of the step before"
            before = now
        headings.append(page.locator("h1").first.inner_text())
        page.wait_for_timeout(600)  # Plotly's second layout pass, late alerts
        result = page.evaluate(STAGE_CHECK_JS, step.chart)
        heading = page.locator("h1").first.inner_text().strip()
        if result["title"] != f"{heading} · Interconnect Explorer":
            result["problems"].append(f"document title {result['title']!r}")
        if len(result["description"]) < 20:
            result["problems"].append(f"no description for link previews: {result['description']!r}")
        if size == (1920, 1080):  # as test_widths measures every page, on the screen a room sees
            result["problems"] += present(page, f"tour step {number} 1920x1080 presentation", filled=True)
        if result["problems"]:
            report[f"step {number} ({step.title})"] = result["problems"]
    # Home, then the cliff twice (H100, then B200: the same page with new parameters), then the seating chart.
    assert headings[1] == headings[2] != headings[0] and headings[3] != headings[2], headings
    assert not report, report
