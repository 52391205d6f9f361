"""Puzzle studies: heuristics compared on the field's standard instances, paired instance by instance.

`load_instances` reads a shipped set (`INSTANCE_SETS`: Korf's 100 15-puzzles, Korf & Felner's 50
24-puzzles, the 8-puzzle assignment's three cases, random ones) or a file; `run_study` solves every
instance with every heuristic (instance-major, so a study stopped by Ctrl-C keeps whole instances),
timing each search in process CPU-seconds with the kernels loaded and the tables built beforehand
(their CPU apart), and checks the lengths: every optimal search of an instance must find the same
length, and a published optimum that differs is a `StudyLengthError` naming instance and heuristic.
A user's heuristic is not trusted blindly: `check_admissible` samples states of each board it is
used on, and a sampled value above the true distance, or a path longer than another optimal
search's (or the published optimum), marks its rows non-optimal and is said in a warning
(``Study.admissibility``) instead of failing the study; a built-in heuristic stays strict.
`summarize` gives, per heuristic, the solved count and mean / median of nodes generated and
expanded, CPU-seconds and length, each with its 95 % interval; per pair on the instances both
solved, the geometric mean of the per-instance node and CPU ratios with 95 % intervals and
Wilcoxon's signed-rank test, Holm across the pairs (`fastsnake.study.stats`). `rows_table` gives
the rows as Arrow (`ROW_COLUMNS`), written with `fastsnake.study.rows`; `check_baseline` pairs a
run with a saved rows file (`fastsnake.study.baseline`).
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import re
import time
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from fastsnake.errors import FastsnakeError
from fastsnake.puzzle import board as B
from fastsnake.puzzle import study_units as SU
from fastsnake.puzzle.heuristics import heuristic_names
from fastsnake.puzzle.solver import heuristic_context, solve
from fastsnake.signals import Deadline, Overtime, within
from fastsnake.study import stats as S
from fastsnake.study.intervals import wilson_ci95
from fastsnake.study.rows import canonical_json, new_run_id

# name -> what it is; "random" draws `count` instances from `seed` on the board asked.
INSTANCE_SETS = {
    "korf100": "Korf (1985): 100 random 15-puzzles (4x4), published optimal lengths",
    "korf-felner-50": "Korf & Felner (2002): 50 random 24-puzzles (5x5), published lengths and IDA* node "
                      "counts; --easiest N takes the N with the fewest published nodes",
    "assignment": "the 8-puzzle assignment the project grew from: 012 345 678 -> 806 547 231 (31 moves), "
                  "2x4 0123 4567 -> 3254 7610 (36), 2x5 01234 56789 -> 43261 98750 (55)",
    "random": "COUNT random solvable instances of the board asked, drawn from SEED",
}
# The assignment's cases: (id, rows, cols, start, goal, published optimal length).
ASSIGNMENT = (("3x3", 3, 3, "012 345 678", "806 547 231", 31),
              ("2x4", 2, 4, "0123 4567", "3254 7610", 36),
              ("2x5", 2, 5, "01234 56789", "43261 98750", 55))
# The measures of a row that the statistics describe, and those paired as ratios.
MEASURES = ("nodes_generated", "nodes_expanded", "cpu_seconds", "length")
RATIO_MEASURES = ("nodes_generated", "nodes_expanded", "cpu_seconds")
# The ratios `--precision` narrows: deterministic counts, so rounds never depend on timing.
PRECISION_MEASURES = ("nodes_generated", "nodes_expanded")
# The rows file: one row per (instance, heuristic, algorithm).
ROW_COLUMNS = ("instance_set", "instance_id", "rows", "cols", "start", "goal", "heuristic", "algorithm",
               "options", "length", "optimal", "published_length", "nodes_generated", "nodes_expanded",
               "cpu_seconds", "threads", "table_cpu_seconds", "status", "moves", "fastsnake_version", "run_id")
# The columns a file of an older fastsnake may lack: ``moves`` (since 0.2.0), ``threads`` (the threads
# that searched a row: new after 0.2.0; without it every search ran on one).
LATER_COLUMNS = ("moves", "threads")
# The columns that may differ between two runs of one study (on 1 or N workers, on a cluster): the CPU it
# took, the threads that searched (the tail of a run on workers), the run's id. Every other is the same.
MEASURED_COLUMNS = ("cpu_seconds", "threads", "table_cpu_seconds", "run_id")
# The rows whose moves a rows file keeps (`fastsnake.study.picks`): per heuristic and algorithm, the
# solutions a report can pick (longest, shortest, most and fewest nodes); the page never searches.
PICKABLE = {"length": "length", "nodes": "nodes_generated", "ok": lambda r: r["status"] == "solved",
            "arm": lambda r: (r["heuristic"], r["algorithm"])}
# States `check_admissible` samples per user's heuristic and board before a study's searches (0: none):
# a few dozen catch a grossly inadmissible heuristic for about a CPU-second (3x3: a breadth-first
# search of every state; larger boards: short random walks, each solved with Manhattan).
DEFAULT_ADMISSIBILITY_SAMPLES = 40
# Sampled violations and longer paths a study keeps per heuristic (the counts are whole).
KEPT_FINDINGS = 10
# The instance identity a baseline must share.
IDENTITY = ("instance_set", "rows", "cols", "start", "goal")
# A row's status: `solve`'s, or `STOP_STATUS` (stopped at --stop-at times the baseline's nodes).
STOP_STATUS = SU.STOP_STATUS
STATUSES = ("solved", "node limit reached", "memory limit reached", "time limit reached", STOP_STATUS)
ALGORITHMS = ("astar", "idastar")
# With a baseline, a search stops at this many times the baseline's nodes for its instance (--stop-at).
DEFAULT_STOP_AT = 20.0
# Problems `row_problems` lists (their count is whole).
KEPT_PROBLEMS = 20


class StudyInputError(B.PuzzleInputError):
    """A study asked for something impossible: an unknown set or heuristic, a bad instances file."""


class StudyLengthError(FastsnakeError):
    """Two optimal searches of one instance disagree on its length, or one disagrees with the
    published optimum: a bug (or a heuristic that is not admissible); the message names both."""


@dataclass(frozen=True)
class Instance:
    """One instance of a study: `id` within its `set`, board, start and goal tiles, the published
    optimal length and node count when the set has them."""

    set: str
    id: str
    rows: int
    cols: int
    start: tuple
    goal: tuple
    optimum: int | None = None
    published_nodes: int | None = None

    def identity(self) -> dict:
        return {"instance_set": self.set, "rows": self.rows, "cols": self.cols,
                "start": _tiles(self.start), "goal": _tiles(self.goal)}


_tiles = SU.tiles_text


def _shipped(name: str) -> list[dict]:
    text = resources.files("fastsnake.puzzle").joinpath("instances", f"{name}.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO("\n".join(line for line in text.splitlines()
                                                       if not line.startswith("#")))))


def load_instances(spec: str, *, rows: int | None = None, cols: int | None = None, count: int | None = None,
                   seed: int | None = None, easiest: int | None = None, goal=None) -> list[Instance]:
    """The instances of a shipped set (a key of `INSTANCE_SETS`) or of a file.

    ``random``: `count` (default 10) instances of `rows` x `cols` drawn from `seed` (default 0),
    uniform over the solvable ones; instance k is the same whatever the count. ``korf100`` and
    ``korf-felner-50`` with `easiest`: the `easiest` instances with the fewest published IDA* nodes
    (Korf's Manhattan counts; Korf & Felner's), easiest first.
    A file: one instance a line (tiles, optionally ``; goal tiles``; ``#`` lines and blank lines
    skipped; ids are line numbers), or a CSV with a header naming ``id`` and ``tiles`` (and
    optionally ``length``, ``goal``); the board is `rows` x `cols` or inferred from the first
    line. Every instance is checked here: tile count, tiles, solvability (`StudyInputError`
    naming the line)."""
    if easiest is not None and spec not in ("korf100", "korf-felner-50"):
        raise StudyInputError(f"easiest={easiest!r} applies to korf100 and korf-felner-50 (sets with published "
                              f"node counts), not {spec!r}")
    if spec == "random":
        from fastsnake.reading import MAX_INSTANCES, check_count

        count = check_count(count if count is not None else 10, MAX_INSTANCES, "count", error=StudyInputError)
        return _random(rows, cols, count, 0 if seed is None else seed, goal)
    if spec in ("korf100", "korf-felner-50"):
        n = 4 if spec == "korf100" else 5
        table = _shipped(spec)
        nodes = "korf1985_nodes" if spec == "korf100" else "published_nodes"
        out = [Instance(spec, r["id"], n, n, tuple(int(t) for t in r["tiles"].split()),
                        tuple(int(t) for t in B.goal_default(n, n)), int(r["length"]), int(r[nodes]))
               for r in table]
        if easiest is not None:
            if not 1 <= easiest <= len(out):
                raise StudyInputError(f"easiest={easiest!r} is not from 1 to {len(out)}")
            out = sorted(out, key=lambda i: i.published_nodes)[:easiest]
        return out
    if spec == "assignment":
        return [Instance(spec, name, r, c, tuple(int(t) for t in B.parse_tiles(s, r, c, "start")),
                         tuple(int(t) for t in B.parse_tiles(g, r, c, "goal")), length)
                for name, r, c, s, g, length in ASSIGNMENT]
    return _from_file(spec, rows, cols, goal)


def _random(rows, cols, count, seed, goal) -> list[Instance]:
    if rows is None or cols is None:
        raise StudyInputError("random instances need a board size (rows and cols)")
    B.check_size(rows, cols)
    g = B.parse_tiles(goal, rows, cols, "goal") if goal is not None else B.goal_default(rows, cols)
    rng = np.random.default_rng(seed)
    goal_t = tuple(int(t) for t in g)
    return [Instance("random", str(k), rows, cols, tuple(int(t) for t in B.random_solvable(rows, cols, g, rng)),
                     goal_t) for k in range(count)]


def _from_file(path: str, rows, cols, goal) -> list[Instance]:
    from fastsnake.reading import MAX_INSTANCES, read_text

    try:  # bounded (`fastsnake.reading`): a regular file, at most its caps of bytes and line length
        text = read_text(path, "instances file", error=StudyInputError)
    except FileNotFoundError:
        raise StudyInputError(f"instances {path!r}: neither a file nor a set "
                              f"({', '.join(INSTANCE_SETS)})") from None
    except OSError as exc:
        raise StudyInputError(f"instances file {path!r} cannot be read: {exc.strerror or exc}") from None
    lines = [(k, line) for k, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    del text
    if not lines:
        raise StudyInputError(f"instances file {path!r} holds no instances")
    if len(lines) > MAX_INSTANCES + 1:
        raise StudyInputError(f"instances file {path!r} holds {len(lines) - 1:,} instances or more, past the "
                              f"limit of {MAX_INSTANCES:,} a study takes: split it")
    entries = _csv_entries(path, lines)
    if entries is None:
        entries = []  # (line, id, start text, goal text, published length)
        for k, line in lines:
            start, _, goal_text = line.partition(";")
            entries.append((k, str(k), start, goal_text.strip() or None, None))
    if rows is None or cols is None:
        tokens = entries[0][2].split()
        side = math.isqrt(len(tokens))
        if len(tokens) > 1 and side * side == len(tokens) and not (len(tokens[0]) > 1 and len(tokens) <= 4):
            rows = cols = side
        elif len({len(t) for t in tokens}) == 1 and all(t.isdigit() for t in tokens) and len(tokens[0]) > 1:
            rows, cols = len(tokens), len(tokens[0])
        else:
            raise StudyInputError(f"instances file {path!r} line {entries[0][0]}: give the board size "
                                  f"({len(tokens)} tiles is not a square board)")
    default_goal = B.parse_tiles(goal, rows, cols, "goal") if goal is not None else B.goal_default(rows, cols)
    out = []
    for k, ident, start_text, goal_text, length in entries:
        try:
            start = B.parse_tiles(start_text, rows, cols, "start")
            g = B.parse_tiles(goal_text, rows, cols, "goal") if goal_text else default_goal
        except B.PuzzleInputError as exc:
            raise StudyInputError(f"instances file {path!r} line {k}: {exc}") from None
        if not B.is_solvable(start, g, rows, cols):
            raise StudyInputError(f"instances file {path!r} line {k}: instance {ident!r} is unsolvable "
                                  "(parity rule): it cannot reach the goal")
        out.append(Instance(path, ident, rows, cols, tuple(int(t) for t in start), tuple(int(t) for t in g),
                            length))
    ids = [i.id for i in out]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise StudyInputError(f"instances file {path!r}: instance id {dup!r} appears twice")
    return out


def _csv_entries(path: str, lines: list) -> list | None:
    """The entries of an instances file that is a CSV (its first line a header naming ``id`` and
    ``tiles``), read with the csv module (quoted fields, commas inside quotes): (line, id, start
    text, goal text or None, published length or None); None when the file is not a CSV. A
    ``length`` that is not a whole number >= 0 is refused (`StudyInputError` naming the line)."""
    first = next(csv.reader([lines[0][1]]))
    header = [h.strip() for h in first]
    if not ("id" in header and "tiles" in header):
        return None
    entries = []
    for k, line in lines[1:]:
        try:
            fields = next(csv.reader([line]))
        except csv.Error as exc:
            raise StudyInputError(f"instances file {path!r} line {k}: not a CSV row: {exc}") from None
        if len(fields) > len(header):
            raise StudyInputError(f"instances file {path!r} line {k}: {len(fields)} fields, the header names "
                                  f"{len(header)} (quote a field that holds a comma)")
        row = dict(zip(header, (v.strip() for v in fields), strict=False))
        length = row.get("length") or None
        if length is not None:
            if not re.fullmatch(r"\d{1,6}", length):
                raise StudyInputError(f"instances file {path!r} line {k}: length {length!r} is not a whole "
                                      "number of moves (0 or more)")
            length = int(length)
        entries.append((k, row.get("id") or str(k), row.get("tiles", ""), row.get("goal") or None, length))
    return entries


def check_heuristics(names) -> list[str]:
    """The heuristic names of a study, each registered (not 'auto'), none twice."""
    names = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    known = heuristic_names()
    if not names:
        raise StudyInputError("a study needs at least one heuristic")
    for n in names:
        if n not in known:
            raise StudyInputError(f"heuristic {n!r} is not one of {', '.join(known)}")
    if len(set(names)) != len(names):
        raise StudyInputError(f"heuristic {next(n for n in names if names.count(n) > 1)!r} is named twice")
    return names


def resolve_algorithm(algorithm: str, rows: int, cols: int) -> str:
    """astar | idastar; 'auto': A* below 12 cells, IDA* from 12 (a study never reduces)."""
    if algorithm not in ("astar", "idastar", "auto"):
        raise StudyInputError(f"algorithm {algorithm!r} is not one of astar, idastar, auto")
    if algorithm == "auto":
        return "astar" if rows * cols < 12 else "idastar"
    return algorithm


@dataclass
class Study:
    """What `run_study` measured: the rows (dicts with `ROW_COLUMNS`), the heuristics in order, the
    instances finished, whether it was interrupted, the run id and the options;
    ``table_cpu_seconds[(heuristic, rows, cols, goal)]`` is (CPU-s building its tables, the context)."""

    heuristics: list[str]
    instances: list[Instance]
    rows: list[dict] = field(default_factory=list)
    run_id: str = ""
    options: dict = field(default_factory=dict)
    interrupted: bool = False
    table_cpu_seconds: dict = field(default_factory=dict)
    # user's heuristic -> what its admissibility checks found (`admissibility_entry`)
    admissibility: dict = field(default_factory=dict)
    # (heuristic, rows, cols, goal) already sampled by `check_admissible`
    sampled: set = field(default_factory=set)
    # what the runner did (`fastsnake.runs.RunOutcome`): chunks resumed, computed, redone, workers
    run_outcome: object = None
    # heuristic -> the instance where it stopped past the baseline's nodes (`run_study`'s node_caps)
    decided: dict = field(default_factory=dict)


def is_user_heuristic(name: str) -> bool:
    """`name` is a user's heuristic (registered with a function or through an entry point)."""
    from fastsnake.puzzle.heuristics import REGISTRY

    spec = REGISTRY.get(name)
    return spec is not None and spec.evaluate is not None


def admissibility_entry() -> dict:
    """A user's heuristic's admissibility in a study: ``admissible`` (nothing seen against it),
    ``samples`` (states compared), ``violations`` (sampled states with h above the true distance:
    ``state, h, distance``, the worst first, at most `KEPT_FINDINGS`) and ``sample_violations``
    (their count), ``longer_paths`` (``instance_set, instance_id, length, optimal_length,
    against``) and ``longer_path_count``; ``reason``: what else made it not admissible (it changes its
    arguments, its path was seen above the true distance, it did not return in time), else None."""
    return {"admissible": True, "samples": 0, "sample_violations": 0, "violations": [], "longer_path_count": 0,
            "longer_paths": [], "reason": None}


def _warn(warn, text: str) -> None:
    if warn is not None:
        warn(f"fastsnake: warning: {text}")


def sample_admissibility(study: Study, name: str, rows: int, cols: int, goal: tuple, samples: int,
                         warn=None) -> None:
    """`check_admissible` on `samples` states of the board, once per (heuristic, board); a
    violation marks the heuristic inadmissible (a warning line: state, h, true distance)."""
    from fastsnake.puzzle.admissible import check_admissible

    key = (name, rows, cols, goal)
    if samples <= 0 or key in study.sampled:
        return
    study.sampled.add(key)
    report = check_admissible(name, rows, cols, samples=int(samples), seed=0, goal=np.array(goal))
    entry = study.admissibility.setdefault(name, admissibility_entry())
    entry["samples"] += report.samples
    if report.mutations:
        record_doubt(study, name, report.reason(), warn)
    if report.violations:
        v = report.violations[0]
        if entry["admissible"]:
            _warn(warn, f"heuristic {name!r} is not admissible: on the {rows}x{cols} state {_tiles(v['state'])} "
                        f"it gives {v['h']}, the true distance is {v['distance']} ({len(report.violations)} of "
                        f"{report.samples} sampled states above it); its rows are marked optimal=false")
        entry["admissible"] = False
        entry["sample_violations"] += len(report.violations)
        entry["violations"] = (entry["violations"] + report.violations)[:KEPT_FINDINGS]


def record_doubt(study: Study, name: str, reason: str, warn=None) -> None:
    """A user's heuristic `solve` could not call optimal (`SolveResult.optimal_reason`): its rows are
    marked optimal=false, and the first reason is kept (``reason``) and said in a warning."""
    entry = study.admissibility.setdefault(name, admissibility_entry())
    if entry["admissible"]:
        _warn(warn, f"{reason}; its rows are marked optimal=false")
    entry["admissible"] = False
    entry["reason"] = entry.get("reason") or reason


def record_longer(study: Study, longer: list[dict], warn=None) -> None:
    """Note the paths of users' heuristics longer than an optimal one (`check_lengths`); the first of
    each heuristic is a warning line naming the instance and both lengths."""
    for f in longer:
        entry = study.admissibility.setdefault(f["heuristic"], admissibility_entry())
        if entry["longer_path_count"] == 0:
            _warn(warn, f"heuristic {f['heuristic']!r} is not admissible: on {f['instance_set']} {f['instance_id']} "
                        f"it found {f['length']} moves, {f['against']} {f['optimal_length']}; its rows are marked "
                        "optimal=false")
        entry["admissible"] = False
        entry["longer_path_count"] += 1
        if len(entry["longer_paths"]) < KEPT_FINDINGS:
            entry["longer_paths"].append({k: v for k, v in f.items() if k != "heuristic"})


def mark_inadmissible(study: Study, rows: list[dict]) -> None:
    """Rows of heuristics found inadmissible are not optimal."""
    bad = {n for n, e in study.admissibility.items() if not e["admissible"]}
    for r in rows:
        if r["heuristic"] in bad:
            r["optimal"] = False


_one_move = SU.one_move


def run_study(instances: list[Instance], heuristics, algorithm: str = "auto", *, max_nodes: int | None = None,
              time_limit: float | None = None, memory_budget=None, partition=None, prune_depth=None,
              progress=None, run_id: str | None = None, on_instance=None, study: Study | None = None,
              admissibility_samples: int = DEFAULT_ADMISSIBILITY_SAMPLES, warn=None, workers: int = 1,
              cluster: str | None = None, folder=None, bar: bool = False,
              node_caps: dict | None = None) -> Study:
    """Solve every instance with every heuristic; returns the `Study` (rows appended to `study`'s
    when given, the next round of a precision run). `progress(text)` hears what happens;
    `warn(line)` hears that a user's heuristic is not admissible (`admissibility_samples` states
    of each board sampled first, 0: none; longer paths seen); `on_instance(instance, rows)` each
    finished instance. Ctrl-C ends the study with the instances finished (``interrupted``).

    The searches run on `workers` processes of this machine (1: this process) or on the dask
    `cluster` (``local:N`` or a scheduler address), each (instance, heuristic) a unit of the
    runner (`fastsnake.runs`); the rows are the same whatever runs them (but CPU-seconds), in the
    same order. Tables are built once here and shared. `folder`: a run folder (a path) the
    finished searches are kept in; the same call again computes only those missing (another
    study's folder is refused, `RunFolderError`). `bar`: one progress line on stderr (a terminal).

    `node_caps` (`stop_caps`: ``{(heuristic, instance id): nodes}``, a run checked against a
    baseline) stops a search there (status `STOP_STATUS`, below `max_nodes`, which the options
    keep): the heuristic is then worse than the baseline, decided, and its later searches in the
    same process are not run (``Study.decided``: heuristic -> the instance it stopped on), but in
    a run `folder` (which keeps one row a search: each still stops at its cap)."""
    from fastsnake import runs
    from fastsnake.puzzle.solver import DEFAULT_MAX_NODES

    heuristics = check_heuristics(heuristics)
    for inst in instances:
        resolve_algorithm(algorithm, inst.rows, inst.cols)
    limits = {"max_nodes": int(max_nodes or DEFAULT_MAX_NODES), "time_limit": time_limit,
              "memory_budget": memory_budget}
    options = {k: v for k, v in {**limits, "partition": partition, "prune_depth": prune_depth}.items()
               if v is not None}
    parallel = bool(cluster) or workers > 1
    run_folder = None
    if folder is not None:
        run_folder = open_study_folder(folder, instances, heuristics, algorithm, options, admissibility_samples,
                                       run_id=run_id or new_run_id())
        run_id = run_folder.run_id
    if study is None:
        study = Study(heuristics, [], run_id=run_id or new_run_id(), options=options)
    boards = {(i.rows, i.cols, i.goal) for i in instances}
    shared, temps = {}, []
    try:
        for rows, cols, goal in sorted(boards):
            for name in heuristics:
                key = (name, rows, cols, goal)
                if key in study.table_cpu_seconds:
                    continue
                c0 = time.process_time()
                if parallel:
                    shared[key], tmp, ctx = SU.share_tables(name, rows, cols, goal, partition=partition,
                                                            memory_budget=memory_budget, progress=progress)
                    temps.append(tmp)
                else:
                    ctx = heuristic_context(name, rows, cols, np.array(goal), partition=partition, progress=progress,
                                            memory_budget=memory_budget)
                study.table_cpu_seconds[key] = (time.process_time() - c0, ctx)
                # Load (or compile) the kernels before any timed search: a one-move solve, untimed. (A user's
                # heuristic is judged by the study's own sampling below and its paths, not by `solve`'s.)
                try:
                    solve(_one_move(goal, rows, cols), np.array(goal), rows=rows, cols=cols,
                          algorithm=resolve_algorithm(algorithm, rows, cols), heuristic=name, context=ctx,
                          prune_depth=prune_depth, time_limit=time_limit, admissibility_samples=0, warn=False)
                except B.PuzzleLimitError:
                    pass  # a user's heuristic that does not return in time: each instance's search says so
        users = {n for n in heuristics if is_user_heuristic(n)}
        for rows, cols, goal in sorted(boards):
            for name in sorted(users):
                study.admissibility.setdefault(name, admissibility_entry())
                try:
                    with within(Deadline(time_limit)):  # a user's heuristic that never returns: its time limit
                        sample_admissibility(study, name, rows, cols, goal, admissibility_samples, warn)
                except Overtime:
                    record_doubt(study, name, f"heuristic {name!r} did not return within the time limit on a "
                                              "sampled state", warn)
        _run_searches(study, instances, heuristics, algorithm, limits, prune_depth, partition, memory_budget,
                      shared, users, progress, on_instance, warn, runs, workers, cluster, run_folder, bar,
                      node_caps or {})
    finally:
        for tmp in temps:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
    return study


def study_identity(instances: list[Instance], heuristics: list[str], algorithm: str, options: dict,
                   admissibility_samples: int) -> dict:
    """What makes a study's rows: a run folder of another identity is another study's."""
    listed = [[i.set, i.id, i.rows, i.cols, _tiles(i.start), _tiles(i.goal), i.optimum] for i in instances]
    from fastsnake.runs.folder import identity_digest

    return {"kind": "puzzle-study", "instance_sets": sorted({i.set for i in instances}),
            "instances": len(instances), "instances_sha256": identity_digest({"instances": listed}),
            "heuristics": list(heuristics), "algorithm": algorithm, "options": options,
            "admissibility_samples": int(admissibility_samples)}


def open_study_folder(path, instances, heuristics, algorithm, options, admissibility_samples, *, run_id: str):
    """The run folder of this study at `path` (made, or resumed), one unit per search."""
    from fastsnake.runs import RunFolder

    identity = study_identity(instances, heuristics, algorithm, options, admissibility_samples)
    notes = {"instances": [{"set": i.set, "id": i.id, "rows": i.rows, "cols": i.cols, "start": list(i.start),
                            "goal": list(i.goal), "optimum": i.optimum, "published_nodes": i.published_nodes}
                           for i in instances]}
    return RunFolder.create_or_resume(path, identity, len(instances) * len(heuristics), STUDY_CHUNK_SIZE,
                                      run_id=run_id, notes=notes)


# Searches a chunk of a study holds: one (a search takes seconds to hours; the longest first, `_order`).
STUDY_CHUNK_SIZE = 1


def _order(instances: list[Instance], heuristics: list[str]) -> list[int] | None:
    """The chunks' start order: the instances with the most published nodes first (so no worker is
    left alone with a long one at the end), else as listed."""
    if not any(i.published_nodes for i in instances):
        return None
    ranked = sorted(range(len(instances)), key=lambda k: (-(instances[k].published_nodes or 0), k))
    return [k * len(heuristics) + h for k in ranked for h in range(len(heuristics))]


def _gate_order(units: list[dict]) -> list[int]:
    """The chunks' start order of a run checked against a baseline with stops (`stop_caps`): the
    searches with the lowest stops first, so a heuristic made worse is decided on its cheapest
    instances (each worker process skips a decided heuristic's later searches); then the rest."""
    return sorted(range(len(units)), key=lambda k: (units[k].get("stop_nodes") is None,
                                                    units[k].get("stop_nodes") or 0, k))


def _run_searches(study, instances, heuristics, algorithm, limits, prune_depth, partition, memory_budget, shared,
                  users, progress, on_instance, warn, runs, workers, cluster, run_folder, bar, caps) -> None:
    from fastsnake import __version__

    units = [SU.unit_of(inst, name, resolve_algorithm(algorithm, inst.rows, inst.cols),
                        stop_nodes=caps.get((name, inst.id)))
             for inst in instances for name in heuristics]
    state = {"limits": limits, "prune_depth": prune_depth, "options_text": canonical_json(study.options),
             "run_id": study.run_id, "version": __version__, "partition": partition, "memory_budget": memory_budget,
             "table_cpu_seconds": {k: v[0] for k, v in study.table_cpu_seconds.items()},
             # a heuristic decided worse skips its later searches, but in a run folder (one row a unit)
             "skip_decided": run_folder is None}
    spec = None
    if workers > 1 or cluster:
        from fastsnake.puzzle.heuristics import REGISTRY
        from fastsnake.puzzle.user_kernels import import_targets

        keys = sorted({SU.key_of(u) for u in units})
        spec = dict(state, boards=[(k, shared.get(k)) for k in keys],
                    algorithms={k: resolve_algorithm(algorithm, k[1], k[2]) for k in keys},
                    user={n: import_targets(REGISTRY[n]) for n in users
                          if not REGISTRY[n].origin.startswith("entry point")})
    here = dict(state, contexts={k: v[1] for k, v in study.table_cpu_seconds.items()})
    per = len(heuristics)
    found: dict = {}
    finalized: set = set()

    def whole(n):
        return all(n * per + h in found for h in range(per))

    def finalize(n):  # instance n's rows into the study, in instance order
        finalized.add(n)
        inst, rows = instances[n], [found[n * per + h] for h in range(per)]
        for r in rows:
            if r.get("status") == STOP_STATUS:
                study.decided.setdefault(r["heuristic"], r["instance_id"])
        rows = [r for r in rows if not r.get(SU.SKIPPED)]  # a heuristic decided worse: not searched
        if not rows:
            return
        flagged = {m for m, e in study.admissibility.items() if not e["admissible"]}
        record_longer(study, check_lengths(inst, rows, users), warn)
        study.rows.extend(rows)
        if {m for m, e in study.admissibility.items() if not e["admissible"]} != flagged:
            mark_inadmissible(study, study.rows)  # newly found out: its earlier rows too
        else:
            mark_inadmissible(study, rows)
        study.instances.append(inst)
        if progress is not None and not bar:
            progress(f"{inst.set} {inst.id}: length {rows[0]['length']}, "
                     + ", ".join(f"{row['heuristic']} {row['nodes_generated']:,} nodes" for row in rows)
                     + f" ({len(study.instances)}/{len(instances)})")
        if on_instance is not None:
            on_instance(inst, rows)

    def on_chunk(index, first, results):
        for k, row in enumerate(results):
            found[first + k] = row
        n = first // per
        if whole(n):  # a disagreement stops the study at once, whatever instance finished first
            check_lengths(instances[n], [found[n * per + h] for h in range(per)
                                         if not found[n * per + h].get(SU.SKIPPED)], users)
        n = len(finalized)
        while n < len(instances) and n not in finalized and whole(n):
            finalize(n)
            n += 1

    job = runs.Job(SU.search_row, spec, SU.worker_setup, kernels=("puzzle",))  # kernels: what a cluster gets
    outcome = runs.run(units, job, workers=workers, cluster=cluster,
                       chunk_size=STUDY_CHUNK_SIZE, folder=run_folder,
                       order=(_gate_order(units) if caps else _order(instances, heuristics)) if spec is not None
                       else None,
                       progress=bar or None, on_chunk=on_chunk, state=here, label="puzzle study", warn=warn)
    study.interrupted = study.interrupted or outcome.interrupted
    study.run_outcome = outcome
    for n in range(len(instances)):  # stopped: the whole instances finished out of order
        if n not in finalized and whole(n):
            finalize(n)


def check_lengths(inst: Instance, rows: list[dict], users=frozenset()) -> list[dict]:
    """Every optimal search of `inst` found the same length, and the published optimum when there
    is one; else `StudyLengthError` naming the instance and the heuristic. The heuristics in
    `users` (users' heuristics) are not trusted: one that found a longer path than the shortest
    optimal one (or the published optimum) is returned, ``{heuristic, instance_set, instance_id,
    length, optimal_length, against}``, for its rows to be marked non-optimal; none of them is
    an error unless it found a shorter path than a trusted search's or the published optimum."""
    optimal = [r for r in rows if r["optimal"]]
    trusted = [r for r in optimal if r["heuristic"] not in users]
    lengths = {r["length"] for r in trusted}
    if len(lengths) > 1:
        shortest = min(lengths)
        bad = next(r for r in trusted if r["length"] != shortest)
        good = next(r for r in trusted if r["length"] == shortest)
        raise StudyLengthError(f"instance {inst.set} {inst.id}: {bad['heuristic']} found an 'optimal' length of "
                               f"{bad['length']}, {good['heuristic']} {shortest}: a heuristic is not admissible "
                               "or a search is wrong")
    if inst.optimum is not None:
        for r in trusted:
            if r["length"] != inst.optimum:
                if inst.set not in INSTANCE_SETS:  # the user's file says so: its claim is wrong (bad input)
                    raise StudyInputError(f"instances file {inst.set!r}: instance {inst.id!r} gives length "
                                          f"{inst.optimum}, but {r['heuristic']} found an optimal solution of "
                                          f"{r['length']} moves: correct its length (or leave it empty)")
                raise StudyLengthError(f"instance {inst.set} {inst.id}: {r['heuristic']} found an optimal length "
                                       f"of {r['length']}, the published optimum is {inst.optimum}")
    mine = [r for r in optimal if r["heuristic"] in users]
    if not mine:
        return []
    if inst.optimum is not None:
        reference, against = inst.optimum, "the published optimum is"
    else:
        best = min(trusted or mine, key=lambda r: r["length"])
        reference, against = best["length"], f"{best['heuristic']} found"
    longer = []
    for r in mine:
        if r["length"] < reference and inst.optimum is not None and inst.set not in INSTANCE_SETS:
            raise StudyInputError(f"instances file {inst.set!r}: instance {inst.id!r} gives length {inst.optimum}, "
                                  f"but {r['heuristic']} found a solution of {r['length']} moves: correct its length "
                                  "(or leave it empty)")
        if r["length"] < reference:  # a real path shorter than an optimal one: the trusted side is wrong
            raise StudyLengthError(f"instance {inst.set} {inst.id}: {r['heuristic']} found a path of {r['length']} "
                                   f"moves, shorter than the optimum ({against} {reference}): a search is wrong")
        if r["length"] > reference:
            longer.append({"heuristic": r["heuristic"], "instance_set": inst.set, "instance_id": inst.id,
                           "length": r["length"], "optimal_length": reference, "against": against})
    return longer


def _values(rows: list[dict], heuristic: str, measure: str, ids: list[str]) -> np.ndarray:
    """One heuristic's `measure` per instance id, in `ids` order (nan where not solved)."""
    by_id = {r["instance_id"]: r for r in rows if r["heuristic"] == heuristic}
    out = np.full(len(ids), np.nan)
    for k, i in enumerate(ids):
        r = by_id.get(i)
        if r is not None and r["status"] == "solved" and r.get(measure) is not None:
            out[k] = r[measure]
    return out


def summarize(study: Study, all_pairs: bool = False, noise_floor: dict | None = None) -> dict:
    """The study's statistics: ``heuristics`` (name -> instances, solved and the Wilson interval of
    the solved share ``solved_share_ci95``, algorithm, each measure
    `describe`d over the solved instances, table_cpu_seconds, unsolved_status) and ``pairs``
    (each heuristic against the first, or every pair with `all_pairs`: for each of
    `RATIO_MEASURES`, `paired_ratio` of this / baseline with Holm's adjusted p ``p_holm`` across
    the pairs, and ``significant``: for CPU-seconds, never within the machine's noise floor,
    ``floor``, `fastsnake.study.noise`), ``instances`` and ``admissibility`` (users' heuristics:
    `admissibility_entry`); a heuristic's ``optimal`` is False when one of its solved rows is not
    (found inadmissible)."""
    ids = [i.id for i in study.instances]
    per = {}
    for name in study.heuristics:
        mine = [r for r in study.rows if r["heuristic"] == name]
        solved = [r for r in mine if r["status"] == "solved"]
        per[name] = {
            "instances": len(mine), "solved": len(solved),
            "solved_share_ci95": wilson_ci95(len(solved), len(mine)),
            "algorithm": ",".join(sorted({r["algorithm"] for r in mine})) or None,
            **{m: S.describe([r[m] for r in solved if r[m] is not None]) for m in MEASURES},
            "table_cpu_seconds": float(sum(v[0] for k, v in study.table_cpu_seconds.items() if k[0] == name)),
            "unsolved_status": sorted({r["status"] for r in mine if r["status"] != "solved"}),
            # False when a solved row is not optimal (a user's heuristic found inadmissible)
            "optimal": all(r["optimal"] for r in solved),
        }
    names = study.heuristics
    pairs_of = [(a, b) for k, b in enumerate(names) for a in names[k + 1:]] if all_pairs \
        else [(a, names[0]) for a in names[1:]]
    from fastsnake.study.noise import cpu_noise_floor, judge_cpu, significant

    floor = noise_floor if noise_floor is not None else (cpu_noise_floor() if pairs_of else None)
    pairs = []
    for this, base in pairs_of:
        entry = {"heuristic": this, "baseline": base}
        for m in RATIO_MEASURES:
            a, b = _values(study.rows, this, m, ids), _values(study.rows, base, m, ids)
            entry[m] = S.paired_ratio(a, b)
            if m == "cpu_seconds":  # a CPU difference within the machine's noise is never significant
                entry[m] = judge_cpu(entry[m], a, b, floor)
        pairs.append(entry)
    for m in RATIO_MEASURES:
        for entry, p in zip(pairs, S.holm([S.p_of(e[m]) for e in pairs]), strict=True):
            entry[m]["p_holm"] = p
            entry[m]["significant"] = significant(entry[m])
    return {"instances": len(ids), "heuristics": per, "pairs": pairs, "all_pairs": bool(all_pairs),
            "admissibility": study.admissibility, "floor": floor}


def rows_table(rows: list[dict]):
    """The rows as an Arrow table of `ROW_COLUMNS` (words dictionary-encoded, as Snake's files);
    ``moves`` kept only on the rows a report can pick (`PICKABLE`), None on the others."""
    import pyarrow as pa

    from fastsnake.study.picks import keep_pickable_moves

    rows = keep_pickable_moves(rows, **PICKABLE)

    words = pa.dictionary(pa.int32(), pa.string())
    types = {"instance_set": words, "instance_id": pa.string(), "rows": pa.int16(), "cols": pa.int16(),
             "start": pa.string(), "goal": pa.string(), "heuristic": words, "algorithm": words, "options": words,
             "length": pa.int32(), "optimal": pa.bool_(), "published_length": pa.int32(),
             "nodes_generated": pa.int64(), "nodes_expanded": pa.int64(), "cpu_seconds": pa.float64(),
             "threads": pa.int16(),
             "table_cpu_seconds": pa.float64(), "status": words, "moves": pa.string(), "fastsnake_version": words,
             "run_id": words}
    arrays = {}
    for c in ROW_COLUMNS:
        values = [r.get(c) for r in rows]
        kind = types[c]
        arrays[c] = (pa.array(values, pa.string()).dictionary_encode() if pa.types.is_dictionary(kind)
                     else pa.array(values, kind))
    return pa.table(arrays)


def study_meta(study: Study, spec: str) -> dict:
    """The rows file's footer (`fastsnake.study.rows`): kind, run id, instance set, heuristics, options."""
    return {"kind": "puzzle", "run_id": study.run_id, "instances": spec, "heuristics": study.heuristics,
            "options": study.options, "interrupted": study.interrupted, "count": len(study.instances),
            "admissibility": study.admissibility}


def _manhattan(start: str, goal: str, rows: int, cols: int) -> int | None:
    """The Manhattan distance of the tiles `start` -> `goal` (texts), None when they are not boards
    of `rows` x `cols`: every move changes it by one, so a path's length is at least it and of its
    parity."""
    try:
        a, b = [int(t) for t in start.split()], [int(t) for t in goal.split()]
    except (AttributeError, ValueError):
        return None
    n = rows * cols
    if len(a) != n or len(b) != n or sorted(a) != list(range(n)) or sorted(b) != list(range(n)):
        return None
    where = {t: k for k, t in enumerate(b)}
    return sum(abs(k // cols - where[t] // cols) + abs(k % cols - where[t] % cols) for k, t in enumerate(a) if t)


def _moves_problem(moves, length: int, r: dict) -> str | None:
    """Why the kept `moves` of the solved row `r` are not a solution of its `length` (None: they are)."""
    if not isinstance(moves, str) or len(moves) != length:
        return f"its kept moves are {len(moves) if isinstance(moves, str) else moves!r} long, its length {length}"
    try:
        end = B.apply_moves(np.array([int(t) for t in r["start"].split()]), moves, r["rows"], r["cols"])
    except B.PuzzleInputError as exc:
        return f"its kept moves are no solution: {exc}"
    if " ".join(str(int(t)) for t in end) != " ".join(r["goal"].split()):
        return "its kept moves do not reach its goal"
    return None


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _seconds(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def row_problems(rows: list[dict], meta: dict | None = None, check_moves: bool = True) -> list[str]:
    """What in a puzzle study's rows contradicts the rows themselves, the instances or the footer
    `meta` (one line each, at most `KEPT_PROBLEMS`): a status outside `STATUSES`, a figure that is
    not a finite number >= 0, a thread count below 1 (or above 1 on a search other than IDA*), a
    length without a solve (or a solve without one), a length below the instance's Manhattan
    distance or of the other parity, an optimal flag on an unsolved row, optimal
    lengths that disagree with each other or with the published one, an optimal flag the
    admissibility record contradicts (``optimal=false`` on a heuristic it records nothing against,
    ``optimal=true`` on one it found inadmissible), an instance or (instance, heuristic) twice, and
    counts or names the footer does not match, and (`check_moves`) kept moves that are not a solution
    of the row's length. `fastsnake verify`, the report and ``--baseline-from`` read a study through
    it (the baseline rule: `fastsnake.study.baseline`); the report checks kept moves itself, naming
    them as problem lines of the page it writes."""
    out: list[str] = []

    def bad(text):
        if len(out) < KEPT_PROBLEMS:
            out.append(text)

    seen, ident, optimal, distance = set(), {}, {}, {}
    record = (meta or {}).get("admissibility") or {}
    if not isinstance(record, dict):
        bad("its footer's admissibility record is not an object")
        record = {}
    for k, r in enumerate(rows):
        where = f"row {k} ({r.get('instance_id')!r}, {r.get('heuristic')!r})"
        if r.get("status") not in STATUSES:
            bad(f"{where}: status {str(r.get('status'))[:40]!r} is not one of {', '.join(STATUSES)}")
        if r.get("algorithm") not in ALGORITHMS:
            bad(f"{where}: algorithm {str(r.get('algorithm'))[:40]!r} is not one of {', '.join(ALGORITHMS)}")
        for name in ("nodes_generated", "nodes_expanded"):
            if not _whole(r.get(name)):
                bad(f"{where}: {name} {r.get(name)!r} is not a whole number >= 0")
        for name in ("cpu_seconds", "table_cpu_seconds"):
            if not _seconds(r.get(name)):
                bad(f"{where}: {name} {r.get(name)!r} is not a finite number >= 0")
        threads = r.get("threads", 1)  # absent: a file of fastsnake 0.2.0 or before, every search on one
        if not (_whole(threads) and threads >= 1):
            bad(f"{where}: threads {threads!r} is not a whole number >= 1")
        elif threads > 1 and r.get("algorithm") != "idastar":
            bad(f"{where}: {threads} threads, but only IDA* searches on several")
        key = (r.get("instance_id"), r.get("heuristic"), r.get("algorithm"))
        if key in seen:
            bad(f"{where}: the instance and heuristic appear twice")
        seen.add(key)
        this = tuple(r.get(c) for c in (*IDENTITY, "published_length"))
        if ident.setdefault(r.get("instance_id"), this) != this:
            bad(f"{where}: the instance is described otherwise in another row")
        solved, length = r.get("status") == "solved", r.get("length")
        if solved != (length is not None):
            bad(f"{where}: status {r.get('status')!r} with length {length!r}")
            continue
        if r.get("optimal") and not solved:
            bad(f"{where}: marked optimal without a solution")
        if not solved:
            continue
        if not _whole(length):
            bad(f"{where}: length {length!r} is not a whole number >= 0")
            continue
        if r.get("instance_id") not in distance:
            distance[r.get("instance_id")] = _manhattan(r.get("start"), r.get("goal"), r.get("rows") or 0,
                                                        r.get("cols") or 0)
        md = distance[r.get("instance_id")]
        if md is None:
            bad(f"{where}: its start and goal are not boards of {r.get('rows')}x{r.get('cols')}")
        elif length < md or (length - md) % 2:
            bad(f"{where}: a path of {length} moves is impossible: the tiles are {md} moves apart (Manhattan), "
                "and every move changes that by one")
        if _whole(r.get("nodes_generated")) and r["nodes_generated"] < length:
            bad(f"{where}: {r['nodes_generated']} nodes generated cannot find a path of {length} moves")
        moves = r.get("moves")
        if check_moves and moves is not None and md is not None:
            problem = _moves_problem(moves, length, r)
            if problem:
                bad(f"{where}: instance {r.get('instance_id')} with {r.get('heuristic')}: {problem}")
        entry = record.get(r.get("heuristic"))
        inadmissible = isinstance(entry, dict) and entry.get("admissible") is False
        if r.get("optimal"):
            if inadmissible:
                bad(f"{where}: marked optimal, but the study found heuristic {r.get('heuristic')!r} inadmissible")
            optimal.setdefault(r.get("instance_id"), []).append((length, r.get("heuristic")))
            published = r.get("published_length")
            if published is not None and published != length:
                bad(f"{where}: an optimal length of {length}, the published optimum is {published}")
        elif not inadmissible:
            bad(f"{where}: solved but marked non-optimal, and the study recorded nothing against heuristic "
                f"{r.get('heuristic')!r} (its admissibility record)")
    for inst, found in optimal.items():
        if len({n for n, _ in found}) > 1:
            (a, ha), (b, hb) = min(found), max(found)
            bad(f"instance {inst!r}: {hb} found an optimal length of {b}, {ha} {a}: an optimal length is a "
                "property of the instance")
    if meta is not None:
        count = meta.get("count")
        if count is not None and count != len(ident):
            bad(f"its footer counts {count!r} instances, its rows hold {len(ident):,}")
        named = meta.get("heuristics")
        held = list(dict.fromkeys(r.get("heuristic") for r in rows))
        if isinstance(named, list) and set(named) != set(held):
            bad(f"its footer names the heuristics {named!r}, its rows hold {held!r}")
        run = meta.get("run_id")
        if run is not None and any(r.get("run_id") != run for r in rows):
            bad(f"its rows' run_id is not its footer's {run!r}")
    return out


# `verify_study`: solved rows re-solved by default, and the most nodes a re-solve may cost.
RESOLVE_SAMPLE = 3
RESOLVE_NODE_CAP = 2_000_000


def _resolvable(r: dict) -> str | None:
    """Why the row `r` is not re-solved by `verify_study` (None: it is)."""
    from fastsnake.puzzle.heuristics import REGISTRY

    spec = REGISTRY.get(r["heuristic"])
    if spec is None:
        return f"heuristic {r['heuristic']!r} is not registered here"
    if spec.tables:
        return f"heuristic {r['heuristic']!r} builds tables (too costly for a check)"
    if r["nodes_generated"] > RESOLVE_NODE_CAP:
        return f"{r['nodes_generated']:,} nodes (more than {RESOLVE_NODE_CAP:,})"
    return None


def resolve_rows(rows: list[dict], sample: int, seed: int) -> tuple[list[dict], list[str]]:
    """`sample` solved rows (drawn with `seed` among those cheap to re-solve: a table-free heuristic
    registered here, at most `RESOLVE_NODE_CAP` nodes) solved again with their heuristic, algorithm
    and options: node counts and lengths are deterministic, so each must be the row's. Returns
    (one entry per row re-solved: ``instance_id, heuristic, ok, problem``; the problems)."""
    import json

    cheap = [r for r in rows if r.get("status") == "solved" and _whole(r.get("nodes_generated"))
             and _resolvable(r) is None]
    if not cheap or sample <= 0:
        return [], []
    rng = np.random.default_rng(seed)
    picks = sorted(rng.choice(len(cheap), size=min(sample, len(cheap)), replace=False))
    done, problems = [], []
    for k in picks:
        r = cheap[int(k)]
        try:
            options = json.loads(r["options"] or "{}")
        except ValueError:
            options = {}
        prune = options.get("prune_depth") if isinstance(options, dict) else None
        try:
            found = solve(np.array([int(t) for t in r["start"].split()]), np.array([int(t) for t in r["goal"].split()]),
                          rows=r["rows"], cols=r["cols"], algorithm=r["algorithm"], heuristic=r["heuristic"],
                          max_nodes=max(16, r["nodes_generated"] + 16), prune_depth=prune)
            now = (found.length, found.nodes_generated, found.nodes_expanded)
        except B.PuzzleLimitError:
            now = (None, f"more than {r['nodes_generated'] + 16:,}", None)
        said = (r["length"], r["nodes_generated"], r["nodes_expanded"])
        problem = None if now == said else (
            f"instance {r['instance_id']!r}, {r['heuristic']}: the row says length {said[0]}, {said[1]:,} nodes "
            f"generated, {said[2]:,} expanded; solved again: length {now[0]}, {now[1]} generated, {now[2]} expanded")
        done.append({"instance_id": r["instance_id"], "heuristic": r["heuristic"], "ok": problem is None,
                     "problem": problem})
        if problem:
            problems.append(problem)
    return done, problems


def verify_study(path: str, resolve: int = RESOLVE_SAMPLE) -> dict:
    """`fastsnake verify` of a puzzle study rows file: its checksum (`fastsnake.study.rows`), every
    row (`row_problems`: statuses, figures, optimal flags against lengths and the admissibility
    record, counts against the footer) and `resolve` rows solved again (`resolve_rows`, drawn
    from the file's checksum: the same file, the same rows). Returns ``{"path", "kind": "puzzle
    study", "ok", "rows", "instances", "heuristics", "problems", "resolved", "not_resolved"}``;
    `fastsnake.study.rows.StudyFileError` when it is no readable study file."""
    from fastsnake.study.rows import StudyFileError, read_rows

    meta, table = read_rows(path, need_checksum=True)
    if meta.get("kind") != "puzzle":
        raise StudyFileError(f"study file {path!r} is a {meta.get('kind')!r} study, not a puzzle study")
    missing = [c for c in ROW_COLUMNS if c not in table.column_names and c not in LATER_COLUMNS]
    if missing:
        return {"path": str(path), "kind": "puzzle study", "ok": False, "rows": table.num_rows, "instances": 0,
                "heuristics": [], "problems": [f"it lacks the column(s) {', '.join(missing)}"], "resolved": [],
                "not_resolved": []}
    rows = table.to_pylist()
    problems = row_problems(rows, meta)
    resolved, wrong = ([], []) if problems else resolve_rows(rows, resolve, int(str(meta["checksum"])[-8:], 16))
    skipped = sorted({why for r in rows if r.get("status") == "solved" and (why := _resolvable(r))})
    return {"path": str(path), "kind": "puzzle study", "ok": not (problems or wrong), "rows": len(rows),
            "instances": len({r["instance_id"] for r in rows}),
            "heuristics": list(dict.fromkeys(r["heuristic"] for r in rows)), "problems": problems + wrong,
            "resolved": resolved, "not_resolved": skipped}


def baseline_from(path: str):
    """(identities by instance id, rows) of a saved rows file, checksum verified, its rows
    consistent with themselves and the instances (`row_problems`; the baseline rule)."""
    from fastsnake.study.rows import read_baseline

    return read_baseline(path, "puzzle", "instance_id", IDENTITY, StudyInputError, check=row_problems)


def check_baseline_instances(instances: list[Instance], heuristics: list[str], path: str, *,
                             allow_partial: bool = False, require_all: bool = False):
    """Before any search: the baseline `path` is a checksummed puzzle study whose instances are
    these, described alike, whose rows agree with themselves and with these instances' published
    optima (`row_problems`; the baseline rule), and that holds every one of these heuristics on all
    of them (some, with `allow_partial`), else `BaselineMismatch` (`fastsnake.study.baseline.gate`);
    with `require_all`, the run must also cover every instance and heuristic the baseline holds.
    Returns its rows (`check_baseline` decides again on what the run played)."""
    from fastsnake.study.baseline import gate, refuse, require_all_problem, require_all_refusal, same_trials

    ident, rows = baseline_from(path)
    same_trials({i.id: i.identity() for i in instances}, ident)
    optimum = {i.id: i.optimum for i in instances if i.optimum is not None}
    refuse(path, [f"instance {r['instance_id']!r}: {r['heuristic']} says an optimal length of {r['length']}, "
                  f"the published optimum is {optimum[r['instance_id']]}"
                  for r in rows if r["optimal"] and r["instance_id"] in optimum
                  and r["length"] != optimum[r["instance_id"]]])
    theirs: dict = {}
    for r in rows:
        theirs.setdefault(r["heuristic"], []).append(r["instance_id"])
    gate({h: [i.id for i in instances] for h in heuristics}, theirs, allow_partial=allow_partial,
         words=("heuristic", "instance"))
    if require_all:
        problem = require_all_problem([i.id for i in instances], [r["instance_id"] for r in rows], heuristics,
                                      theirs, words=("heuristic", "instance"))
        if problem is not None:
            raise require_all_refusal(problem)
    return rows


def stop_caps(base_rows: list[dict], stop_at: float | None) -> dict:
    """``{(heuristic, instance id): nodes}``: where a search of a run checked against `base_rows`
    stops, `stop_at` times the baseline's generated nodes on that instance (its solved rows; at
    least 16, `solve`'s least limit). Empty without `stop_at` (or 0: no stop)."""
    if not stop_at:
        return {}
    return {(r["heuristic"], r["instance_id"]): max(16, math.ceil(stop_at * r["nodes_generated"]))
            for r in base_rows if r["status"] == "solved" and r["nodes_generated"]}


def _solved_value(measure: str):
    def value(r):
        v = r.get(measure)
        # a search stopped past the baseline's nodes counts with what it spent: a lower bound
        return float(v) if r["status"] in ("solved", STOP_STATUS) and v is not None else math.nan
    return value


def check_baseline(study: Study, base_rows: list[dict], *, allow_partial: bool = False,
                   slower: float | None = None, require_all: bool = False, path: str = "baseline") -> dict:
    """Today's study against the baseline's rows, instance by instance, with the one gate logic
    (`fastsnake.study.baseline.compare_rows`): every heuristic/algorithm of the run on the same
    options and instances, else `BaselineMismatch` unless `allow_partial`; then nodes and
    CPU-seconds of each compared one on the instances both solved (CPU-seconds judged only with a
    share `slower`: worse beyond it; else reported; a search stopped at ``--stop-at`` counts with
    the nodes it spent, and makes its heuristic worse). The baseline rule: an optimal length of
    the baseline that today's optimal searches contradict is a refusal (`BaselineMismatch`); a
    heuristic whose node counts or lengths differ from the baseline's is judged, with a line in
    ``changed``; `require_all`: the baseline's instances not run are an error (unless worse)."""
    from fastsnake.study.baseline import compare_rows, refuse

    today = {}
    for r in study.rows:
        if r["optimal"]:
            today.setdefault(r["instance_id"], (r["length"], r["heuristic"]))
    refuse(path, [f"instance {r['instance_id']!r}: the baseline's {r['heuristic']} says an optimal length of "
                  f"{r['length']}, today's optimal search ({today[r['instance_id']][1]}) finds "
                  f"{today[r['instance_id']][0]}: an optimal length is a property of the instance"
                  for r in base_rows if r["optimal"] and r["instance_id"] in today
                  and r["length"] != today[r["instance_id"]][0]])
    return compare_rows(study.rows, base_rows, key=lambda r: f"{r['heuristic']}/{r['algorithm']}",
                        trial=lambda r: r["instance_id"],
                        measures=lambda k: [(m, _solved_value(m)) for m in RATIO_MEASURES],
                        conditions=("options",), allow_partial=allow_partial, words=("heuristic", "instance"),
                        slower=slower, same=("status", "length", "nodes_generated", "nodes_expanded"),
                        what="search", stopped=lambda r: r["status"] == STOP_STATUS, require_all=require_all)


def study_tables(summary: dict) -> list:
    """The summary as two `fastsnake.study.tables.Table`s: ``heuristics`` (one row per heuristic and
    measure: mean with ``ci_low``/``ci_high``, median with its interval) and ``pairs`` (one row per
    pair and measure: the geometric mean ratio heuristic / baseline as ``mean`` with its interval,
    the lower/equal/higher counts, Wilcoxon's ``p`` and Holm's ``p_holm``, each with its ``_bound``
    column: ``=`` for a value, ``<`` for a bound)."""
    from fastsnake.study.tables import Table, interval_columns, p_columns, paired_p_cells

    per = Table("heuristics", ["heuristic", "algorithm", "instances", "solved", "measure", "n", "mean", "ci_low",
                               "ci_high", "median", "median_ci_low", "median_ci_high"],
                title="per heuristic, over its solved instances (95 % intervals)")
    for name, s in summary["heuristics"].items():
        for m in MEASURES:
            d = s[m]
            per.rows.append({"heuristic": name, "algorithm": s["algorithm"], "instances": s["instances"],
                             "solved": s["solved"], "measure": m, "n": d["n"], "mean": d["mean"],
                             **interval_columns("", d["mean_ci95"]), "median": d["median"],
                             **interval_columns("median", d["median_ci95"])})
    floor = (summary.get("floor") or {}).get("text")
    pairs = Table("pairs", ["heuristic", "baseline", "measure", "n", "mean", "ci_low", "ci_high", "lower", "equal",
                            "higher", *p_columns("p"), *p_columns("p_holm"), "significant"],
                  title="per pair, on the instances both solved: geometric mean of heuristic / baseline "
                        "(95 % intervals), Wilcoxon signed-rank p, Holm-adjusted"
                        + (f"; CPU-s within the noise floor ({floor}) not significant" if floor else ""))
    for entry in summary["pairs"]:
        for m in RATIO_MEASURES:
            r = entry[m]
            pairs.rows.append({"heuristic": entry["heuristic"], "baseline": entry["baseline"], "measure": m,
                               "n": r["n"], "mean": r["ratio"], **interval_columns("", r["ratio_ci95"]),
                               "lower": r["lower"], "equal": r["equal"], "higher": r["higher"],
                               **paired_p_cells(r), "significant": r.get("significant")})
    return [per, pairs]


def precision_figures(summary: dict) -> list:
    """The figures `--precision` narrows: every pair's node ratio (half the interval's width against
    the ratio). Node counts only, never timing: the same call plays the same instances (the CPU
    ratios are reported with their intervals, as measured)."""
    from fastsnake.study.precision import Figure

    out = []
    for entry in summary["pairs"]:
        for m in PRECISION_MEASURES:
            r = entry[m]
            ci = r["ratio_ci95"]
            out.append(Figure(f"{entry['heuristic']}/{entry['baseline']} {m} ratio",
                              None if ci is None else (ci[1] - ci[0]) / 2, r["ratio"]))
    return out


def run_to_precision(spec_rows: int, spec_cols: int, heuristics, algorithm: str, *, target: float, cap: int,
                     seed: int = 0, goal=None, all_pairs: bool = False, **kwargs) -> tuple[Study, dict]:
    """Random instances in rounds until every pairwise node ratio's 95 % interval is within `target`
    (half-width <= target x ratio) or `cap` instances: instance k is always the k-th of `seed`, so
    the rounds play a prefix of the plain study. Returns (study, precision info)."""
    from fastsnake.study.precision import check_precision, next_total, worst

    target = check_precision(target, StudyInputError)
    if len(check_heuristics(heuristics)) < 2:
        raise StudyInputError("precision applies to pair ratios: name at least two heuristics")
    instances = load_instances("random", rows=spec_rows, cols=spec_cols, count=cap, seed=seed, goal=goal)
    done, total, rounds = 0, min(cap, FIRST_PRECISION_ROUND), 0
    study = None
    while True:
        rounds += 1
        study = run_study(instances[done:total], heuristics, algorithm, study=study, **kwargs)
        done = len(study.instances)
        limit = worst(precision_figures(summarize(study, all_pairs)), target)
        ratio = limit.ratio(target)
        if study.interrupted or ratio <= 1 or done >= cap:
            break
        total = next_total(done, cap, ratio)
    return study, {"target": target, "reached": bool(ratio <= 1), "instances": done, "cap": int(cap),
                   "rounds": rounds, "limiting": limit.name,
                   "limiting_half_width": None if math.isinf(ratio) else ratio * target}


# The first round of a precision run (or the cap, when smaller).
FIRST_PRECISION_ROUND = 20
