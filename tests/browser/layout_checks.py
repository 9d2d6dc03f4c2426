"""What the width and presentation walks measure on a page, in one JavaScript pass: shared by
``test_widths`` (every page at every width, and presentation mode on the pages off the tour) and
``test_tour_presentation`` (the tour's steps in presentation mode at 1920 x 1080, where a room sees them).

At each size, once the page has stopped changing, one JavaScript pass over the page (into the live charts'
shadow roots too) checks:

* text in any chart (Plotly's SVG, a live chart's SVG and its legend, a diagram's SVG and legend) is at
  least 12 px as drawn (font size times the SVG's own scaling), and at least 14 px at 1280 x 720;
* nothing is wider than the window: the page does not scroll sideways and no visible element's right
  edge passes the window's (unless a scrolling box of its own, inside the window, holds it);
* no word is broken inside: no word of the page's text (labels, cards, headings, tables) has its letters
  on two lines, except where the word itself allows a break (after a hyphen or a slash);
* every title is whole: no text cut by its box (an ellipsis or hidden overflow: select boxes, metrics,
  labels), and no chart text past its SVG's edge;
* on each tour step in presentation mode, the screen is filled: the lowest thing drawn on the first
  screen reaches at least 85 % of its height (the step's chart takes what the title and banner leave).
"""

from __future__ import annotations

#: (width, height, smallest chart text in px) in the order the walk resizes the window.
WIDTHS = ((800, 900, 12.0), (1280, 720, 14.0), (1440, 900, 12.0), (1920, 1080, 12.0))
PRESENT_MIN_TEXT_PX = 12.0
#: How much of a 1920 x 1080 screen presentation mode's first screen must fill, measured to the lowest content.
PRESENT_FILL = 0.85

#: Waits until the page has stopped changing: the size of every chart and of the page the same over 2 checks
#: 100 ms apart (Plotly, the diagrams and the live charts redraw a moment after the window's size changes).
_STILL_JS = """
async () => {
  const roots = () => {
    const found = [document];
    for (let i = 0; i < found.length; i += 1) {
      for (const el of found[i].querySelectorAll('*')) if (el.shadowRoot) found.push(el.shadowRoot);
    }
    return found;
  };
  const signature = () => {
    const parts = [document.documentElement.scrollWidth, innerWidth];
    for (const root of roots()) {
      for (const svg of root.querySelectorAll('svg.main-svg, .diagram-chart > svg, .live-chart > svg')) {
        const r = svg.getBoundingClientRect();
        parts.push(Math.round(r.width), Math.round(r.height), svg.getAttribute('viewBox') || '');
      }
    }
    return parts.join(',');
  };
  let last = signature();
  let still = 0;
  for (let k = 0; k < 80 && still < 2; k += 1) {
    await new Promise((done) => setTimeout(done, 100));
    const now = signature();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
}
"""

#: Everything at this size that breaks a rule, as short strings; and the smallest chart text seen.
_MEASURE_JS = """
(minText) => {
  const problems = [];
  const W = innerWidth;
  const roots = [document];
  for (let i = 0; i < roots.length; i += 1) {
    for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
  }
  const all = (selector) => roots.flatMap((root) => Array.from(root.querySelectorAll(selector)));
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return null;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || parseFloat(style.opacity) === 0) return null;
    return r;
  };
  const short = (text) => (text || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
  const parentOf = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;

  // Chart text as drawn.
  let smallest = Infinity;
  const svgs = all('svg.main-svg, .diagram-chart > svg, .live-chart > svg');
  for (const svg of svgs) {
    const box = shown(svg);
    if (!box) continue;
    let small = null;
    for (const text of svg.querySelectorAll('text')) {
      if (!short(text.textContent)) continue;
      const r = shown(text);
      if (!r) continue;
      const m = text.getScreenCTM();
      const scale = m ? Math.sqrt(m.a * m.a + m.b * m.b) : 1;
      const size = parseFloat(getComputedStyle(text).fontSize) * scale;
      smallest = Math.min(smallest, size);
      if (size < minText - 0.05 && (!small || size < small.size)) small = {size, text: short(text.textContent)};
      if (r.right > box.right + 1 || r.left < box.left - 1) {
        problems.push(`chart text cut at the chart's edge: ${JSON.stringify(short(text.textContent))}`);
      }
    }
    if (small) {
      const plot = svg.closest('.js-plotly-plot') || svg;
      const name = svg.getAttribute('aria-label') || plot.querySelector('.gtitle')?.textContent || '';
      problems.push(`chart text down to ${small.size.toFixed(1)} px (${JSON.stringify(small.text)}) `
                    + `in ${JSON.stringify(short(name))}`);
    }
  }
  // Chart text drawn over other chart text of the same chart (labels running into each other): two lines of
  // text sharing over 3 px of width and over half their height.
  const charts = new Map();
  for (const svg of svgs) {
    if (!shown(svg)) continue;
    const chart = svg.closest('.js-plotly-plot, .diagram-chart, .live-chart') || svg;
    for (const text of svg.querySelectorAll('text')) {
      const lines = text.querySelectorAll('tspan.line');  // Plotly's lines of one label: each its own box
      for (const piece of (lines.length ? lines : [text])) {
        const r = short(piece.textContent) && shown(piece);
        if (r) (charts.get(chart) || charts.set(chart, []).get(chart)).push([r, short(piece.textContent)]);
      }
    }
  }
  for (const boxes of charts.values()) {
    for (let i = 0; i < boxes.length && i < 400; i += 1) {
      for (let j = i + 1; j < boxes.length && j < 400; j += 1) {
        const [a, ta] = boxes[i];
        const [b, tb] = boxes[j];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w <= 0 || h <= 0) continue;
        if (w > 3 && h > 0.5 * Math.min(a.height, b.height)) {
          problems.push(`chart text over other text: ${JSON.stringify(ta)} and ${JSON.stringify(tb)}`);
        }
      }
    }
  }
  for (const el of all('.live-legend, .live-readout, .live-control, .diagram-legend')) {
    if (!shown(el) || !short(el.textContent)) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    smallest = Math.min(smallest, size);
    if (size < minText - 0.05) {
      problems.push(`chart legend ${JSON.stringify(short(el.textContent))} ${size.toFixed(1)} px`);
    }
  }

  // Wider than the window.
  const main = document.querySelector('[data-testid="stMain"]');
  const page = document.documentElement;
  if (page.scrollWidth > W + 1) problems.push(`page scrolls sideways: ${page.scrollWidth} px`);
  if (main && main.scrollWidth > main.clientWidth + 1) {
    problems.push(`main area scrolls sideways: ${main.scrollWidth} px`);
  }
  const clippedByScroller = (el) => {
    for (let up = parentOf(el); up && up !== document.body; up = parentOf(up)) {
      if (!(up instanceof Element)) continue;
      const overflow = getComputedStyle(up).overflowX;
      if (overflow !== 'visible' && up.getBoundingClientRect().right <= W + 1) return true;
    }
    return false;
  };
  const wide = [];
  for (const el of all('[data-testid="stMain"] *, [data-testid="stMain"] ~ * *')) {
    const r = el.getBoundingClientRect();
    if (r.right <= W + 1 || !r.width || !r.height || el.closest('[data-testid="stSidebar"]')) continue;
    if (!shown(el) || clippedByScroller(el)) continue;
    wide.push(el);
  }
  // Report the outermost offenders only.
  for (const el of wide) {
    if (wide.includes(parentOf(el))) continue;
    const name = el.getAttribute('data-testid') || el.className.baseVal || el.className || el.tagName;
    problems.push(`wider than the window: ${el.tagName.toLowerCase()} ${String(name).slice(0, 40)} `
                  + `${JSON.stringify(short(el.textContent))} to ${Math.round(el.getBoundingClientRect().right)} px`);
  }

  // Words broken inside: each piece between break opportunities must sit on one line.
  const broken = new Set();
  for (const root of roots) {
    const start = root === document ? document.querySelector('[data-testid="stMain"]') : root;
    if (!start) continue;
    const walker = document.createTreeWalker(start, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('svg, script, style, code, pre, a[href^="http"]')) continue;
      const text = node.textContent;
      const words = /[^\\s\\-\\/\\u2013\\u2014\\u00b7\\u200b,;:=(]+[\\-\\/\\u2013\\u2014]?/g;
      for (let match = words.exec(text); match; match = words.exec(text)) {
        if (match[0].length < 3) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        if (rects.length > 1 && Math.abs(rects[0].top - rects[rects.length - 1].top) > 2) broken.add(match[0]);
      }
    }
  }
  for (const word of broken) problems.push(`word broken inside: ${JSON.stringify(word)}`);

  // Text cut by its box: an ellipsis or hidden overflow on an element whose text is wider than it.
  for (const el of all('[data-testid="stMain"] *')) {
    if (el.closest('svg') || !short(el.textContent || el.value)) continue;
    if (el.scrollWidth <= el.clientWidth + 1 || !el.clientWidth) continue;
    const style = getComputedStyle(el);
    // an icon font's ligature ("add", "close") is drawn as one glyph narrower than its letters: not text
    if (style.fontFamily.includes('Material') || el.closest('[data-testid^="stIcon"]')) continue;
    // text for screen readers only ("add icon" beside the uploader's + button): a 1 px box, clipped on purpose
    if (el.clientWidth <= 2 && el.clientHeight <= 2) continue;
    if (style.textOverflow !== 'ellipsis' && !['hidden', 'clip'].includes(style.overflowX)) continue;
    if (!shown(el) || el.querySelector('svg.main-svg, .diagram-chart, canvas')) continue;
    const what = el.value !== undefined && el.tagName === 'INPUT' ? el.value : el.textContent;
    problems.push(`text cut by its box: ${el.tagName.toLowerCase()} ${JSON.stringify(short(what))}`);
  }
  return {problems: Array.from(new Set(problems)), smallest};
}
"""

#: How far down the first screen's content reaches, as a share of the window's height.
_FILL_JS = """
() => {
  let bottom = 0;
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  // What is drawn: text, inputs, charts, and every element that holds no other (a component, a chart's frame).
  const leaves = '[data-testid="stElementContainer"]:not(:has([data-testid="stElementContainer"]))';
  const drawn = `svg.main-svg, .diagram-chart > svg, canvas, p, h1, summary, input, ${leaves}`;
  for (const el of main.querySelectorAll(drawn)) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || r.top >= innerHeight || !el.checkVisibility({visibilityProperty: true})) continue;
    // Clipped away: a closed expander keeps its content laid out in a box of no height.
    let seen = Math.min(r.bottom, innerHeight);
    for (let up = el.parentElement; up && up !== main; up = up.parentElement) {
      if (getComputedStyle(up).overflowY !== 'visible') seen = Math.min(seen, up.getBoundingClientRect().bottom);
    }
    if (seen > r.top) bottom = Math.max(bottom, seen);
  }
  return bottom / innerHeight;
}
"""


def measure(page, label: str, min_text: float) -> list[str]:
    page.evaluate(_STILL_JS)
    result = page.evaluate(_MEASURE_JS, min_text)
    return [f"{label}: {problem}" for problem in result["problems"]]


def present(page, label: str, *, filled: bool = False) -> list[str]:
    """Presentation mode's problems on the open page at 1920 x 1080; with ``filled``, also whether the screen is
    filled (a tour step: its chart takes what the screen has left)."""
    problems = measure(page, label, PRESENT_MIN_TEXT_PX)
    fill = page.evaluate(_FILL_JS) if filled else 1.0
    if fill < PRESENT_FILL:
        problems.append(f"{label}: the screen is filled to {fill:.0%} of its height")
    return problems
