"""Presentation: every text table and sentence the CLI prints and the report shows about sweeps.

The statistics themselves are computed elsewhere (`fastsnake.snake.stats`, `intervals`,
`paired`); this module only words them, so that `fastsnake compare` and the browser report say
the same thing in the same words. Nothing here computes a figure a summary does not already hold.

- `summary_rows`: the summary table (one row a policy), `compare_rows`: the same with the speed;
- `paired_sentences`: one paired comparison in words (the report's panel, the CLI's line);
- `compare_lines`: the text under `compare`'s table (paired comparisons, scaling fits, precision);
- `render_table`: a table as aligned text, Markdown, CSV or LaTeX (``--format``).
"""

from __future__ import annotations

from fastsnake.snake import record
from fastsnake.snake.intervals import half_width
from fastsnake.snake.tables import P_FLOOR
from fastsnake.study.tables import CELL_FORMATS, p_text, render_cells

TABLE_FORMATS = CELL_FORMATS


# -- numbers -------------------------------------------------------------------------------------

def format_p(p: float | None) -> str:
    """A p-value as a reader wants it: 'p = 0.012', 'p < 1e-300' when it underflows."""
    cell = p_cell(p)
    return f"p {cell}" if cell.startswith("<") else f"p = {cell}"


def p_cell(p: float | None) -> str:
    """A p-value as a table cell: '0.012', '1.2e-05', '< 1e-300' when it underflows (a bound stays
    a bound in every format), '-' when there is none (`fastsnake.study.tables.p_text`)."""
    if p == 0:
        return p_text(P_FLOOR, bound=True)
    return p_text(p)


def format_mean_ci(mean: float | None, interval, digits: int = 1) -> str:
    """'2425.3 ± 3.1': a mean and the half-width of its 95 % interval."""
    if mean is None:
        return "-"
    hw = half_width(interval)
    if hw is None:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {hw:.{digits}f}"


def format_rate_ci(rate: float | None, interval) -> str:
    """'97.50% ± 0.68': a rate in percent with the half-width of its interval; a lopsided interval
    (a Wilson interval near 0 % or 100 %) shows both sides, '100.00% +0.00/-0.18'."""
    if rate is None:
        return "-"
    if interval is None:
        return f"{rate:.2%}"
    below, above = 100 * (rate - interval[0]), 100 * (interval[1] - rate)
    if min(below, above) * 1.5 >= max(below, above):
        return f"{rate:.2%} ± {(below + above) / 2:.2f}"
    return f"{rate:.2%} +{above:.2f}/-{below:.2f}"


def signed(value: float, digits: int = 1) -> str:
    """−235.0 / +12.5: a difference with its sign (a true minus sign, as printed tables use)."""
    text = f"{abs(value):,.{digits}f}"
    return ("−" if value < 0 else "+") + text


def format_interval(interval, digits: int = 1, scale: float = 1.0) -> str:
    """'[−3.1, +2.0]': a signed interval ('' for None)."""
    if interval is None:
        return ""
    return f"[{signed(scale * interval[0], digits)}, {signed(scale * interval[1], digits)}]"


def format_speed(rate: float | None, repeats: dict | None = None) -> str:
    """Games per CPU-second as a table cell: '35,551' alone (one run supports no ±), or with
    ``--repeat`` the median of the runs and its bootstrap interval, '35,551 [34,900, 36,020]'."""
    if rate is None:
        return "-"
    if repeats and repeats.get("median") is not None:
        ci = repeats.get("median_ci95")
        return f"{repeats['median']:,.0f}" + ("" if ci is None else f" [{ci[0]:,.0f}, {ci[1]:,.0f}]")
    return f"{rate:,.0f}"


def _exponent(fit: dict, key: str) -> str:
    value = fit.get(f"{key}_exponent")
    if value is None:
        return "-"
    ci = fit.get(f"{key}_exponent_ci95")
    return f"{value:.2f}" + ("" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]")


# -- tables --------------------------------------------------------------------------------------

# The summary table `sweep` and `compare` print and the report shows: (title, summary key, format),
# where format is a str.format pattern of the value or a function of the whole summary (a figure
# with its 95 % interval: the mean moves' Student t, the win rate's Wilson).
_MOVES_COLUMNS = (
    ("policy", "policy", "{}"),
    ("games", "games", "{:,}"),
    ("win % ±95%", "win_rate", lambda s: format_rate_ci(s["win_rate"], s.get("win_rate_ci95"))),
    ("died %", "death_rate", "{:.2%}"),
    ("stuck %", "stuck_rate", "{:.2%}"),
    ("mean ±95%", "moves_mean", lambda s: format_mean_ci(s["moves_mean"], s.get("moves_mean_ci95"))),
    ("std", "moves_std", "{:.1f}"),
    ("min", "moves_min", "{}"),
    ("q25", "moves_q25", "{:.0f}"),
    ("median", "moves_median", "{:.0f}"),
    ("q75", "moves_q75", "{:.0f}"),
    ("max", "moves_max", "{}"),
)


def summary_columns() -> tuple:
    """The summary table's columns: the moves' (above), then each "mean" column of the game record
    with a ``title`` (`fastsnake.snake.record`: apples), then the speed."""
    means = tuple((c.title, f"{c.name}_mean", "{:.2f}") for c in record.mean_columns() if c.title)
    return _MOVES_COLUMNS + means + (("games/s", "games_per_second", "{:,.0f}"),)


SUMMARY_COLUMNS = summary_columns()


def summary_rows(summaries: list[dict]) -> tuple[list[str], list[list[str]]]:
    """(header, one row of formatted cells per summary): the table `compare` prints; "-" where a
    summary lacks a value (a sweep folder records no timing)."""
    rows, columns = [], summary_columns()
    for summary in summaries:
        games = max(summary["games"], 1)
        values = dict(summary, death_rate=summary["deaths"] / games, stuck_rate=summary["stuck"] / games)
        rows.append(["-" if values.get(key) is None else fmt(values) if callable(fmt) else fmt.format(values[key])
                     for _, key, fmt in columns])
    return [title for title, _, _ in columns], rows


def compare_rows(summaries: list[dict]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of `compare`'s table: the summary table (`summary_rows`) with the board size
    first when the rows hold several, and games per CPU-second and threads beside the wall-clock
    games/s. One run's speed is printed without a ± (the spread of its chunks is not the spread of
    runs); with ``--repeat`` it is the median of the runs and its bootstrap interval."""
    header, rows = summary_rows(summaries)
    several = len({(s["rows"], s["cols"]) for s in summaries}) > 1
    repeated = any(s.get("repeats") for s in summaries)
    header = (["size"] if several else []) + header + [
        "games/CPU-s median [95%]" if repeated else "games/CPU-s", "threads"]
    out = []
    for s, row in zip(summaries, rows, strict=True):
        speed = format_speed(s.get("games_per_cpu_second"), s.get("repeats"))
        out.append(([f"{s['rows']}x{s['cols']}"] if several else []) + row + [speed, str(s.get("threads", "-"))])
    return header, out


def paired_rows(summaries: list[dict]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the paired table: one row per policy paired with a baseline, the measures
    over all paired games (win rate, apples) beside the moves over the games both won, each with
    the number of pairs it uses."""
    several = len({(s["rows"], s["cols"]) for s in summaries}) > 1
    header = (["size"] if several else []) + [
        "policy", "baseline", "pairs", "win rate diff [95%]", "apples diff [95%]", "both won",
        "moves diff [95%]", "moves %", "p (t)"]
    wilcoxon = any((s.get("paired") or {}).get("wilcoxon_p") is not None for s in summaries)
    if wilcoxon:
        header.append("p (wilcoxon)")
    holm = any((s.get("paired") or {}).get("p_holm") is not None for s in summaries)
    if holm:
        header.append("p (Holm)")
    rows = []
    for s in summaries:
        for p in _pairs_of(s):
            win = "-" if p.get("win_rate_diff") is None else (
                f"{signed(100 * p['win_rate_diff'], 2)} pts {format_interval(p.get('win_rate_diff_ci95'), 2, 100)}")
            apples = "-" if p.get("apples_diff_mean") is None else (
                f"{signed(p['apples_diff_mean'], 2)} {format_interval(p.get('apples_diff_ci95'), 2)}").strip()
            moves = "-" if p.get("moves_diff_mean") is None else (
                f"{signed(p['moves_diff_mean'])} {format_interval(p.get('moves_diff_ci95'))}").strip()
            pct = "-" if p.get("moves_diff_pct") is None else f"{signed(p['moves_diff_pct'], 2)} %"
            row = ([f"{s['rows']}x{s['cols']}"] if several else []) + [
                s["policy"], p["baseline"], f"{p['games_total']:,}", win, apples, f"{p['games']:,}", moves, pct,
                p_cell(p.get("p_value"))]
            if wilcoxon:
                row.append(p_cell(p.get("wilcoxon_p")))
            if holm:
                row.append(p_cell(p.get("p_holm")))
            rows.append(row)
    return header, rows


def _pairs_of(summary: dict) -> list[dict]:
    """The paired comparisons a summary carries: its `paired` and, with ``--all-pairs``, `pairs`."""
    found = [summary["paired"]] if summary.get("paired") else []
    return found + [p for p in summary.get("pairs") or [] if p is not summary.get("paired")]


def robust_rows(summaries: list[dict]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the robust aggregates (``--robust``): median and interquartile mean of the
    moves, each with its bootstrap 95 % interval."""
    several = len({(s["rows"], s["cols"]) for s in summaries}) > 1
    header = (["size"] if several else []) + ["policy", "games", "median [95%]", "IQM [95%]"]
    rows = []
    for s in summaries:
        r = s.get("robust")
        if not r:
            continue

        def cell(key, r=r):
            value, ci = r.get(key), r.get(f"{key}_ci95")
            if value is None:
                return "-"
            return f"{value:,.1f}" + ("" if ci is None else f" [{ci[0]:,.1f}, {ci[1]:,.1f}]")

        rows.append(([f"{s['rows']}x{s['cols']}"] if several else [])
                    + [s["policy"], f"{r['games']:,}", cell("moves_median"), cell("moves_iqm")])
    return header, rows


def render_table(header: list[str], rows: list[list[str]], fmt: str = "text") -> str:
    """A table as aligned text (the first column left, the others right), GitHub Markdown, CSV
    (RFC 4180, the cells as printed) or a LaTeX ``tabular`` (`fastsnake.study.tables.render_cells`)."""
    return render_cells(header, rows, fmt)


# -- sentences -----------------------------------------------------------------------------------

def paired_sentences(name: str, baseline: str, p: dict, where: str = "") -> list[str]:
    """One paired comparison in words: the measures over every paired game first (the win rate,
    then the apples), then the moves over the games both won, each naming how many pairs it uses.
    When the win rates differ the moves difference covers only the games both won (survivor bias),
    so the all-games measures lead. The CLI joins the sentences with '; ', the report shows one a line."""
    total = p["games_total"]
    head = f"{name} vs {baseline}{where}: "
    out = []
    all_won = p.get("outcomes", {}).get("won/won") == total
    if p.get("win_rate_diff") is not None and not all_won:
        ci = p.get("win_rate_diff_ci95")
        out.append(f"win rate {signed(100 * p['win_rate_diff'], 2)} points"
                   + ("" if ci is None else f", 95 % interval {format_interval(ci, 2, 100)},")
                   + f" over all {total:,} paired games")
    if p.get("apples_diff_mean") is not None and not all_won:
        ci = p.get("apples_diff_ci95")
        out.append(f"apples {signed(p['apples_diff_mean'], 2)}"
                   + ("" if ci is None else f", 95 % interval {format_interval(ci, 2)}")
                   + f", {format_p(p.get('apples_p_value'))}, over all {total:,} paired games")
    both = p["games"]
    if p.get("moves_diff_mean") is None:
        out.append(f"no game of the {total:,} paired was won by both, so no moves difference")
    else:
        hw = half_width(p.get("moves_diff_pct_ci95"))
        pct = "" if p.get("moves_diff_pct") is None else (
            f" ({signed(p['moves_diff_pct'])} %" + ("" if hw is None else f" ± {hw:.1f} %") + ")")
        ci = p.get("moves_diff_ci95")
        interval = ", no interval (one game)" if ci is None else f", 95 % interval {format_interval(ci)}"
        text = (f"{signed(p['moves_diff_mean'])} moves{pct}{interval}, {format_p(p.get('p_value'))}, "
                f"over the {both:,} games both won of {total:,} paired")
        if p.get("wilcoxon_p") is not None:
            text += f" (Wilcoxon signed-rank {format_p(p['wilcoxon_p'])})"
        if p.get("fewer_moves_share") is not None:
            text += f", fewer moves in {p['fewer_moves_share']:.1%}"
        out.append(text)
    if p.get("p_holm") is not None:
        out.append(f"Holm-adjusted {format_p(p['p_holm'])}")
    out[0] = head + out[0]
    return out


def compare_lines(summaries: list[dict]) -> list[str]:
    """The text under `compare`'s table: one line per paired comparison, e.g. ``grove vs cell:
    −235.0 moves (−3.1 % ± 0.2 %), p < 1e-300, over the 2,000 games both won of 2,000 paired``
    (the win rate and apples over every paired game first when the win rates differ), then the
    scaling fits and the precision reached."""
    several = len({(s["rows"], s["cols"]) for s in summaries}) > 1
    lines = []
    for s in summaries:
        where = f" ({s['rows']}x{s['cols']})" if several else ""
        for p in _pairs_of(s):
            lines.append("; ".join(paired_sentences(s["policy"], p["baseline"], p, where)))
    fits = {}
    for s in summaries:
        if s.get("scaling"):
            fits.setdefault(s["policy"], s["scaling"])
    for name, fit in fits.items():
        lines.append(f"{name} growth over {fit['sizes']} sizes: moves ~ cells^{_exponent(fit, 'moves')}, "
                     f"CPU time per game ~ cells^{_exponent(fit, 'cpu')}")
    by_size = {(s["rows"], s["cols"]): s["precision"] for s in summaries if s.get("precision")}
    for (rows, cols), info in by_size.items():  # one precision run per board size
        where = f"{rows}x{cols}: " if several else ""
        state = "reached" if info["reached"] else "NOT reached"
        limit = "" if info["limiting_half_width"] is None else f" ({info['limiting_half_width']:.2%})"
        line = (f"{where}precision {info['target']:.2%} {state} after {info['games']:,} games of at most "
                f"{info['cap']:,} ({info['rounds']} rounds; widest: {info['limiting']}{limit})")
        if info.get("skipped"):
            line += f"; not a target (the outcome never varies): {', '.join(info['skipped'])}"
        lines.append(line)
    return lines


def baseline_rows(verdict: dict) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a check against a saved baseline (`benchmark.check_baseline`): per policy
    and board, the pairs, the win-rate and moves differences with their intervals, the speed ratio
    and the verdict."""
    header = ["policy", "size", "pairs", "win rate diff [95%]", "both won", "moves diff [95%]", "speed ratio",
              "verdict"]
    rows = []
    for c in verdict["policies"]:
        p = c["paired"]
        win = "-" if p.get("win_rate_diff") is None else (
            f"{signed(100 * p['win_rate_diff'], 2)} pts {format_interval(p.get('win_rate_diff_ci95'), 2, 100)}")
        moves = "-" if p.get("moves_diff_mean") is None else (
            f"{signed(p['moves_diff_mean'])} {format_interval(p.get('moves_diff_ci95'))}").strip()
        speed = "-" if c.get("speed_ratio") is None else f"{c['speed_ratio']:.2f}"
        rows.append([c["policy"], f"{c['rows']}x{c['cols']}", f"{c['games']:,}", win, f"{p['games']:,}", moves, speed,
                     "WORSE" if c["worse"] else "ok"])
    return header, rows


def baseline_lines(verdict: dict) -> list[str]:
    """The sentences under the baseline table: what is worse, what could not be paired, and whether
    the speed was judged."""
    done = verdict.get("coverage")
    compared = "" if done is None else (
        f"compared {done['keys']} of {done['keys_total']} policies, {done['instances']:,} of "
        f"{done['instances_total']:,} games; ")
    left = verdict.get("not_run") or {}
    unchecked = (f"{left['games']:,} of the baseline's {left['games_total']:,} games not played; "
                 if left.get("games") else "")
    lines = [f"against baseline {verdict['baseline']!r} ({verdict['file']}): {compared}{unchecked}"
             + ("no policy is significantly worse" if not verdict["worse"] else f"{len(verdict['worse'])} finding(s)")]
    lines += [f"  worse: {w}" for w in verdict["worse"]]
    lines += [f"  not compared: {u}" for u in verdict["unmatched"]]
    for where, games in (verdict.get("replayed") or {}).items():
        lines.append(f"  re-played from their seeds, as saved: {where} game(s) {', '.join(map(str, games))}")
    lines += [f"  changed: {c}" for c in verdict.get("changed") or ()]
    if verdict.get("not_replayed"):
        lines.append(f"  not re-played (the code changed since the baseline was saved, so its games may differ): "
                     f"{', '.join(verdict['not_replayed'])}")
    if any(not c["speed_judged"] for c in verdict["policies"]):
        lines.append(f"  speed not judged where either run lacks --repeat (threshold: {verdict['slower']:.0%} slower)")
    return lines


def describe_sweep(summary: dict) -> str:
    """The line `fastsnake sweep` prints above its table."""
    s = summary
    return (
        f"{s['policy']} on {s['rows']}x{s['cols']}, start length {s['start_length']}, tail {s['tail_rule']}, "
        f"seed {s['seed']}: {s['games']:,} games in {s['seconds']:.2f} s "
        f"({s['games_per_second']:,.0f} games/s, {s['moves_per_second'] / 1e6:,.1f} M moves/s, "
        f"{s['threads']} threads)"
    )
