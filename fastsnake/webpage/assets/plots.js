/* Shared plotting for the report page: SVG frames with axes, ticks, legends and markers, and text laid
 * out so that it fits on any screen (measured in the page's own font, wrapped, never squeezed).
 * Used by the Snake run plots (report.js) and the study plots (study.js); `FastsnakePlots.init(palette)`
 * gives it the page's palette before any plot is drawn.
 */
"use strict";

var FastsnakePlots = (function () {
  var PAL = null;
  function init(palette) { PAL = palette; }
  var SVGNS = "http://www.w3.org/2000/svg";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function sv(tag, attrs, text) {
    var node = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function rgb(c, a) { return a === undefined ? "rgb(" + c.join(",") + ")" : "rgba(" + c.join(",") + "," + a + ")"; }
  function fmt(x) {
    if (x === null || x === undefined) return "-";
    if (typeof x !== "number") return String(x);
    if (Number.isInteger(x)) return x.toLocaleString("en-US");
    return x.toLocaleString("en-US", { maximumFractionDigits: Math.abs(x) < 10 ? 3 : 1 });
  }
  function series(i) { return PAL.series[i % PAL.series.length]; }
  /* A marker per series beside its colour: the palette's 24 colours are distinct for 24 sources, and
   * the shape (8 of them, in a different order) tells neighbours apart where colours are alike. */
  var MARKERS = ["circle", "square", "triangle", "diamond", "down", "cross", "plus", "star"];
  function markerOf(i) { return MARKERS[i % MARKERS.length]; }
  function marker(i, cx, cy, r, attrs) {
    var kind = markerOf(i), color = rgb(series(i)), node, pts;
    attrs = attrs || {};
    if (kind === "circle") node = sv("circle", { cx: cx, cy: cy, r: r });
    else if (kind === "square") node = sv("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r });
    else {
      if (kind === "triangle") pts = [[0, -1.2], [1.1, 0.8], [-1.1, 0.8]];
      else if (kind === "down") pts = [[0, 1.2], [1.1, -0.8], [-1.1, -0.8]];
      else if (kind === "diamond") pts = [[0, -1.3], [1.1, 0], [0, 1.3], [-1.1, 0]];
      else if (kind === "cross") pts = [[-1, -0.6], [-0.6, -1], [0, -0.4], [0.6, -1], [1, -0.6], [0.4, 0], [1, 0.6],
                                        [0.6, 1], [0, 0.4], [-0.6, 1], [-1, 0.6], [-0.4, 0]];
      else if (kind === "plus") pts = [[-0.35, -1], [0.35, -1], [0.35, -0.35], [1, -0.35], [1, 0.35], [0.35, 0.35],
                                       [0.35, 1], [-0.35, 1], [-0.35, 0.35], [-1, 0.35], [-1, -0.35], [-0.35, -0.35]];
      else pts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(function (k) {
        var a = Math.PI * k / 5 - Math.PI / 2, q = k % 2 ? 0.5 : 1.25;
        return [q * Math.cos(a), q * Math.sin(a)];
      });
      node = sv("polygon", { points: pts.map(function (p) { return (cx + r * p[0]).toFixed(1) + "," + (cy + r * p[1]).toFixed(1); }).join(" ") });
    }
    node.setAttribute("fill", color);
    node.setAttribute("data-marker", kind);
    for (var k in attrs) node.setAttribute(k, attrs[k]);
    return node;
  }
  // A 95 % interval as a vertical whisker with caps, at x, from y(lo) to y(hi).
  function whisker(f, x, lo, hi, color) {
    var g = sv("g", { "class": "whisker", stroke: color, "stroke-width": 1.3 });
    g.appendChild(sv("line", { x1: x, x2: x, y1: f.y(lo), y2: f.y(hi) }));
    g.appendChild(sv("line", { x1: x - 4, x2: x + 4, y1: f.y(lo), y2: f.y(lo) }));
    g.appendChild(sv("line", { x1: x - 4, x2: x + 4, y1: f.y(hi), y2: f.y(hi) }));
    return g;
  }

  // -- nice axis ticks ---------------------------------------------------------------------------
  function ticks(lo, hi, count) {
    if (!(hi > lo)) return [lo];
    var step = Math.pow(10, Math.floor(Math.log10((hi - lo) / count)));
    var err = (hi - lo) / count / step;
    step *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
    return out;
  }

  /* Text that fits on any screen. The plots are drawn in their own units (560 wide) and scaled to the
   * screen; on a phone page.css sets their text at BIG_TEXT and titles at BIG_TITLE units, so a text is laid
   * out for those sizes (measured in the page's own font) and wrapped onto more lines where it would not
   * fit: never squeezed (unreadable) nor cut off. */
  var BIG_TEXT = 17, BIG_TITLE = 18, LINE = 1.25;
  var measurer = null;
  function textWidth(str, size, cls) {
    try {
      if (!measurer) {
        // Not a plot (nothing that reads the plots finds it); the plots' text styles given inline.
        measurer = sv("svg", { "class": "text-measure", width: 1, height: 1, "aria-hidden": "true",
                               style: "position:absolute;left:-10000px;top:0;visibility:hidden" });
        measurer.appendChild(sv("text", {}));
        document.body.appendChild(measurer);
      }
      var t = measurer.firstChild;
      t.setAttribute("style", "font-size:" + size + "px" + (cls === "plot-title" ? ";font-weight:600" : ""));
      t.textContent = str;
      var w = t.getComputedTextLength();
      if (w > 0) return w;
    } catch (e) { /* no layout (a detached document): estimate */ }
    return String(str).length * size * 0.62;
  }
  // `str` in lines no wider than `width` at `size`: broken at spaces, a word too long for a line at any char.
  function wrapLines(str, width, size, cls) {
    var words = String(str).split(" "), lines = [], line = "";
    words.forEach(function (word) {
      var next = line ? line + " " + word : word;
      // A line broken at a space keeps it, so the text's textContent reads as the words it shows.
      if (!line || textWidth(next, size, cls) <= width) { line = next; } else { lines.push(line + " "); line = word; }
      while (textWidth(line, size, cls) > width && line.length > 1) {
        var k = line.length - 1;
        while (k > 1 && textWidth(line.slice(0, k), size, cls) > width) k--;
        lines.push(line.slice(0, k));
        line = line.slice(k);
      }
    });
    lines.push(line);
    return lines;
  }
  // A <text> of several lines (tspans), the first line's baseline at attrs.y, each next `size * LINE` lower.
  function textLines(attrs, lines, size) {
    var text = sv("text", attrs);
    lines.forEach(function (line, k) {
      text.appendChild(sv("tspan", { x: attrs.x, dy: k ? (size * LINE).toFixed(1) : 0 }, line));
    });
    text.setAttribute("data-lines", lines.length);
    return text;
  }

  // Ticks of a log axis: the powers of ten in lo..hi, with 2 and 5 times them when the span is short.
  function logTicks(lo, hi) {
    var out = [], first = Math.floor(Math.log10(lo)), last = Math.ceil(Math.log10(hi));
    var steps = last - first <= 2 ? [1, 2, 5] : [1];
    for (var e = first; e <= last; e++) {
      steps.forEach(function (m) { var v = m * Math.pow(10, e); if (v >= lo * 0.999 && v <= hi * 1.001) out.push(+v.toPrecision(12)); });
    }
    return out.length >= 2 ? out : [lo, hi];
  }

  /* One plot frame: returns {svg, x(v), y(v), g} with axes drawn. opts: xlo, xhi, ylo, yhi, xlabel, ylabel,
   * and logx / logy for log axes (the limits are then positive data values); xticks / yticks and xfmt / yfmt
   * to choose the ticks and how their labels read. */
  function frame(opts) {
    // The margins follow the text: the title's lines above, the widest y tick label and the y axis title on
    // the left, the x axis title's lines below; the plot grows taller when its y axis title needs it.
    var W = 560, R = 16;
    var xt = opts.xticks || (opts.logx ? logTicks(opts.xlo, opts.xhi) : ticks(opts.xlo, opts.xhi, 6));
    var yt = opts.yticks || (opts.logy ? logTicks(opts.ylo, opts.yhi) : ticks(opts.ylo, opts.yhi, 5));
    var xf = opts.xfmt || fmt, yf = opts.yfmt || fmt;
    var titleLines = wrapLines(opts.title, W - 24, BIG_TITLE, "plot-title");
    var tickW = Math.max.apply(null, yt.map(function (v) { return textWidth(yf(v), BIG_TEXT); }));
    var yTitle = BIG_TEXT * LINE;  // the y axis title's line, rotated, left of the tick labels
    var L = Math.max(64, Math.ceil(6 + yTitle + 8 + tickW + 8));
    var xMid = (L + W - R) / 2, xLines = wrapLines(opts.xlabel, 2 * (W - 12 - xMid), BIG_TEXT);  // centred under the axis
    var T = Math.round(10 + BIG_TITLE * LINE * titleLines.length + BIG_TEXT / 2);  // room for the top tick label
    var B = Math.round(BIG_TEXT * 1.6 + BIG_TEXT * LINE * xLines.length + 6);
    var inner = Math.max(228, Math.ceil(textWidth(opts.ylabel, BIG_TEXT) + 16));
    var H = T + inner + B;
    var svg = sv("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "class": "plot" });
    svg.appendChild(textLines({ x: 12, y: 8 + BIG_TITLE, "class": "plot-title" }, titleLines, BIG_TITLE));
    var tx = opts.logx ? Math.log10 : function (v) { return v; };
    var ty = opts.logy ? Math.log10 : function (v) { return v; };
    var xlo = tx(opts.xlo), xhi = tx(opts.xhi), ylo = ty(opts.ylo), yhi = ty(opts.yhi);
    var x = function (v) { return L + (tx(v) - xlo) / ((xhi - xlo) || 1) * (W - L - R); };
    var y = function (v) { return H - B - (ty(v) - ylo) / ((yhi - ylo) || 1) * (H - B - T); };
    var axes = sv("g", { "class": "axes" });
    xt.forEach(function (v) {
      axes.appendChild(sv("line", { x1: x(v), x2: x(v), y1: H - B, y2: H - B + 4 }));
      axes.appendChild(sv("text", { x: x(v), y: H - B + 6 + BIG_TEXT, "text-anchor": "middle", "class": "tick" },
                          xf(v)));
    });
    yt.forEach(function (v) {
      axes.appendChild(sv("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), "class": "gridline" }));
      axes.appendChild(sv("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", "class": "tick" }, yf(v)));
    });
    axes.appendChild(textLines({ x: xMid, y: H - B + 8 + BIG_TEXT * 2.2, "text-anchor": "middle",
                                 "class": "axis-title" }, xLines, BIG_TEXT));
    var cy = (T + H - B) / 2, cx = 6 + yTitle * 0.75;  // the rotated title's baseline, its glyphs to the left
    axes.appendChild(sv("text", { x: cx, y: cy, "text-anchor": "middle", "class": "axis-title",
                                  transform: "rotate(-90 " + cx + " " + cy + ")" }, opts.ylabel));
    svg.appendChild(axes);
    var g = sv("g");
    svg.appendChild(g);
    return { svg: svg, x: x, y: y, g: g };
  }

  function legend(svg, names) {
    // Below the plot, outside the data: the picture grows by a row per line of each name, with its marker.
    var box = svg.getAttribute("viewBox").split(" ").map(Number), W = box[2], H = box[3], row = BIG_TEXT * LINE;
    var g = sv("g", { "class": "legend-box" }), yy = H + 8;
    names.forEach(function (name, i) {
      var lines = wrapLines(name, W - 84 - 12, BIG_TEXT, "legend");
      g.appendChild(marker(i, 70, yy + row / 2 - 1, 5, { "class": "legend-marker" }));
      g.appendChild(textLines({ x: 84, y: yy + row / 2 + 5, "class": "legend" }, lines, BIG_TEXT));
      yy += row * lines.length;
    });
    svg.appendChild(g);
    var grown = Math.ceil(yy + 10);
    svg.setAttribute("viewBox", "0 0 " + W + " " + grown);
    svg.setAttribute("height", grown);
  }


  return { init: init, el: el, sv: sv, rgb: rgb, fmt: fmt, series: series, marker: marker, whisker: whisker,
           ticks: ticks, logTicks: logTicks, textWidth: textWidth, wrapLines: wrapLines, textLines: textLines,
           frame: frame, legend: legend, BIG_TEXT: BIG_TEXT, BIG_TITLE: BIG_TITLE, LINE: LINE };
})();
