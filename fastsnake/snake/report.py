"""The browser report of sweeps: aggregates streamed chunk by chunk, the games worth watching, their records.

A report reads each source (a sweep file, a sweep folder, a ``compare`` file with a
``policy`` column, or a `SweepResult` in memory) one batch of rows at a time, so a folder
of 10⁸ games is summarised in memory bounded by a batch: exact statistics
(`SummaryAccumulator`, the numbers ``compare`` prints) with their 95 % intervals, the moves
histogram, and the picked games — the worst and best by moves, every game that died or got
stuck up to a count, a random few (the games with the smallest per-game seeds: uniform, and the
same whatever the batch order) and any ``pick`` expression ``replay`` understands. Only the
picked games are re-played (sweeps store no moves); each must come out as its row says, or the
page says it no longer replays. Sources on the same board, rules and seed are paired game by
game against the first of them (`PairedAccumulator`); several board sizes give a scaling fit.

The pipeline, data -> page, one named step each::

    load_inputs -> summarise -> pick_games -> replay_picks -> fit_budget -> page_data -> write_report

`build` runs the middle steps; the page itself is drawn by `fastsnake.webpage`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import numpy as np

from fastsnake import machine, webpage
from fastsnake.errors import InputError, cli_text, worded
from fastsnake.snake import intervals, record
from fastsnake.snake.board import GameConfig
from fastsnake.snake.engine import DIED, OUTCOME_NAMES, R_LENGTH, STUCK, WON
from fastsnake.snake.intervals import PairedAccumulator, mean_ci95, wilson_ci95
from fastsnake.snake.policies import recorded_options
from fastsnake.snake.present import compare_rows, paired_sentences
from fastsnake.snake.replay import Replay, play_game, trace
from fastsnake.snake.report_sources import (  # noqa: F401 - re-exported: the inputs' reading lives there
    BATCH_ROWS,
    ReportError,
    SweepSource,
    load_inputs,
    open_sources,
    result_source,
    run_record,
)
from fastsnake.snake.seedcheck import DEFAULT_REPLAY_SAMPLE, SampleChooser, check_sample, sample_seed
from fastsnake.snake.stats import SummaryAccumulator
from fastsnake.snake.store import sweepfile

# How many games of each kind a report picks per policy (the CLI's defaults).
DEFAULT_WORST = 10
DEFAULT_BEST = 10
DEFAULT_DIED = 20  # every game that died (and, separately, every stuck one) up to this many
DEFAULT_RANDOM = 10
# Games re-played per policy to measure moves per apple as the snake grows (the random picks come first).
PER_APPLE_GAMES = 30
# At most this many points on the moves-per-apple line (a 256x256 board eats 65,533 apples).
PER_APPLE_POINTS = 400
HIST_BINS = 60
# The paired difference reads the moves of games with index below first_game + this, per policy.
PAIRED_GAMES = 2_000_000
# Two sources are paired (game k of both starts from the same seed) when these parameters agree.
PAIRED_SAME = ("rows", "cols", "start_length", "tail_rule", "max_moves", "seed")
# Bytes of game records a page may embed; the games past it are listed without their record.
EMBED_BUDGET = 4_000_000
COMPARE_META_KEY = sweepfile.COMPARE_META_KEY  # (its old home)


# -- streaming aggregates ---------------------------------------------------------------------

def _codes(column) -> np.ndarray:
    """Outcome codes (1 won, 2 died, 3 stuck) of an outcome column, dictionary-encoded or plain."""
    import pyarrow as pa

    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(column.type):
        words = column.dictionary.to_pylist()
        lookup = np.array([OUTCOME_NAMES.index(w) if w in OUTCOME_NAMES else 0 for w in words] or [0], np.int8)
        return lookup[column.indices.to_numpy(zero_copy_only=False)]
    words = np.asarray(column.to_pylist(), dtype=object)
    out = np.zeros(len(words), np.int8)
    for code, word in enumerate(OUTCOME_NAMES):
        out[words == word] = code
    return out


def record_arrays(table) -> dict:
    """{name: numpy array} of the game record's columns in `table` (`fastsnake.snake.record`):
    outcome as codes, seed uint64, the rest int64; a column the table lacks or holds as nulls (a file
    written before it existed) is left out: absent, never zeros."""
    out = {}
    for column in record.columns():
        if column.name not in table.column_names or table.column(column.name).null_count:
            continue
        values = table.column(column.name)
        if column.arrow == "outcome":
            out[column.name] = _codes(values).astype(np.int64)
        else:
            out[column.name] = values.to_numpy().astype(np.uint64 if column.arrow == "uint64" else np.int64)
    return out


class _Best:
    """The `k` rows that sort first by `key` (an array per batch), ties broken by game index."""

    def __init__(self, k: int):
        self.k = k
        self.rows = None  # dict of arrays
        self.keys = np.zeros(0)

    def add(self, rows: dict, keys: np.ndarray) -> None:
        if self.k <= 0 or len(keys) == 0:
            return
        if len(keys) > self.k:
            part = np.argpartition(keys, self.k - 1)[: self.k]
            cut = keys[part].max()
            part = np.flatnonzero(keys <= cut)  # every tie at the cut, so game order decides below
            rows = {n: a[part] for n, a in rows.items()}
            keys = keys[part]
        if self.rows is not None:
            rows = {n: np.concatenate([self.rows[n], rows[n]]) for n in rows}
            keys = np.concatenate([self.keys, keys])
        order = np.lexsort((rows["game"], keys))[: self.k]
        self.rows = {n: a[order] for n, a in rows.items()}
        self.keys = keys[order]

    def games(self) -> list[dict]:
        if self.rows is None:
            return []
        return [{n: int(a[i]) for n, a in self.rows.items()} for i in range(len(self.keys))]


@dataclass
class _Aggregate:
    stats: SummaryAccumulator
    worst: _Best
    best: _Best
    died: _Best
    stuck: _Best
    random: _Best
    indices: dict  # picked game index -> row (None until seen)
    paired: dict  # games, outcome, moves: the games below the paired limit, for paired comparisons
    first_game: int | None = None
    check: SampleChooser | None = None  # the games re-played to check the rows (`fastsnake.snake.seedcheck`)


def aggregate(source: SweepSource, *, worst: int, best: int, died: int, random: int, indices=(),
              sample: int = PER_APPLE_GAMES, check: SampleChooser | None = None) -> _Aggregate:
    agg = _Aggregate(SummaryAccumulator(), _Best(worst), _Best(best), _Best(died), _Best(died),
                     _Best(max(random, sample)), {int(i): None for i in indices}, {}, check=check)
    paired_parts = []
    for table in source.batches():
        if table.num_rows == 0:
            continue
        rows = record_arrays(table)
        agg.stats.add_columns(rows)
        if agg.check is not None:
            agg.check.add(table)
        low = int(rows["game"].min())
        agg.first_game = low if agg.first_game is None else min(agg.first_game, low)
        agg.worst.add(rows, -rows["moves"])
        agg.best.add(rows, rows["moves"])
        died, stuck = rows["outcome"] == DIED, rows["outcome"] == STUCK
        if died.any():
            agg.died.add({n: a[died] for n, a in rows.items()}, rows["game"][died])
        if stuck.any():
            agg.stuck.add({n: a[stuck] for n, a in rows.items()}, rows["game"][stuck])
        # Per-game seeds are a 64-bit hash of (base seed, index): the smallest ones are a uniform sample.
        agg.random.add(rows, rows["seed"].astype(np.float64))
        for index in agg.indices:
            hit = np.flatnonzero(rows["game"] == index)
            if len(hit):
                agg.indices[index] = {n: int(a[hit[0]]) for n, a in rows.items()}
        # Sources list their games in order from their first game: the window is known once one batch is read.
        window = rows["game"] < agg.first_game + PAIRED_GAMES
        if window.any():
            paired_parts.append({"game": rows["game"][window], "outcome": rows["outcome"][window].astype(np.int8),
                                 "moves": rows["moves"][window], "apples": rows["apples"][window]})
    if paired_parts:
        games = np.concatenate([part["game"] for part in paired_parts])
        keep = games < agg.first_game + PAIRED_GAMES
        agg.paired = {n: np.concatenate([part[n] for part in paired_parts])[keep]
                      for n in ("game", "outcome", "moves", "apples")}
    return agg


# -- the page's data --------------------------------------------------------------------------

def _hist_edges(aggs) -> np.ndarray | None:
    lows = [int(a.stats.values[0]) for a in aggs if a.stats.games]
    highs = [int(a.stats.values[-1]) for a in aggs if a.stats.games]
    if not lows:
        return None
    return _bin_edges(min(lows), max(highs))


def _bin_edges(lo: int, hi: int) -> np.ndarray:
    """At most HIST_BINS bins of one whole-number width covering lo..hi, as their edges."""
    width = max(1, -(-(hi - lo + 1) // HIST_BINS))
    bins = -(-(hi - lo + 1) // width)
    return lo + width * np.arange(bins + 1, dtype=np.int64)


def _hist(stats: SummaryAccumulator, edges: np.ndarray) -> list[int]:
    if not stats.games:
        return [0] * (len(edges) - 1)
    width = int(edges[1] - edges[0])
    slot = (stats.values - edges[0]) // width
    return np.bincount(slot, weights=stats.counts, minlength=len(edges) - 1).astype(np.int64).tolist()


def _paired(a: SweepSource, agg_a: _Aggregate, b: SweepSource, agg_b: _Aggregate, name_a: str,
            name_b: str) -> dict | None:
    """`b` against the baseline `a` on the seeds both played: the moves difference over the games
    both won (mean, 95 % t interval, paired t-test p, histogram) and the cross-table of outcomes."""
    if not len(agg_a.paired.get("game", ())) or not len(agg_b.paired.get("game", ())):
        return None
    if any(a.params.get(k) != b.params.get(k) for k in PAIRED_SAME):
        return None
    common, ia, ib = np.intersect1d(agg_a.paired["game"], agg_b.paired["game"], return_indices=True)
    if len(common) == 0:
        return None
    base_outcome, base_moves = agg_a.paired["outcome"][ia], agg_a.paired["moves"][ia]
    this_outcome, this_moves = agg_b.paired["outcome"][ib], agg_b.paired["moves"][ib]
    acc = PairedAccumulator()
    acc.add(base_outcome, base_moves, this_outcome, this_moves, agg_a.paired["apples"][ia], agg_b.paired["apples"][ib])
    stats = acc.as_dict(name_a, dict(enumerate(OUTCOME_NAMES)))
    both = (base_outcome == WON) & (this_outcome == WON)
    diff = this_moves[both] - base_moves[both]
    out = {"a": name_a, "b": name_b, "games": int(both.sum()), "games_total": int(len(common)),
           "first_game": int(common[0]), "last_game": int(common[-1]), "stats": stats,
           "statement": paired_sentences(name_b, name_a, stats),
           "cross": _outcome_cross_table(name_a, name_b, acc), "edges": [], "counts": [], "mean": None,
           "b_fewer": int((diff < 0).sum()), "b_more": int((diff > 0).sum()), "ties": int((diff == 0).sum())}
    if len(diff):
        edges = _bin_edges(int(diff.min()), int(diff.max()))
        counts = np.bincount((diff - edges[0]) // (edges[1] - edges[0]), minlength=len(edges) - 1)
        out.update(edges=edges.tolist(), counts=counts.astype(np.int64).tolist(), mean=float(diff.mean()))
    return out


def _outcome_cross_table(name_a: str, name_b: str, acc: PairedAccumulator) -> dict:
    """Paired games by (b's outcome, a's outcome): rows are b's outcomes, columns a's, with totals."""
    codes = [c for c in (WON, DIED, STUCK) if any(c in key for key in acc.outcomes)]
    header = [""] + [OUTCOME_NAMES[c] for c in codes] + ["all"]
    rows = []
    for this in codes:
        counts = [acc.outcomes.get((this, base), 0) for base in codes]
        rows.append([OUTCOME_NAMES[this]] + [f"{c:,}" for c in counts] + [f"{sum(counts):,}"])
    totals = [sum(acc.outcomes.get((this, base), 0) for this in codes) for base in codes]
    rows.append(["all"] + [f"{c:,}" for c in totals] + [f"{acc.games:,}"])
    return {"header": header, "rows": rows,
            "caption": f"Outcomes on the same seeds (games): rows {name_b}, columns {name_a}"}


def scaling_fit(cells, values) -> dict | None:
    """`intervals.scaling_fit` (kept here for a release: the one fit lives there), its ``sizes``
    also named ``points`` as the page had it."""
    fit = intervals.scaling_fit(cells, values)
    if fit is not None:
        fit["points"] = fit["sizes"]
    return fit


def _scaling(sections: list[dict], items: list[Summarised] | None = None) -> dict | None:
    """Mean moves and games per CPU-second against cells, one curve a policy and its options and
    rules (tail, start length, move cap), with the fitted exponents and ``notes`` on what was kept
    apart or counted once (`growth.report_scaling`); None unless the report holds several boards."""
    from fastsnake.snake.growth import report_scaling

    params = [it.source.params for it in items] if items is not None else [{} for _ in sections]
    keys = ("options", "tail_rule", "start_length", "max_moves", "seed")
    return report_scaling([dict({k: p.get(k) for k in keys}, policy=s["policy"], summary=s["summary"])
                           for s, p in zip(sections, params, strict=True)])


def _per_apple(replays: list[Replay]) -> dict:
    """Mean moves to reach the k-th apple over `replays`, against the length it brings the snake to."""
    sums: np.ndarray = np.zeros(0)
    counts: np.ndarray = np.zeros(0)
    len0 = None
    for replay in replays:
        _, count, rec = trace(replay)
        lengths = np.asarray(rec[R_LENGTH][:count], dtype=np.int64)
        len0 = len(replay.body)
        previous = np.concatenate([[len0], lengths[:-1]]) if count else np.zeros(0, np.int64)
        eaten_at = np.flatnonzero(lengths > previous) + 1  # moves made when each apple was eaten
        gaps = np.diff(np.concatenate([[0], eaten_at]))
        if len(gaps) > len(sums):
            sums = np.concatenate([sums, np.zeros(len(gaps) - len(sums))])
            counts = np.concatenate([counts, np.zeros(len(gaps) - len(counts))])
        sums[: len(gaps)] += gaps
        counts[: len(gaps)] += 1
    if len0 is None or not len(sums):
        return {"length": [], "moves": [], "games": len(replays)}
    lengths = len0 + 1 + np.arange(len(sums))
    means = sums / np.maximum(counts, 1)
    if len(means) > PER_APPLE_POINTS:  # average runs of apples into one point each
        groups = np.array_split(np.arange(len(means)), PER_APPLE_POINTS)
        lengths = np.array([lengths[g].mean() for g in groups])
        means = np.array([(sums[g].sum() / max(counts[g].sum(), 1)) for g in groups])
    return {"length": np.round(lengths, 2).tolist(), "moves": np.round(means, 3).tolist(), "games": len(replays)}


def game_record(replay: Replay) -> dict:
    """A game's compact record for the page's player (what `fastsnake.webpage` documents)."""
    n = replay.rows * replay.cols
    return {"body": webpage.pack_cells(replay.body, n), "moves": webpage.pack_moves(replay.moves),
            "apples": webpage.pack_cells(replay.apples, n)}


def _entry(*, policy, rows, cols, seed, game, game_seed, start_length, tail, max_moves, outcome, moves, apples,
           length, why) -> dict:
    """The fields the page's table and scripting API show for a Snake game (one key set for all)."""
    return {"kind": "snake", "policy": policy, "rows": rows, "cols": cols, "seed": seed, "game": game,
            "game_seed": str(game_seed), "start_length": start_length, "tail": tail, "max_moves": max_moves,
            "outcome": outcome, "moves": moves, "apples": apples, "length": length, "why": list(why)}


def game_entry(replay: Replay, why=()) -> dict:
    """The page's entry for one game: what the table shows, and its record for the player."""
    from fastsnake.snake.rng import game_seed_py

    s = replay.summary()
    entry = _entry(policy=s["policy"], rows=s["rows"], cols=s["cols"], seed=s["seed"], game=s["game"],
                   game_seed=game_seed_py(s["seed"], s["game"]), start_length=len(replay.body),
                   tail=replay.tail_rule, max_moves=replay.max_moves, outcome=s["outcome"], moves=s["moves"],
                   apples=s["apples"], length=s["length"], why=why)
    entry["cell_bytes"] = webpage.cell_bytes(replay.rows * replay.cols)
    entry["data"] = game_record(replay)
    return entry


def _record_size(entry: dict) -> int:
    return sum(len(v) for v in (entry.get("data") or {}).values())


def _config_table(items: list["Summarised"]) -> dict:
    header = ["policy", "options", "board", "start length", "tail", "max moves", "base seed", "games",
              "games/CPU-s", "threads", "run on", "source"]
    rows = []
    for item in items:
        src, agg = item.source, item.agg
        p, run = src.params, src.run or {}
        games = agg.stats.games
        first = agg.first_game or 0
        rate = run.get("games_per_cpu_second")
        rows.append([
            item.name, json.dumps(p.get("options") or {}, sort_keys=True), f"{p['rows']}x{p['cols']}",
            str(p["start_length"]), str(p["tail_rule"]), f"{int(p['max_moves']):,}", str(p["seed"]),
            f"{games:,} (games {first:,}..{first + games - 1:,})" if games else "0",
            f"{rate:,.1f}" if rate else "not recorded", str(run.get("threads", "-")),
            " · ".join(str(run[k]) for k in ("date", "machine", "fastsnake") if run.get(k)) or "not recorded",
            src.label,
        ])
    return {"header": header, "rows": rows}


@dataclass
class PickCounts:
    """How many games of each kind a report picks per policy, and the extra ``pick`` expressions."""

    worst: int = DEFAULT_WORST
    best: int = DEFAULT_BEST
    died: int = DEFAULT_DIED
    random: int = DEFAULT_RANDOM
    sample: int = PER_APPLE_GAMES
    named: tuple = ()  # "died", "longest", "shortest" or a game index (int), in the order asked
    replay: int = DEFAULT_REPLAY_SAMPLE  # games re-played to check each run's rows (`seedcheck`)
    replay_seed: int = 0  # chooses them (`checked` draws a fresh one when not given)

    @classmethod
    def checked(cls, *, worst, best, died, random, sample, picks, replay=None, replay_seed=None) -> "PickCounts":
        for name, value in (("worst", worst), ("best", best), ("died", died), ("random", random),
                            ("sample", sample)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ReportError(f"{name}={value!r} must be a whole number >= 0")
        named = []
        for p in (str(p) for p in picks):
            if p in ("died", "longest", "shortest"):
                named.append(p)
                continue
            try:
                index = int(p)
            except ValueError:
                raise ReportError(f"pick {p!r} is not died, longest, shortest or a game index") from None
            if index < 0:
                raise ReportError(f"pick {p!r}: a game index is at least 0")
            named.append(index)
        replay = check_sample(DEFAULT_REPLAY_SAMPLE if replay is None else replay)
        return cls(int(worst), int(best), int(died), int(random), int(sample), tuple(named), replay,
                   sample_seed(replay_seed))

    @property
    def indices(self) -> list[int]:
        return [p for p in self.named if isinstance(p, int)]


@dataclass
class Summarised:
    """One source read once: its streamed aggregate and the name the page shows it by."""

    source: SweepSource
    agg: _Aggregate
    name: str
    replayed: dict | None = None  # set by `replay_picks`: which games were re-played, which contradict their rows


def display_names(sources: list[SweepSource]) -> list[str]:
    """A distinct name per source: its policy, then its board or its file where a policy repeats."""
    names = [s.policy for s in sources]
    for policy in {n for n in names if names.count(n) > 1}:
        same = [i for i, s in enumerate(sources) if s.policy == policy]
        boards = [f"{sources[i].params['rows']}x{sources[i].params['cols']}" for i in same]
        for i, board in zip(same, boards, strict=True):
            files = sources[i].label.split(" [")[0]
            names[i] = f"{policy} {board}" if boards.count(board) == 1 else f"{policy} ({files})"
    for i, name in enumerate(names):  # the same file given twice
        if names.count(name) > 1:
            names[i] = f"{name} #{names[:i].count(name) + 1}"
    return names


def summarise(sources: list[SweepSource], counts: PickCounts, problems: list, progress=None) -> list[Summarised]:
    """Step 2: read every source once (statistics, histogram, candidates for picking); an empty
    source is a line in `problems`."""
    died = max(counts.died, 1 if "died" in counts.named else 0)
    kept = []
    for k, src in enumerate(sources):
        if progress:
            progress(f"reading {src.label}", k, len(sources))
        agg = aggregate(src, worst=counts.worst, best=counts.best, died=died, random=counts.random,
                        indices=counts.indices, sample=counts.sample,
                        check=SampleChooser(counts.replay, counts.replay_seed))
        if agg.stats.games == 0:
            problems.append(f"{src.label}: the sweep holds no games")
        else:
            kept.append((src, agg))
    if not kept:
        raise ReportError("; ".join(problems) or "nothing to report")
    names = display_names([src for src, _ in kept])
    return [Summarised(src, agg, name) for (src, agg), name in zip(kept, names, strict=True)]


def pick_games(item: Summarised, counts: PickCounts, problems: list) -> dict[int, tuple[dict, list]]:
    """Step 3: the games of one source worth watching: game index -> (its row, why it was picked)."""
    agg, label = item.agg, item.source.label
    chosen: dict[int, tuple[dict, list]] = {}

    def choose(row, why):
        if row["game"] in chosen:
            chosen[row["game"]][1].append(why)
        else:
            chosen[row["game"]] = (row, [why])

    for p in counts.named:
        if p == "died":
            found = agg.died.games()[:1]
            if not found:
                problems.append(f"{label}: pick 'died': no game died")
        elif p == "longest":
            found = agg.worst.games()[:1]
        elif p == "shortest":
            found = agg.best.games()[:1]
        else:
            row = agg.indices.get(p)
            found = [row] if row is not None else []
            if row is None:
                problems.append(f"{label}: pick {str(p)!r}: game {p} is not in the sweep")
        for row in found:
            choose(row, f"pick {p}")
    for kind, best, n in (("died", agg.died, counts.died), ("stuck", agg.stuck, counts.died),
                          ("worst", agg.worst, counts.worst), ("best", agg.best, counts.best),
                          ("random", agg.random, counts.random)):
        for row in best.games()[:n]:
            choose(row, kind)
    return chosen


def replay_picks(item: Summarised, chosen: dict, counts: PickCounts, problems: list,
                 progress=None) -> tuple[list[dict], list[Replay]]:
    """Step 4: re-play the picked games, the per-apple sample and the check sample (`seedcheck`) from
    their seeds; each must come out as its row says (``item.replayed`` lists which were re-played and
    which contradict their rows). Returns (page entries, the per-apple sample's replays)."""
    src = item.source
    config = src.config
    options = recorded_options(src.policy, src.params.get("options"))
    sampled = item.agg.random.games()[: counts.sample]
    for_apples = {row["game"] for row in sampled}
    todo = [(index, row, why) for index, (row, why) in chosen.items()]
    todo += [(row["game"], row, None) for row in sampled if row["game"] not in chosen]
    checks = item.agg.check.rows() if item.agg.check is not None else []
    seen = {index for index, _, _ in todo}
    todo += [(row["game"], dict(row, outcome=OUTCOME_NAMES.index(row["outcome"])), None) for row in checks
             if row["game"] not in seen]
    entries, replays, failed = [], [], []
    item.replayed = {"sample": counts.replay, "seed": counts.replay_seed, "games": [], "contradicted": []}
    for k, (index, row, why) in enumerate(todo):
        if progress:
            progress(f"re-playing {item.name}", k, len(todo))
        replay, note = _replay_row(src, config, options, row)
        if replay is not None or CONTRADICTS in note:
            item.replayed["games"].append(index)
        if replay is None and CONTRADICTS in note:
            item.replayed["contradicted"].append(index)
        if replay is not None and index in for_apples:
            replays.append(replay)
        if why is None:
            continue
        entry = _bare_entry(src, row, why, note) if replay is None else game_entry(replay, why)
        if replay is None:
            failed.append((index, note))
        entry.update(name=item.name, source=src.label)
        entries.append(entry)
    problems.extend(games_grouped(failed))
    return entries, replays


def games_grouped(failed: list) -> list[str]:
    """One line per reason for the (game index, note) pairs of games that could not be re-played:
    48 games failing for one reason (a changed model) are one line naming how many, not 48."""
    import re

    groups: dict = {}
    for index, note in failed:
        key = re.sub(rf"\bgame {index}\b", "game {}", note, count=1)
        cli = re.sub(rf"\bgame {index}\b", "game {}", cli_text(note), count=1)
        groups.setdefault((key, cli), []).append(index)
    lines = []
    for (key, cli), indices in groups.items():
        if len(indices) == 1:
            games = f"game {indices[0]}"
        else:
            shown = ", ".join(str(i) for i in indices[:5]) + (", ..." if len(indices) > 5 else "")
            games = f"{len(indices):,} games ({shown})"
        lines.append(worded(key.replace("game {}", games, 1), cli.replace("game {}", games, 1)))
    return lines


def fit_budget(entries: list[dict], budget: int) -> None:
    """Step 5: keep game records, in order, while they fit in `budget` bytes; the rest are listed
    without theirs, with the command that re-creates them."""
    spent = 0
    for entry in entries:
        if "data" not in entry:
            continue
        size = _record_size(entry)
        if spent + size > budget:
            entry.pop("data")
            entry["note"] = (f"not embedded: the page's budget of {budget:,} bytes of game records is spent; "
                             f"'fastsnake replay --from {entry['source']} --pick {entry['game']}' re-creates it")
        else:
            spent += size


def section_summary(item: Summarised) -> dict:
    """A source's summary: the statistics `compare` prints, their 95 % intervals, the run's timing."""
    stats = item.agg.stats.as_dict()
    config = item.source.config
    return dict(stats, policy=item.source.policy, rows=config.rows, cols=config.cols,
                moves_mean_ci95=mean_ci95(stats["games"], stats["moves_mean"], stats["moves_std"]),
                win_rate_ci95=wilson_ci95(stats["wins"], stats["games"]), **(item.source.run or {}))


def summary_table(sections: list[dict]) -> dict:
    """The summary table `compare` prints (`present.compare_rows`), one row a section (by its page
    name): the mean moves as ``mean ± half-width``, the win rate with its Wilson interval, and the
    games per CPU-second the run recorded (with ``--repeat``: the median and its interval)."""
    header, rows = compare_rows([dict(s["summary"], policy=s["name"]) for s in sections])
    if header[0] == "size":  # the page names a source by its board already (`display_names`)
        header, rows = header[1:], [row[1:] for row in rows]
    return {"header": list(header), "rows": rows}


def paired_comparisons(items: list[Summarised]) -> list[dict]:
    """Every source against the first source with its board, rules and seed (its baseline)."""
    paired = []
    for i, item in enumerate(items):
        base = next(b for b in items[: i + 1]
                    if all(b.source.params.get(k) == item.source.params.get(k) for k in PAIRED_SAME))
        if base is item:
            continue
        pair = _paired(base.source, base.agg, item.source, item.agg, base.name, item.name)
        if pair is not None:
            paired.append(pair)
    return paired


def page_data(items: list[Summarised], sections: list[dict], games: list[dict], *, notes: list, problems: list,
              title=None) -> dict:
    """Step 6: the page's data (the schema of `fastsnake.webpage`), from the summarised sources, their
    sections and the picked games."""
    for i, entry in enumerate(games):
        entry["index"] = i
    paired = paired_comparisons(items)
    if len(items) > 1 and not paired:
        notes.append("no paired difference: the inputs do not share board, rules and seeds")
    sources, aggs = [it.source for it in items], [it.agg for it in items]
    scaling = _scaling(sections, items)
    edges = _hist_edges(aggs)
    policies = ", ".join(dict.fromkeys(s.policy for s in sources))
    boards = ", ".join(dict.fromkeys(f"{s.config.rows}x{s.config.cols}" for s in sources))
    c0 = sources[0].config
    return {
        "kind": "sweep",
        "title": title or f"fastsnake report: {policies} on {boards}",
        "subtitle": (f"{sum(a.stats.games for a in aggs):,} games · tail {c0.tail_rule} · start length "
                     f"{c0.start_length} · report made {time.strftime('%Y-%m-%d %H:%M')} on {machine.describe()}"),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": machine.describe(),
        "config": _config_table(items),
        "summary_table": summary_table(sections),
        "sections": sections,
        "hist_edges": None if edges is None else edges.tolist(),
        "paired": paired,
        "scaling": scaling,
        "games": games,
        "notes": notes + (scaling["notes"] if scaling else []),
        "problems": list(problems),
    }


def build(sources: list[SweepSource], *, worst=DEFAULT_WORST, best=DEFAULT_BEST, died=DEFAULT_DIED,
          random=DEFAULT_RANDOM, picks=(), sample=PER_APPLE_GAMES, title=None, budget=EMBED_BUDGET,
          problems=None, progress=None, replay=None, replay_seed=None) -> dict:
    """The page data (see `fastsnake.webpage`) of one or more sweep sources; `problems` collects
    one line for everything that could not go in (a game that no longer replays, say).

    The pipeline, one named step each: `load_inputs` (done by the caller) -> `summarise` ->
    `pick_games` -> `replay_picks` -> `fit_budget` -> `page_data`; `write_report` renders the page.
    """
    problems = [] if problems is None else problems
    counts = PickCounts.checked(worst=worst, best=best, died=died, random=random, sample=sample, picks=picks,
                                replay=replay, replay_seed=replay_seed)
    notes = [n for s in sources for n in s.notes]
    items = summarise(sources, counts, problems, progress)
    edges = _hist_edges([it.agg for it in items])
    games, sections = [], []
    for item in items:
        entries, sample_replays = replay_picks(item, pick_games(item, counts, problems), counts, problems, progress)
        replay_verdict(item, entries, notes, problems)
        games += entries
        sections.append({"policy": item.source.policy, "name": item.name, "label": item.source.label,
                         "replayed": item.replayed,
                         "summary": section_summary(item),
                         "hist": _hist(item.agg.stats, edges) if edges is not None else [],
                         "per_apple": _per_apple(sample_replays)})
    fit_budget(games, budget)
    return page_data(items, sections, games, notes=notes, problems=problems, title=title)


# The most game indices a report's line about its re-played games lists (the page data lists them all).
LISTED_GAMES = 40


def replay_verdict(item: Summarised, entries: list[dict], notes: list, problems: list) -> None:
    """Say which of a source's games were re-played from their seeds (a note); when any contradicts
    its row, the source is marked on the page (its name, in every table and plot, says DAMAGED) and
    a problem line says that its figures cannot be trusted."""
    item.replayed["games"].sort()
    item.replayed["contradicted"].sort()
    done, bad = item.replayed["games"], item.replayed["contradicted"]
    listed = ", ".join(str(g) for g in done[:LISTED_GAMES]) + (", ..." if len(done) > LISTED_GAMES else "")
    said = f"{item.name}: {len(done):,} game(s) re-played from their seeds (sample seed {item.replayed['seed']}"
    if not bad:
        notes.append(f"{said}), each as its row says: {listed}")
        return
    item.name = f"{item.name} (DAMAGED: rows contradict their seeds)"
    for entry in entries:
        entry["name"] = item.name
    shown = ", ".join(str(g) for g in bad[:LISTED_GAMES]) + (", ..." if len(bad) > LISTED_GAMES else "")
    text = (f"{said}): {len(bad):,} contradict their rows (games {shown}): {item.source.label} is damaged or "
            f"was edited, and its figures (win rate, moves) cannot be trusted")
    problems.append(worded(text, text + "; 'fastsnake verify --replay N' checks N games of each run"))


def _replay_row(src: SweepSource, config: GameConfig, options: dict, row: dict):
    """(Replay, None) of a sweep row, or (None, why it cannot be re-played as recorded)."""
    index = row["game"]
    try:
        replay, _ = play_game(src.policy, config, int(src.params["seed"]), index, options)
    except InputError as exc:
        said = f"{src.label}: game {index} cannot be re-played: "
        return None, worded(said + str(exc), said + cli_text(exc))
    s = replay.summary()
    want = (OUTCOME_NAMES[row["outcome"]], row["moves"], row["apples"])
    got = (s["outcome"], s["moves"], s["apples"])
    if got != want:
        return None, (f"{src.label}: game {index} {CONTRADICTS} ({want[0]} after {want[1]:,} moves "
                      f"in the sweep, {got[0]} after {got[1]:,} now): the sweep was made by other code "
                      f"(another fastsnake version?)")
    return replay, None


# The words of a re-played game that contradicts its row (`_replay_row`).
CONTRADICTS = "no longer replays as recorded"


def _bare_entry(src: SweepSource, row: dict, why, note: str) -> dict:
    """The entry of a sweep row that has no record in the page (`note` says why)."""
    c = src.config
    entry = _entry(policy=src.policy, rows=c.rows, cols=c.cols, seed=int(src.params["seed"]), game=row["game"],
                   game_seed=row["seed"], start_length=c.start_length, tail=c.tail_rule, max_moves=c.move_cap,
                   outcome=OUTCOME_NAMES[row["outcome"]], moves=row["moves"], apples=row["apples"],
                   length=row["length"], why=why)
    entry["note"] = note
    return entry


def write_report(path, data: dict) -> int:
    """Render `data` and write it whole or not at all; returns the page's size in bytes."""
    return webpage.write(path, webpage.render(data))
