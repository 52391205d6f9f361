"""Re-playing a sample of a sweep's games from their seeds: rows that contradict their seeds.

A sweep stores no moves: each row says how its game ended (outcome, moves, apples, length), and the
game can be played again from its seed. Checksums stop accidents; only a re-play shows a row that
was edited on purpose (a "won" for a game that died, +7 moves) and written back with fresh
checksums. `verify` re-plays a random sample of each run's games (`replay_sample`) and `report`
re-plays the same kind of sample (`SampleChooser`) besides the games it picks; both play them as
`replay --from` does (`fastsnake.snake.replay.replay_row`).

The sample of ``n`` games of a run: up to ``ceil(n / 4)`` games of each outcome the run holds
(so a lone "won" row among games that died is in it), the rest uniformly at random, ``n`` in all
(every game when the run holds no more). Which games is a hash of each game's seed and the sample
seed: the same seed chooses the same games of the same file; without one a fresh seed is drawn
(a forger cannot know which rows will be re-played) and reported, so the check can be repeated.
"""

from __future__ import annotations

import math
import secrets

import numpy as np

from fastsnake.errors import InputError
from fastsnake.snake.replay import OUTCOMES, replay_row

# Games of each run `fastsnake verify` re-plays when not told (`--replay N`; 0: none).
DEFAULT_REPLAY_SAMPLE = 16
# The largest sample seed (a 63-bit integer: JSON and every reader keep it exact).
MAX_SAMPLE_SEED = 2**63 - 1
_ROW_COLUMNS = ("game", "seed", "moves", "apples", "length")


def sample_seed(seed=None) -> int:
    """`seed` checked (a whole number 0 .. 2**63-1), or a fresh random one when None."""
    if seed is None:
        return secrets.randbelow(MAX_SAMPLE_SEED + 1)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) <= MAX_SAMPLE_SEED:
        raise InputError(f"replay_seed={seed!r} must be a whole number from 0 to {MAX_SAMPLE_SEED}")
    return int(seed)


def check_sample(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) < 0:
        raise InputError(f"replay={n!r} must be a whole number of games, 0 or more")
    return int(n)


def _mix(values: np.ndarray, salt: int) -> np.ndarray:
    """splitmix64 of `values` xor `salt`: a key per game that only the sample seed predicts."""
    z = values.astype(np.uint64) ^ np.uint64(salt)
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


class SampleChooser:
    """The sample of `n` games of one run (see the module), chosen while its rows stream past a batch
    at a time in memory of a few `n` rows."""

    def __init__(self, n: int, seed: int):
        self.n, self.salt = n, seed
        self.kept: dict[int, dict] = {}  # outcome code -> {"key": keys, column: values}: its n smallest keys

    def add(self, table) -> None:
        """The rows of a pyarrow table of the run (columns game, seed, outcome, moves, apples, length)."""
        if self.n <= 0 or table.num_rows == 0:
            return
        import pyarrow as pa
        import pyarrow.compute as pc

        words = table.column("outcome")
        if pa.types.is_dictionary(words.type):
            words = words.cast(pa.string())
        codes = pc.fill_null(pc.index_in(words, value_set=pa.array(OUTCOMES)), -1).to_numpy(zero_copy_only=False)
        columns = {name: table.column(name).to_numpy() for name in _ROW_COLUMNS if name in table.column_names}
        keys = _mix(columns["seed"], self.salt)
        for code in np.unique(codes):
            if code < 0:
                continue  # no outcome of ours: `verify` calls the file damaged before any re-play
            mask = codes == code
            part = {"key": keys[mask], **{name: values[mask] for name, values in columns.items()}}
            old = self.kept.get(int(code))
            if old is not None:
                part = {name: np.concatenate([old[name], part[name]]) for name in part}
            if len(part["key"]) > self.n:
                keep = np.lexsort((part["game"], part["key"]))[: self.n]
                part = {name: values[keep] for name, values in part.items()}
            self.kept[int(code)] = part

    def rows(self) -> list[dict]:
        """The sample, in game order: dicts of the row's fields (outcome as its word)."""
        per_outcome = math.ceil(self.n / 4)
        candidates = []
        for code, part in self.kept.items():
            order = np.lexsort((part["game"], part["key"]))
            for rank, at in enumerate(order):
                row = {name: int(values[at]) for name, values in part.items()}
                row["outcome"] = OUTCOMES[code]
                candidates.append((rank >= per_outcome, row["key"], row["game"], row))
        candidates.sort(key=lambda c: c[:3])  # each outcome's first games, then the rest by key
        chosen = [c[3] for c in candidates[: self.n]]
        for row in chosen:
            row.pop("key")
        return sorted(chosen, key=lambda row: row["game"])


def _runs(path):
    """(label, parameters, batches) of each run of a sweep file, compare file or folder, read through
    the checked readers `verify` has just passed."""
    from fastsnake.snake.store.reader import open_sweep
    from fastsnake.snake.store.sweepfile import SweepFile

    reader = open_sweep(path)
    if reader.kind == "file" and reader.file.sections is not None:
        sweep: SweepFile = reader.file
        return sweep, [(f"{s['policy']} {s['rows']}x{s['cols']}", s) for s in sweep.sections]
    return reader, [(None, reader.parameters)]


def replay_sample(path, n: int = DEFAULT_REPLAY_SAMPLE, seed=None, progress=None) -> dict:
    """Re-play a sample of `n` games of each run of the sweep at `path` (see the module) and compare
    each with its row.

    Returns ``{"sample": n, "seed", "games": [{"game", "policy", "board", "ok"}], "replayed",
    "contradicted": [{"game", "policy", "board", "problem"}], "skipped": [lines]}``: ``skipped``
    names runs whose games cannot be played here (a model not given, a policy not installed).
    """
    n, seed = check_sample(n), sample_seed(seed)
    result = {"sample": n, "seed": seed, "games": [], "replayed": 0, "contradicted": [], "skipped": []}
    if n == 0:
        return result
    source, runs = _runs(path)
    choosers = {}
    if len(runs) == 1 and runs[0][0] is None:
        choosers[None] = SampleChooser(n, seed)
        for table in source.batches():
            choosers[None].add(table)
    else:
        for label, _ in runs:
            choosers[label] = SampleChooser(n, seed)
        for table in source._sweep_batches(None, False, 1 << 18, raw=True):
            for section, part in source.section_parts(table):
                choosers[f"{section['policy']} {section['rows']}x{section['cols']}"].add(part)
    todo = [(label, params, row) for label, params in runs for row in choosers[label].rows()]
    for k, (label, params, row) in enumerate(todo):
        if progress:
            progress("re-playing a sample", k, len(todo))
        where = {"policy": str(params["policy"]), "board": f"{params['rows']}x{params['cols']}"}
        if any(s.startswith(f"{label or where['policy']}: ") for s in result["skipped"]):
            continue
        try:
            _, _, problem = replay_row(path, params, row)
        except InputError as exc:
            result["skipped"].append(f"{label or where['policy']}: its games cannot be re-played here ({exc})")
            continue
        result["games"].append(dict(game=row["game"], **where, ok=problem is None))
        result["replayed"] += 1
        if problem:
            result["contradicted"].append(dict(game=row["game"], **where, problem=problem))
    return result


def apply_to_report(report: dict, sample: dict) -> dict:
    """`verify`'s report with its re-play sample: each contradicted game is damaged (its range, its
    count, a problem line naming it), and the report is no longer ``ok``."""
    report["replay"] = sample
    if not sample["contradicted"]:
        return report
    for bad in sample["contradicted"]:
        game = bad["game"]
        where = report
        for section in report.get("sections") or ():
            if (section.get("policy"), section.get("board")) == (bad["policy"], bad["board"]):
                where = section
        line = (f"{report['path']!r} game {game}" + (f" [{bad['policy']} {bad['board']}]" if where is not report
                                                     else "") + f": {bad['problem']}")
        for part in {id(where): where, id(report): report}.values():
            part["damaged"] = sorted([*part["damaged"], [game, game]])
            part["damaged_games"] += 1
            part["problems"].append(line)
            part["ok"] = part["complete"] = False
    return report
