// A chart that follows its slider within a frame, in the browser.
//
// The server sends every curve the slider can show (computed once by the Python models); while the
// hand or the arrow keys move the slider, this code only picks the precomputed curves and maps them
// to pixels. It does no arithmetic of the models. When the movement ends (pointer released, or a
// short pause after the last key), the chosen index goes back to the server as its value, which writes it to the
// link. Every text from the server is set with textContent, never parsed as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";
const VIEW_WIDTH = 1000;
const KEY_SETTLE_MS = 350;
// How long a sent value waits for the server's run that carries it before the server's value wins again.
const ECHO_WAIT_MS = 5000;
const LATENCY_SAMPLES = 400;

function dashOf(dash) {
  return dash === "dot" ? "2 5" : dash === "dash" ? "9 6" : "none";
}

function svgNode(tag, attributes, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function axisMap(axis, fromPx, toPx) {
  const [low, high] = axis.range;
  return (value) => {
    if (value === null || value === undefined || !Number.isFinite(value)) return null;
    if (axis.log && value <= 0) return null;
    const position = axis.log ? Math.log10(value) : value;
    return fromPx + ((position - low) / (high - low)) * (toPx - fromPx);
  };
}

function pathOf(xs, ys, mapX, mapY) {
  let d = "";
  let pen = false;
  for (let k = 0; k < xs.length; k += 1) {
    const px = mapX(xs[k]);
    const py = mapY(ys[k]);
    if (px === null || py === null) {
      pen = false;
      continue;
    }
    d += `${pen ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`;
    pen = true;
  }
  return d;
}

function recordLatency(started) {
  if (started === null) return;
  // Two frames: the first runs after this task's layout, the second after the frame it painted.
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const samples = (window.__liveChartLatencyMs = window.__liveChartLatencyMs || []);
    samples.push(performance.now() - started);
    if (samples.length > LATENCY_SAMPLES) samples.shift();
  }));
}

export default function (component) {
  const { parentElement, data, setStateValue } = component;
  const root = parentElement.querySelector(".live-chart");
  const input = root.querySelector("input");
  const label = root.querySelector(".live-label");
  const value = root.querySelector(".live-value");
  const readout = root.querySelector(".live-readout");
  const svg = root.querySelector("svg");
  const legend = root.querySelector(".live-legend");
  const spec = data;
  const scale = spec.font_scale || 1;
  // Text is set in screen pixels: the SVG is laid out at the width it is drawn at (its viewBox is its size
  // in pixels), so a narrow column gets a narrower plot, not smaller text.
  const font = 15 * scale;

  root.style.setProperty("--live-font", `${font}px`);
  label.textContent = spec.slider.label;
  input.min = "0";
  input.max = String(spec.slider.values.length - 1);
  input.step = "1";
  input.setAttribute("aria-label", spec.slider.label);
  svg.setAttribute("aria-label", spec.title);

  let paths = [];
  let shown = Number(input.value);

  // Lay the chart out for a width of `width` pixels: axes, ticks that fit, titles, markers and empty lines.
  function layout(width) {
    const height = Math.round((spec.height || 420) * Math.min(1.15, Math.max(0.8, width / VIEW_WIDTH)));
    const margin = { left: (spec.margin_left || 96) * scale, right: 24, top: 16, bottom: 56 * scale };
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.style.aspectRatio = `${width} / ${height}`;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    // Room left of the plot for the widest y tick label and, beside it, the rotated axis title. Every label is
    // placed before any is measured, and every measurement read before anything moves: the browser lays the
    // chart out once for all of them, not once per label (a read after each write forces a layout each time).
    const probes = spec.y.ticks.map((tick) => {
      const probe = svgNode("text", { "font-size": font }, svg);
      probe.textContent = tick.text;
      return probe;
    });
    const widest = probes.reduce((most, probe) => Math.max(most, probe.getComputedTextLength()), 0);
    probes.forEach((probe) => probe.remove());
    // Texts whose length decides where they go: measured together once all are placed (see above).
    const measured = [];
    margin.left = Math.max(margin.left, Math.ceil(widest + 8 + font * 1.8));
    const mapX = axisMap(spec.x, margin.left, width - margin.right);
    const mapY = axisMap(spec.y, height - margin.bottom, margin.top);

    const grid = svgNode("g", { class: "live-grid" }, svg);
    // A tick label that would touch the one before it is left out (its grid line stays).
    let lastRight = -Infinity;
    for (const tick of spec.x.ticks) {
      const px = mapX(tick.value);
      if (px === null) continue;
      svgNode("line", { x1: px, x2: px, y1: margin.top, y2: height - margin.bottom }, grid);
      const text = svgNode("text", { x: px, y: height - margin.bottom + font * 1.3, "text-anchor": "middle",
                                     "font-size": font }, grid);
      text.textContent = tick.text;
      measured.push([text, (measuredLength) => {
        const length = measuredLength || tick.text.length * font * 0.55;
        let left = px - length / 2;
        if (left + length > width - 2) {  // the last tick's label ends at the chart's edge, not past it
          left = width - 2 - length;
          text.setAttribute("x", width - 2);
          text.setAttribute("text-anchor", "end");
        }
        if (left < lastRight + font * 0.6) text.remove();
        else lastRight = left + length;
      }]);
    }
    let lastY = Infinity;
    for (const tick of spec.y.ticks) {
      const py = mapY(tick.value);
      if (py === null) continue;
      svgNode("line", { x1: margin.left, x2: width - margin.right, y1: py, y2: py }, grid);
      if (Math.abs(lastY - py) < font * 1.05) continue;
      lastY = py;
      const text = svgNode("text", { x: margin.left - 8, y: py + font * 0.35, "text-anchor": "end",
                                     "font-size": font }, grid);
      text.textContent = tick.text;
    }
    const xTitle = svgNode("text", { x: (margin.left + width - margin.right) / 2, y: height - 6,
                                     "text-anchor": "middle", "font-size": font, class: "live-title" }, svg);
    xTitle.textContent = spec.x.title;
    measured.push([xTitle, (titleLength) => {
      if (titleLength > width - margin.left - margin.right) {  // centred on the whole width, or from its left edge
        const fits = titleLength <= width - 4;
        xTitle.setAttribute("x", fits ? width / 2 : 2);
        xTitle.setAttribute("text-anchor", fits ? "middle" : "start");
      }
    }]);
    const yTitle = svgNode("text", { x: 0, y: 0, "text-anchor": "middle", "font-size": font, class: "live-title",
                                     transform: `translate(${font}, ${(margin.top + height - margin.bottom) / 2}) rotate(-90)` },
                           svg);
    yTitle.textContent = spec.y.title;
    drawLines(width, height, margin, mapX, mapY, measured);
    const lengths = measured.map(([text]) => text.getComputedTextLength());  // one layout for every label
    measured.forEach(([, place], k) => place(lengths[k]));  // then the moves, in the order they were drawn
    return { mapX, mapY };
  }

  function drawLines(width, height, margin, mapX, mapY, measured) {
    // Lines stop at the plot's edges: values below the axis (an 8-byte busbw) are not drawn over the ticks.
    const clipId = `live-clip-${Math.random().toString(36).slice(2)}`;
    const clip = svgNode("clipPath", { id: clipId }, svgNode("defs", {}, svg));
    svgNode("rect", { x: margin.left, y: margin.top, width: width - margin.left - margin.right,
                      height: height - margin.top - margin.bottom }, clip);
    const lines = svgNode("g", { class: "live-lines", "clip-path": `url(#${clipId})` }, svg);
    paths = spec.series.map((series) => svgNode("path", {
      fill: "none", stroke: series.color, "stroke-width": (series.width || 2) * scale,
      "stroke-dasharray": dashOf(series.dash),
      "stroke-linejoin": "round", "stroke-linecap": "round",
    }, lines));

    // Fixed vertical markers (the page's own value on the x axis), labelled at the foot of the plot, over the lines.
    for (const marker of spec.markers || []) {
      const px = mapX(marker.x);
      if (px === null) continue;
      const group = svgNode("g", { class: "live-marker" }, svg);
      svgNode("line", { x1: px, x2: px, y1: margin.top, y2: height - margin.bottom, stroke: marker.color,
                        "stroke-width": 1.5 * scale, "stroke-dasharray": dashOf(marker.dash) }, group);
      let nearRight = px > (margin.left + width - margin.right) / 2;
      const text = svgNode("text", { x: nearRight ? px - 6 : px + 6, y: height - margin.bottom - font * 0.5,
                                     "text-anchor": nearRight ? "end" : "start", "font-size": font,
                                     fill: marker.color, stroke: "#ffffff", "stroke-width": 4,
                                     "paint-order": "stroke" }, group);
      text.textContent = marker.text;
      // On the side where it fits inside the chart (a narrow chart has less room on either side).
      measured.push([text, (length) => {
        if (nearRight ? px - 6 - length < 2 : px + 6 + length > width - 2) {
          nearRight = !nearRight;
          text.setAttribute("x", nearRight ? Math.max(px - 6, length + 2) : Math.min(px + 6, width - 2 - length));
          text.setAttribute("text-anchor", nearRight ? "end" : "start");
        }
      }]);
    }
  }

  legend.replaceChildren();
  for (const series of spec.series) {
    const entry = document.createElement("span");
    entry.className = "live-key";
    const swatch = document.createElement("i");
    swatch.style.borderTopColor = series.color;
    swatch.style.borderTopStyle = series.dash === "dot" ? "dotted" : series.dash === "dash" ? "dashed" : "solid";
    swatch.style.borderTopWidth = `${Math.max(2, series.width || 2)}px`;
    entry.appendChild(swatch);
    entry.appendChild(document.createTextNode(series.name));
    legend.appendChild(entry);
  }

  const widthNow = () => Math.max(240, Math.round(root.clientWidth || VIEW_WIDTH));
  let drawnWidth = widthNow();
  let maps = layout(drawnWidth);

  function draw(index, started) {
    shown = index;
    spec.series.forEach((series, k) => {
      paths[k].setAttribute("d", pathOf(spec.x.values, series.y[index], maps.mapX, maps.mapY));
    });
    value.textContent = spec.slider.labels[index];
    readout.textContent = spec.readouts[index];
    input.setAttribute("aria-valuetext", `${spec.slider.labels[index]}: ${spec.readouts[index]}`);
    root.dataset.shownIndex = String(index);
    recordLatency(started);
  }

  // Keep the hand's position while it still moves, and while the server's runs still carry an older
  // value than the one last sent (a run begun before that send would pull the slider back for a
  // moment); otherwise show what the server sent.
  const state = (root.__liveState = root.__liveState || { moving: false, timer: null, sent: null, awaiting: null,
                                                          since: 0 });
  const serverValue = spec.slider.values[spec.slider.index];
  if (state.awaiting !== null && (serverValue === state.awaiting || performance.now() - state.since > ECHO_WAIT_MS)) {
    state.awaiting = null;
  }
  const stale = state.awaiting !== null;
  if (!state.moving && state.timer === null && !stale) input.value = String(spec.slider.index);

  function send() {
    state.timer = null;
    state.moving = false;
    const chosen = spec.slider.values[Number(input.value)];
    if (chosen !== state.sent) {
      state.sent = chosen;
      state.awaiting = chosen;
      state.since = performance.now();
      setStateValue("value", chosen);
    }
  }
  input.oninput = (event) => {
    state.moving = true;
    draw(Number(input.value), event.timeStamp);
  };
  input.onpointerup = () => {
    if (state.timer !== null) clearTimeout(state.timer);
    send();
  };
  input.onchange = () => {
    // Keys fire a change per step: wait for a pause so a held arrow key asks the server once.
    if (state.timer !== null) clearTimeout(state.timer);
    state.timer = setTimeout(send, KEY_SETTLE_MS);
  };
  if (!stale) state.sent = serverValue;
  // A key's pending send armed before this run belongs to the previous run's component, whose
  // setStateValue may no longer reach the server: arm it again here, with this run's.
  if (state.timer !== null) {
    clearTimeout(state.timer);
    state.timer = setTimeout(send, KEY_SETTLE_MS);
  }
  draw(Number(input.value), null);
  // Laid out again when the column's width changes (a resized window, the sidebar opened or closed).
  if (root.__liveObserver) root.__liveObserver.disconnect();
  let pending = false;
  root.__liveObserver = new ResizeObserver(() => {
    if (pending || widthNow() === drawnWidth) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      drawnWidth = widthNow();
      maps = layout(drawnWidth);
      draw(shown, null);
    });
  });
  root.__liveObserver.observe(root);
  // The slider shows once it has its range, value and name: before this it would be an unnamed,
  // unset control that a screen reader, a key press or a test could reach.
  root.classList.add("live-ready");
}
