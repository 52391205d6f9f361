"""Comparisons: several policies on the same games, their paired statistics, tables and files."""

from __future__ import annotations

import dataclasses
import json
import os

from fastsnake.errors import Terminated
from fastsnake.renamed import RENAMED_KEYS
from fastsnake.snake.api.inputs import (
    check_output,
    check_path,
    flat_summary,
    game_settings,
    is_folder_target,
    policy_name,
)
from fastsnake.snake.api.results import SweepResult
from fastsnake.snake.api.sweeps import check_repeat, compare_to_precision, file_parameters, sweep
from fastsnake.snake.board import BoardError, GameConfig
from fastsnake.snake.policies import PolicyError, available, get_policy
from fastsnake.snake.sweep import SweepError, check_games, check_seed, check_threads, write_table_atomically


def compare_runs(policies, size, games, seed=None, *, threads=None, progress=False, baseline=None, precision=None,
                 all_pairs=False, test="t", robust=False, repeat=None, warmup=0, **options) -> list[SweepResult]:
    """One in-memory sweep per board size and policy, same seeds; stops after a sweep interrupted by Ctrl-C.

    `size` is one size or several (a list, or ``"10,20x24,30"``), or a `GameSettings` holding them
    with the other settings (the setting keywords ``start_length``, ``tail``, ``max_moves`` are
    those of `sweep`): one result per size and policy, sizes in the order given. Every result but
    the baseline's (the first policy, or `baseline`)
    carries ``summary["paired"]`` against the baseline of its size; with several sizes every
    result carries ``summary["scaling"]``, its policy's growth over the sizes (`scaling`). With
    `precision` the games are played in rounds until every 95 % half-width is at most
    `precision` x the mean, `games` at most (``summary["precision"]``; `fastsnake.snake.precision`).
    `all_pairs` adds ``summary["pairs"]``, the comparison with every earlier policy, each with its
    Holm-adjusted ``p_holm`` (one family per board size); ``test="wilcoxon"`` adds the Wilcoxon
    signed-rank ``wilcoxon_p`` to every pair; `robust` adds ``summary["robust"]`` (median and IQM
    of the moves with bootstrap intervals); `repeat` / `warmup` are those of `sweep`.
    """
    if test not in ("t", "wilcoxon"):
        raise SweepError(f"test={test!r} must be 't' or 'wilcoxon'")
    settings = game_settings(size, seed, options)
    repeat, warmup = check_repeat(repeat, warmup)
    if repeat is not None and precision is not None:
        raise SweepError("repeat times a fixed number of games: give either repeat or precision")
    if policies is None:
        names = available()
    else:
        if isinstance(policies, str):
            policies = [p.strip() for p in policies.split(",") if p.strip()]
        names = [policy_name(p) for p in policies]
        if not names:
            raise PolicyError("compare needs at least one policy")
    engine_policies = [get_policy(n) for n in names]  # unknown names fail before any game is played
    names = [p.name for p in engine_policies]
    twice = next((n for k, n in enumerate(names) if n in names[:k]), None)
    if twice is not None:  # a policy against itself is no comparison (its p-value would be NaN)
        raise PolicyError(f"policy {twice!r} is listed twice in policies={names!r}: compare each policy once")
    check_games(games)
    seed = check_seed(settings.seed)
    if threads is not None:
        check_threads(threads)
    base = _baseline_index(names, baseline)
    if precision is not None:
        from fastsnake.snake.precision import check_precision

        precision = check_precision(precision)
    configs = [settings.config(item) for item in board_sizes(settings.size)]
    taken = set().union(*(p.option_names for p in engine_policies))
    unused = sorted(set(k for k, v in options.items() if v is not None) - taken)
    if unused:
        raise PolicyError(f"no compared policy takes option {unused[0]!r}")

    def own(name):
        return {k: v for k, v in options.items() if k in get_policy(name).option_names}

    results = []
    for config in configs:
        if precision is not None:
            group = compare_to_precision(names, config, int(games), seed, base, precision, threads, own, progress)
        else:
            group = []
            for name in names:
                try:
                    result = sweep(name, dataclasses.replace(settings, size=(config.rows, config.cols)), games,
                                   seed, threads=threads, progress=progress, repeat=repeat, warmup=warmup,
                                   **own(name))
                except Terminated as stop:  # the finished sweeps come along
                    stop.result = results + group + [stop.result]
                    raise
                group.append(result)
                if result.interrupted:
                    break
            _attach_paired(group, names[base], base)
        _attach_extras(group, base, all_pairs=all_pairs, test=test, robust=robust)
        results += group
        if any(r.interrupted for r in group):
            break
    if len(configs) > 1:
        fits = scaling(results)
        for r in results:
            r.summary["scaling"] = fits.get(r.summary["policy"])
    return results


def board_sizes(size) -> list:
    """The board sizes of `size`: one (an int, ``(rows, cols)``, ``"RxC"``) or several (a list, or
    ``"10,20x24,30"``)."""
    if isinstance(size, str) and "," in size:
        items = [item.strip() for item in size.split(",")]
        if not all(items):
            raise BoardError(f"size {size!r}: an empty item in the list of sizes")
        return items
    if isinstance(size, list):
        if not size:
            raise BoardError("size=[]: give at least one board size")
        return size
    return [size]


def _baseline_index(names: list[str], baseline) -> int:
    if baseline is None:
        return 0
    name = policy_name(baseline)
    if name not in names:
        raise PolicyError(f"baseline {name!r} is not one of the compared policies ({', '.join(names)})")
    return names.index(name)


def _attach_paired(group: list[SweepResult], baseline: str, base: int) -> None:
    """`paired` of every result against the baseline's, on the games both played (same seeds)."""
    from fastsnake.snake.intervals import PairedAccumulator
    from fastsnake.snake.precision import OUTCOME_BY_CODE

    if base >= len(group):
        return
    ref = group[base]._raw
    group[base].summary["paired"] = None
    for k, result in enumerate(group):
        if k == base:
            continue
        run = result._raw
        common = min(ref.games, run.games)
        acc = PairedAccumulator()
        acc.add(ref.outcome[:common], ref.moves[:common], run.outcome[:common], run.moves[:common],
                ref.apples[:common], run.apples[:common])
        result.summary["paired"] = acc.as_dict(baseline, OUTCOME_BY_CODE)


def _pair(ref, run, baseline: str, test: str) -> dict:
    """`run` against `ref` (two SweepRuns of the same seeds) on the games both played."""
    from fastsnake.snake.intervals import PairedAccumulator
    from fastsnake.snake.precision import OUTCOME_BY_CODE

    common = min(ref.games, run.games)
    acc = PairedAccumulator()
    acc.add(ref.outcome[:common], ref.moves[:common], run.outcome[:common], run.moves[:common],
            ref.apples[:common], run.apples[:common])
    paired = acc.as_dict(baseline, OUTCOME_BY_CODE)
    if test == "wilcoxon":
        _add_wilcoxon(paired, ref, run)
    return paired


def _add_wilcoxon(paired: dict, ref, run) -> None:
    from fastsnake.snake.benchmark import wilcoxon_p
    from fastsnake.snake.stats import WON

    common = min(ref.games, run.games)
    both = (ref.outcome[:common] == WON) & (run.outcome[:common] == WON)
    paired["wilcoxon_p"] = wilcoxon_p(run.moves[:common][both] - ref.moves[:common][both])
    paired["wilcoxon_games"] = int(both.sum())


def _attach_extras(group: list[SweepResult], base: int, *, all_pairs: bool, test: str, robust: bool) -> None:
    """What `compare_runs` adds on request to the pairs with the baseline: every pair with Holm's
    adjustment, the Wilcoxon test, the robust aggregates. Needs the games' rows (kept in memory)."""
    runs = [r._raw for r in group]
    if any(run is None or run.outcome.size != run.stats.games for run in runs):
        return  # rows not kept: nothing more can be computed
    if test == "wilcoxon" and base < len(group):
        for k, r in enumerate(group):
            if k != base and r.summary.get("paired"):
                _add_wilcoxon(r.summary["paired"], runs[base], runs[k])
    if all_pairs:
        from fastsnake.snake.benchmark import holm

        family = []
        for k, r in enumerate(group):
            pairs = []
            for j in range(k):
                mine = r.summary.get("paired")
                same = j == base and mine is not None and mine.get("baseline") == group[j].summary["policy"]
                pairs.append(mine if same else _pair(runs[j], runs[k], group[j].summary["policy"], test))
            r.summary["pairs"] = pairs
            family += pairs
        for pair, adjusted in zip(family, holm([p["p_value"] for p in family]), strict=True):
            pair["p_holm"] = adjusted
    if robust:
        from fastsnake.snake.benchmark import robust_summary

        for r, run in zip(group, runs, strict=True):
            r.summary["robust"] = robust_summary(run.moves)



def scaling(results) -> dict:
    """How each policy's cost grows with the board over the sizes of `results` (one compare):
    ``{policy: {"moves_exponent", "moves_exponent_ci95", "cpu_exponent", "cpu_exponent_ci95",
    "sizes", "cells"}}`` where moves ~ cells^moves_exponent (mean moves per game) and CPU seconds
    per game ~ cells^cpu_exponent, least squares on log-log (`intervals.growth_by_policy`, which the
    report uses too; the intervals need three sizes or more; a board without timing is left out of
    the CPU fit)."""
    from fastsnake.snake.intervals import growth_by_policy

    keys = ("moves_exponent", "moves_exponent_ci95", "cpu_exponent", "cpu_exponent_ci95", "sizes", "cells")
    fits = growth_by_policy([r.summary if isinstance(r, SweepResult) else r for r in results])
    return {name: {k: fit[k] for k in keys} for name, fit in fits.items()}


def compare(policies, size, games, seed=None, *, threads=None, out=None, progress=False, baseline=None,
            precision=None, all_pairs=False, test="t", robust=False, repeat=None, warmup=0, save_baseline=None,
            baseline_from=None, slower=0.10, allow_partial=False, require_all=False, **options):
    """Several policies on the same games: a ``pyarrow.Table`` with one row per board size and policy.

    The columns are the summary keys of `sweep` (``policy, moves_mean, moves_mean_ci95, win_rate,
    win_rate_ci95, ...``; ``options``, ``paired``, ``precision`` and ``scaling`` as JSON strings).
    `size`, `seed` and the setting keywords are those of `compare_runs` (a `GameSettings` in place
    of `size` holds them all). `policies` is a list of names/`Policy` objects, a comma-separated
    string, or None for every registered policy; the first (or `baseline`) is the baseline: every other row's ``paired``
    holds its paired comparison with it on the same seeds (docs/sweeps.md, "Paired
    comparisons"). `size` may list several sizes (``[10, 20]`` or ``"10,20"``). `precision` plays
    rounds until every 95 % half-width is at most that share of the mean (`games` is the cap).
    Options go to each policy that takes them; an option no policy takes is refused. `out`
    (``*.parquet``) writes every game's row, of every policy and board size, in the sweep files' schema
    (each row names its policy, board and run: `report`, `verify` and `replay_game` read it); any
    other name is a folder of one such file per board (``compare-RxC.parquet``; `report` reads it).
    `all_pairs`, `test`, `robust`, `repeat` and `warmup` are those of `compare_runs`;
    `save_baseline` keeps the run as a named baseline (`benchmark.save_baseline`) and
    `baseline_from` (a name or file) checks it against one (`benchmark.check_baseline`, a share
    `slower` for the speed; `allow_partial` accepts a run not wholly in the baseline; `require_all`
    refuses one that plays only part of the baseline): every row gains ``baseline_check``, whose
    ``worse`` lists findings.

    Examples
    --------
    >>> import fastsnake
    >>> table = fastsnake.compare(["cycle", "greedy"], 6, 50)
    >>> table.column("policy").to_pylist()
    ['cycle', 'greedy']
    """
    if out is not None:
        check_path(out, "out")
        check_output(out)
    from fastsnake.snake import benchmark

    if save_baseline is not None:
        benchmark.baseline_path(save_baseline)
    if baseline_from is not None:
        benchmark.read_baseline(benchmark.find_baseline(baseline_from))
    results = compare_runs(policies, size, games, seed, threads=threads, progress=progress, baseline=baseline,
                           precision=precision, all_pairs=all_pairs, test=test, robust=robust, repeat=repeat,
                           warmup=warmup, **options)
    if out is not None:
        write_compare(results, out)
    if baseline_from is not None:
        benchmark.check_baseline(results, baseline_from, slower=slower, allow_partial=allow_partial,
                                 require_all=require_all)
    if save_baseline is not None:
        benchmark.save_baseline(results, save_baseline)
    return compare_table(results)


def compare_table(results):
    import pyarrow as pa

    rows = [flat_summary(r.summary) for r in results]
    keys = list(dict.fromkeys(k for row in rows for k in row))  # from_pylist reads the first row's only
    table = pa.Table.from_pylist([{k: row.get(k) for k in keys} for row in rows])
    for old, new in RENAMED_KEYS.items():  # the old column beside the new one for a release (CHANGELOG.md)
        if new in table.column_names and old not in table.column_names:
            table = table.add_column(table.column_names.index(new) + 1, old, table[new])
    return table


def write_compare(results, path) -> None:
    """Every game of every policy and board in one Parquet file (``*.parquet``), or, for any other
    name, a folder of one compare file per board (``compare-RxC.parquet``, which `report` reads
    whole); each footer records each policy's parameters and run, so a report re-plays each with its
    own options."""
    import pyarrow as pa

    check_path(path, "path")
    if is_folder_target(path):
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as exc:
            raise SweepError(f"cannot create folder {str(path)!r}: {exc.strerror or exc}") from None
        boards = {}
        for r in results:
            boards.setdefault((r.summary["rows"], r.summary["cols"]), []).append(r)
        for (rows, cols), group in boards.items():
            write_compare(group, os.path.join(str(path), f"compare-{rows}x{cols}.parquet"))
        return
    from fastsnake.snake.report import COMPARE_META_KEY, run_record

    # Every sweep's rows in the one schema (`store.sweepfile.schema_names`): a compare file's columns
    # are a sweep file's, each row naming its policy, board and run.
    table = pa.concat_tables([r.table for r in results], promote_options="permissive")
    compared = [{"parameters": file_parameters(r.summary["policy"], _config_of(r.summary), r.summary["seed"],
                                                r.summary["options"], r.summary["games"]),
                 "run": run_record(r.summary)} for r in results]
    meta = dict(table.schema.metadata or {})
    meta[COMPARE_META_KEY] = json.dumps(compared).encode()
    write_table_atomically(table.replace_schema_metadata(meta), path)


def _config_of(summary: dict) -> GameConfig:
    return GameConfig(summary["rows"], summary["cols"], summary["start_length"], summary["tail_rule"],
                      summary["max_moves"])

