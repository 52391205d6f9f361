/* The report page: configuration, summary table, plots, the picked games and the player.
 *
 * Everything comes from the JSON block #fastsnake-data (written by fastsnake.webpage.render):
 * aggregates were computed in Python, so the page never holds more than the picked games.
 * The scripting API, `window.fastsnake`, is documented in docs/report.md.
 */
"use strict";

(function () {
  var DATA = JSON.parse(document.getElementById("fastsnake-data").textContent);
  var PAL = DATA.palette;
  var P = FastsnakePlots;
  P.init(PAL);
  var el = P.el, sv = P.sv, rgb = P.rgb, fmt = P.fmt, series = P.series, marker = P.marker, whisker = P.whisker;
  var textWidth = P.textWidth, wrapLines = P.wrapLines, textLines = P.textLines, frame = P.frame, legend = P.legend;
  var BIG_TEXT = P.BIG_TEXT, BIG_TITLE = P.BIG_TITLE, LINE = P.LINE;
  // The name a section goes by on the page: its policy, or a distinct label where a policy repeats.
  function sectionName(s) { return s.name || s.policy; }

  // -- plots ---------------------------------------------------------------------------------------
  function histogram(sections) {
    var edges = DATA.hist_edges, ymax = 0;
    sections.forEach(function (s) { s.hist.forEach(function (c) { ymax = Math.max(ymax, c / s.summary.games); }); });
    var f = frame({ title: "Moves per game", xlo: edges[0], xhi: edges[edges.length - 1], ylo: 0, yhi: ymax * 1.05,
                    xlabel: "moves", ylabel: "share of games" });
    sections.forEach(function (s, i) {
      var color = series(i);
      s.hist.forEach(function (count, b) {
        if (!count) return;
        var share = count / s.summary.games;
        var bar = sv("rect", { x: f.x(edges[b]), width: Math.max(1, f.x(edges[b + 1]) - f.x(edges[b]) - 0.5),
                               y: f.y(share), height: f.y(0) - f.y(share), fill: rgb(color, sections.length > 1 ? 0.55 : 0.9),
                               "class": "bar" });
        bar.appendChild(sv("title", {}, sectionName(s) + ": " + fmt(edges[b]) + "–" + fmt(edges[b + 1]) + " moves: " +
                                        fmt(count) + " games (" + (100 * share).toFixed(2) + " %)"));
        f.g.appendChild(bar);
      });
    });
    if (sections.length > 1) legend(f.svg, sections.map(sectionName));
    return f.svg;
  }

  function outcomes(sections) {
    // Names beside their bars when they take less than 40 % of the width on a phone; else each name on its
    // own line(s) above its bar, full width, never cut off.
    var W = 560, R = 16, bar = 20, widths = sections.map(function (s) { return textWidth(sectionName(s), BIG_TEXT, "legend"); });
    var beside = 16 + Math.max.apply(null, widths) + 8 <= 0.4 * W;
    var L = beside ? Math.max(80, Math.ceil(16 + Math.max.apply(null, widths) + 8)) : 12;
    var labels = sections.map(function (s) {
      return beside ? [sectionName(s)] : wrapLines(sectionName(s), W - 24, BIG_TEXT, "legend");
    });
    var tops = [], top = 34;
    labels.forEach(function (lines) {
      top += beside ? 0 : BIG_TEXT * LINE * lines.length + 2;
      tops.push(top);
      top += bar + 8;
    });
    var H = top + 16;
    var svg = sv("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "class": "plot outcomes" });
    svg.appendChild(sv("text", { x: 12, y: 8 + BIG_TITLE, "class": "plot-title" }, "Outcomes"));
    var kinds = [["won", "wins", PAL.body_head], ["died", "deaths", PAL.apple], ["stuck", "stuck", PAL.text_dim]];
    var rowH = bar + 6;
    sections.forEach(function (s, i) {
      var y = tops[i], x = L, n = s.summary.games || 1;
      if (beside) svg.appendChild(sv("text", { x: L - 8, y: y + 15, "text-anchor": "end", "class": "legend" }, sectionName(s)));
      else svg.appendChild(textLines({ x: 12, y: y - 6 - BIG_TEXT * LINE * (labels[i].length - 1), "class": "legend" },
                                     labels[i], BIG_TEXT));
      kinds.forEach(function (k) {
        var count = s.summary[k[1]] || 0, w = count / n * (W - L - R);
        if (!count) return;
        var rect = sv("rect", { x: x, y: y, width: Math.max(w, 1), height: rowH - 6, fill: rgb(k[2]), "class": "bar" });
        rect.appendChild(sv("title", {}, sectionName(s) + ": " + k[0] + " " + fmt(count) + " of " + fmt(n) +
                                         " (" + (100 * count / n).toFixed(2) + " %)"));
        svg.appendChild(rect);
        var said = k[0] + " " + (100 * count / n).toFixed(1) + " %";  // on the bar where it fits on a phone too
        if (w > textWidth(said, BIG_TEXT, "on-bar") + 12) svg.appendChild(sv("text", { x: x + 6, y: y + 15, "class": "on-bar" }, said));
        x += w;
      });
      var ci = s.summary.win_rate_ci95;  // the win rate's 95 % (Wilson) interval, across the bar's end
      if (ci) {
        var span = W - L - R, g = sv("g", { "class": "whisker", stroke: PAL.text, "stroke-width": 1.3 });
        var mid = y + (rowH - 6) / 2, x1 = L + ci[0] * span, x2 = L + ci[1] * span;
        g.appendChild(sv("line", { x1: x1, x2: x2, y1: mid, y2: mid }));
        g.appendChild(sv("line", { x1: x1, x2: x1, y1: mid - 5, y2: mid + 5 }));
        g.appendChild(sv("line", { x1: x2, x2: x2, y1: mid - 5, y2: mid + 5 }));
        g.appendChild(sv("title", {}, sectionName(s) + ": win rate 95 % interval " + (100 * ci[0]).toFixed(2) + "–" +
                                      (100 * ci[1]).toFixed(2) + " %"));
        svg.appendChild(g);
      }
    });
    return svg;
  }

  function perApple(sections) {
    var xmax = 0, ymax = 0, with_ = sections.filter(function (s) { return s.per_apple && s.per_apple.length.length; });
    if (!with_.length) return null;
    with_.forEach(function (s) {
      s.per_apple.length.forEach(function (v) { xmax = Math.max(xmax, v); });
      s.per_apple.moves.forEach(function (v) { ymax = Math.max(ymax, v); });
    });
    var xlo = Math.min.apply(null, with_.map(function (s) { return s.per_apple.length[0]; }));
    var f = frame({ title: "Moves per apple as the snake grows",
                    xlo: xlo, xhi: xmax, ylo: 0, yhi: ymax * 1.05, xlabel: "length when the apple is eaten",
                    ylabel: "moves to reach it" });
    sections.forEach(function (s, i) {
      if (!s.per_apple || !s.per_apple.length.length) return;
      var pts = s.per_apple.length.map(function (v, k) { return f.x(v).toFixed(1) + "," + f.y(s.per_apple.moves[k]).toFixed(1); });
      var line = sv("polyline", { points: pts.join(" "), fill: "none", stroke: rgb(series(i)), "stroke-width": 1.6 });
      line.appendChild(sv("title", {}, sectionName(s)));
      f.g.appendChild(line);
    });
    legend(f.svg, sections.map(function (s) {
      return sectionName(s) + " (" + (s.per_apple ? s.per_apple.games : 0) + " games)";
    }));
    return f.svg;
  }

  /* A paired comparison: the statement (mean difference, its 95 % interval and p), the histogram of the
   * moves differences over the games both won, and the cross-table of outcomes. */
  function pairedPanel(p) {
    var panel = el("div", { "class": "panel paired-panel" });
    if (p.counts.length) panel.appendChild(pairedHistogram(p));
    else panel.appendChild(el("div", { "class": "panel-title" }, "Paired comparison: " + p.b + " − " + p.a));
    var words = el("div", { "class": "paired-statement" });
    (p.statement || []).forEach(function (line) { words.appendChild(el("p", {}, line)); });
    panel.appendChild(words);
    if (p.cross) {
      var holder = el("div", { "class": "scroll" });
      holder.appendChild(el("div", { "class": "caption" }, p.cross.caption));
      holder.appendChild(simpleTable(p.cross.header, p.cross.rows, "outcome-cross"));
      panel.appendChild(holder);
    }
    return panel;
  }

  function pairedHistogram(p) {
    var edges = p.edges, ymax = Math.max.apply(null, p.counts.concat([1]));
    var f = frame({ title: "Paired difference per game: " + p.b + " − " + p.a + " (" + fmt(p.games) + " games both won)",
                    xlo: edges[0], xhi: edges[edges.length - 1], ylo: 0, yhi: ymax * 1.05,
                    xlabel: "moves of " + p.b + " minus moves of " + p.a + " (same seed)", ylabel: "games" });
    p.counts.forEach(function (count, b) {
      if (!count) return;
      var mid = (edges[b] + edges[b + 1]) / 2;
      var bar = sv("rect", { x: f.x(edges[b]), width: Math.max(1, f.x(edges[b + 1]) - f.x(edges[b]) - 0.5),
                             y: f.y(count), height: f.y(0) - f.y(count),
                             fill: rgb(mid < 0 ? PAL.body_head : mid > 0 ? PAL.apple : PAL.text_dim, 0.85), "class": "bar" });
      bar.appendChild(sv("title", {}, fmt(edges[b]) + " to " + fmt(edges[b + 1]) + ": " + fmt(count) + " games"));
      f.g.appendChild(bar);
    });
    if (edges[0] < 0 && edges[edges.length - 1] > 0) {
      f.g.appendChild(sv("line", { x1: f.x(0), x2: f.x(0), y1: f.y(0), y2: f.y(ymax * 1.05), "class": "zero" }));
    }
    return f.svg;
  }

  /* The scaling view: one policy's `values(q)` at each board against its cells, log-log, with the fitted
   * power law drawn dashed and its exponent in the legend. */
  function scalingPlot(title, ylabel, policies, values, fitOf, fitWord, intervals) {
    var xs = [], ys = [];
    policies.forEach(function (q) {
      q.cells.forEach(function (c, k) {
        var v = values(q)[k], ci = intervals(q) && intervals(q)[k];
        if (v > 0) { xs.push(c); ys.push(v); }
        if (v > 0 && ci && ci[0] > 0 && ci[1] > 0) { ys.push(ci[0]); ys.push(ci[1]); }
      });
    });
    if (!ys.length) return null;
    var xlo = Math.min.apply(null, xs), xhi = Math.max.apply(null, xs);
    var ylo = Math.min.apply(null, ys), yhi = Math.max.apply(null, ys);
    var cells = xs.filter(function (c, k) { return xs.indexOf(c) === k; });
    var f = frame({ title: title, xlo: xlo / 1.15, xhi: xhi * 1.15, ylo: ylo / 1.4, yhi: yhi * 1.4, logx: true, logy: true,
                    xticks: cells.length <= 8 ? cells : null,
                    xlabel: "cells on the board (log)", ylabel: ylabel });
    var names = [];
    policies.forEach(function (q, i) {
      var color = rgb(series(i)), fit = fitOf(q), pts = [];
      q.cells.forEach(function (c, k) {
        var v = values(q)[k];
        if (!(v > 0)) return;
        pts.push(f.x(c).toFixed(1) + "," + f.y(v).toFixed(1));
        var ci = intervals(q) && intervals(q)[k];
        if (ci && ci[0] > 0 && ci[1] > 0) f.g.appendChild(whisker(f, f.x(c), ci[0], ci[1], color));
        var dot = marker(i, f.x(c), f.y(v), 4.5, { "class": "scaling-point" });
        dot.appendChild(sv("title", {}, (q.label || q.policy) + " on " + q.boards[k] + ": " + fmt(v) + " (" + fmt(q.games[k]) + " games)"));
        f.g.appendChild(dot);
      });
      f.g.appendChild(sv("polyline", { points: pts.join(" "), fill: "none", stroke: color, "stroke-width": 1.2, opacity: 0.5 }));
      var label = q.label || q.policy;  // a policy under several options: one curve each, named
      if (fit) {
        var sign = fitWord === "cost" ? -1 : 1;  // games per CPU-s fall as the cost per game grows
        var line = function (c) { return Math.pow(fit.coefficient * Math.pow(c, fit.exponent), sign); };
        f.g.appendChild(sv("line", { x1: f.x(xlo), y1: f.y(line(xlo)), x2: f.x(xhi), y2: f.y(line(xhi)), stroke: color,
                                     "stroke-dasharray": "5 4", "stroke-width": 1.4, "class": "scaling-fit" }));
        label += ": " + fitWord + " ∝ cells^" + fit.exponent.toFixed(2) +
                 (fit.exponent_ci95 ? " [" + fit.exponent_ci95[0].toFixed(2) + ", " + fit.exponent_ci95[1].toFixed(2) + "]" : "");
      }
      names.push(label);
    });
    legend(f.svg, names);
    return f.svg;
  }

  function scaling(data) {
    var out = [], policies = data.policies;
    var moves = scalingPlot("Scaling: mean moves per game", "mean moves (log)", policies,
                            function (q) { return q.moves_mean; }, function (q) { return q.moves_fit; }, "moves",
                            function (q) { return q.moves_mean_ci95; });
    if (moves) out.push(moves);
    var timed = policies.filter(function (q) { return q.games_per_cpu_second.some(function (v) { return v > 0; }); });
    if (timed.length) {
      var speed = scalingPlot("Scaling: games per CPU-second", "games per CPU-second (log)", timed,
                              function (q) { return q.games_per_cpu_second; },
                              function (q) { return q.cpu_seconds_per_game_fit; }, "cost",
                              function (q) { return q.games_per_cpu_second_ci95; });
      if (speed) out.push(speed);
    }
    out.forEach(function (svg) { svg.classList.add("scaling"); });
    return out;
  }

  // -- tables ----------------------------------------------------------------------------------------
  function simpleTable(header, rows, cls) {
    var table = el("table", { "class": cls || "" }), thead = el("thead"), tr = el("tr");
    header.forEach(function (h) { tr.appendChild(el("th", {}, h)); });
    thead.appendChild(tr);
    table.appendChild(thead);
    var tbody = el("tbody");
    rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c) { row.appendChild(el("td", {}, c)); });
      tbody.appendChild(row);
    });
    table.appendChild(tbody);
    return table;
  }

  var GAME_COLUMNS = [["#", "index"], ["policy", "policy"], ["game", "game"], ["outcome", "outcome"],
                      ["moves", "moves"], ["apples", "apples"], ["length", "length"], ["picked as", "why"],
                      ["game seed", "game_seed"]];

  // The table's columns: a Snake game's, or what the page names (a puzzle's or a tour's: `game_columns`).
  var COLUMNS = DATA.game_columns || GAME_COLUMNS;

  function gamesTable(games, onOpen) {
    var table = el("table", { id: "games", "class": "games" }), thead = el("thead"), tr = el("tr");
    var tbody = el("tbody"), order = { key: "index", dir: 1 }, filterWords = [], selected = -1;
    COLUMNS.forEach(function (col) {
      var th = el("th", { "data-key": col[1], tabindex: 0, title: "sort by " + col[0] }, col[0]);
      th.addEventListener("click", function () { sortBy(col[1]); });
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    table.appendChild(thead);
    table.appendChild(tbody);
    function value(g, key) {
      return key === "index" ? g.index : key === "why" ? g.why.join(", ") : key === "policy" ? (g.name || g.policy) : g[key];
    }
    // A row is shown when every word of the filter is found in one of its cells (case-insensitive).
    function shown(g) {
      if (!filterWords.length) return true;
      var text = COLUMNS.map(function (col) { return String(value(g, col[1])); }).join(" ").toLowerCase();
      return filterWords.every(function (w) { return text.indexOf(w) >= 0; });
    }
    function render() {
      tbody.textContent = "";
      var rows = games.slice().sort(function (a, b) {
        var x = value(a, order.key), y = value(b, order.key);
        if (typeof x === "string" || typeof y === "string") return order.dir * String(x).localeCompare(String(y));
        return order.dir * ((x > y) - (x < y)) || (a.index - b.index);
      });
      rows.filter(shown).forEach(function (g) {
        var row = el("tr", { "data-index": g.index, tabindex: 0, "class": "outcome-" + g.outcome + (g.data ? "" : " no-data") +
                                                                  (g.index === selected ? " selected" : "") +
                                                                  (g.optimal === false ? " not-optimal" : "") });
        COLUMNS.forEach(function (col) {
          var v = value(g, col[1]);
          row.appendChild(el("td", { "class": "col-" + col[1] }, col[1] === "game_seed" ? v : fmt(v)));
        });
        if (!g.data) row.title = g.note || "not embedded";
        row.addEventListener("click", function () { onOpen(g.index); });
        row.addEventListener("keydown", function (e) { if (e.key === "Enter") onOpen(g.index); });
        tbody.appendChild(row);
      });
      Array.prototype.forEach.call(thead.querySelectorAll("th"), function (th) {
        th.className = th.getAttribute("data-key") === order.key ? (order.dir > 0 ? "sorted-up" : "sorted-down") : "";
      });
    }
    function sortBy(key) {
      order = { key: key, dir: order.key === key ? -order.dir : 1 };
      render();
    }
    function filter(text) {
      filterWords = String(text || "").toLowerCase().split(/\s+/).filter(Boolean);
      render();
      return tbody.querySelectorAll("tr").length;
    }
    render();
    return { table: table, sortBy: sortBy, filter: filter, select: function (i) {
      selected = i;
      Array.prototype.forEach.call(tbody.querySelectorAll("tr"), function (tr) {
        tr.classList.toggle("selected", Number(tr.getAttribute("data-index")) === i);
      });
    } };
  }

  // -- the player's controls ---------------------------------------------------------------------------
  var player, current = -1, table = null, problemBox;
  var readout = document.getElementById("readout"), scrub = document.getElementById("scrub");
  var speedInput = document.getElementById("speed"), speedOut = document.getElementById("speed-value");
  var playButton = document.getElementById("play");

  function showState(st) {
    if (!st) return;
    scrub.value = st.move;
    playButton.textContent = player.playing ? "❚❚ pause" : "▶ play";
    var g = DATA.games[current], last = st.frames - 1, text;
    if (g.kind === "snake" || !g.kind) {
      text = "move " + fmt(st.move) + "/" + fmt(last) + " · apples " + fmt(st.apples) + " · length " + fmt(st.length) +
             " · " + (st.move === last ? g.outcome + " after " + fmt(last) + " moves" : "ends " + g.outcome);
    } else if (g.kind === "puzzle") {
      text = "move " + fmt(st.move) + "/" + fmt(last) + (st.move === last ? " · solved" : "");
    } else {
      text = "square " + fmt(st.visited) + "/" + fmt(g.squares) + (g.closed ? " · closed tour" : " · open tour");
    }
    readout.textContent = text;
  }

  function describe(g) {
    if (g.kind === "puzzle") return g.rows + "×" + g.cols + " puzzle · " + g.moves + " moves" +
                                    (g.optimal ? " · optimal" : " · not optimal (" + g.optimal_text + ")");
    if (g.kind === "tour") return (g.piece || "piece") + " on " + g.rows + "×" + g.cols + " · " + g.squares + " squares";
    return g.policy + " · " + g.rows + "×" + g.cols + " · tail " + g.tail + " · start length " + g.start_length +
           " · seed " + g.seed + " game " + g.game;
  }

  function open(i) {
    i = Number(i);
    var g = DATA.games[i];
    if (!g) throw new Error("fastsnake.open: no picked game " + i + " (there are " + DATA.games.length + ")");
    current = i;
    if (table) table.select(i);
    document.getElementById("game-title").textContent = describe(g);
    if (!g.data) {
      problemBox.textContent = g.note || "this game is not embedded in the page";
      problemBox.hidden = false;
      player.tl = null;
      player.ctx.clearRect(0, 0, player.canvas.width, player.canvas.height);
      readout.textContent = "";
      return false;
    }
    var tl = g.kind === "puzzle" ? FastsnakeRules.rebuildPuzzle(g.data) :
             g.kind === "tour" ? FastsnakeRules.rebuildTour(g) : FastsnakeRules.rebuildSnake(g);
    problemBox.hidden = !tl.problem;
    problemBox.textContent = tl.problem ? "This record does not follow the rules: " + tl.problem : "";
    scrub.max = tl.frames - 1;
    player.load(tl);
    return !tl.problem;
  }

  function setSpeed(v) {
    player.speed = Math.max(1, Math.min(1000, Math.round(Number(v))));
    speedInput.value = Math.log10(player.speed);
    speedOut.textContent = player.speed + " moves/s";
  }

  function build() {
    problemBox = document.getElementById("problem");
    document.title = DATA.title;
    document.getElementById("title").textContent = DATA.title;
    document.getElementById("subtitle").textContent = DATA.subtitle || "";
    player = new FastsnakePlayer(document.getElementById("board"), PAL, showState);

    var notes = document.getElementById("notes");
    (DATA.problems || []).forEach(function (p) { notes.appendChild(el("li", { "class": "problem" }, p)); });
    (DATA.notes || []).forEach(function (p) { notes.appendChild(el("li", {}, p)); });

    if (DATA.kind === "sweep") {
      var secs = DATA.sections;
      document.getElementById("config").appendChild(
        simpleTable(DATA.config.header, DATA.config.rows, "config"));
      document.getElementById("summary").appendChild(
        simpleTable(DATA.summary_table.header, DATA.summary_table.rows, "summary"));
      var plots = document.getElementById("plots");
      if (DATA.hist_edges) plots.appendChild(histogram(secs));
      plots.appendChild(outcomes(secs));
      var pa = perApple(secs);
      if (pa) plots.appendChild(pa);
      if (DATA.scaling) scaling(DATA.scaling).forEach(function (svg) { plots.appendChild(svg); });
      (DATA.paired || []).forEach(function (p) { plots.appendChild(pairedPanel(p)); });
    } else {
      if (DATA.kind === "study" && DATA.study) FastsnakeStudy.draw(DATA.study, PAL, document.getElementById("study-plots"));
      ["config-section", "summary-section", "plots-section"].forEach(function (id) {
        document.getElementById(id).hidden = true;
      });
    }
    table = gamesTable(DATA.games, function (i) { open(i); document.getElementById("player").scrollIntoView({ block: "nearest" }); });
    var filterBox = document.getElementById("games-filter");
    filterBox.addEventListener("input", function () { table.filter(filterBox.value); });
    document.getElementById("games-holder").appendChild(table.table);
    var noun = DATA.kind === "study" ? "solution" : "game";
    if (DATA.kind === "study") document.getElementById("games-heading").textContent = "Picked solutions ";
    document.getElementById("games-count").textContent = DATA.games.length + " " + noun + (DATA.games.length === 1 ? "" : "s");

    playButton.addEventListener("click", function () { player.toggle(); });
    document.getElementById("back").addEventListener("click", function () { player.step(-1); });
    document.getElementById("forward").addEventListener("click", function () { player.step(1); });
    document.getElementById("home").addEventListener("click", function () { player.pause(); player.seek(0); });
    document.getElementById("end").addEventListener("click", function () { player.pause(); player.seek(Infinity); });
    scrub.addEventListener("input", function () { var k = scrub.value; player.pause(); player.seek(k); });
    speedInput.addEventListener("input", function () { setSpeed(Math.pow(10, Number(speedInput.value))); });
    document.addEventListener("keydown", function (e) {
      if (!player.tl || e.target.tagName === "INPUT" && e.target.type !== "range") return;
      var handled = true;
      if (e.key === " " || e.code === "Space") player.toggle();
      else if (e.key === "ArrowLeft") player.step(-1);
      else if (e.key === "ArrowRight") player.step(1);
      else if (e.key === "Home") { player.pause(); player.seek(0); }
      else if (e.key === "End") { player.pause(); player.seek(Infinity); }
      else handled = false;
      if (handled) e.preventDefault();
    });
    setSpeed(DATA.kind === "sweep" ? 50 : 10);
    var first = DATA.games.findIndex(function (g) { return !!g.data; });
    if (first >= 0) open(first);
  }

  /* The scripting API (docs/report.md). */
  window.fastsnake = {
    ready: false,
    version: DATA.fastsnake,
    games: [],
    open: function (i) { return open(i); },
    seek: function (k) { player.pause(); player.seek(k === Infinity ? Infinity : k); return player.state(); },
    state: function () { return player.state(); },
    play: function () { player.play(); },
    pause: function () { player.pause(); },
    speed: function (v) { if (v !== undefined) setSpeed(v); return player.speed; },
    current: function () { return current; },
    filterGames: function (text) {
      var box = document.getElementById("games-filter");
      box.value = text;
      return table.filter(text);
    }
  };
  build();
  window.fastsnake.games = DATA.games.map(function (g) {
    var out = {};
    ["kind", "policy", "name", "source", "rows", "cols", "seed", "game", "game_seed", "start_length", "tail", "outcome", "moves",
     "apples", "length", "why", "embedded", "instance", "heuristic", "optimal", "nodes", "board", "piece", "start",
     "method", "found"].forEach(function (k) { if (k in g) out[k] = g[k]; });
    out.embedded = !!g.data;
    return out;
  });
  window.fastsnake.ready = true;
  document.documentElement.setAttribute("data-ready", "true");
})();
