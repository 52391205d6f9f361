"""`fastsnake report` of a study rows file (`puzzle compare --out`, `tour compare --out`): one
self-contained page, the same as a sweep's, with the study's plots, tables and a player.

A puzzle study's page holds, per instance, the nodes generated and the CPU-seconds of every
heuristic (log scale, instances in order of the first heuristic's nodes); the ratios of each pair
(geometric mean with its 95 % interval as whiskers, n instances); the statistics tables of
`fastsnake puzzle compare` (intervals and n); and a player for the picked solutions (by default the
longest and the one with the most nodes; `picks` adds more), each re-solved with its heuristic,
algorithm and options to get the moves, as a sweep's report re-plays games from their seeds. A
re-solve that does not find the row's length and node counts is a problem line (the row or the
code changed). A tour study's page holds the nodes and CPU-seconds per trial of every method, the
success and pairs tables, and a player for the picked tours, re-found from their methods and seeds.

The page is `fastsnake.webpage`'s, with a study section before the player (`STUDY_SECTION_ID`);
its plots are SVG drawn here, its tables HTML.
"""

from __future__ import annotations

import html
import json
import math
import os
import time

from fastsnake.errors import InputError

STUDY_SECTION_ID = "study-section"
# Where the study section goes in the page: before the player's section.
PLAYER_SECTION = '<section id="games-section">'
# The picks a page makes unless told otherwise, and the words `picks` takes.
DEFAULT_PICKS = ("longest", "most-nodes")
PICK_WORDS = ("longest", "shortest", "most-nodes", "fewest-nodes")
# Plot geometry (CSS pixels of the SVG's view box: the page scales it to its column).
WIDTH, HEIGHT = 640, 300
MARGIN = {"left": 64, "right": 16, "top": 28, "bottom": 44}
# Series colours (the Okabe-Ito palette: distinguishable with colour-blindness), in order.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
# How a plot sits in the page: at most this wide, scaled down on narrow screens.
PLOT_STYLE = "width:100%;max-width:760px;height:auto;display:block"
# The largest number of instances a per-instance plot draws a point for (the rest are summarised).
MAX_POINTS = 2000


class StudyReportError(InputError):
    """A study file the report cannot show (another kind, several runs of one kind); names it."""


def study_kind(path) -> str | None:
    """The ``kind`` of the study rows file at `path` (``"puzzle"``, ``"tour"``), or None when it is
    not one (or its footer cannot be read: it is then reported as whatever else it may be)."""
    name = os.fspath(path)
    if os.path.isdir(name):  # a run folder (--out DIR): its rows file, once its chunks are checked
        from fastsnake.study.rows import run_folder_kind

        return run_folder_kind(name)
    if not name.endswith(".parquet") or not os.path.isfile(name):
        return None
    try:
        import pyarrow.parquet as pq

        from fastsnake.study.rows import META_KEY

        raw = (pq.read_schema(name).metadata or {}).get(META_KEY)
        return None if raw is None else str(json.loads(raw).get("kind"))
    except Exception:  # noqa: BLE001 - an unreadable footer: not recognisably a study
        return None


# -- plots -----------------------------------------------------------------------------------------

def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _num(x: float) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, int) or float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.3g}"


def _log_ticks(lo: float, hi: float) -> list[float]:
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    step = max(1, (b - a) // 6)
    return [10.0 ** k for k in range(a, b + 1, step)]


def _frame(title: str, xlabel: str, ylabel: str, plot_id: str) -> list[str]:
    return [f'<svg class="plot study-plot" id="{_esc(plot_id)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{_esc(title)}" style="{PLOT_STYLE}">',
            f'<text class="plot-title" x="{MARGIN["left"]}" y="16" font-size="13">{_esc(title)}</text>',
            f'<text x="{(WIDTH + MARGIN["left"]) / 2}" y="{HEIGHT - 6}" font-size="11" text-anchor="middle">'
            f'{_esc(xlabel)}</text>',
            f'<text x="12" y="{HEIGHT / 2}" font-size="11" text-anchor="middle" '
            f'transform="rotate(-90 12 {HEIGHT / 2})">{_esc(ylabel)}</text>']


def _legend(names: list[str]) -> list[str]:
    out, x = [], MARGIN["left"]
    for k, name in enumerate(names):
        out.append(f'<rect x="{x}" y="{HEIGHT - 30}" width="9" height="9" fill="{COLOURS[k % len(COLOURS)]}"/>'
                   f'<text class="legend" x="{x + 12}" y="{HEIGHT - 22}" font-size="10">{_esc(name)}</text>')
        x += 18 + 6.5 * len(name)
    return out


def per_trial_plot(title: str, ylabel: str, series: dict, order: list, plot_id: str, noun: str = "instance") -> str:
    """An SVG of each series' value per trial (``series[name][trial]``; missing or <= 0 not drawn)
    on a log y axis, trials along x in `order`."""
    values = [v for s in series.values() for v in s.values() if v is not None and v > 0]
    parts = _frame(title, f"{noun}s, in order of {next(iter(series), '')}", ylabel + " (log scale)", plot_id)
    if not values:
        parts.append(f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle">no positive values</text></svg>')
        return "".join(parts)
    lo, hi = min(values), max(values)
    lo, hi = (lo / 2, hi * 2) if lo == hi else (lo, hi)
    ticks = _log_ticks(lo, hi)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    x0, x1 = MARGIN["left"], WIDTH - MARGIN["right"]
    y0, y1 = HEIGHT - MARGIN["bottom"], MARGIN["top"]

    def y(v):
        return y0 + (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (y1 - y0)

    shown = order[:MAX_POINTS]

    def x(k):
        return x0 + (k + 0.5) / max(len(shown), 1) * (x1 - x0)

    for t in ticks:
        parts.append(f'<line class="grid" x1="{x0}" x2="{x1}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#ddd"/>'
                     f'<text class="tick" x="{x0 - 4}" y="{y(t) + 4:.1f}" font-size="10" text-anchor="end">'
                     f'{_num(t)}</text>')
    for k, (name, by) in enumerate(series.items()):
        colour = COLOURS[k % len(COLOURS)]
        points = [(x(i), y(by[t])) for i, t in enumerate(shown) if by.get(t) is not None and by[t] > 0]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        parts.append(f'<g class="series" data-name="{_esc(name)}" data-points="{len(points)}">'
                     f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-opacity="0.5"/>'
                     + "".join(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.5" fill="{colour}"/>' for px, py in points)
                     + "</g>")
    if len(order) > len(shown):
        parts.append(f'<text x="{x1}" y="{y1 - 4}" font-size="10" text-anchor="end">first {len(shown):,} of '
                     f'{len(order):,} {noun}s</text>')
    parts += _legend(list(series))
    parts.append("</svg>")
    return "".join(parts)


def ratio_plot(title: str, entries: list[dict], plot_id: str) -> str:
    """An SVG of ratios with whiskers: each entry ``{"label", "ratio", "ci", "n"}`` a row, the ratio
    a dot on a log x axis, its 95 % interval a whisker, a line at 1 (no difference)."""
    finite = [e for e in entries if e["ratio"] is not None and e["ratio"] > 0]
    height = MARGIN["top"] + MARGIN["bottom"] + 22 * max(len(entries), 1)
    left = 300
    parts = [f'<svg class="plot study-plot ratio-plot" id="{_esc(plot_id)}" viewBox="0 0 {WIDTH} {height}" '
             f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{_esc(title)}" style="{PLOT_STYLE}">',
             f'<text class="plot-title" x="8" y="16" font-size="13">{_esc(title)}</text>']
    values = [v for e in finite for v in [e["ratio"], *(e["ci"] or [])] if v is not None and v > 0]
    if not values:
        parts.append(f'<text x="{WIDTH / 2}" y="{height / 2}" text-anchor="middle">no ratio could be formed</text>'
                     "</svg>")
        return "".join(parts)
    lo, hi = min(values + [1.0]) / 1.2, max(values + [1.0]) * 1.2
    ticks = _log_ticks(lo, hi)
    if len(ticks) < 3:
        ticks = sorted({*ticks, 0.5, 1.0, 2.0} if lo > 0.3 and hi < 3 else set(ticks))
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    x0, x1 = left, WIDTH - MARGIN["right"] - 60
    bottom = height - MARGIN["bottom"]

    def x(v):
        return x0 + (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (x1 - x0)

    for t in ticks:
        parts.append(f'<line class="grid" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{MARGIN["top"]}" y2="{bottom}" '
                     f'stroke="#ddd"/><text class="tick" x="{x(t):.1f}" y="{bottom + 14}" font-size="10" '
                     f'text-anchor="middle">{_num(t)}</text>')
    parts.append(f'<line class="unity" x1="{x(1):.1f}" x2="{x(1):.1f}" y1="{MARGIN["top"]}" y2="{bottom}" '
                 'stroke="#555" stroke-dasharray="4 3"/>')
    parts.append(f'<text x="{(x0 + x1) / 2}" y="{height - 8}" font-size="11" text-anchor="middle">ratio (log '
                 'scale; 1: no difference)</text>')
    for k, e in enumerate(entries):
        cy = MARGIN["top"] + 22 * k + 11
        parts.append(f'<text class="ratio-label" x="{left - 8}" y="{cy + 4}" font-size="11" text-anchor="end">'
                     f'{_esc(e["label"])}</text>')
        if e["ratio"] is None or e["ratio"] <= 0:
            parts.append(f'<text x="{x0}" y="{cy + 4}" font-size="10">no pair (n {e["n"]})</text>')
            continue
        ci = e["ci"]
        whisker = ""
        if ci is not None and ci[0] is not None and ci[0] > 0 and ci[1] is not None and ci[1] > 0:
            whisker = (f'<line class="whisker" x1="{x(ci[0]):.1f}" x2="{x(ci[1]):.1f}" y1="{cy}" y2="{cy}" '
                       f'stroke="#333"/><line x1="{x(ci[0]):.1f}" x2="{x(ci[0]):.1f}" y1="{cy - 5}" y2="{cy + 5}" '
                       f'stroke="#333"/><line x1="{x(ci[1]):.1f}" x2="{x(ci[1]):.1f}" y1="{cy - 5}" '
                       f'y2="{cy + 5}" stroke="#333"/>')
        shown = f"{e['ratio']:.3g}" + (f" [{ci[0]:.3g}, {ci[1]:.3g}]" if whisker else "")
        parts.append(f'<g class="ratio" data-ratio="{e["ratio"]}" data-n="{e["n"]}">{whisker}'
                     f'<circle cx="{x(e["ratio"]):.1f}" cy="{cy}" r="4" fill="{COLOURS[0]}"/>'
                     f'<title>{_esc(e["label"])}: {shown}, n {e["n"]}</title></g>'
                     f'<text x="{x1 + 6}" y="{cy + 4}" font-size="10">n {e["n"]:,}</text>')
    parts.append("</svg>")
    return "".join(parts)


def html_table(table) -> str:
    """A `fastsnake.study.tables.Table` as an HTML table (numbers shown to 4 significant digits)."""
    head = "".join(f"<th>{_esc(c)}</th>" for c in table.columns)
    body = []
    for r in table.rows:
        cells = []
        for c in table.columns:
            v = r.get(c)
            text = "–" if v is None else (f"{v:.4g}" if isinstance(v, float) else
                                          f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v))
            cells.append(f"<td>{_esc(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<h3>{_esc(table.title or table.name)}</h3><div class="scroll"><table class="summary study-table" '
            f'data-name="{_esc(table.name)}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
            "</table></div>")


def section_html(title: str, plots: list[str], tables: list, marks: list[str] = ()) -> str:
    """The study's section of the page (`STUDY_SECTION_ID`); `marks` are warnings shown above the
    plots (a user's heuristic found inadmissible)."""
    return (f'<section id="{STUDY_SECTION_ID}"><h2>{_esc(title)}</h2>'
            + "".join(f'<p class="study-mark" style="border-left:4px solid #D55E00;padding-left:8px">'
                      f"<strong>{_esc(m)}</strong></p>" for m in marks)
            + '<div id="study-plots">' + "".join(plots) + "</div>"
            + '<div id="study-tables">' + "".join(html_table(t) for t in tables) + "</div></section>\n")


# -- picks -----------------------------------------------------------------------------------------

def _pick_rows(rows: list[dict], picks, *, length: str, nodes: str, ok, trial: str,
               noun: str) -> list[tuple[dict, str]]:
    """(row, why) for each pick: a word of `PICK_WORDS` or a trial id (every algorithm's row of it)."""
    done = [r for r in rows if ok(r)]
    chosen: dict[int, tuple[dict, list[str]]] = {}

    def add(r, why):
        chosen.setdefault(id(r), (r, []))[1].append(why)

    for p in picks:
        text = str(p).strip()
        if text in PICK_WORDS:
            if not done:
                continue
            key = {"longest": lambda r: (r[length] or 0, r[nodes] or 0),
                   "shortest": lambda r: (-(r[length] or 0), -(r[nodes] or 0)),
                   "most-nodes": lambda r: (r[nodes] or 0, r[length] or 0),
                   "fewest-nodes": lambda r: (-(r[nodes] or 0), -(r[length] or 0))}[text]
            add(max(done, key=key), text)
        else:
            mine = [r for r in done if str(r[trial]) == text]
            if not mine:
                known = ", ".join(sorted({str(r[trial]) for r in done})[:6])
                raise StudyReportError(f"pick {text!r}: neither {', '.join(PICK_WORDS)} nor a finished {noun} "
                                       f"of the study (e.g. {known})")
            for r in mine:
                add(r, f"{noun} {text}")
    return [(r, ", ".join(why)) for r, why in chosen.values()]


def _puzzle_entry(row: dict, why: str, problems: list[str]) -> dict:
    """The player's entry of one row: the solution re-solved with the row's heuristic, algorithm and
    options; a problem line when it does not find the row's length and node counts."""
    from fastsnake.puzzle import solve

    options = json.loads(row["options"] or "{}")
    kwargs = {k: options[k] for k in ("max_nodes", "time_limit", "memory_budget", "partition", "prune_depth")
              if options.get(k) is not None}
    result = solve(row["start"], row["goal"], rows=row["rows"], cols=row["cols"], algorithm=row["algorithm"],
                   heuristic=row["heuristic"], **kwargs)
    where = f"{row['instance_set']} {row['instance_id']} with {row['heuristic']}/{row['algorithm']}"
    said = (row["length"], row["nodes_generated"], row["nodes_expanded"])
    got = (result.length, result.nodes_generated, result.nodes_expanded)
    if got != said:
        problems.append(f"{where}: re-solved, it takes {got[0]} moves and {got[1]:,}/{got[2]:,} nodes generated/"
                        f"expanded; the study says {said[0]} and {said[1]:,}/{said[2]:,} (the row or the code "
                        "changed)")
    start = [int(t) for t in row["start"].split()]
    goal = [int(t) for t in row["goal"].split()]
    return {"kind": "puzzle", "rows": row["rows"], "cols": row["cols"], "moves": len(result.moves),
            "optimal": bool(result.optimal and row["optimal"]), "outcome": "solved", "why": [why],
            "policy": f"{row['heuristic']}/{row['algorithm']}", "game": str(row["instance_id"]),
            "nodes": int(result.nodes_generated), "instance_set": row["instance_set"],
            "data": {"rows": row["rows"], "cols": row["cols"], "start": start, "goal": goal,
                     "moves": result.moves}}


def _tour_entry(row: dict, why: str, problems: list[str]) -> dict:
    from fastsnake import webpage
    from fastsnake.tour import find_tour

    options = json.loads(row["options"] or "{}")
    kwargs = {k: options[k] for k in ("time_limit", "max_nodes") if options.get(k) is not None}
    found = find_tour(row["piece"], row["rows"], row["cols"], row["start"], closed=row["closed"],
                      method=row["method"], seed=row["seed"], **kwargs)
    where = f"trial {row['trial_id']} with {row['method']} seed {row['seed']}"
    if not found.found or (row["nodes"] is not None and found.nodes != row["nodes"]):
        now = f"takes {found.nodes:,} nodes" if found.found else "finds no tour"
        problems.append(f"{where}: re-found, it {now}; the study says {row['nodes']} nodes (the row or the code "
                        "changed)")
    path = [int(c) for c in (found.path if found.found else [])]
    cells = row["rows"] * row["cols"]
    return {"kind": "tour", "rows": row["rows"], "cols": row["cols"], "piece": row["piece"],
            "closed": bool(row["closed"]), "squares": len(path), "moves": max(len(path) - 1, 0),
            "start": int(row["start"]), "outcome": "found" if path else "no tour", "why": [why],
            "policy": f"{row['method']} seed={row['seed']}" if row["method"] == "search" else row["method"],
            "game": str(row["trial_id"]), "nodes": row["nodes"], "cell_bytes": webpage.cell_bytes(cells),
            "data": {"path": webpage.pack_cells(path, cells)}}


# -- the page ---------------------------------------------------------------------------------------

def _read(paths):
    from fastsnake.study.rows import read_rows

    if len(paths) != 1:
        raise StudyReportError(f"a study report shows one study file, not {len(paths)} "
                               f"({', '.join(repr(os.fspath(p)) for p in paths[:3])}): write one page each")
    path = os.fspath(paths[0])
    meta, table = read_rows(path)
    if meta.get("kind") not in ("puzzle", "tour"):
        raise StudyReportError(f"study file {path!r} is a {meta.get('kind')!r} study: the report shows puzzle "
                               "and tour studies")
    rows = table.to_pylist()
    if not rows:
        raise StudyReportError(f"study file {path!r} holds no rows: nothing to show")
    return path, meta, rows


def _puzzle_parts(meta: dict, rows: list[dict]):
    from fastsnake.puzzle import study as PS

    heuristics = list(dict.fromkeys(r["heuristic"] for r in rows))
    instances = {}
    for r in rows:
        instances.setdefault(r["instance_id"], PS.Instance(
            r["instance_set"], r["instance_id"], r["rows"], r["cols"], tuple(int(t) for t in r["start"].split()),
            tuple(int(t) for t in r["goal"].split()), r["published_length"]))
    built = {(r["heuristic"], r["rows"], r["cols"], r["goal"]): (r["table_cpu_seconds"], None) for r in rows}
    study = PS.Study(heuristics, list(instances.values()), rows=rows, run_id=str(meta.get("run_id")),
                     options=meta.get("options") or {}, table_cpu_seconds=built)
    summary = PS.summarize(study)  # each heuristic against the first, as `puzzle compare` prints it
    tables = PS.study_tables(summary)
    solved = [r for r in rows if r["status"] == "solved"]
    first = {r["instance_id"]: r["nodes_generated"] for r in solved if r["heuristic"] == heuristics[0]}
    order = sorted(instances, key=lambda i: (first.get(i) is None, first.get(i) or 0, str(i)))

    def series(measure):
        return {h: {r["instance_id"]: r[measure] for r in solved if r["heuristic"] == h} for h in heuristics}

    plots = [("nodes-per-instance", "Nodes generated per instance", per_trial_plot(
                 "Nodes generated per instance", "nodes generated", series("nodes_generated"), order,
                 "nodes-per-instance")),
             ("cpu-per-instance", "CPU-seconds per instance", per_trial_plot(
                 "CPU-seconds per search, per instance", "CPU-seconds", series("cpu_seconds"), order,
                 "cpu-per-instance"))]
    entries = []
    for pair in summary["pairs"]:
        for m in PS.RATIO_MEASURES:
            p = pair[m]
            entries.append({"label": f"{pair['heuristic']} / {pair['baseline']} {m}", "ratio": p["ratio"],
                            "ci": p["ratio_ci95"], "n": p["n"]})
    if entries:
        plots.append(("ratios", "Ratios", ratio_plot(
            "Per-instance ratios: geometric mean and 95 % interval, on the instances both solved", entries,
            "ratios")))
    board = f"{rows[0]['rows']}x{rows[0]['cols']}"
    notes = [f"{len(instances):,} instances of {rows[0]['instance_set']} ({board}), heuristics "
             f"{', '.join(heuristics)}; CPU-seconds per search, tables built apart; intervals are 95 %"]
    notes += inadmissible_marks(meta, rows)
    return summary, tables, plots, notes, dict(length="length", nodes="nodes_generated",
                                               ok=lambda r: r["status"] == "solved", trial="instance_id",
                                               noun="instance")


def _tour_parts(meta: dict, rows: list[dict]):
    from fastsnake.tour import study as TS

    arms = list(dict.fromkeys((r["method"], r["seed"]) for r in rows))
    trials = list(dict.fromkeys(r["trial_id"] for r in rows))
    study = TS.TourStudy(arms, trials=[_TrialView(t) for t in trials], rows=rows, run_id=str(meta.get("run_id")),
                         options=meta.get("options") or {})
    summary = TS.summarize(study)
    tables = TS.study_tables(summary)
    names = [TS.label(m, s) for m, s in arms]
    found = [r for r in rows if r["found"]]
    first = {r["trial_id"]: r["nodes"] for r in found if TS.label(r["method"], r["seed"]) == names[0]}
    order = sorted(trials, key=lambda t: (first.get(t) is None, first.get(t) or 0, str(t)))

    def series(measure):
        return {n: {r["trial_id"]: r[measure] for r in found if TS.label(r["method"], r["seed"]) == n}
                for n in names}

    plots = [("nodes-per-trial", "Nodes per trial", per_trial_plot(
                 "Nodes per trial (searches)", "nodes", series("nodes"), order, "nodes-per-trial", noun="trial")),
             ("cpu-per-trial", "CPU-seconds per trial", per_trial_plot(
                 "CPU-seconds per trial", "CPU-seconds", series("cpu_seconds"), order, "cpu-per-trial", noun="trial"))]
    entries = [{"label": f"{p['method']} / {p['baseline']} CPU-s", "ratio": p["cpu_seconds"]["ratio"],
                "ci": p["cpu_seconds"]["ratio_ci95"], "n": p["cpu_seconds"]["n"]} for p in summary["pairs"]]
    if entries:
        plots.append(("ratios", "Ratios", ratio_plot(
            "CPU-seconds ratios: geometric mean and 95 % interval, on the trials both found", entries, "ratios")))
    notes = [f"{len(trials):,} trials, methods {', '.join(names)}; intervals are 95 %"]
    return summary, tables, plots, notes, dict(length="nodes", nodes="nodes", ok=lambda r: bool(r["found"]),
                                               trial="trial_id", noun="trial")


def inadmissible_marks(meta: dict, rows: list[dict]) -> list[str]:
    """One line per heuristic with solved rows marked non-optimal (a user's heuristic the study found
    inadmissible), saying what was seen when the file's footer holds it (``admissibility``)."""
    seen = meta.get("admissibility") or {}
    marks = []
    for name in dict.fromkeys(r["heuristic"] for r in rows):
        solved = [r for r in rows if r["heuristic"] == name and r["status"] == "solved"]
        if not solved or all(r["optimal"] for r in solved):
            continue
        e = seen.get(name) or {}
        why = []
        if e.get("sample_violations"):
            v = e["violations"][0]
            why.append(f"{e['sample_violations']:,} of {e['samples']:,} sampled states above their true distance "
                       f"(e.g. h {v['h']}, distance {v['distance']})")
        if e.get("longer_path_count"):
            f = e["longer_paths"][0]
            why.append(f"{e['longer_path_count']:,} paths longer than the optimum (e.g. instance {f['instance_id']}: "
                       f"{f['length']} moves, optimum {f['optimal_length']})")
        marks.append(f"{name} is not admissible" + (f": {'; '.join(why)}" if why else "")
                     + f"; its {len(solved):,} solutions are marked non-optimal (optimal=false)")
    return marks


class _TrialView:
    """A trial as `fastsnake.tour.study.summarize` reads it: its id."""

    def __init__(self, trial_id: str):
        self.id = trial_id


def report_study(paths, out, *, picks=(), title=None, progress=None) -> dict:
    """Write the page of one study rows file (`paths`: a list of one path) to `out`; returns what the
    page holds: ``out, bytes, kind`` ("study"), ``study`` ("puzzle", "tour"), ``run_id, file,
    trials, algorithms, plots`` (id, title), ``tables`` (name, title, rows, columns), ``picked``
    (a count), ``solutions`` (one per solution in the player: algorithm, trial, why, moves, nodes),
    ``embedded, problems, notes, seconds``."""
    from fastsnake import webpage

    t0 = time.perf_counter()
    path, meta, rows = _read(list(paths))
    kind = meta["kind"]
    summary, tables, plots, notes, how = (_puzzle_parts if kind == "puzzle" else _tour_parts)(meta, rows)
    problems: list[str] = []
    chosen = _pick_rows(rows, list(picks) or list(DEFAULT_PICKS), **how)
    entry_of = _puzzle_entry if kind == "puzzle" else _tour_entry
    games = []
    for row, why in chosen:
        if progress is not None:
            progress(f"re-solving {row.get('instance_id', row.get('trial_id'))} ({why})")
        games.append(entry_of(row, why, problems))
    for i, g in enumerate(games):
        g["index"] = i
    name = os.path.basename(path)
    heading = f"{kind.capitalize()} study {meta.get('run_id', '')}"
    data = {"kind": "study", "study": kind, "title": title or f"fastsnake: {kind} study {name}",
            "subtitle": f"{name} · run {meta.get('run_id')} · {len(rows):,} rows",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "games": games, "problems": problems,
            "notes": notes}
    page = webpage.render(data)
    if PLAYER_SECTION not in page:
        raise RuntimeError("the page template has no player section to put the study before")
    marks = inadmissible_marks(meta, rows) if kind == "puzzle" else []
    page = page.replace(PLAYER_SECTION, section_html(heading, [p[2] for p in plots], tables, marks)
                        + PLAYER_SECTION, 1)
    size = webpage.write(out, page)
    algorithms = list(summary["heuristics"] if kind == "puzzle" else
                      dict.fromkeys(m["method"] for m in summary["methods"]))
    return {"out": os.fspath(out), "bytes": size, "kind": "study", "study": kind, "file": path,
            "run_id": meta.get("run_id"), "trials": summary.get("instances", len({r.get("trial_id") for r in rows})),
            "algorithms": algorithms, "plots": [{"id": p[0], "title": p[1]} for p in plots],
            "tables": [{"name": t.name, "title": t.title, "rows": len(t.rows), "columns": list(t.columns)}
                       for t in tables],
            "picked": len(games),
            "solutions": [{"algorithm": g["policy"], "trial": g["game"], "why": g["why"][0], "moves": g["moves"],
                           "nodes": g.get("nodes"), "embedded": bool(g.get("data"))} for g in games],
            "embedded": sum(bool(g.get("data")) for g in games), "problems": problems, "notes": notes,
            "marks": marks,
            "policies": [], "games": 0, "seconds": time.perf_counter() - t0}
