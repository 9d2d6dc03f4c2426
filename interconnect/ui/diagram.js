// A diagram drawn as SVG in the browser, from a scene the server prepared (interconnect.figures.diagram).
//
// It needs no plotting library, so it appears as soon as the page does. The scene is in data
// coordinates; this code maps them to the pixels the column has and draws lines, markers and text,
// again when the column's width changes. Every text from the server is set with textContent, never
// parsed as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function svgNode(tag, attributes, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function dashOf(dash, width) {
  if (dash === "dot") return `${width} ${2 * width}`;
  if (dash === "dash") return `${3 * width} ${2 * width}`;
  return "none";
}

// Data to pixels: the plot area inside the margins, with one scale for both axes when the scene asks.
function mapping(scene, width, height, margin) {
  const [x0, x1] = scene.x_range;
  const [y0, y1] = scene.y_range;
  const plotW = Math.max(10, width - margin.l - margin.r);
  const plotH = Math.max(10, height - margin.t - margin.b);
  let sx = plotW / (x1 - x0 || 1);
  let sy = plotH / (y1 - y0 || 1);
  let offX = margin.l;
  let offY = margin.t;
  if (scene.equal) {
    const s = Math.min(sx, sy);
    offX += (plotW - s * (x1 - x0)) / 2;
    offY += (plotH - s * (y1 - y0)) / 2;
    sx = s;
    sy = s;
  }
  return {
    x: (v) => offX + (v - x0) * sx,
    y: (v) => offY + (y1 - v) * sy,
  };
}

function linePath(layer, map) {
  let d = "";
  let pen = false;
  for (let k = 0; k < layer.x.length; k += 1) {
    const x = layer.x[k];
    const y = layer.y[k];
    if (x === null || y === null) {
      pen = false;
      continue;
    }
    d += `${pen ? "L" : "M"}${map.x(x).toFixed(1)},${map.y(y).toFixed(1)}`;
    pen = true;
  }
  return d;
}

function markShape(symbol, px, py, size) {
  const h = size / 2;
  if (symbol === "circle") {
    return `M${(px - h).toFixed(1)},${py.toFixed(1)}a${h},${h} 0 1,0 ${size},0a${h},${h} 0 1,0 ${-size},0Z`;
  }
  return `M${(px - h).toFixed(1)},${(py - h).toFixed(1)}h${size}v${size}h${-size}Z`;
}

function drawMarkers(layer, map, group) {
  const size = layer.size;
  const open = layer.symbol === "square-open";
  const symbol = open ? "square" : layer.symbol;
  const strokeWidth = layer.stroke_width;
  const common = { opacity: layer.opacity };
  if (layer.titles) {
    // Markers with hover texts (the server sends them for a few hundred at most): one element each.
    layer.x.forEach((x, k) => {
      const colour = layer.palette[layer.index[k]];
      const mark = svgNode("path", {
        ...common, d: markShape(symbol, map.x(x), map.y(layer.y[k]), size),
        fill: open ? "none" : colour, stroke: open ? colour : layer.stroke || "none", "stroke-width": strokeWidth,
      }, group);
      svgNode("title", {}, mark).textContent = layer.titles[k];
    });
    return;
  }
  // Many markers: one path per colour.
  const paths = layer.palette.map(() => []);
  layer.x.forEach((x, k) => paths[layer.index[k]].push(markShape(symbol, map.x(x), map.y(layer.y[k]), size)));
  paths.forEach((parts, p) => {
    if (!parts.length) return;
    const colour = layer.palette[p];
    svgNode("path", { ...common, d: parts.join(""), fill: open ? "none" : colour,
                      stroke: open ? colour : layer.stroke || "none", "stroke-width": strokeWidth }, group);
  });
}

function drawLegend(scene, legend) {
  legend.replaceChildren();
  for (const entry of scene.legend) {
    const item = document.createElement("span");
    item.className = "diagram-key";
    const swatch = svgNode("svg", { width: 28, height: 14, "aria-hidden": "true" }, item);
    if (entry.color) {
      svgNode("line", { x1: 1, x2: 27, y1: 7, y2: 7, stroke: entry.color, "stroke-width": 2,
                        "stroke-dasharray": dashOf(entry.dash, 2) }, swatch);
    }
    if (entry.symbol) {
      const open = entry.symbol === "square-open";
      svgNode("path", { d: markShape(open ? "square" : entry.symbol, 14, 7, 10), fill: open ? "none" : entry.fill || "#9ca3af",
                        stroke: open ? entry.stroke : "none", "stroke-width": 2 }, swatch);
    }
    item.appendChild(document.createTextNode(entry.name));
    legend.appendChild(item);
  }
}

// Shift a text that would pass the picture's left or right edge back inside it.
function keepInside(text, width) {
  const box = text.getBBox();
  if (!box.width) return;
  const x = Number(text.getAttribute("x"));
  if (box.x + box.width > width - 2) text.setAttribute("x", x - (box.x + box.width - (width - 2)));
  else if (box.x < 2) text.setAttribute("x", x + (2 - box.x));
}

// Move a text down, below any text already placed that it would overlap (two labels at nearly the same
// point in a narrow picture: "GPU a" and "GPU b" on neighbouring servers).
function clearOf(text, placed) {
  for (let tries = 0; tries < 3; tries += 1) {
    const box = text.getBBox();
    const hit = placed.map((other) => other.getBBox()).find((other) => box.x < other.x + other.width
      && other.x < box.x + box.width && box.y < other.y + other.height && other.y < box.y + box.height);
    if (!hit) return;
    text.setAttribute("y", Number(text.getAttribute("y")) + (hit.y + hit.height - box.y) + 1);
  }
}

// Write `content` into `text` on lines no wider than `room` (one tspan a line, broken between words); the number
// of lines.
function wrapText(text, content, room, size) {
  text.textContent = content;
  if (!text.getComputedTextLength() || text.getComputedTextLength() <= room) return 1;
  const x = text.getAttribute("x");
  text.textContent = "";
  let line = svgNode("tspan", { x }, text);
  let lines = 1;
  for (const word of content.split(/\s+/)) {
    const before = line.textContent;
    line.textContent = before ? `${before} ${word}` : word;
    if (before && line.getComputedTextLength() > room) {
      line.textContent = before;
      line = svgNode("tspan", { x, dy: size * 1.25 }, text);
      line.textContent = word;
      lines += 1;
    }
  }
  return lines;
}

export default function (component) {
  const { parentElement, data } = component;
  const root = parentElement.querySelector(".diagram-chart");
  const svg = root.querySelector("svg");
  const legend = root.querySelector(".diagram-legend");
  const scene = data;
  root.style.setProperty("--diagram-legend-font", `${scene.legend_size}px`);
  svg.setAttribute("aria-label", scene.title);
  drawLegend(scene, legend);

  function draw() {
    const width = Math.max(200, Math.round(root.clientWidth || 800));
    const margin = { ...scene.margin };
    // The legend is drawn under the picture, so the room Plotly keeps for it at the foot is not needed.
    let height = scene.legend.length ? scene.height - Math.max(0, margin.b - 12) : scene.height;
    if (scene.legend.length) margin.b = Math.min(margin.b, 12);
    if (scene.equal) {
      // One scale for both axes: a column narrower than the picture's shape would leave empty bands above and
      // below it, so the picture's own height is used instead.
      const [x0, x1] = scene.x_range;
      const [y0, y1] = scene.y_range;
      const scale = (width - margin.l - margin.r) / (x1 - x0 || 1);
      height = Math.min(height, Math.ceil(margin.t + margin.b + scale * (y1 - y0)));
    }
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const map = mapping(scene, width, height, margin);
    const marks = svgNode("g", { class: "diagram-marks" }, svg);
    for (const layer of scene.layers) {
      if (layer.kind === "line") {
        svgNode("path", { d: linePath(layer, map), fill: "none", stroke: layer.color,
                          "stroke-width": layer.width, "stroke-dasharray": dashOf(layer.dash, layer.width),
                          opacity: layer.opacity, "stroke-linejoin": "round" }, marks);
      } else {
        drawMarkers(layer, map, svgNode("g", {}, marks));
      }
    }
    const placed = [];
    for (const note of scene.texts) {
      const text = svgNode("text", { x: map.x(note.x), y: map.y(note.y), "text-anchor": note.anchor,
                                     "dominant-baseline": "central", "font-size": note.size,
                                     "font-weight": note.bold ? "bold" : "normal",
                                     fill: note.color || "#111827" }, svg);
      text.textContent = note.text;
      keepInside(text, width);
      clearOf(text, placed);
      placed.push(text);
    }
    if (scene.title) {
      // Left and bold, as Streamlit's theme sets every Plotly chart's title; on as many lines as the width needs
      // (the picture moves down by the extra lines), never cut at the edge.
      const x = Math.max(4, margin.l);
      const y = Math.max(scene.title_size, margin.t / 2);
      const title = svgNode("text", { x, y, "font-size": scene.title_size, "font-weight": 600, fill: "#111827",
                                      class: "diagram-title" }, svg);
      const lines = wrapText(title, scene.title, width - x - 4, scene.title_size);
      if (lines > 1) {
        const extra = Math.ceil((lines - 1) * scene.title_size * 1.25);
        marks.setAttribute("transform", `translate(0, ${extra})`);
        for (const text of svg.querySelectorAll(":scope > text:not(.diagram-title)")) {
          text.setAttribute("transform", `translate(0, ${extra})`);
        }
        height += extra;
        svg.setAttribute("height", height);
        svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
      }
    }
    root.dataset.drawnWidth = String(width);
    root.classList.add("diagram-ready");
  }

  draw();
  // Draw again when the column's width changes (a resized window, the sidebar opened or closed).
  if (root.__diagramObserver) root.__diagramObserver.disconnect();
  let pending = false;
  root.__diagramObserver = new ResizeObserver(() => {
    if (pending || String(Math.round(root.clientWidth)) === root.dataset.drawnWidth) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  });
  root.__diagramObserver.observe(root);
}
