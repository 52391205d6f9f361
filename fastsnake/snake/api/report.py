"""Pictures of sweeps: the PNG plots and the browser report.

`SweepResult`s are read by their attributes (``summary``, ``table``), so this module does not
import the one that makes them.
"""

from __future__ import annotations

import os
import sys

from fastsnake.errors import InputError, counted
from fastsnake.snake.api.inputs import check_output
from fastsnake.snake.board import GameConfig
from fastsnake.snake.policies import require_named
from fastsnake.snake.store.versions import warn_if_newer_files


def plot_results(results, path) -> None:
    """Moves histograms of one or more `SweepResult`s as one PNG (needs matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'fastsnake[plot]'") from None
    check_output(path, "path")
    from fastsnake.snake.plots import plot_sweeps, table_view

    views = []
    for r in results:
        raw = r._raw
        if raw is not None and raw.stats is not None and raw.games == raw.stats.games:
            views.append(raw)
        elif r.table is not None:
            s = r.summary
            config = GameConfig(s["rows"], s["cols"], s["start_length"], s["tail_rule"], s["max_moves"])
            views.append(table_view(r.table, s["policy"], config))
        else:
            raise InputError("plots need the sweep's rows: sweep with rows=True (the default) or an out file")
    plot_sweeps(views, path)


def plot_scaling(summaries, path) -> None:
    """Mean moves and games per CPU-second against cells, log-log, of a compare over several board
    sizes (its summaries, with their ``scaling`` fits) as one PNG (needs matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'fastsnake[plot]'") from None
    check_output(path, "path")
    from fastsnake.snake.plots import plot_scaling as draw

    draw([s if isinstance(s, dict) else s.summary for s in summaries], path)



def report_sweeps(inputs, out, *, worst=None, best=None, died=None, random=None, picks=(), sample=None,
                  title=None, progress=False, extra_games=(), extra_problems=(), replay=None, replay_seed=None) -> dict:
    """Write the browser report of sweeps: one self-contained HTML page (see `fastsnake.report`).

    `inputs` are sweep files, sweep folders, compare files or `SweepResult`s. Returns
    ``{"out", "bytes", "policies", "games", "picked", "embedded", "problems", "notes", "warnings",
    "replayed", "seconds"}`` (``replayed``: per section, the games re-played from their seeds and
    those that contradict their rows; `replay` games of each are a check sample, `seedcheck`);
    ``problems`` lists, one line each, what could not go into the page (the page is written anyway
    when anything could). `extra_games` are more page entries for the player (replays, puzzle
    solutions, tours: `fastsnake.report` makes them) and `extra_problems` lines already found.
    """
    import time

    from fastsnake.snake import report as rp

    t0 = time.perf_counter()
    if isinstance(inputs, (str, os.PathLike)) or hasattr(inputs, "summary"):  # one input
        inputs = [inputs]
    if not inputs:
        raise rp.ReportError("a report needs at least one input")
    check_output(out)
    problems: list[str] = list(extra_problems)
    newer = [line for item in inputs if isinstance(item, (str, os.PathLike)) for line in warn_if_newer_files(item)]
    sources = rp.load_inputs(inputs, problems)
    for source in sources:  # a model a file names, and no model file named for it: one line, now
        require_named(source.policy, source.params.get("options"))
    counts = {k: v for k, v in (("worst", worst), ("best", best), ("died", died), ("random", random),
                                ("sample", sample)) if v is not None}
    bar = _report_progress() if progress else None
    data = rp.build(sources, picks=tuple(picks), title=title, problems=problems, progress=bar, replay=replay,
                    replay_seed=replay_seed, **counts)
    for entry in extra_games:
        data["games"].append(dict(entry, index=len(data["games"])))
    data["problems"], data["notes"] = counted(data["problems"]), counted(newer + data["notes"])  # each once
    size = rp.write_report(out, data)
    games = data["games"]
    return {"out": str(out), "bytes": size, "policies": [s["policy"] for s in data["sections"]],
            "games": sum(s["summary"]["games"] for s in data["sections"]), "picked": len(games),
            "embedded": sum(1 for g in games if "data" in g), "problems": data["problems"],
            "notes": data["notes"], "warnings": newer,
            "replayed": [dict(s["replayed"], name=s["name"], policy=s["policy"]) for s in data["sections"]],
            "seconds": time.perf_counter() - t0}


def _report_progress():
    def say(what, done, total):
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{what}: {done}/{total}\x1b[K")
            sys.stderr.flush()
    return say

