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
    valid_games,
    values_problem,
)

# Ranges listed by `verify_sweep_path` (the counts are always whole).
MAX_LISTED_RANGES = 100


def _runs(games) -> list[tuple[int, int]]:
    """Sorted game indices as inclusive runs of consecutive indices (a repeat starts a new run)."""
    import numpy as np

    if len(games) == 0:
        return []
    breaks = np.flatnonzero(np.diff(games) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks - 1, [len(games) - 1]))
    return [(int(games[a]), int(games[b])) for a, b in zip(starts, ends, strict=True)]


def _merge(runs) -> list[list[int]]:
    """The union of inclusive runs, as sorted disjoint [a, b] ranges."""
    out: list[list[int]] = []
    for a, b in sorted(runs):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _subtract(ranges, cut) -> list[list[int]]:
    """Sorted disjoint `ranges` without the sorted disjoint ranges `cut`."""
    out, k = [], 0
    for a, b in ranges:
        while k < len(cut) and cut[k][1] < a:
            k += 1
        j, start = k, a
        while j < len(cut) and cut[j][0] <= b:
            if cut[j][0] > start:
                out.append([start, cut[j][0] - 1])
            start = max(start, cut[j][1] + 1)
            j += 1
        if start <= b:
            out.append([start, b])
    return out


def _size(ranges) -> int:
    return sum(b - a + 1 for a, b in ranges)


class Coverage:
    """Which games of a sweep were found whole (as runs, with how often), which damaged."""

    def __init__(self, first: int, games: int):
        self.first, self.games = first, games
        self.found: list[tuple[int, int]] = []
        self.damaged: list[tuple[int, int]] = []
        self.problems: list[str] = []
        self.rows = 0

    def add_run(self, a: int, b: int) -> None:
        if a <= b:
            self.found.append((a, b))

    def add_rows(self, table, base_seed: int) -> None:
        """The rows of `table` that are games of this sweep (inside it, with their own seeds)."""
        self.rows += table.num_rows
        self.found += _runs(valid_games(table, base_seed, self.first, self.games))

    def mark_damaged(self, first: int, count: int, problem: str | None) -> None:
        lo, hi = max(first, self.first), min(first + count, self.first + self.games) - 1
        if lo <= hi:
            self.damaged.append((lo, hi))
        if problem:
            self.problems.append(problem)

    def report(self, path, kind: str, **extra) -> dict:
        events = sorted([(a, 1) for a, _ in self.found] + [(b + 1, -1) for _, b in self.found])
        covered, doubled, depth, since = [], [], 0, None
        for at, step in events:  # a sweep over run ends: where one run, and where two or more, cover
            before = depth
            depth += step
            if before == 0 and depth > 0:
                since = at
            elif before > 0 and depth == 0:
                covered.append((since, at - 1))
            if before < 2 <= depth:
                since2 = at
            elif before >= 2 > depth:
                doubled.append((since2, at - 1))
        damaged = _merge(self.damaged)
        doubled = _merge(doubled)
        missing = _subtract(_subtract([[self.first, self.first + self.games - 1]] if self.games else [],
                                      _merge(covered)), damaged)
        report = {"path": str(path), "kind": kind, "games": self.games, "rows": self.rows,
                  "missing_games": _size(missing), "doubled_games": _size(doubled), "damaged_games": _size(damaged),
                  "missing": missing[:MAX_LISTED_RANGES], "doubled": doubled[:MAX_LISTED_RANGES],
                  "damaged": damaged[:MAX_LISTED_RANGES], "problems": self.problems}
        report.update(extra)
        report["ok"] = not (self.problems or doubled or damaged)
        report["complete"] = report["ok"] and not missing
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
            if problem is None:
                problem = row_problem(table, params, expected) or values_problem(table, params)
                if problem:
                    coverage.mark_damaged(expected, table.num_rows, None)
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
                if problems[key] is None:
                    problem = row_problem(part, section, expected[key]) or values_problem(part, section)
                    if problem:
                        problems[key] = problem
                        coverage.mark_damaged(expected[key], part.num_rows, None)
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
