"""`fastsnake verify`: which games of a sweep file or folder are missing, doubled or damaged.

Everything is read a batch at a time and coverage is kept as sorted runs of game indices (one run
per healthy chunk or batch), never as arrays sized by the games a sweep declares: a 10⁹-game
folder with one chunk is checked in the memory of one batch.
"""

from __future__ import annotations

from pathlib import Path

from fastsnake.snake.store.folder import SweepDataset, chunk_name, redo_hint
from fastsnake.snake.store.sweepfile import (
    SweepError,
    SweepFile,
    SweepFileError,
    row_problem,
    seeds_of_games,
    valid_games,
    values_problem,
)

# Ranges listed by `verify_sweep_path` (the counts are always whole).
MAX_LISTED_RANGES = 100


def _runs(games):
    """Sorted distinct game indices as inclusive runs of consecutive indices: (starts, ends) arrays."""
    import numpy as np

    games = np.asarray(games, np.int64)
    if len(games) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    breaks = np.flatnonzero(np.diff(games) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks - 1, [len(games) - 1]))
    return games[starts], games[ends]


def _combine(parts, keep):
    """The game indices where `keep(depth)` holds, as disjoint, non-adjacent inclusive runs (starts,
    ends): `parts` are (starts, ends, weight) interval sets and a game's depth is the sum of the
    weights of the intervals holding it. Memory and time: the intervals', never the games'."""
    import numpy as np

    parts = [(np.asarray(s, np.int64), np.asarray(e, np.int64), w) for s, e, w in parts if len(s)]
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    at = np.concatenate([np.concatenate((s, e + 1)) for s, e, _ in parts])
    step = np.concatenate([np.concatenate((np.full(len(s), w, np.int64), np.full(len(s), -w, np.int64)))
                           for s, _, w in parts])
    order = np.argsort(at, kind="stable")
    at, step = at[order], step[order]
    where, first = np.unique(at, return_index=True)
    depth = np.cumsum(np.add.reduceat(step, first))
    on = keep(depth)
    before = np.concatenate(([False], on[:-1]))
    return where[on & ~before], where[~on & before] - 1


def _union(*sets):
    return _combine([(s, e, 1) for s, e in sets], lambda d: d >= 1)


def _overlap(a, b):
    """Games in both of the disjoint sets `a` and `b`."""
    return _combine([(a[0], a[1], 1), (b[0], b[1], 1)], lambda d: d >= 2)


def _minus(a, b):
    """Games of the disjoint set `a` not in `b`."""
    return _combine([(a[0], a[1], 1), (b[0], b[1], 2)], lambda d: d == 1)


def _size(ranges) -> int:
    return int((ranges[1] - ranges[0] + 1).sum()) if len(ranges[0]) else 0


def _listed(ranges) -> list[list[int]]:
    return [[int(a), int(b)] for a, b in zip(ranges[0][:MAX_LISTED_RANGES], ranges[1][:MAX_LISTED_RANGES],
                                               strict=True)]


class Coverage:
    """Which games of a sweep were found whole (once, or more than once), which damaged: kept as
    disjoint runs of game indices in numpy arrays, merged batch by batch, so memory follows the runs
    (one for a healthy file), never the rows: a file of one game repeated 10⁷ times is one run found
    and one doubled."""

    def __init__(self, first: int, games: int):
        import numpy as np

        self.first, self.games = first, games
        empty = (np.zeros(0, np.int64), np.zeros(0, np.int64))
        self.found = self.doubled = self.damaged = empty
        self.problems: list[str] = []
        self.rows = 0

    def _add(self, runs, doubled=None) -> None:
        self.doubled = _union(self.doubled, _overlap(self.found, runs), *(() if doubled is None else (doubled,)))
        self.found = _union(self.found, runs)

    def add_run(self, a: int, b: int) -> None:
        import numpy as np

        if a <= b:
            self._add((np.array([a], np.int64), np.array([b], np.int64)))

    def add_rows(self, table, base_seed: int) -> None:
        """The rows of `table` that are games of this sweep (inside it, with their own seeds)."""
        import numpy as np

        self.rows += table.num_rows
        games, counts = np.unique(valid_games(table, base_seed, self.first, self.games), return_counts=True)
        self._add(_runs(games), _runs(games[counts > 1]))

    def mark_misplaced(self, table, base_seed: int, expected: int) -> None:
        """The games whose place in the file (from `expected` on) holds another row (another game, or
        the game with another seed): damaged."""
        import numpy as np

        index = table.column("game").to_numpy(zero_copy_only=False).astype(np.int64)
        seeds = table.column("seed").to_numpy(zero_copy_only=False).astype(np.uint64)
        want = np.arange(expected, expected + len(index), dtype=np.int64)
        wrong = (index != want) | (seeds != seeds_of_games(np.uint64(base_seed), want))
        if wrong.any():
            lo, hi = self.first, self.first + self.games - 1
            places = want[wrong]
            starts, ends = _runs(places[(places >= lo) & (places <= hi)])
            self.damaged = _union(self.damaged, (starts, ends))

    def mark_damaged(self, first: int, count: int, problem: str | None) -> None:
        import numpy as np

        lo, hi = max(first, self.first), min(first + count, self.first + self.games) - 1
        if lo <= hi:
            self.damaged = _union(self.damaged, (np.array([lo], np.int64), np.array([hi], np.int64)))
        if problem:
            self.problems.append(problem)

    def report(self, path, kind: str, **extra) -> dict:
        import numpy as np

        whole = (np.array([self.first], np.int64), np.array([self.first + self.games - 1], np.int64)) \
            if self.games else (np.zeros(0, np.int64), np.zeros(0, np.int64))
        missing = _minus(_minus(whole, self.found), self.damaged)
        damaged, doubled = self.damaged, self.doubled
        report = {"path": str(path), "kind": kind, "games": self.games, "rows": self.rows,
                  "missing_games": _size(missing), "doubled_games": _size(doubled), "damaged_games": _size(damaged),
                  "missing": _listed(missing), "doubled": _listed(doubled), "damaged": _listed(damaged),
                  "problems": self.problems}
        report.update(extra)
        report["ok"] = not (self.problems or len(doubled[0]) or len(damaged[0]))
        report["complete"] = report["ok"] and not len(missing[0])
        return report


def verify_sweep_path(path) -> dict:
    """The report of `fastsnake.verify_sweep` (see there); SweepError if `path` is no sweep."""
    path = Path(path)
    if not path.exists():
        raise SweepError(f"{str(path)!r} does not exist")
    if path.is_dir():
        return _verify_folder(path)
    sweep = SweepFile(path)  # an unreadable footer is no report: the file is damaged whole
    if sweep.sections is not None:
        return _verify_compare(path, sweep)
    params = sweep.parameters
    first = int(params.get("first_game", 0))
    coverage = Coverage(first, max(int(params.get("games", sweep.num_rows)), sweep.num_rows))
    expected, problem = first, None
    try:
        for table in sweep.batches(check=False):
            coverage.add_rows(table, params["seed"])
            coverage.mark_misplaced(table, params["seed"], expected)
            values = values_problem(table, params)
            if values:
                coverage.mark_damaged(expected, table.num_rows, None)
            if problem is None:
                problem = row_problem(table, params, expected) or values
            expected += table.num_rows
    except SweepFileError as exc:
        raise SweepError(str(exc)) from None
    if problem:
        coverage.problems.append(f"{path.name} is damaged ({problem})")
    return coverage.report(path, "file")


def _verify_compare(path: Path, sweep: SweepFile) -> dict:
    """A compare file: each of its runs (a policy on a board) checked as a sweep file of its own;
    the report's counts add up over them, and ``sections`` holds each run's report."""
    coverages, expected, problems = {}, {}, {}
    for section in sweep.sections:
        key = sweep.section_key(section)
        first = int(section.get("first_game", 0))
        coverages[key] = Coverage(first, int(section.get("games", 0)))
        expected[key], problems[key] = first, None
    try:
        for table in sweep._sweep_batches(None, False, 1 << 18, raw=True):
            for section, part in sweep.section_parts(table):
                key = sweep.section_key(section)
                coverage = coverages[key]
                coverage.add_rows(part, section["seed"])
                coverage.mark_misplaced(part, section["seed"], expected[key])
                values = values_problem(part, section)
                if values:
                    coverage.mark_damaged(expected[key], part.num_rows, None)
                if problems[key] is None:
                    problem = row_problem(part, section, expected[key]) or values
                    if problem:
                        problems[key] = problem
                        coverage.problems.append(f"{path.name} [{key[0]} {key[1]}x{key[2]}] is damaged ({problem})")
                expected[key] += part.num_rows
    except SweepFileError as exc:
        raise SweepError(str(exc)) from None
    sections = []
    for (policy, rows, cols), coverage in coverages.items():
        sections.append(coverage.report(path, "compare", policy=policy, board=f"{rows}x{cols}"))
    report = {"path": str(path), "kind": "compare", "sections": sections, "problems": []}
    for name in ("games", "rows", "missing_games", "doubled_games", "damaged_games"):
        report[name] = sum(s[name] for s in sections)
    for name in ("missing", "doubled", "damaged"):  # (each section's ranges are in its own report)
        report[name] = [r for s in sections for r in s[name]][:MAX_LISTED_RANGES]
    report["problems"] = [p for s in sections for p in s["problems"]]
    report["ok"] = all(s["ok"] for s in sections)
    report["complete"] = all(s["complete"] for s in sections)
    return report


def _verify_folder(path: Path) -> dict:
    dataset = SweepDataset.open(path)
    spec = dataset.spec
    coverage = Coverage(spec.first_game, spec.games)
    present, strays = dataset.present_chunks()
    for index in present:
        name = chunk_name(index)
        first, count = spec.chunk_range(index)
        status, _, detail = dataset.check_chunk(index)
        if status == "missing":
            continue
        if status != "damaged":
            coverage.rows += count
            coverage.add_run(first, first + count - 1)
            continue
        coverage.mark_damaged(first, count, f"{name} {detail}; {redo_hint(path, name)}")
        # Rows that read back with their own seeds count where they belong, even from a damaged
        # chunk: a chunk copied over another shows as that chunk's games doubled.
        try:
            for table in SweepFile(dataset.chunk_path(index)).batches(check=False):
                coverage.add_rows(table, spec.seed)
        except (SweepFileError, OSError):
            pass
    for name in strays:
        coverage.problems.append(f"{name}: no chunk of this sweep has that number; remove it")
    return coverage.report(path, "folder", chunks=spec.n_chunks, chunks_present=len(present))
