/* A study's plots (puzzle and tour studies): a measure per trial of every arm on a log axis, and the
 * paired ratios with their 95 % intervals. The numbers come from Python (fastsnake.viewer.study_report,
 * the page's `study.plots`); the layout is the shared one (plots.js), whose text is measured and wrapped
 * so that nothing is cut off or drawn over another text at any width.
 */
"use strict";

var FastsnakeStudy = (function () {
  var P = FastsnakePlots;
  var MAX_TICKS = 7;  // a log axis keeps at most this many labelled ticks (every k-th power of ten)

  // A log axis' tick label: plain numbers from 0.0001 to a million, else 1e-5 / 2e9.
  function logFmt(v) {
    if (v >= 1e-4 && v < 1e6) return v < 1e-3 ? String(+v.toPrecision(3)) : P.fmt(+v.toPrecision(3));
    return v.toExponential(0).replace("+", "");
  }
  function thin(ticks, most) {
    if (ticks.length <= most) return ticks;
    var step = Math.ceil(ticks.length / most);
    return ticks.filter(function (t, k) { return k % step === 0; });
  }
  function positive(values) { return values.filter(function (v) { return v !== null && v > 0; }); }
  // Ticks of a log axis from lo to hi: powers of ten (with 2 and 5 times them on short spans), or, on a
  // span too short to hold two of those, plain round numbers.
  function axisTicks(lo, hi) {
    var out = P.logTicks(lo, hi);
    if (out.length === 2 && out[0] === lo && out[1] === hi) {  // logTicks found none: its limits back
      out = P.ticks(lo, hi, 4).filter(function (v) { return v > 0; });
    }
    return out.length >= 2 ? out : [lo, hi];
  }

  // p: {id, title, ylabel, xlabel, names, values (per name: one value per trial, in the plot's order, or null)}
  function perTrial(p) {
    var all = [];
    p.values.forEach(function (vs) { all = all.concat(positive(vs)); });
    var lo = all.length ? Math.min.apply(null, all) : 1, hi = all.length ? Math.max.apply(null, all) : 10;
    if (lo === hi) { lo /= 2; hi *= 2; }
    var n = Math.max(1, p.values.length ? p.values[0].length : 1);
    var xt = P.ticks(1, n, 6).filter(function (t) { return t === Math.round(t) && t >= 1; });  // ranks 1..n
    var f = P.frame({ title: p.title, xlo: 0.5, xhi: n + 0.5, xticks: xt.length ? xt : [1], ylo: lo / 1.15,
                      yhi: hi * 1.15, logy: true,
                      yticks: thin(axisTicks(lo / 1.15, hi * 1.15), MAX_TICKS), yfmt: logFmt,
                      xlabel: p.xlabel, ylabel: p.ylabel });
    f.svg.setAttribute("id", p.id);
    f.svg.classList.add("study-plot");
    if (!all.length) {
      f.g.appendChild(P.sv("text", { x: 280, y: f.y(Math.sqrt(lo * hi)), "text-anchor": "middle" }, "no positive values"));
    }
    p.values.forEach(function (vs, i) {
      var colour = P.rgb(P.series(i)), pts = [], g = P.sv("g", { "class": "series", "data-name": p.names[i] });
      vs.forEach(function (v, k) {
        if (v === null || !(v > 0)) return;
        var cx = f.x(k + 1), cy = f.y(v);
        pts.push(cx.toFixed(1) + "," + cy.toFixed(1));
        if (vs.length <= 400) g.appendChild(P.marker(i, cx, cy, 3, { "class": "point" }));
      });
      g.setAttribute("data-points", pts.length);
      g.insertBefore(P.sv("polyline", { points: pts.join(" "), fill: "none", stroke: colour, "stroke-width": 1.2,
                                        opacity: 0.5 }), g.firstChild);
      f.g.appendChild(g);
    });
    P.legend(f.svg, p.names);
    return f.svg;
  }

  // p: {id, title, axis, entries: [{label, ratio, ci: [lo, hi] or null, n}]}: a row per entry, its label (with
  // the ratio, interval and n in words) on the line(s) above its dot and whisker; log x axis, a dashed line at 1.
  function ratios(p) {
    var W = 560, R = 16, L = 12, BIG = P.BIG_TEXT, LH = P.BIG_TEXT * P.LINE;
    var svg = P.sv("svg", { "class": "plot study-plot ratio-plot", id: p.id, role: "img" });
    var titleLines = P.wrapLines(p.title, W - 24, P.BIG_TITLE, "plot-title");
    svg.appendChild(P.textLines({ x: 12, y: 8 + P.BIG_TITLE, "class": "plot-title" }, titleLines, P.BIG_TITLE));
    var values = [1];
    p.entries.forEach(function (e) {
      if (e.ratio > 0) values.push(e.ratio);
      if (e.ci && e.ci[0] > 0 && e.ci[1] > 0) values.push(e.ci[0], e.ci[1]);
    });
    var lo = Math.min.apply(null, values) / 1.2, hi = Math.max.apply(null, values) * 1.2;
    var xt = axisTicks(lo, hi);
    lo = Math.min(lo, xt[0]); hi = Math.max(hi, xt[xt.length - 1]);
    var widths = function (ts) { return ts.map(function (t) { return P.textWidth(logFmt(t), BIG); }); };
    var most = MAX_TICKS;
    while (most > 2) {  // labels that fit side by side, a gap between neighbours
      var tried = thin(xt, most), w = widths(tried), need = w.reduce(function (a, b) { return a + b + 12; }, 0);
      if (need <= W - L - R - 40) { xt = tried; break; }
      most -= 1;
    }
    if (most <= 2) xt = [xt[0], xt[xt.length - 1]];
    var half = Math.max.apply(null, widths(xt)) / 2;
    var x0 = L + half + 4, x1 = W - R - half - 4;
    var x = function (v) { return x0 + (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) * (x1 - x0); };
    var y = 10 + P.BIG_TITLE * P.LINE * titleLines.length + 8, top = y, rows = P.sv("g", { "class": "rows" });
    p.entries.forEach(function (e) {
      var ok = e.ratio > 0, ci = ok && e.ci && e.ci[0] > 0 && e.ci[1] > 0 ? e.ci : null;
      var said = e.label + ": " + (ok ? logFmt(e.ratio) + (ci ? " [" + logFmt(ci[0]) + ", " + logFmt(ci[1]) + "]" : "")
                                      : "no pair") + ", n " + P.fmt(e.n);
      var lines = P.wrapLines(said, W - 24, BIG, "legend");
      rows.appendChild(P.textLines({ x: 12, y: y + BIG, "class": "legend ratio-label" }, lines, BIG));
      y += LH * lines.length + 4;
      var cy = y + 7;
      if (ok) {
        var g = P.sv("g", { "class": "ratio", "data-ratio": e.ratio, "data-n": e.n });
        if (ci) g.appendChild(P.sv("line", { "class": "whisker", x1: x(ci[0]), x2: x(ci[1]), y1: cy, y2: cy,
                                             stroke: P.rgb(PALETTE().text), "stroke-width": 1.3 }));
        g.appendChild(P.sv("circle", { cx: x(e.ratio), cy: cy, r: 5, fill: P.rgb(P.series(0)) }));
        g.appendChild(P.sv("title", {}, said));
        rows.appendChild(g);
      }
      y += 18;
    });
    var axes = P.sv("g", { "class": "axes" });
    xt.forEach(function (t) {
      axes.appendChild(P.sv("line", { x1: x(t), x2: x(t), y1: top, y2: y, "class": "gridline" }));
      axes.appendChild(P.sv("text", { x: x(t), y: y + 6 + BIG, "text-anchor": "middle", "class": "tick" }, logFmt(t)));
    });
    axes.appendChild(P.sv("line", { "class": "unity zero", x1: x(1), x2: x(1), y1: top, y2: y }));
    var axisLines = P.wrapLines(p.axis, W - 24, BIG);
    axes.appendChild(P.textLines({ x: W / 2, y: y + 8 + BIG * 2.3, "text-anchor": "middle", "class": "axis-title" },
                                 axisLines, BIG));
    svg.insertBefore(axes, svg.childNodes[1]);
    svg.appendChild(rows);
    var H = Math.ceil(y + 8 + BIG * 2.3 + LH * (axisLines.length - 1) + 12);
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    return svg;
  }

  var PAL = null;
  function PALETTE() { return PAL; }

  // Draw every plot of `study` (the page's `study` key) into `holder`.
  function draw(study, palette, holder) {
    PAL = palette;
    (study.plots || []).forEach(function (p) {
      holder.appendChild(p.type === "ratios" ? ratios(p) : perTrial(p));
    });
  }

  return { draw: draw, logFmt: logFmt };
})();
