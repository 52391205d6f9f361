"""A study's tables as data (CSV) and for people (text, Markdown, LaTeX): the one exporter every
problem's study uses (Snake's compare and sweep, puzzle compare, tour compare); each problem names
only its tables and columns.

A `Table` is a name, its columns and rows of plain values (numbers, words, booleans, None); a
problem that builds its rows as lists uses `csv_text` and `render_cells` directly. An estimate is
three columns: ``mean``, ``ci_low``, ``ci_high`` (or ``X``, ``X_ci_low``, ``X_ci_high`` for any
other estimate X, e.g. ``median``: `estimate_columns`, `estimate_cells`): data keeps them apart; the
formats for people join them as "value [low, high]". A p-value is two columns, ``P`` and
``P_bound`` (`p_columns`, `p_cells`): ``=`` when ``P`` is the p-value, ``<`` when the p-value
underflowed and ``P`` is a bound it is below, so that a filter such as ``p < 0.05`` is right on
either; the formats for people print a bound as "< 1e-300" (`p_text`).

CSV (`csv_text`, `to_csv`) is data: one table per file (`write_csv`), a header line, numbers as
numbers (Python's shortest round-trip text: ``.`` decimal, no thousands separator, ASCII minus,
``e`` exponent), an empty field for None or a value that is not finite, ``true``/``false``;
pandas, polars, DuckDB and spreadsheets read it as it is. Text, Markdown and LaTeX
(`render_cells`) round numbers and group thousands.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field

FORMATS = ("text", "json", "csv", "markdown", "latex")
# The formats `render_cells` writes: for people, and CSV of the cells as printed.
CELL_FORMATS = ("text", "markdown", "csv", "latex")


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


# -- columns -------------------------------------------------------------------------------------

def _interval_names(name: str) -> tuple[str, str]:
    return ("ci_low", "ci_high") if name in ("", "mean") else (f"{name}_ci_low", f"{name}_ci_high")


def estimate_columns(name: str) -> list[str]:
    """An estimate's three columns: ``[mean, ci_low, ci_high]`` for ``mean``, else ``[X,
    X_ci_low, X_ci_high]``."""
    return [name, *_interval_names(name)]


def estimate_cells(value, interval, scale: float = 1.0) -> list:
    """[value, low, high] of an estimate and its interval (None where missing), each times `scale`."""
    if value is None:
        return [None, None, None]
    if interval is None:
        return [scale * value, None, None]
    return [scale * value, scale * interval[0], scale * interval[1]]


def interval_columns(prefix: str, interval) -> dict:
    """``{prefix_ci_low: lo, prefix_ci_high: hi}`` of an interval [lo, hi] or None (``ci_low`` /
    ``ci_high`` for the empty prefix, the mean's)."""
    lo, hi = (None, None) if interval is None else interval
    return dict(zip(_interval_names(prefix), (lo, hi), strict=True))


def p_columns(name: str) -> list[str]:
    """A p-value's two columns: ``[P, P_bound]``."""
    return [name, f"{name}_bound"]


def p_cells(p, bound=None) -> list:
    """[P, P_bound]: the p-value and ``=``; when there is no value but a `bound` it is below (a
    p-value that underflowed), the bound and ``<``; [None, None] when there is neither."""
    if p is not None:
        return [p, "="]
    if bound is not None:
        return [bound, "<"]
    return [None, None]


def paired_p_cells(fields: dict) -> dict:
    """The p-values of a `fastsnake.study.stats.paired_ratio` (``p_value`` or its ``p_bound``, and
    ``p_holm`` when adjusted) as the cells of ``p_columns("p") + p_columns("p_holm")``; Holm's
    adjustment of a bound is a bound."""
    bound = fields.get("p_bound")
    holm = fields.get("p_holm")
    cells = p_cells(fields.get("p_value"), bound) + (p_cells(None, holm) if bound is not None else p_cells(holm))
    return dict(zip(p_columns("p") + p_columns("p_holm"), cells, strict=True))


# -- data ----------------------------------------------------------------------------------------

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


def csv_text(header: list[str], rows: list[list]) -> str:
    """A data table as CSV (RFC 4180, ``\\n`` line ends, a header line): `data_cell` each value."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([data_cell(v) for v in row] for row in rows)
    return buffer.getvalue()


def to_csv(table: Table) -> str:
    """The table as CSV data (see the module's docstring)."""
    return csv_text(table.columns, [[row.get(c) for c in table.columns] for row in table.rows])


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


# -- for people ----------------------------------------------------------------------------------

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


def p_text(p, bound: bool = False) -> str:
    """A p-value as a table cell: '0.012', '1.2e-05', '< 1e-300' when `p` is a bound it is below
    (a bound stays a bound in every format), '-' when there is none."""
    if p is None:
        return "-"
    if bound:
        return f"< {p:.0e}"
    if p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.3g}"


def _estimates(columns: list[str]) -> dict[str, tuple[str, str]]:
    """Estimate column -> its (low, high) columns, when the table has both."""
    out = {}
    for c in columns:
        lo, hi = _interval_names(c)
        if lo in columns and hi in columns:
            out[c] = (lo, hi)
    return out


def human_rows(table: Table) -> tuple[list[str], list[list[str]]]:
    """(header, cells) for people: each estimate joined with its interval as "value [low, high]",
    each p-value with its bound column as `p_text`."""
    pairs = _estimates(table.columns)
    bounds = {c: f"{c}_bound" for c in table.columns if f"{c}_bound" in table.columns}
    hidden = {c for lo_hi in pairs.values() for c in lo_hi} | set(bounds.values())
    header = [c for c in table.columns if c not in hidden]
    cells = []
    for row in table.rows:
        line = []
        for c in header:
            if c in bounds:
                text = p_text(row.get(c), row.get(bounds[c]) == "<")
            else:
                text = human_number(row.get(c))
            if c in pairs and row.get(pairs[c][0]) is not None:
                lo, hi = row[pairs[c][0]], row[pairs[c][1]]
                text = f"{text} [{human_number(lo)}, {human_number(hi)}]"
            line.append(text)
        cells.append(line)
    return header, cells


_LATEX = (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_"),
          ("{", r"\{"), ("}", r"\}"), ("±", r"$\pm$"), ("−", "$-$"), ("<", "$<$"), (">", "$>$"))


def _tex(cell: str) -> str:
    for old, new in _LATEX:
        if old in ("{", "}") and cell.startswith("\\textbackslash"):
            continue
        cell = cell.replace(old, new)
    return cell


def render_cells(header: list[str], rows: list[list[str]], fmt: str = "text") -> str:
    """A table of cells already worded for people as aligned text (the first column left, the
    others right, a rule under the header), GitHub Markdown, CSV (RFC 4180, the cells as printed)
    or a LaTeX ``tabular``."""
    if fmt == "text":
        table = [header] + rows
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        lines = []
        for k, r in enumerate(table):
            cells = zip(r, widths, strict=True)
            lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(cells)))
            if k == 0:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines)
    if fmt == "markdown":
        def md(cells):
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        align = ["---"] + ["---:"] * (len(header) - 1)
        return "\n".join([md(header), "| " + " | ".join(align) + " |"] + [md(r) for r in rows])
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return buffer.getvalue().rstrip("\n")
    if fmt == "latex":
        spec = "l" + "r" * (len(header) - 1)
        lines = [f"\\begin{{tabular}}{{{spec}}}", "\\hline", " & ".join(_tex(c) for c in header) + " \\\\", "\\hline"]
        lines += [" & ".join(_tex(c) for c in r) + " \\\\" for r in rows]
        lines += ["\\hline", "\\end{tabular}"]
        return "\n".join(lines)
    from fastsnake.errors import InputError

    raise InputError(f"format {fmt!r} is not one of {', '.join(CELL_FORMATS)}")


def to_text(table: Table) -> str:
    text = render_cells(*human_rows(table), "text")
    return f"{table.title}\n{text}" if table.title else text


def to_markdown(table: Table) -> str:
    text = render_cells(*human_rows(table), "markdown")
    return f"**{table.title}**\n\n{text}" if table.title else text


def to_latex(table: Table) -> str:
    text = render_cells(*human_rows(table), "latex")
    if not table.title:
        return text
    return "\n".join([r"\begin{table}", r"\centering", rf"\caption{{{_tex(table.title)}}}", text, r"\end{table}"])


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
