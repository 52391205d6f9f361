"""Precision on demand: play the games of a sweep or compare in rounds until every 95 % interval
is as narrow as asked.

Round r plays games done .. total_r - 1 of every policy, in the seed order of a plain sweep
(`run_sweep(first_game=done)`), so after any round the games played are a prefix of the plain
sweep: game k is the same game, whatever the rounds. After each round every reported figure is
checked: each policy's mean moves (Student t half-width <= target x its mean) and each paired
difference against the baseline over the games both won (half-width <= target x the baseline's
mean over those games). The next round's size is chosen from the game records alone (never from
timing), so the same call plays the same games: the half-widths shrink as 1/sqrt(games), which
estimates the games still needed; a round at least halves the distance and at most multiplies the
games by `MAX_GROWTH`; the cap (`--games`) is never passed.

The round sizes (`next_total`) and the figures' arithmetic (`Figure`) are every study's, in
`fastsnake.study.precision`. This is a layer over `sweep.run_sweep`: the public API
(`api.compare_runs`, `api.sweep`) wraps the runs it returns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fastsnake.snake.engine import OUTCOME_NAMES
from fastsnake.snake.intervals import PairedAccumulator, half_width, mean_ci95
from fastsnake.snake.stats import SummaryAccumulator
from fastsnake.snake.sweep import SweepError, SweepRun, run_sweep
from fastsnake.study.precision import (  # noqa: F401  (the names stay here for code written against them)
    ESTIMATE_MARGIN,
    FIRST_ROUND,
    MAX_GROWTH,
    MIN_GROWTH,
    Figure,
    next_total,
)
from fastsnake.study.precision import check_precision as _check_precision

OUTCOME_BY_CODE = dict(enumerate(OUTCOME_NAMES))


def check_precision(precision) -> float:
    """A relative half-width: a number > 0 and < 1 (0.001 is 0.1 % of the mean)."""
    return _check_precision(precision, SweepError)


def figures(summaries: list[SweepAccumulators], baseline: int, skipped: list | None = None) -> list[Figure]:
    """Every figure the target applies to: each policy's mean moves and each paired difference.

    A paired moves difference exists only over games both policies won: when one of the two has
    won no game so far (its outcome does not vary: it always dies or sticks) and so no game was won
    by both, more games cannot make that figure, and it is left out (its name added to `skipped`)
    rather than holding every policy to the cap."""
    out = []
    for k, acc in enumerate(summaries):
        s = acc.stats.as_dict()
        interval = mean_ci95(s["games"], s["moves_mean"], s["moves_std"])
        out.append(Figure(f"{acc.policy} mean moves", half_width(interval), s["moves_mean"]))
        if k != baseline and acc.paired is not None:
            base = summaries[baseline]
            name = f"{acc.policy} vs {base.policy} moves difference"
            if acc.paired.won_won == 0 and min(acc.stats.wins, base.stats.wins) == 0:
                never = acc.policy if acc.stats.wins == 0 else base.policy
                if skipped is not None:
                    skipped.append(f"{name} ({never} won no game)")
                continue
            p = acc.paired.as_dict(base.policy)
            out.append(Figure(name, half_width(p["moves_diff_ci95"]), p["baseline_moves_mean"]))
    return out


@dataclass
class SweepAccumulators:
    """What the rounds of one policy add up to."""

    policy: str
    stats: SummaryAccumulator
    paired: PairedAccumulator | None
    runs: list  # the SweepRun of each round (rows kept only when asked)


def run_to_precision(names: list[str], config, cap: int, seed: int, *, target: float, baseline: int = 0,
                     threads=None, options_of=None, keep_rows: bool = True, progress_of=None):
    """Play rounds of every policy in `names` until every figure reaches `target` or `cap` games.

    `options_of(name)` gives a policy's options; `progress_of(name, round)` its progress callback
    (or None). Returns (one combined `SweepRun` per policy played, one `paired` dict or None per
    run, the `precision` dict: target, reached, games, cap, rounds, limiting figure and its
    relative half-width). A round stopped by Ctrl-C or SIGTERM ends the rounds: each policy keeps
    the games it finished, and the paired figures count the games both policies finished.
    """
    target = check_precision(target)
    accs = [SweepAccumulators(name, SummaryAccumulator(), None if k == baseline else PairedAccumulator(), [])
            for k, name in enumerate(names)]
    done, rounds, total = 0, 0, min(cap, FIRST_ROUND)
    stopped = False
    worst = Figure("-", None, None)
    while True:
        rounds += 1
        round_runs = []
        for name, acc in zip(names, accs, strict=True):
            run = run_sweep(name, config, total - done, seed=seed, first_game=done, threads=threads,
                            options=options_of(name) if options_of else None,
                            progress=progress_of(name, rounds) if progress_of else None, keep_rows=True)
            acc.stats.merge(run.stats)
            round_runs.append(run)
            if run.interrupted:
                stopped = True
                break
        base = round_runs[baseline] if baseline < len(round_runs) else None
        for k, run in enumerate(round_runs):
            acc = accs[k]
            if base is not None and acc.paired is not None:
                common = min(base.games, run.games)
                acc.paired.add(base.outcome[:common], base.moves[:common], run.outcome[:common], run.moves[:common],
                               base.apples[:common], run.apples[:common])
            if not keep_rows:  # the summary needs the round's statistics and timing, not its rows
                run = _without_rows(run)
            acc.runs.append(run)
        done = total
        skipped: list[str] = []
        checked = figures(accs, baseline, skipped)
        worst = max(checked, key=lambda f: f.ratio(target))
        if stopped or worst.ratio(target) <= 1 or done >= cap:
            break
        total = next_total(done, cap, worst.ratio(target))
    played = [acc for acc in accs if acc.runs]
    combined = [combine(acc.runs, acc.stats) for acc in played]
    paired = [None if acc.paired is None else acc.paired.as_dict(names[baseline], OUTCOME_BY_CODE)
              for acc in played]
    ratio = worst.ratio(target)
    info = {"target": target, "reached": bool(ratio <= 1), "games": min(r.games_requested for r in combined),
            "cap": int(cap), "rounds": rounds, "limiting": worst.name,
            "limiting_half_width": None if math.isinf(ratio) else ratio * target, "skipped": skipped}
    return combined, paired, info


def _without_rows(run: SweepRun) -> SweepRun:
    return SweepRun(run.policy, run.config, run.options, run.base_seed, run.first_game, run.games, run.threads,
                    run.rows[:0], run.seconds, run.cpu_seconds, run.interrupted, dict(run.extra), None,
                    run.chunk_times, run.run_id)


def combine(runs: list[SweepRun], stats: SummaryAccumulator) -> SweepRun:
    """The rounds of one policy as one run of games 0 .. n-1: rows (when kept), timing and chunks
    added up; `games_requested` is the games played (the prefix of the plain sweep)."""
    first = runs[0]
    played = stats.games
    extra = dict(first.extra)
    extra["compile_seconds"] = sum(r.extra.get("compile_seconds") or 0.0 for r in runs)
    extra["signal"] = next((r.extra.get("signal") for r in runs if r.extra.get("signal")), None)
    return SweepRun(
        policy=first.policy, config=first.config, options=first.options, base_seed=first.base_seed, first_game=0,
        games_requested=played, threads=first.threads,
        rows=np.concatenate([r.rows for r in runs]),
        seconds=sum(r.seconds for r in runs), cpu_seconds=sum(r.cpu_seconds for r in runs),
        interrupted=any(r.interrupted for r in runs), extra=extra, stats=stats,
        chunk_times=[t for r in runs for t in r.chunk_times], run_id=first.run_id)
