"""`fastsnake verify`: which games of a sweep file or folder are missing, doubled or damaged."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fastsnake.snake.store.folder import SweepDataset, chunk_index, chunk_name, redo_hint
from fastsnake.snake.store.sweepfile import SweepError, SweepFileError, read_sweep_table, row_problem

# Ranges listed by `verify_sweep_path` (the counts are always whole).
MAX_LISTED_RANGES = 100


def _ranges(mask: np.ndarray, first: int) -> list[list[int]]:
    """[[a, b], ...]: the runs of True in `mask` as inclusive game ranges (the first few)."""
    if not mask.any():
        return []
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.view(np.int8), [0]))))
    starts, ends = edges[0::2], edges[1::2] - 1
    return [[first + int(a), first + int(b)] for a, b in zip(starts[:MAX_LISTED_RANGES], ends[:MAX_LISTED_RANGES],
                                                             strict=True)]


class _Coverage:
    """How often each game of a sweep was found whole, and which were found damaged."""

    def __init__(self, first: int, games: int):
        self.first, self.games = first, games
        self.count = np.zeros(games, np.uint8)
        self.damaged = np.zeros(games, bool)
        self.problems: list[str] = []
        self.rows = 0

    def add_rows(self, table, base_seed: int) -> None:
        from fastsnake.snake.rng import game_seeds

        games = table.column("game").to_numpy(zero_copy_only=False).astype(np.int64)
        seeds = table.column("seed").to_numpy(zero_copy_only=False).astype(np.uint64)
        self.rows += games.shape[0]
        inside = (games >= self.first) & (games < self.first + self.games)
        good = inside.copy()
        if inside.any():
            want = game_seeds(np.uint64(base_seed), np.int64(self.first), np.int64(self.games))
            good[inside] = seeds[inside] == want[games[inside] - self.first]
        where = games[good] - self.first
        np.add.at(self.count, where, 1)
        bad = inside & ~good
        self.damaged[games[bad] - self.first] = True

    def mark_damaged(self, first: int, count: int, problem: str) -> None:
        lo = max(0, first - self.first)
        self.damaged[lo: lo + count] = True
        self.problems.append(problem)

    def report(self, path, kind: str, **extra) -> dict:
        missing = (self.count == 0) & ~self.damaged
        doubled = self.count > 1
        report = {"path": str(path), "kind": kind, "games": self.games, "rows": self.rows,
                  "missing_games": int(missing.sum()), "doubled_games": int(doubled.sum()),
                  "damaged_games": int(self.damaged.sum()),
                  "missing": _ranges(missing, self.first), "doubled": _ranges(doubled, self.first),
                  "damaged": _ranges(self.damaged, self.first), "problems": self.problems}
        report.update(extra)
        report["ok"] = not (self.problems or doubled.any() or self.damaged.any())
        report["complete"] = report["ok"] and not missing.any()
        return report


def verify_sweep_path(path) -> dict:
    """The report of `fastsnake.verify_sweep` (see there); SweepError if `path` is no sweep."""
    path = Path(path)
    if not path.exists():
        raise SweepError(f"{str(path)!r} does not exist")
    if path.is_dir():
        return _verify_folder(path)
    params, table = read_sweep_table(path)  # an unreadable file is no report, it is damaged whole
    try:
        first = int(params.get("first_game", 0))
        games = int(params.get("games", table.num_rows))
        seed = int(params["seed"])
    except (KeyError, TypeError, ValueError):
        raise SweepError(f"{str(path)!r}: its sweep parameters have no valid seed or game count") from None
    coverage = _Coverage(first, max(games, table.num_rows))
    coverage.add_rows(table, seed)
    problem = row_problem(table, params)
    if problem:
        coverage.problems.append(f"{path.name} is damaged ({problem})")
    return coverage.report(path, "file")


def _verify_folder(path: Path) -> dict:
    dataset = SweepDataset.open(path)
    spec = dataset.spec
    coverage = _Coverage(spec.first_game, spec.games)
    present = 0
    for index in range(spec.n_chunks):
        name = chunk_name(index)
        first, count = spec.chunk_range(index)
        status, _, detail = dataset.check_chunk(index)
        if status == "missing":
            continue
        present += 1
        try:
            params, table = read_sweep_table(dataset.chunk_path(index))
        except SweepFileError as exc:
            coverage.mark_damaged(first, count, f"{name} {detail if status == 'damaged' else exc.reason}; "
                                                f"{redo_hint(path, name)}")
            continue
        # Rows that read back with their own seeds count where they belong, even from a damaged
        # chunk: a chunk copied over another shows as that chunk's games doubled.
        coverage.add_rows(table, spec.seed)
        problem = detail if status == "damaged" else None
        if problem is None and row_problem(table, params, first):
            problem = f"is damaged ({row_problem(table, params, first)})"
        if problem:
            coverage.mark_damaged(first, count, f"{name} {problem}; {redo_hint(path, name)}")
    strays = sorted(e.name for e in path.iterdir() if chunk_index(e.name) is not None
                    and chunk_index(e.name) >= spec.n_chunks)
    for name in strays:
        coverage.problems.append(f"{name}: no chunk of this sweep has that number; remove it")
    return coverage.report(path, "folder", chunks=spec.n_chunks, chunks_present=present)
