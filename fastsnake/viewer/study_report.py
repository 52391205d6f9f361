"""`fastsnake report` of a study rows file (`puzzle compare --out`, `tour compare --out`): one
self-contained page, the same as a sweep's, with the study's plots, tables and a player.

This module holds what every study's page shares: reading the rows file, picking the solutions
shown, the tables as HTML and the page itself. What a page shows of a puzzle study is in
`study_puzzle` (nodes generated and CPU-seconds per instance of every heuristic, the ratios of each
pair, the statistics tables of `fastsnake puzzle compare`, the picked solutions with instance,
heuristic, length, optimal and nodes); of a tour study in `study_tour` (nodes and CPU-seconds per
trial of every method, the success and pairs tables, the picked tours with board, piece, start,
method and found). The plots are drawn in the page by the shared plotting code
(``webpage/assets/plots.js``, ``study.js``) from the numbers put in the page's ``study`` key, so
their text is measured and wrapped to fit at any width.

Nothing is searched at report time: a study keeps, in its rows file's ``moves`` column, the
solutions its picks can choose (`fastsnake.study.picks`), and the page replays them. A kept
solution that does not replay to its row's length and goal is a problem line (the row or the code
changed); a row whose moves were not kept (a pick by trial id) is listed without a replay, its
note saying how to find it.
"""

from __future__ import annotations

import html
import os
import time

from fastsnake.errors import InputError
from fastsnake.study.picks import DEFAULT_PICKS, PICK_WORDS, pick
from fastsnake.viewer.study_puzzle import inadmissible_marks

STUDY_SECTION_ID = "study-section"
# Where the study section goes in the page: before the player's section.
PLAYER_SECTION = '<section id="games-section">'

__all__ = ["DEFAULT_PICKS", "PICK_WORDS", "StudyReportError", "report_study", "study_kind", "inadmissible_marks"]


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

        from fastsnake.files import loads_json
        from fastsnake.reading import check_parquet
        from fastsnake.study.rows import META_KEY

        check_parquet(name, "study file")  # a giant footer is refused before pyarrow reads it
        raw = (pq.read_schema(name).metadata or {}).get(META_KEY)
        return None if raw is None else str(loads_json(raw).get("kind"))
    except Exception:  # noqa: BLE001 - an unreadable footer: not recognisably a study
        return None


# -- tables and the section -------------------------------------------------------------------------------

def _esc(text) -> str:
    return html.escape(str(text), quote=True)


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


def section_html(title: str, tables: list, marks: list[str] = ()) -> str:
    """The study's section of the page (`STUDY_SECTION_ID`): `marks` (warnings: a user's heuristic
    found inadmissible) above the plots, which the page draws into ``#study-plots``, then the tables."""
    return (f'<section id="{STUDY_SECTION_ID}"><h2>{_esc(title)}</h2>'
            + "".join(f'<p class="study-mark" style="border-left:4px solid #D55E00;padding-left:8px">'
                      f"<strong>{_esc(m)}</strong></p>" for m in marks)
            + '<div id="study-plots"></div>'
            + '<div id="study-tables">' + "".join(html_table(t) for t in tables) + "</div></section>\n")


# -- picks -----------------------------------------------------------------------------------------

def pick_rows(rows: list[dict], picks, *, length: str, nodes: str, ok, trial: str, noun: str,
              **_) -> list[tuple[dict, str]]:
    """(row, why) for each pick: a word of `PICK_WORDS` or a trial id (every arm's row of it)."""
    done = [r for r in rows if ok(r)]
    chosen: dict[int, tuple[dict, list[str]]] = {}

    def add(r, why):
        chosen.setdefault(id(r), (r, []))[1].append(why)

    for p in picks:
        text = str(p).strip()
        if text in PICK_WORDS:
            if done:
                add(pick(done, text, length, nodes), text)
        else:
            mine = [r for r in done if str(r[trial]) == text]
            if not mine:
                known = ", ".join(sorted({str(r[trial]) for r in done})[:6])
                raise StudyReportError(f"pick {text!r}: neither {', '.join(PICK_WORDS)} nor a finished {noun} "
                                       f"of the study (e.g. {known})")
            for r in mine:
                add(r, f"{noun} {text}")
    return [(r, ", ".join(why)) for r, why in chosen.values()]


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
    damaged = study_problems(meta, rows)
    if damaged:  # what `fastsnake verify` refuses is never shown
        more = f" (and {len(damaged) - 1:,} more)" if len(damaged) > 1 else ""
        raise StudyReportError(f"study file {path!r} is damaged: {damaged[0]}{more} (fastsnake verify {path})")
    return path, meta, rows


def study_problems(meta: dict, rows: list[dict]) -> list[str]:
    """What `fastsnake verify` finds wrong in a study's rows (`fastsnake.puzzle.study.row_problems`,
    `fastsnake.tour.study.row_problems`), columns missing first; kept moves apart: a picked
    solution's are checked as the page is made, a problem line of the page (exit 2)."""
    if meta["kind"] == "puzzle":
        from fastsnake.puzzle import study as problem
    else:
        from fastsnake.tour import study as problem
    missing = [c for c in problem.ROW_COLUMNS if c not in rows[0] and c not in problem.LATER_COLUMNS]
    if missing:
        return [f"it lacks the column(s) {', '.join(missing)}"]
    return problem.row_problems(rows, meta, check_moves=False)  # kept moves: the page's problem lines


def report_study(paths, out, *, picks=(), title=None, progress=None) -> dict:
    """Write the page of one study rows file (`paths`: a list of one path) to `out`; returns what the
    page holds: ``out, bytes, kind`` ("study"), ``study`` ("puzzle", "tour"), ``run_id, file,
    trials, algorithms, plots`` (id, title), ``tables`` (name, title, rows, columns), ``picked``
    (a count), ``solutions`` (one per solution in the player: algorithm, trial, why, moves, nodes,
    embedded), ``embedded, problems, notes, marks, seconds``."""
    from fastsnake import webpage

    t0 = time.perf_counter()
    path, meta, rows = _read(list(paths))
    kind = meta["kind"]
    from fastsnake.viewer import study_puzzle, study_tour

    shown = study_puzzle if kind == "puzzle" else study_tour
    parts = shown.parts(meta, rows)
    problems: list[str] = []
    chosen = pick_rows(rows, list(picks) or list(DEFAULT_PICKS), **parts.how)
    games = [shown.entry(row, why, problems, meta) for row, why in chosen]
    for i, g in enumerate(games):
        g["index"] = i
    name = os.path.basename(path)
    heading = f"{kind.capitalize()} study {meta.get('run_id', '')}"
    data = {"kind": "study", "study": {"kind": kind, "plots": [p for _, _, p in parts.plots]},
            "title": title or f"fastsnake: {kind} study {name}",
            "subtitle": f"{name} · run {meta.get('run_id')} · {len(rows):,} rows",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "games": games, "game_columns": shown.COLUMNS,
            "problems": problems, "notes": parts.notes}
    page = webpage.render(data)
    if PLAYER_SECTION not in page:
        raise RuntimeError("the page template has no player section to put the study before")
    page = page.replace(PLAYER_SECTION, section_html(heading, parts.tables, parts.marks) + PLAYER_SECTION, 1)
    size = webpage.write(out, page)
    return {"out": os.fspath(out), "bytes": size, "kind": "study", "study": kind, "file": path,
            "run_id": meta.get("run_id"), "trials": parts.trials, "algorithms": parts.algorithms,
            "plots": [{"id": i, "title": t} for i, t, _ in parts.plots],
            "tables": [{"name": t.name, "title": t.title, "rows": len(t.rows), "columns": list(t.columns)}
                       for t in parts.tables],
            "picked": len(games),
            "solutions": [{"algorithm": g["policy"], "trial": g["game"], "why": g["why"][0], "moves": g["moves"],
                           "nodes": g.get("nodes"), "optimal": g.get("optimal"), "embedded": bool(g.get("data"))}
                          for g in games],
            "embedded": sum(bool(g.get("data")) for g in games), "problems": problems, "notes": parts.notes,
            "marks": parts.marks, "policies": [], "games": 0, "seconds": time.perf_counter() - t0}
