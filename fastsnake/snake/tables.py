"""Tables as data: the tables `fastsnake compare` and `sweep` print, with numbers as numbers.

`present` words the tables for people (``2,425.3 ± 3.1``, a true minus sign, thousands
separators); this module gives the same figures to programs: one value a cell, every interval
as two more columns (``mean``, ``ci_low``, ``ci_high``), a ``.`` decimal point, no thousands
separator, an ASCII minus, an empty cell where a value does not exist. ``--format csv`` writes
these tables, one table a file or a stream (`DATA_TABLES` names them), so that pandas'
``read_csv``, DuckDB's ``read_csv`` and a spreadsheet read every column with its type.

A p-value that underflows (``p < 1e-300``, stored as 0) is exported as its bound: the ``p``
column holds ``1e-300`` and ``p_bound`` holds ``<``; a p-value that is a value has ``=`` there.
A filter such as ``p < 0.05`` is then right on either kind.
"""

from __future__ import annotations

import csv
import io
import json
import math

from fastsnake.errors import InputError
from fastsnake.snake import record

# The tables, in the order `fastsnake compare --tables` writes them.
DATA_TABLES = ("summary", "paired", "robust", "baseline")
# The bound a p-value that underflowed to 0 is exported as (`present.format_p` prints the same).
P_FLOOR = 1e-300


def _ci(name: str) -> list[str]:
    return [name, f"{name}_ci_low", f"{name}_ci_high"]


def _interval(value, interval, scale: float = 1.0) -> list:
    if value is None:
        return [None, None, None]
    if interval is None:
        return [scale * value, None, None]
    return [scale * value, scale * interval[0], scale * interval[1]]


def p_value_cells(p) -> list:
    """[p, p_bound]: the p-value and ``=``, its bound ``1e-300`` and ``<`` when it underflowed to
    0, [None, None] when there is none."""
    if p is None:
        return [None, None]
    if p == 0:  # underflowed: below any double the test can tell apart from 0
        return [P_FLOOR, "<"]
    return [p, "="]


def _condition(s: dict) -> list:
    options = json.dumps(s.get("options") or {}, sort_keys=True, separators=(",", ":"))
    return [s["policy"], s["rows"], s["cols"], options, s.get("seed"), s.get("start_length"), s.get("tail_rule"),
            s.get("max_moves")]


_CONDITION = ["policy", "rows", "cols", "options", "seed", "start_length", "tail_rule", "max_moves"]


def summary_table(summaries: list[dict]) -> tuple[list[str], list[list]]:
    """(header, rows): one row a policy and board, the conditions it was played under, then the
    columns of `present.summary_rows` as numbers. ``mean``, ``ci_low``, ``ci_high``, ``std``,
    ``min`` ... ``max`` are the moves (as in the printed table); the win rate is a share (0..1)
    with its Wilson interval; each mean of the game record (``apples_mean``); the speed, and with
    ``--repeat`` the median games per CPU-second of the runs with its bootstrap interval."""
    means = [f"{c.name}_mean" for c in record.mean_columns() if c.title]
    header = (_CONDITION + ["games", "wins", "deaths", "stuck"] + _ci("win_rate") + ["death_rate", "stuck_rate"]
              + ["mean", "ci_low", "ci_high", "std", "min", "q25", "median", "q75", "max"] + means
              + ["games_per_second", "games_per_cpu_second"] + _ci("games_per_cpu_second_median") + ["threads"])
    rows = []
    for s in summaries:
        games = s["games"]
        repeats = s.get("repeats") or {}
        rows.append(
            _condition(s) + [games, s.get("wins"), s.get("deaths"), s.get("stuck")]
            + _interval(s.get("win_rate"), s.get("win_rate_ci95"))
            + [s["deaths"] / games if games else None, s["stuck"] / games if games else None]
            + _interval(s.get("moves_mean"), s.get("moves_mean_ci95"))
            + [s.get(f"moves_{k}") for k in ("std", "min", "q25", "median", "q75", "max")]
            + [s.get(key) for key in means]
            + [s.get("games_per_second"), s.get("games_per_cpu_second")]
            + _interval(repeats.get("median"), repeats.get("median_ci95")) + [s.get("threads")])
    return header, rows


def _pairs_of(summary: dict) -> list[dict]:
    found = [summary["paired"]] if summary.get("paired") else []
    return found + [p for p in summary.get("pairs") or [] if p is not summary.get("paired")]


def paired_table(summaries: list[dict]) -> tuple[list[str], list[list]]:
    """(header, rows): one row a paired comparison (a policy against its baseline on the same
    seeds), the columns of `present.paired_rows` as numbers: ``pairs`` games paired, the win-rate
    difference (a share, -1..1) and the apples difference over all of them, ``both_won`` games
    and the moves difference over those (``moves_diff_pct`` in percent of the baseline's mean),
    each with its 95 % interval; every p-value with its ``_bound`` column (``=`` or ``<``).
    The Wilcoxon and Holm columns are always there, empty when not computed."""
    header = (["policy", "baseline", "rows", "cols", "pairs"] + _ci("win_rate_diff") + _ci("apples_diff")
              + ["apples_p", "apples_p_bound", "both_won"] + _ci("moves_diff") + _ci("moves_diff_pct")
              + ["p", "p_bound", "wilcoxon_p", "wilcoxon_p_bound", "p_holm", "p_holm_bound"])
    rows = []
    for s in summaries:
        for p in _pairs_of(s):
            rows.append(
                [s["policy"], p["baseline"], s["rows"], s["cols"], p["games_total"]]
                + _interval(p.get("win_rate_diff"), p.get("win_rate_diff_ci95"))
                + _interval(p.get("apples_diff_mean"), p.get("apples_diff_ci95"))
                + p_value_cells(p.get("apples_p_value")) + [p["games"]]
                + _interval(p.get("moves_diff_mean"), p.get("moves_diff_ci95"))
                + _interval(p.get("moves_diff_pct"), p.get("moves_diff_pct_ci95"))
                + p_value_cells(p.get("p_value")) + p_value_cells(p.get("wilcoxon_p"))
                + p_value_cells(p.get("p_holm")))
    return header, rows


def robust_table(summaries: list[dict]) -> tuple[list[str], list[list]]:
    """(header, rows): the robust aggregates of ``--robust``, the median and interquartile mean
    of the moves with their bootstrap 95 % intervals."""
    header = ["policy", "rows", "cols", "games"] + _ci("median") + _ci("iqm")
    rows = []
    for s in summaries:
        r = s.get("robust")
        if r:
            rows.append([s["policy"], s["rows"], s["cols"], r["games"]]
                        + _interval(r.get("moves_median"), r.get("moves_median_ci95"))
                        + _interval(r.get("moves_iqm"), r.get("moves_iqm_ci95")))
    return header, rows


def baseline_table(verdict: dict | None) -> tuple[list[str], list[list]]:
    """(header, rows): the check against a saved baseline (`present.baseline_rows` as numbers),
    ``worse`` as ``true``/``false``."""
    header = (["policy", "rows", "cols", "pairs"] + _ci("win_rate_diff") + ["both_won"] + _ci("moves_diff")
              + ["speed_ratio", "worse"])
    rows = []
    for c in (verdict or {}).get("policies", []):
        p = c["paired"]
        rows.append([c["policy"], c["rows"], c["cols"], c["games"]]
                    + _interval(p.get("win_rate_diff"), p.get("win_rate_diff_ci95")) + [p["games"]]
                    + _interval(p.get("moves_diff_mean"), p.get("moves_diff_ci95"))
                    + [c.get("speed_ratio"), bool(c["worse"])])
    return header, rows


def data_tables(summaries: list[dict], verdict: dict | None = None) -> dict[str, tuple[list[str], list[list]]]:
    """Every table of a compare (or a sweep's one summary) by name (`DATA_TABLES`): the summary
    always, the others when the run made them (pairs, ``--robust``, ``--baseline-from``)."""
    tables = {"summary": summary_table(summaries)}
    if any(_pairs_of(s) for s in summaries):
        tables["paired"] = paired_table(summaries)
    if any(s.get("robust") for s in summaries):
        tables["robust"] = robust_table(summaries)
    if verdict is not None:
        tables["baseline"] = baseline_table(verdict)
    return tables


def table_header(name: str) -> list[str]:
    """The columns of data table `name` (`DATA_TABLES`), e.g. for a table a run did not make."""
    makers = {"summary": summary_table, "paired": paired_table, "robust": robust_table}
    if name == "baseline":
        return baseline_table(None)[0]
    if name not in makers:
        raise InputError(f"table {name!r} is not one of {', '.join(DATA_TABLES)}")
    return makers[name]([])[0]


def data_cell(value) -> str:
    """One value as CSV text: integers as they are, floats in the shortest form that reads back
    the same (``0.1``, ``1e-05``, ASCII minus), booleans ``true``/``false``, nothing for a missing
    or non-finite value."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    if hasattr(value, "item"):  # a numpy scalar
        return data_cell(value.item())
    return str(value)


def render_csv(header: list[str], rows: list[list]) -> str:
    """A data table as CSV (RFC 4180, ``\\n`` line ends, a header line): `data_cell` each value."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([data_cell(v) for v in row] for row in rows)
    return buffer.getvalue()


def table_file(prefix: str, name: str, fmt: str) -> str:
    """The file `fastsnake compare --tables PREFIX` writes table `name` to: ``PREFIX.NAME.csv``
    (``.md``, ``.tex``, ``.txt`` for the other formats)."""
    if name not in DATA_TABLES:
        raise InputError(f"table {name!r} is not one of {', '.join(DATA_TABLES)}")
    suffix = {"csv": "csv", "markdown": "md", "latex": "tex", "text": "txt"}[fmt]
    return f"{prefix}.{name}.{suffix}"
