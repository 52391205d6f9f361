"""Tour studies: methods compared over boards, pieces and start squares (`fastsnake tour compare`).

A trial is (board, piece, closed or open, start square); a method is any registered one
(`fastsnake.tour.methods`): a seeded one (``search``: Warnsdorff's rule, Roth's tie-break, then the
seeded hash among equal keys) runs once per tie-break seed, the others once (``construct``: the
knight's divide-and-conquer construction); where a method does not apply the trial is
``inapplicable`` and left out of that method's rate. Every method runs every trial
(trial-major), timed in process CPU-seconds with the kernels loaded beforehand. `summarize` gives
per method, board and piece the success rate with its Wilson interval, nodes and CPU-seconds
described with 95 % intervals (`fastsnake.study.stats`), and per pair of methods the geometric
mean CPU ratio on the trials both finished; `rows_table` the rows (`ROW_COLUMNS`) for
`fastsnake.study.rows`; `check_baseline` pairs a run with a saved rows file.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from fastsnake.study import stats as S
from fastsnake.study.intervals import wilson_ci95
from fastsnake.study.rows import canonical_json, new_run_id
from fastsnake.tour import methods as registry
from fastsnake.tour.pieces import Piece, TourInputError, parse_piece, square_name
from fastsnake.tour.tour import find_tour

ROW_COLUMNS = ("trial_id", "rows", "cols", "piece", "closed", "start", "method", "seed", "options", "status",
               "found", "exists", "nodes", "cpu_seconds", "method_used", "moves", "fastsnake_version", "run_id")
# The columns a file of an older fastsnake may lack: ``moves`` (since 0.2.0).
LATER_COLUMNS = ("moves",)
# The rows whose tours a rows file keeps (`fastsnake.study.picks`): per method and seed, the tours a
# report can pick (most and fewest nodes); the page never searches.
PICKABLE = {"length": "nodes", "nodes": "nodes", "ok": lambda r: bool(r["found"]),
            "arm": lambda r: (r["method"], r["seed"])}
# A kept tour's jumps, one character each: the index of the jump in the piece's jump list.
JUMP_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
IDENTITY = ("rows", "cols", "piece", "closed", "start")
# A row's status: a tour found, none (proved impossible: exists=false), a limit reached first, or no
# construction for the board and piece.
STATUSES = ("found", "none", "limit", "inapplicable")
# Problems `row_problems` lists (their count is whole); trials `verify_study` finds again by default.
KEPT_PROBLEMS = 20
REFIND_SAMPLE = 3
# The largest board a tour study takes (every start square of every board is a trial).
MAX_STUDY_CELLS = 64 * 64


@dataclass(frozen=True)
class Trial:
    rows: int
    cols: int
    piece: Piece
    closed: bool
    start: int

    @property
    def id(self) -> str:
        return f"{self.rows}x{self.cols}/{self.piece.name}/{'closed' if self.closed else 'open'}/" \
               f"{square_name(self.start, self.rows, self.cols)}"

    def identity(self) -> dict:
        return {"rows": self.rows, "cols": self.cols, "piece": self.piece.name, "closed": self.closed,
                "start": self.start}


def trials(sizes, pieces, closed: bool = False, starts: str = "all") -> list[Trial]:
    """Every (board, piece, start) of the study; `starts`: ``all`` squares or ``corner`` (0 only).
    `sizes` are (rows, cols) pairs, `pieces` `parse_piece` inputs (each one piece)."""
    if starts not in ("all", "corner"):
        raise TourInputError(f"starts={starts!r} is not 'all' or 'corner'")
    parsed = [p if isinstance(p, Piece) else parse_piece(p) for p in (pieces or ["1,2"])]
    out = []
    for rows, cols in sizes:
        if rows * cols > MAX_STUDY_CELLS:
            raise TourInputError(f"board {rows}x{cols} is too big for a study (at most {MAX_STUDY_CELLS:,} cells, "
                                 "every start square a trial)")
        for piece in parsed:
            for start in (range(rows * cols) if starts == "all" else [0]):
                out.append(Trial(rows, cols, piece, bool(closed), start))
    return out


def __getattr__(name):
    if name == "METHODS":  # the registered methods' names (was a fixed tuple)
        return tuple(registry.method_names())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_methods(methods, seeds) -> list[tuple[str, int]]:
    """(method, seed) pairs: each seeded method (`TourMethod.seeded`) once per tie-break seed, the others
    once; `methods` None: every built-in method."""
    if methods is None:
        methods = registry.builtin_names()
    methods = [m.strip() for m in (methods.split(",") if isinstance(methods, str) else methods) if m.strip()]
    if not methods:
        raise TourInputError("a study needs at least one method")
    names = registry.method_names()
    for m in methods:
        if m not in names:
            raise TourInputError(f"method {m!r} is not one of {', '.join(names)}")
    out = []
    for m in dict.fromkeys(methods):
        out.extend([(m, int(s)) for s in seeds] if _seeded(m) else [(m, 0)])
    return out


def _seeded(method: str) -> bool:
    """Whether the method takes a tie-break seed: a built-in's declaration (read without importing
    it), else the loaded method's (False for a name no method holds, e.g. in an old rows file)."""
    return bool(_declared(method, "seeded"))


def _declared(method: str, field: str):
    if method in registry.builtin_names():
        return registry.declared_fields(method)[field]
    try:
        return getattr(registry.get_method(method), field)
    except registry.TourMethodError:
        return None


def label(method: str, seed: int) -> str:
    """An arm's label: ``NAME seed=S`` for a seeded method, else its name."""
    return f"{method} seed={seed}" if _seeded(method) else method


def _searches(arm: str) -> bool:
    """Whether an arm's method counts search nodes (`TourMethod.searches`)."""
    return bool(_declared(arm.split(" seed=")[0], "searches"))


@dataclass
class TourStudy:
    arms: list
    trials: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    run_id: str = ""
    options: dict = field(default_factory=dict)
    interrupted: bool = False
    # what the runner did (`fastsnake.runs.RunOutcome`): chunks resumed, computed, redone, workers
    run_outcome: object = None


def run_study(all_trials: list[Trial], arms, *, time_limit: float | None = 10.0, max_nodes: int | None = None,
              progress=None, run_id: str | None = None, workers: int = 1, cluster: str | None = None, folder=None,
              bar: bool = False, warn=None) -> TourStudy:
    """Every arm (method, seed) on every trial; Ctrl-C keeps the finished trials.

    The trials run on `workers` processes of this machine (1: this process) or on the dask `cluster`
    (``local:N`` or a scheduler address), each trial (all its arms) a unit of the runner
    (`fastsnake.runs`), in chunks of `chunk_size_for`; the rows are the same whatever runs them (but
    CPU-seconds), in the same order. `folder`: a run folder (a path) the finished chunks are kept
    in; the same call again computes only those missing (another study's folder is refused,
    `RunFolderError`). `bar`: one progress line on stderr (a terminal)."""
    from fastsnake import __version__, runs

    options = {k: v for k, v in {"time_limit": time_limit, "max_nodes": max_nodes}.items() if v is not None}
    run_folder = None
    if folder is not None:
        listed = [[t.id, t.piece.name, [list(j) for j in t.piece.jump_list]] for t in all_trials]
        identity = {"kind": "tour-study", "trials": len(all_trials),
                    "trials_sha256": runs.folder.identity_digest({"trials": listed}),
                    "arms": [list(a) for a in arms], "options": options}
        run_folder = runs.RunFolder.create_or_resume(folder, identity, len(all_trials), chunk_size_for(len(all_trials)),
                                                     run_id=run_id or new_run_id())
        run_id = run_folder.run_id
    study = TourStudy(list(arms), run_id=run_id or new_run_id(), options=options)
    from fastsnake.tour.methods import builtin_names, get_method

    own = set(builtin_names())
    spec = {"arms": [tuple(a) for a in arms], "time_limit": time_limit, "max_nodes": max_nodes,
            "options_text": canonical_json(options), "run_id": study.run_id, "version": __version__,
            "warm": all_trials[0] if all_trials else None,
            # methods of other packages or of this process: registered again in every worker
            "methods": [get_method(m) for m in dict.fromkeys(m for m, _ in arms) if m not in own]}
    # kernels loaded before any timed search, here only when the trials run here (workers load their own)
    here = trial_setup(dict(spec, methods=[])) if all_trials and workers <= 1 and not cluster else None
    finished = []
    behind = []  # the summary's scipy import, on a thread while workers search (none here: no wait)

    def on_chunk(index, first, results):
        finished.append(len(results))
        if not behind and (cluster or workers > 1):
            behind.append(S.import_scipy_stats_behind())
        if progress is not None and not bar:
            done = sum(finished)
            if done // 50 != (done - len(results)) // 50 or done == len(all_trials):
                progress(f"{done}/{len(all_trials)} trials")

    # kernels: what a cluster's workers get
    job = runs.Job(trial_rows, spec, trial_setup, kernels=("tour",), finish=chunk_rows)
    size = run_folder.chunk_size if run_folder is not None else chunk_size_for(len(all_trials))
    outcome = runs.run(all_trials, job, workers=workers, cluster=cluster, chunk_size=size, folder=run_folder,
                       order=chunk_order(all_trials, size), progress=bar or None, on_chunk=on_chunk, state=here,
                       label="tour study", warn=warn)
    for thread in behind:
        thread.join()
    study.interrupted = outcome.interrupted
    study.run_outcome = outcome
    for t, rows in zip(all_trials, outcome.results, strict=True):
        if rows is not None:
            study.rows.extend(rows)
            study.trials.append(t)
    # The moves of the rows a report can pick over the whole study, as its rows file keeps them (the
    # chunks kept those of their own picks; a folder of an older version, every found tour's).
    from fastsnake.study.picks import MOVES_COLUMN, pickable

    kept = pickable(study.rows, **PICKABLE)
    for k, r in enumerate(study.rows):
        if k not in kept and r.get(MOVES_COLUMN) is not None:
            r[MOVES_COLUMN] = None
    return study


def tour_moves(path, piece: Piece, cols: int) -> str | None:
    """A tour as a rows file keeps it: each jump's index in ``piece.jump_list`` as one character of
    `JUMP_DIGITS` (None for no path, or a piece of more jumps than there are characters)."""
    if path is None or len(piece.jump_list) > len(JUMP_DIGITS):
        return None
    cells = np.asarray(path, dtype=np.int64).ravel()
    if cells.size < 2:
        return ""
    table, reach = _jump_digits(piece)
    dr, dc = np.diff(cells // cols), np.diff(cells % cols)
    off = (np.abs(dr) > reach) | (np.abs(dc) > reach)
    codes = table[np.where(off, 0, dr + reach), np.where(off, 0, dc + reach)]
    codes[off] = 0
    if not codes.all():  # a step that is no jump: not a tour of this piece (a caller's bug)
        k = int(np.flatnonzero(codes == 0)[0])
        raise ValueError(f"tour moves: step {k} ({int(dr[k])},{int(dc[k])}) is no jump of {piece.name}")
    return codes.tobytes().decode("ascii")


@functools.lru_cache(maxsize=64)
def _jump_digits(piece: Piece) -> tuple[np.ndarray, int]:
    """(table, reach): ``table[dr + reach, dc + reach]`` is the ASCII code of jump (dr, dc)'s
    character in `JUMP_DIGITS` (0: no jump); `tour_moves` encodes a whole tour with one lookup."""
    reach = max((max(abs(dr), abs(dc)) for dr, dc in piece.jump_list), default=0)
    table = np.zeros((2 * reach + 1, 2 * reach + 1), np.uint8)
    for k, (dr, dc) in enumerate(piece.jump_list):  # a jump listed twice: its last index, as before
        table[dr + reach, dc + reach] = ord(JUMP_DIGITS[k])
    table.flags.writeable = False
    return table, reach


def tour_path(moves: str, start: int, piece: Piece, rows: int, cols: int) -> list[int]:
    """The squares of a kept tour (`tour_moves`) from `start`; `TourInputError` for a character
    that is no jump of `piece` or a jump off the board."""
    r, c = divmod(int(start), cols)
    out = [int(start)]
    for ch in moves:
        k = JUMP_DIGITS.find(ch)
        if not 0 <= k < len(piece.jump_list):
            raise TourInputError(f"tour moves: {ch!r} is not a jump of {piece.name}")
        dr, dc = piece.jump_list[k]
        r, c = r + dr, c + dc
        if not (0 <= r < rows and 0 <= c < cols):
            raise TourInputError(f"tour moves: jump {len(out)} leaves the {rows}x{cols} board")
        out.append(r * cols + c)
    return out


def chunk_size_for(trials: int) -> int:
    """Trials a chunk of a tour study holds: about `STUDY_CHUNKS` chunks whatever the study's size (a
    trial takes milliseconds; a chunk's file and its bookkeeping, about one)."""
    return max(1, -(-trials // STUDY_CHUNKS))


# Chunks a tour study is cut into (at most; fewer when it has fewer trials).
STUDY_CHUNKS = 256


def chunk_order(all_trials: list[Trial], chunk_size: int) -> list[int]:
    """The chunks' start order: the most squares first (a trial's search or construction takes time
    about its board's squares), ties in chunk order; so that a study of a few big boards, a chunk a
    trial, leaves no worker alone with the biggest board at the end. The rows keep trial order."""
    n = -(-len(all_trials) // chunk_size)
    cost = [sum(t.rows * t.cols for t in all_trials[i * chunk_size:(i + 1) * chunk_size]) for i in range(n)]
    return sorted(range(n), key=lambda i: -cost[i])


def trial_setup(spec: dict) -> dict:
    """A worker's state: the spec, the tour kernels loaded by one untimed search first."""
    from fastsnake.tour.methods import register_tour_method

    for method in spec.get("methods", ()):
        register_tour_method(method, replace_existing=True)
    t = spec["warm"]
    if t is not None:
        find_tour(t.piece, t.rows, t.cols, t.start, closed=t.closed, method="search", time_limit=spec["time_limit"])
    return spec


def trial_rows(spec: dict, t: Trial) -> list[dict]:
    """Every arm of the study on trial `t`: its rows, each timed in this process's CPU-seconds."""
    found = []
    for method, seed in spec["arms"]:
        c0 = time.process_time()
        try:
            r = find_tour(t.piece, t.rows, t.cols, t.start, closed=t.closed, method=method, seed=seed,
                          time_limit=spec["time_limit"], max_nodes=spec["max_nodes"])
            status = "found" if r.found else ("none" if r.exists is False else "limit")
            row = {"found": bool(r.found), "exists": r.exists, "nodes": int(r.nodes), "method_used": r.method,
                   "moves": None}
            path = r.path if r.found else None
        except TourInputError:  # the method does not apply here (`methods.MethodInapplicable`)
            status = "inapplicable"
            row = {"found": False, "exists": None, "nodes": 0, "method_used": None, "moves": None}
            path = None
        cpu = time.process_time() - c0
        found.append({"trial_id": t.id, "rows": t.rows, "cols": t.cols, "piece": t.piece.name,
                      "closed": t.closed, "start": t.start, "method": method, "seed": seed,
                      "options": spec["options_text"], "status": status, **row, "cpu_seconds": cpu,
                      "fastsnake_version": spec["version"], "run_id": spec["run_id"],
                      _TOUR: (path, t.piece) if path is not None else None})
    return found


# A row's tour until its chunk is finished (`chunk_rows`): (path, piece), never in a returned row.
_TOUR = "_tour"


def chunk_rows(spec: dict, results: list) -> list:
    """A chunk's rows as they leave the worker (`runs.Job.finish`): the moves encoded (`tour_moves`)
    for the rows a report can pick within the chunk (`study.picks`: the rows picked over the whole
    study are among each chunk's, so the study keeps every move it can show) and None on the others.
    A found tour's moves are thousands of characters; a study of tens of thousands of trials would
    otherwise encode, send and drop hundreds of megabytes."""
    from fastsnake.study.picks import MOVES_COLUMN, pickable

    flat = [r for rows in results for r in rows]
    kept = pickable(flat, **PICKABLE)
    for k, r in enumerate(flat):
        tour = r.pop(_TOUR, None)
        if k in kept and tour is not None:
            r[MOVES_COLUMN] = tour_moves(tour[0], tour[1], r["cols"])
    return results


def summarize(study: TourStudy, noise_floor: dict | None = None) -> dict:
    """``methods``: per arm label, board and piece (and ``all``): trials, applicable, found, the
    success rate and its Wilson 95 % interval, nodes and CPU-seconds `describe`d over the found
    tours; ``pairs``: each arm against the first, the geometric mean CPU ratio on trials both
    found (`paired_ratio`), Holm-adjusted."""
    groups = {}
    impossible = impossible_trials(study.rows)
    labels: dict = {}  # (method, seed) -> its label, looked up once (a registry read each)
    for r in study.rows:
        key = (r["method"], r["seed"])
        arm = labels.get(key) or labels.setdefault(key, label(*key))
        for key in ((arm, f"{r['rows']}x{r['cols']}", r["piece"]), (arm, "all", "all")):
            groups.setdefault(key, []).append(r)
    methods = []
    for (arm, board, piece), rows in groups.items():
        applicable = [r for r in rows if r["status"] != "inapplicable"]
        # success among the starts where a tour may exist: a proved impossibility is no failure
        possible = [r for r in applicable if r["trial_id"] not in impossible]
        found = [r for r in possible if r["found"]]
        methods.append({"method": arm, "board": board, "piece": piece, "trials": len(rows),
                        "applicable": len(applicable), "impossible": len(applicable) - len(possible),
                        "possible": len(possible), "found": len(found),
                        "success_rate": len(found) / len(possible) if possible else None,
                        "success_rate_ci95": wilson_ci95(len(found), len(possible)),
                        "nodes": S.describe([r["nodes"] for r in found]),
                        "cpu_seconds": S.describe([r["cpu_seconds"] for r in found])})
    order = {label(m, s): k for k, (m, s) in enumerate(study.arms)}
    methods.sort(key=lambda m: (m["board"] == "all", m["board"], m["piece"], order.get(m["method"], 0)))
    arms = [label(m, s) for m, s in study.arms]
    ids = [t.id for t in study.trials]

    trial_rows_of: dict = {}  # arm label -> {trial id: its row}, made once per arm

    def values(arm, measure):
        by = trial_rows_of.get(arm)
        if by is None:
            by = trial_rows_of[arm] = {r["trial_id"]: r for r in groups.get((arm, "all", "all"), ())}
        return np.array([by[i][measure] if i in by and by[i]["found"] else np.nan for i in ids], dtype=float)

    from fastsnake.study.noise import judge_cpu, significant

    floor = noise_floor if noise_floor is not None else _floor()
    pairs = []
    for a in arms[1:]:
        entry = {"method": a, "baseline": arms[0]}
        if _searches(a) and _searches(arms[0]):  # both count search nodes (`TourMethod.searches`)
            entry["nodes"] = S.paired_ratio(values(a, "nodes"), values(arms[0], "nodes"))
        this, base = values(a, "cpu_seconds"), values(arms[0], "cpu_seconds")
        entry["cpu_seconds"] = judge_cpu(S.paired_ratio(this, base), this, base, floor)
        pairs.append(entry)
    for m in ("nodes", "cpu_seconds"):
        have = [e for e in pairs if m in e]
        for entry, p in zip(have, S.holm([S.p_of(e[m]) for e in have]), strict=True):
            entry[m]["p_holm"] = p
            entry[m]["significant"] = significant(entry[m])
    return {"trials": len(ids), "methods": methods, "pairs": pairs, "impossible": len(impossible),
            "floor": floor}


def _floor() -> dict:
    from fastsnake.study.noise import cpu_noise_floor

    return cpu_noise_floor()


def impossible_trials(rows: list[dict]) -> set:
    """The trials some method proved to have no tour (``exists`` false) and none found one."""
    found = {r["trial_id"] for r in rows if r["found"]}
    return {r["trial_id"] for r in rows if r["exists"] is False and r["trial_id"] not in found}


def study_tables(summary: dict) -> list:
    """``methods`` (success rate among the trials where a tour may exist as ``mean`` with
    ``ci_low``/``ci_high``, the trials proved impossible apart, mean nodes and CPU-s with their
    intervals) and ``pairs`` (per measure, nodes of searches and CPU-seconds: the geometric mean
    ratio as ``mean`` with its interval, Wilcoxon's ``p`` and Holm's ``p_holm``, each with its
    ``_bound`` column: ``=`` for a value, ``<`` for a bound; ``significant``: for CPU-seconds,
    false within the noise floor whatever p says)."""
    from fastsnake.study.noise import significant
    from fastsnake.study.tables import Table, interval_columns, p_columns, paired_p_cells

    t = Table("methods", ["method", "board", "piece", "trials", "applicable", "impossible", "found", "mean",
                          "ci_low", "ci_high", "nodes", "nodes_ci_low", "nodes_ci_high", "cpu_seconds",
                          "cpu_seconds_ci_low", "cpu_seconds_ci_high"],
              title="success rate among the starts where a tour may exist (mean, Wilson 95 %; starts proved "
                    "impossible apart) and mean nodes and CPU-s of the tours found")
    for m in summary["methods"]:
        t.rows.append({k: m.get(k) for k in ("method", "board", "piece", "trials", "applicable", "impossible",
                                              "found")}
                      | {"mean": m["success_rate"], **interval_columns("", m["success_rate_ci95"]),
                         "nodes": m["nodes"]["mean"], **interval_columns("nodes", m["nodes"]["mean_ci95"]),
                         "cpu_seconds": m["cpu_seconds"]["mean"],
                         **interval_columns("cpu_seconds", m["cpu_seconds"]["mean_ci95"])})
    floor = summary.get("floor") or {}
    p = Table("pairs", ["method", "baseline", "measure", "n", "mean", "ci_low", "ci_high", *p_columns("p"),
                        *p_columns("p_holm"), "significant"],
              title="ratio method / baseline on the trials both found (geometric mean); CPU-s differences within "
                    f"the noise floor ({floor.get('text', 'not measured')}) are not significant")
    for e in summary["pairs"]:
        for measure in ("nodes", "cpu_seconds"):
            r = e.get(measure)
            if r is None:
                continue
            p.rows.append({"method": e["method"], "baseline": e["baseline"], "measure": measure, "n": r["n"],
                           "mean": r["ratio"], **interval_columns("", r["ratio_ci95"]), **paired_p_cells(r),
                           "significant": significant(r)})
    return [t, p]


def rows_table(rows: list[dict]):
    """The rows as an Arrow table of `ROW_COLUMNS`; ``moves`` kept only on the rows a report can
    pick (`PICKABLE`), None on the others."""
    from operator import itemgetter

    import pyarrow as pa

    from fastsnake.study.picks import MOVES_COLUMN, pickable

    kept = pickable(rows, **PICKABLE)
    words = pa.dictionary(pa.int32(), pa.string())
    types = {"trial_id": pa.string(), "rows": pa.int16(), "cols": pa.int16(), "piece": words, "closed": pa.bool_(),
             "start": pa.int32(), "method": words, "seed": pa.int64(), "options": words, "status": words,
             "found": pa.bool_(), "exists": pa.bool_(), "nodes": pa.int64(), "cpu_seconds": pa.float64(),
             "method_used": words, "moves": pa.string(), "fastsnake_version": words, "run_id": words}
    arrays = {}
    for c in ROW_COLUMNS:
        if c == MOVES_COLUMN:  # `keep_pickable_moves` without copying the rows
            values = [None] * len(rows)
            for k in kept:
                values[k] = rows[k].get(c)
        else:
            try:
                values = list(map(itemgetter(c), rows))
            except KeyError:  # a row without the column (`LATER_COLUMNS`): None there
                values = [r.get(c) for r in rows]
        arrays[c] = (pa.array(values, pa.string()).dictionary_encode() if pa.types.is_dictionary(types[c])
                     else pa.array(values, types[c]))
    return pa.table(arrays)


def study_meta(study: TourStudy) -> dict:
    return {"kind": "tour", "run_id": study.run_id, "arms": [list(a) for a in study.arms],
            "options": study.options, "interrupted": study.interrupted, "count": len(study.trials)}


def trial_id(r: dict) -> str | None:
    """The id a row's identity columns give (`Trial.id`), or None when they cannot be one."""
    try:
        rows, cols, start = int(r["rows"]), int(r["cols"]), int(r["start"])
    except (TypeError, ValueError, KeyError):
        return None
    if rows < 1 or cols < 1 or not 0 <= start < rows * cols:
        return None
    return f"{rows}x{cols}/{r.get('piece')}/{'closed' if r.get('closed') else 'open'}/{square_name(start, rows, cols)}"


def _moves_problem(r: dict) -> str | None:
    """Why a row's kept tour (`tour_moves`) is not a tour of its board from its start (None: it is)."""
    try:
        piece = parse_piece(r["piece"])
        path = tour_path(r["moves"], r["start"], piece, r["rows"], r["cols"])
    except (TourInputError, TypeError, ValueError) as exc:
        return f"its kept tour is none: {exc}"
    if not r.get("found"):
        return "it keeps a tour but found none"
    if len(path) != r["rows"] * r["cols"] or len(set(path)) != len(path):
        return f"its kept tour visits {len(set(path)):,} of the {r['rows'] * r['cols']:,} squares"
    return None


def row_problems(rows: list[dict], meta: dict | None = None, check_moves: bool = True) -> list[str]:
    """What in a tour study's rows contradicts the rows themselves or the footer `meta` (one line
    each, at most `KEPT_PROBLEMS`): a status outside `STATUSES`, ``found`` or ``exists`` that
    disagree with it, nodes or CPU-seconds that are not finite numbers >= 0, a trial id its board,
    piece and start do not give, a trial one method proved impossible (``exists`` false) where
    another found a tour, a (trial, method, seed) twice, counts the footer does not match, and
    (`check_moves`) a kept tour that is not one.
    `fastsnake verify`, the report and ``--baseline-from`` read a study through it."""
    out: list[str] = []

    def bad(text):
        if len(out) < KEPT_PROBLEMS:
            out.append(text)

    seen, found, impossible = set(), {}, {}
    for k, r in enumerate(rows):
        where = f"row {k} ({r.get('trial_id')!r}, {r.get('method')!r})"
        status = r.get("status")
        if status not in STATUSES:
            bad(f"{where}: status {str(status)[:40]!r} is not one of {', '.join(STATUSES)}")
        elif bool(r.get("found")) != (status == "found"):
            bad(f"{where}: status {status!r} with found={r.get('found')!r}")
        elif (r.get("exists") is False) != (status == "none"):
            bad(f"{where}: status {status!r} with exists={r.get('exists')!r}")
        elif status == "found" and r.get("exists") is not True:
            bad(f"{where}: a tour found, but exists={r.get('exists')!r}")
        nodes, cpu = r.get("nodes"), r.get("cpu_seconds")
        if not (isinstance(nodes, int) and not isinstance(nodes, bool) and nodes >= 0):
            bad(f"{where}: nodes {nodes!r} is not a whole number >= 0")
        if not (isinstance(cpu, (int, float)) and not isinstance(cpu, bool) and math.isfinite(cpu) and cpu >= 0):
            bad(f"{where}: cpu_seconds {cpu!r} is not a finite number >= 0")
        if trial_id(r) != r.get("trial_id"):
            bad(f"{where}: its board, piece and start make the trial {trial_id(r)!r}")
        elif check_moves and r.get("moves") is not None:
            problem = _moves_problem(r)
            if problem:
                bad(f"{where}: {problem}")
        key = (r.get("trial_id"), r.get("method"), r.get("seed"))
        if key in seen:
            bad(f"{where}: the trial and method appear twice")
        seen.add(key)
        if r.get("found"):
            found.setdefault(r.get("trial_id"), label(r.get("method"), r.get("seed")))
        if r.get("exists") is False:
            impossible.setdefault(r.get("trial_id"), label(r.get("method"), r.get("seed")))
    for t, who in impossible.items():
        if t in found:
            bad(f"trial {t!r}: {who} says no tour exists (exists=false), {found[t]} found one")
    if meta is not None:
        count = meta.get("count")
        trials = {r.get("trial_id") for r in rows}
        if count is not None and count != len(trials):
            bad(f"its footer counts {count!r} trials, its rows hold {len(trials):,}")
        arms = meta.get("arms")
        held = {(r.get("method"), r.get("seed")) for r in rows}
        if isinstance(arms, list) and {tuple(a) for a in arms if isinstance(a, list)} != held:
            bad(f"its footer names the methods {arms!r}, its rows hold {sorted(held, key=str)!r}")
        run = meta.get("run_id")
        if run is not None and any(r.get("run_id") != run for r in rows):
            bad(f"its rows' run_id is not its footer's {run!r}")
    return out


def refind_rows(rows: list[dict], sample: int, seed: int) -> tuple[list[dict], list[str]]:
    """`sample` rows that found a tour or proved none (drawn with `seed`; boards of at most 100
    cells, without a time limit reached) found again with their method and seed: the result
    (found, exists) and, for searches, the nodes must be the row's. (entries, problems)."""
    cheap = [r for r in rows if r.get("status") in ("found", "none") and (r.get("rows") or 0) * (r.get("cols") or 0)
             <= 100]
    if not cheap or sample <= 0:
        return [], []
    rng = np.random.default_rng(seed)
    done, problems = [], []
    for k in sorted(rng.choice(len(cheap), size=min(sample, len(cheap)), replace=False)):
        r = cheap[int(k)]
        t = find_tour(r["piece"], r["rows"], r["cols"], r["start"], closed=r["closed"], method=r["method"],
                      seed=r["seed"], time_limit=None)
        nodes = _searches(r["method"])  # a search's nodes are part of its answer
        now = (bool(t.found), t.exists, int(t.nodes) if nodes else None)
        said = (bool(r["found"]), r["exists"], r["nodes"] if nodes else None)
        problem = None if now == said else (f"trial {r['trial_id']!r}, {label(r['method'], r['seed'])}: the row says "
                                            f"found={said[0]}, exists={said[1]}, nodes {said[2]}; found again: "
                                            f"found={now[0]}, exists={now[1]}, nodes {now[2]}")
        done.append({"trial_id": r["trial_id"], "method": label(r["method"], r["seed"]), "ok": problem is None,
                     "problem": problem})
        if problem:
            problems.append(problem)
    return done, problems


def verify_study(path: str, resolve: int = REFIND_SAMPLE) -> dict:
    """`fastsnake verify` of a tour study rows file: its checksum, every row (`row_problems`) and
    `resolve` rows found again (`refind_rows`, drawn from the file's checksum). Returns ``{"path",
    "kind": "tour study", "ok", "rows", "trials", "methods", "problems", "resolved"}``."""
    from fastsnake.study.rows import StudyFileError, read_rows

    meta, table = read_rows(path, need_checksum=True)
    if meta.get("kind") != "tour":
        raise StudyFileError(f"study file {path!r} is a {meta.get('kind')!r} study, not a tour study")
    missing = [c for c in ROW_COLUMNS if c not in table.column_names and c not in LATER_COLUMNS]
    rows = table.to_pylist() if not missing else []
    problems = [f"it lacks the column(s) {', '.join(missing)}"] if missing else row_problems(rows, meta)
    resolved, wrong = ([], []) if problems else refind_rows(rows, resolve, int(str(meta["checksum"])[-8:], 16))
    return {"path": str(path), "kind": "tour study", "ok": not (problems or wrong), "rows": table.num_rows,
            "trials": len({r["trial_id"] for r in rows}),
            "methods": list(dict.fromkeys(label(r["method"], r["seed"]) for r in rows)),
            "problems": problems + wrong, "resolved": resolved, "not_resolved": []}


def check_baseline_trials(all_trials: list[Trial], path: str, arms=None, *, allow_partial: bool = False,
                          require_all: bool = False) -> list[dict]:
    """Before any search: the baseline `path` is a checksummed tour study of these trials,
    described alike, and holds every arm of `arms` ((method, seed) pairs) on all of them (some,
    with `allow_partial`), else `BaselineMismatch` (`fastsnake.study.baseline.gate`); returns its
    rows (`check_baseline` decides again on what the run played)."""
    from fastsnake.study.baseline import gate, require_all_problem, require_all_refusal, same_trials
    from fastsnake.study.rows import read_baseline

    ident, rows = read_baseline(path, "tour", "trial_id", IDENTITY, TourInputError, check=row_problems)
    same_trials({t.id: t.identity() for t in all_trials}, ident, what="trial")
    if arms is not None:
        theirs: dict = {}
        for r in rows:
            theirs.setdefault(label(r["method"], r["seed"]), []).append(r["trial_id"])
        gate({label(m, s): [t.id for t in all_trials] for m, s in arms}, theirs, allow_partial=allow_partial,
             words=("method", "trial"))
        if require_all:
            problem = require_all_problem([t.id for t in all_trials], [r["trial_id"] for r in rows],
                                          [label(m, s) for m, s in arms], theirs, words=("method", "trial"))
            if problem is not None:
                raise require_all_refusal(problem)
    return rows


def _differ(today: dict, base: dict) -> bool:
    """Deterministic results of one trial that differ (a search stopped by its time limit is not)."""
    if "limit" in (today["status"], base["status"]):
        return False
    return any(today[f] != base[f] for f in ("status", "found", "exists", "nodes"))


def _found_value(measure: str):
    def value(r):
        return float(r[measure]) if r["found"] and r[measure] is not None else np.nan
    return value


def check_baseline(study: TourStudy, base_rows: list[dict], *, allow_partial: bool = False,
                   slower: float | None = None, require_all: bool = False, path: str = "baseline") -> dict:
    """Today against the baseline, trial by trial, with the one gate logic
    (`fastsnake.study.baseline.compare_rows`): every method of the run on the same options and
    trials, else `BaselineMismatch` unless `allow_partial`; then CPU-seconds of every compared
    method, and nodes of the searches, on the trials both found (CPU-seconds judged only with a share
    `slower`: worse beyond it; else reported)."""
    from fastsnake.study.baseline import compare_rows, refuse

    # the baseline rule: a tour said impossible where today's search finds one is a false claim
    found = {r["trial_id"]: label(r["method"], r["seed"]) for r in study.rows if r["found"]}
    refuse(path, [f"trial {r['trial_id']!r}: the baseline's {label(r['method'], r['seed'])} says no tour exists "
                  f"(exists=false), today's {found[r['trial_id']]} found one"
                  for r in base_rows if r["exists"] is False and r["trial_id"] in found])

    def measures(name):
        return [(m, _found_value(m)) for m in (("nodes", "cpu_seconds") if _searches(name) else ("cpu_seconds",))]

    return compare_rows(study.rows, base_rows, key=lambda r: label(r["method"], r["seed"]),
                        trial=lambda r: r["trial_id"], measures=measures, conditions=("options",),
                        allow_partial=allow_partial, words=("method", "trial"), slower=slower,
                        same=_differ, what="search", require_all=require_all)
