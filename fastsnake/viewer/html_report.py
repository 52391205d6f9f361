"""`fastsnake.report`: one self-contained HTML page for any mix of sweeps and viewer files.

Sweep files, sweep folders, ``compare`` files and `SweepResult`s make a sweep report
(``fastsnake.snake.report``); replay ``.npz`` files, puzzle solutions and tours — what
``fastsnake view`` shows — join its player, or make a page of just the player when no
sweep is given. Each input that cannot be read is one line in ``problems``; the page is
written from the rest.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from fastsnake import webpage
from fastsnake.errors import InputError
from fastsnake.viewer.backend import ViewerError


def _is_sweep(item) -> bool:
    if not isinstance(item, (str, os.PathLike)):
        return True  # a SweepResult
    name = os.fspath(item)
    return os.path.isdir(name) or name.endswith(".parquet")


def _viewer_entry(path: str) -> dict:
    """The page entry of a replay, puzzle solution or tour file (validated by its own loader)."""
    from fastsnake.viewer.files import open_view

    view = open_view(path)
    label = os.path.basename(path)
    if view.kind == "snake":
        from fastsnake.snake.report import game_entry

        return game_entry(view.replay, why=[label])
    if view.kind == "puzzle":
        sol = view.solution
        return {"kind": "puzzle", "rows": sol.rows, "cols": sol.cols, "moves": len(sol.moves),
                "optimal": sol.optimal, "outcome": "solved", "why": [label], "policy": sol.algorithm or "puzzle",
                "data": {"rows": sol.rows, "cols": sol.cols, "start": [int(x) for x in sol.start],
                         "goal": [int(x) for x in sol.goal], "moves": sol.moves}}
    if view.kind == "tour":
        tour = view.tour
        cells = tour["rows"] * tour["cols"]
        squares = len(view.path)
        return {"kind": "tour", "rows": tour["rows"], "cols": tour["cols"], "piece": tour.get("piece"),
                "closed": bool(tour.get("closed")), "squares": squares, "moves": max(squares - 1, 0),
                "start": int(tour["start"]), "outcome": "found" if squares else "no tour", "why": [label],
                "policy": str(tour.get("piece") or "tour"), "cell_bytes": webpage.cell_bytes(cells),
                "data": {"path": webpage.pack_cells(view.path, cells)}}
    raise ViewerError(f"{path!r} is a {view.kind} file: it has no moves to play ('fastsnake view' shows it)")


def _log(text: str) -> None:
    import sys

    print(text, file=sys.stderr, flush=True)


def report(inputs, out, *, worst=None, best=None, died=None, random=None, picks=(), sample=None, title=None,
           progress=False, models=(), replay=None, replay_seed=None) -> dict:
    """Write one self-contained HTML page: plots, tables and a replay player.

    Parameters
    ----------
    inputs : path, SweepResult, or a list of them
        Sweep files (``*.parquet``), sweep folders, ``compare`` files (several policies: one
        section each, and a paired difference per seed), `SweepResult`s, and files
        ``fastsnake view`` shows (replay ``.npz``, puzzle solution, tour). Or one study rows
        file (``puzzle compare --out``, ``tour compare --out``), alone: its page
        (`fastsnake.viewer.study_report.report_study`: plots, tables, the picked solutions).
    out : path
        The HTML file to write (whole or not at all).
    worst, best, died, random : int, optional
        Games picked per policy: the most and fewest moves, every game that died (and every
        stuck one) up to a count, and a uniform random few (defaults 10, 10, 20, 10).
    picks : sequence of str
        More picks, as ``fastsnake replay --pick`` spells them: ``died``, ``longest``,
        ``shortest`` or a game index. A study's: ``longest``, ``shortest``, ``most-nodes``,
        ``fewest-nodes`` or an instance (trial) id (default longest and most-nodes).
    sample : int, optional
        Games re-played per policy to plot moves per apple as the snake grows (default 30).
    replay, replay_seed : int, optional
        Games of each run re-played from their seeds to check its rows besides the picked ones
        (default 16; chosen as `fastsnake.verify_sweep` chooses them, by `replay_seed`, default a
        fresh random one). A run whose re-played games contradict their rows is marked DAMAGED on
        the page and in ``problems``.
    title : str, optional
        The page's title.
    progress : bool
        Report progress on stderr.
    models : sequence of paths
        Model files to re-play the games of a ``model:PATH`` policy an input names (matched by the
        SHA-256 it recorded): a model is never loaded from the path a file names. (A `SweepResult`
        of this process plays its own model.)

    Returns
    -------
    dict
        ``out, bytes, policies, games, picked, embedded, problems, notes, warnings, replayed,
        seconds``; ``problems`` lists, one line each, what could not go into the page;
        ``replayed``, per section, the games re-played and those that contradict their rows.

    Raises
    ------
    InputError
        When no input can be read, or `out` cannot be written.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> sweep = fastsnake.sweep("greedy", 6, 200, out=os.path.join(folder, "s.parquet"))
    >>> info = fastsnake.report(os.path.join(folder, "s.parquet"), os.path.join(folder, "r.html"))
    >>> info["policies"], info["problems"]
    (['greedy'], [])
    """
    from fastsnake.snake.policies import is_family_name, named_by_files
    from fastsnake.viewer.study_report import report_study, study_kind

    if isinstance(inputs, (str, os.PathLike)) or not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    studies = [item for item in inputs if isinstance(item, (str, os.PathLike)) and study_kind(item)]
    if studies:  # a puzzle or tour study's rows: its own page (fastsnake.viewer.study_report)
        if len(studies) < len(inputs):
            raise InputError(f"{os.fspath(studies[0])!r} is a study file: report it on a page of its own, "
                             "without sweeps or viewer files")
        return report_study(studies, out, picks=picks, title=title, progress=_log if progress else None)
    own = [item.summary["policy"].partition(":")[2] for item in inputs
           if _is_sweep(item) and not isinstance(item, (str, os.PathLike)) and is_family_name(item.summary["policy"])]
    with named_by_files([*models, *own]):
        return _report(inputs, out, worst=worst, best=best, died=died, random=random, picks=picks, sample=sample,
                       title=title, progress=progress, replay=replay, replay_seed=replay_seed)


def _report(inputs, out, *, worst, best, died, random, picks, sample, title, progress, replay=None,
            replay_seed=None) -> dict:
    from fastsnake.snake import report_sweeps

    t0 = time.perf_counter()
    sweeps = [item for item in inputs if _is_sweep(item)]
    files = [os.fspath(item) for item in inputs if not _is_sweep(item)]
    extra, problems = [], []
    for path in files:
        if not Path(path).exists():
            problems.append(f"{path!r} does not exist")
            continue
        try:
            extra.append(_viewer_entry(path))
        except InputError as exc:
            problems.append(str(exc))
    if sweeps:
        counts = dict(worst=worst, best=best, died=died, random=random, sample=sample)
        return report_sweeps(sweeps, out, picks=picks, title=title, progress=progress, extra_games=extra,
                             extra_problems=problems, replay=replay, replay_seed=replay_seed, **counts)
    if not extra:
        raise ViewerError("; ".join(problems) or "a report needs at least one input")
    for i, entry in enumerate(extra):
        entry["index"] = i
    names = ", ".join(e["why"][0] for e in extra)
    data = {"kind": "player", "title": title or f"fastsnake: {names}", "subtitle": f"{len(extra)} file(s)",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "games": extra, "problems": problems, "notes": []}
    size = webpage.write(out, webpage.render(data))
    return {"out": os.fspath(out), "bytes": size, "policies": [], "games": 0, "picked": len(extra),
            "embedded": len(extra), "problems": problems, "notes": [], "seconds": time.perf_counter() - t0}
