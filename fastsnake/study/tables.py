"""A study's tables as data (CSV) and for people (text, Markdown, LaTeX).

A `Table` is a name, its columns and rows of plain values (numbers, words, booleans, None). An
estimate is three columns: ``mean``, ``ci_low``, ``ci_high`` (or ``X``, ``X_ci_low``,
``X_ci_high`` for any other estimate X, e.g. ``median``): data keeps them apart; the formats for
people join them as "value [low, high]".

CSV (`to_csv`) is data: one table per file (`write_csv`), a header line, numbers as numbers
(Python's shortest round-trip text: ``.`` decimal, no thousands separator, ASCII minus, ``e``
exponent), an empty field for None, ``true``/``false``; pandas, polars, DuckDB and spreadsheets
read it as it is. Text, Markdown and LaTeX round numbers and group thousands.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field

FORMATS = ("text", "json", "csv", "markdown", "latex")


@dataclass
class Table:
    """One table of a study: `name` (its file name's tail), `columns`, `rows` (dicts by column)."""

    name: str
    columns: list[str]
    rows: list[dict] = field(default_factory=list)
    title: str = ""

    def as_dict(self) -> dict:
        return {"name": self.name, "title": self.title, "columns": list(self.columns),
                "rows": [{c: r.get(c) for c in self.columns} for r in self.rows]}


def interval_columns(prefix: str, interval) -> dict:
    """``{prefix_ci_low: lo, prefix_ci_high: hi}`` of an interval [lo, hi] or None (``ci_low`` /
    ``ci_high`` for the empty prefix, the mean's)."""
    head = f"{prefix}_" if prefix else ""
    lo, hi = (None, None) if interval is None else interval
    return {f"{head}ci_low": lo, f"{head}ci_high": hi}


def _data(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if hasattr(value, "item"):  # numpy scalars
        return _data(value.item())
    return str(value)


def to_csv(table: Table) -> str:
    """The table as CSV data (see the module's docstring)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([_data(row.get(c)) for c in table.columns])
    return buf.getvalue()


def write_csv(tables: list[Table], stem: str) -> list[str]:
    """Each table as data in its own file ``<stem>.<name>.csv``, whole or absent
    (`fastsnake.files.written_atomically`); returns the paths written."""
    from fastsnake.files import written_atomically

    paths = []
    for table in tables:
        path = f"{stem}.{table.name}.csv"
        with written_atomically(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(to_csv(table))
        paths.append(path)
    return paths


def human_number(value) -> str:
    """A number for people: whole numbers with thousands separators, others to 3 significant
    digits (thousands grouped from 1,000 up), '-' for None."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.3g}"
    return str(value)


def _estimates(columns: list[str]) -> dict[str, tuple[str, str]]:
    """Estimate column -> its (low, high) columns, when the table has both."""
    out = {}
    for c in columns:
        lo, hi = ("ci_low", "ci_high") if c == "mean" else (f"{c}_ci_low", f"{c}_ci_high")
        if lo in columns and hi in columns:
            out[c] = (lo, hi)
    return out


def human_rows(table: Table) -> tuple[list[str], list[list[str]]]:
    """(header, cells) for people: each estimate joined with its interval as "value [low, high]"."""
    pairs = _estimates(table.columns)
    hidden = {c for lo_hi in pairs.values() for c in lo_hi}
    header = [c for c in table.columns if c not in hidden]
    cells = []
    for row in table.rows:
        line = []
        for c in header:
            text = human_number(row.get(c))
            if c in pairs and row.get(pairs[c][0]) is not None:
                lo, hi = row[pairs[c][0]], row[pairs[c][1]]
                text = f"{text} [{human_number(lo)}, {human_number(hi)}]"
            elif c == "p_value" and row.get(c) is None and row.get("p_bound") is not None:
                text = f"< {row['p_bound']:.0e}"
            line.append(text)
        cells.append(line)
    return header, cells


def to_text(table: Table) -> str:
    header, cells = human_rows(table)
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(header)]
    lines = [table.title] if table.title else []
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    lines.extend("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells)
    return "\n".join(line.rstrip() for line in lines)


def to_markdown(table: Table) -> str:
    header, cells = human_rows(table)
    lines = [f"**{table.title}**", ""] if table.title else []
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines.extend("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in cells)
    return "\n".join(lines)


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text).replace("<", "$<$")


def to_latex(table: Table) -> str:
    header, cells = human_rows(table)
    lines = [r"\begin{table}", r"\centering"]
    if table.title:
        lines.append(rf"\caption{{{_latex(table.title)}}}")
    lines.append(r"\begin{tabular}{" + "l" * len(header) + "}")
    lines.append(r"\hline")
    lines.append(" & ".join(_latex(h) for h in header) + r" \\")
    lines.append(r"\hline")
    lines.extend(" & ".join(_latex(c) for c in r) + r" \\" for r in cells)
    lines.extend([r"\hline", r"\end{tabular}", r"\end{table}"])
    return "\n".join(lines)


def render(tables: list[Table], fmt: str) -> str:
    """Every table in the format for people `fmt` (text, markdown, latex), blank-line separated."""
    if fmt not in ("text", "markdown", "latex"):
        raise ValueError(f"format {fmt!r} is not one of text, markdown, latex")
    one = {"text": to_text, "markdown": to_markdown, "latex": to_latex}[fmt]
    return "\n\n".join(one(t) for t in tables)


def csv_stem(out: str | None, run_id: str) -> str | None:
    """Where `write_csv` puts a study's tables beside its `--out` rows: ``DIR/<run_id>`` for a
    folder, the file's path without ``.parquet`` for a file (None without `out`)."""
    if out is None:
        return None
    if os.path.isdir(out) or out.endswith(os.sep):
        return os.path.join(out, run_id)
    return out[:-len(".parquet")] if out.endswith(".parquet") else out
