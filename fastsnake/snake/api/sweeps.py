"""Sweeps: `sweep`, its precision rounds, and the checks and readers of what it wrote.

Sweep folders (resumable, chunked, on a dask cluster) run in `fastsnake.snake.api.folders`.
"""

from __future__ import annotations

import os

import numpy as np

from fastsnake.errors import Terminated
from fastsnake.files import shown_value
from fastsnake.sizes import MemoryBudgetError, check_memory
from fastsnake.snake import seedcheck
from fastsnake.snake.api.folders import run_folder
from fastsnake.snake.api.inputs import (
    check_output,
    check_path,
    game_settings,
    is_folder_target,
    policy_name,
    progress_callback,
)
from fastsnake.snake.api.results import BYTES_PER_KEPT_GAME, SweepResult
from fastsnake.snake.board import GameConfig
from fastsnake.snake.policies import named_by_files, resolved_name
from fastsnake.snake.rng import MAX_GAMES
from fastsnake.snake.store import (
    DEFAULT_CHUNK_SIZE,
    MANIFEST,
    SWEEP_FORMAT,
    ParquetStream,
    SweepDataset,
    SweepSpec,
    check_folder_disk,
    repair_manifest,
    verify_sweep_path,
)
from fastsnake.snake.store import read_sweep as read_checked
from fastsnake.snake.store.versions import warn_if_newer_files
from fastsnake.snake.sweep import (
    SweepError,
    check_games,
    check_seed,
    check_threads,
    prepare,
    raise_if_terminated,
    records_table,
    run_sweep,
    summarize,
)


def sweep(policy, size, games, seed=None, *, threads=None, out=None, progress=False, chunk_size=None, cluster=None,
          rows=True, precision=None, repeat=None, warmup=0, **options) -> SweepResult:
    """Play `games` games of `policy` on a `size` board; game i uses seed ``game_seed(seed, i)``.

    Parameters
    ----------
    policy : str, Policy or callable
        A registered name (see `policies`), a `fastsnake.Policy`, or a ``decide(state, ws)`` function.
    size : int, (int, int), str or GameSettings
        Board size: ``10``, ``(10, 12)`` or ``"10x12"`` (2..256 a side), or a `GameSettings`
        holding it with the other settings.
    games : int
        Number of games (at least 1).
    seed : int, optional
        Base seed (0 .. 2**64-1; default the settings' seed, 0). Game k of this sweep equals
        ``play(policy, size, seed, game=k)``.
    threads : int, optional
        Threads (default: all cores; with `cluster`, per worker, default 1).
    out : str or path, optional
        ``*.parquet``: one Parquet file of the rows; any other name: a resumable sweep folder.
    progress : bool or callable
        True draws a progress bar on stderr; a callable gets ``(done, total)`` after each chunk.
    chunk_size : int, optional
        Games per chunk file of a sweep folder (default 50,000).
    cluster : str, optional
        ``"local"``, ``"local:N"`` or a dask scheduler address; needs a folder `out`.
    rows : bool
        Without `out`, keep every game's row in memory (default). ``rows=False`` keeps only the
        summary, in memory bounded by one chunk whatever `games` is. In-memory rows beyond the
        memory budget (2 GiB, or the environment's FASTSNAKE_MEMORY_BUDGET) are refused up
        front: write them with `out` instead. With ``out="*.parquet"`` rows stream into the file
        chunk by chunk and ``table`` reads it back on first use.
    precision : float, optional
        Play rounds of games, in the order of a plain sweep, until the 95 % half-width of the
        mean moves is at most `precision` x the mean; `games` is then the cap, and
        ``summary["precision"]`` says how many games it took and whether the target was met
        (docs/sweeps.md, "Precision on demand"). `out` must then be a ``*.parquet`` file.
    repeat : int, optional
        Time the games `repeat` times (fresh kernel calls on the same games; the rows are those of
        the first): ``summary["repeats"]`` holds each run's games per CPU-second, their min /
        median / max and the percentile bootstrap 95 % interval of the median, which is then
        ``games_per_cpu_second_ci95`` (docs/benchmarks.md, "Speed"). Not with a folder `out`,
        `cluster` or `precision`.
    warmup : int
        With `repeat`: untimed runs first (default 0; the compile is never timed in any case).
    **options
        The setting keywords, fields of `GameSettings` (each overrides the field of a `GameSettings`
        given as `size`): ``start_length`` (start length of the snake, default 3), ``tail``
        (``"follow"``, the default: the head may enter the cell the tail leaves in the same move;
        or ``"blocked"``) and ``max_moves`` (the move cap: a game reaching it ends "stuck"; default
        (rows*cols)**2). Every other keyword is a policy option, e.g. ``cycle="random"``, checked
        as ``--opt`` is.

    Returns
    -------
    SweepResult
        ``.table`` (pyarrow), ``.summary`` (dict), ``.to_pandas()``. A sweep stopped by
        Ctrl-C returns the finished games with ``summary["interrupted"]`` True; with
        ``out="big.parquet"`` they are kept in ``big.partial.parquet`` (``summary["partial_file"]``),
        so a complete ``big.parquet`` of an earlier run is never replaced by a part.

    Raises
    ------
    InputError
        (a ValueError) for an unknown policy, a bad size, rule, option or count.
    fastsnake.Terminated
        (a SystemExit, status 143) when SIGTERM stopped the sweep; the finished games are kept
        as for Ctrl-C and ``.result`` holds them.

    Examples
    --------
    >>> import fastsnake
    >>> result = fastsnake.sweep("cycle", 6, 100, seed=1)
    >>> result.summary["win_rate"]
    1.0
    """
    name = policy_name(policy)
    settings = game_settings(size, seed, options)
    games = check_games(games)
    seed = check_seed(settings.seed)
    config = settings.config()
    check_path(out, "out")
    if threads is not None:
        check_threads(threads)
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer))
                                   or not 1 <= chunk_size <= MAX_GAMES):
        raise SweepError(f"chunk_size={shown_value(chunk_size)} must be a whole number 1..2**62 (game indices "
                         "are int64)")
    repeat, warmup = check_repeat(repeat, warmup)
    if repeat is not None and (precision is not None or cluster is not None or is_folder_target(out)):
        raise SweepError("repeat times the games in memory or to one *.parquet file: not with precision, cluster "
                         "or a folder out")
    if precision is not None:  # rounds over the plain sweep's games: fastsnake.snake.precision
        if cluster is not None:
            raise SweepError("a sweep to a precision runs on this machine: give either cluster or precision")
        return sweep_to_precision(name, config, games, seed, precision, threads=threads, out=out, progress=progress,
                                  rows=rows, options=options)
    if cluster is not None and not is_folder_target(out):
        raise SweepError("a cluster sweep writes a sweep folder: give out a folder name (not *.parquet)")
    prepared = prepare(name, config, options)  # the policy, its resolved options and kernel inputs
    resolved = prepared[1]
    # The sink: a sweep folder (resumable, its own runner), a sweep file, or memory.
    if is_folder_target(out):
        spec = SweepSpec(prepared[0].name, config.rows, config.cols, config.start_length, config.tail_rule,
                         config.move_cap, seed, games, 0, resolved, int(chunk_size or DEFAULT_CHUNK_SIZE))
        if not os.path.exists(os.path.join(out, MANIFEST)):  # a new folder: refused before it is made
            check_folder_disk(out, spec)
        dataset = SweepDataset.open(out, spec, policy_resolved=prepared[0].alias_of or prepared[0].name)
        return run_folder(dataset, threads, cluster, progress)
    stream = None
    if out is not None:
        check_output(out)
        stream = ParquetStream(out, file_parameters(prepared[0].name, config, seed, resolved, games), seed)
    elif rows:
        try:
            check_memory(games * BYTES_PER_KEPT_GAME, f"games={games:,}: their rows")
        except MemoryBudgetError as exc:
            raise SweepError(f"{exc}; write them with out='sweep.parquet' or out='folder/', or keep only the "
                             "summary with rows=False") from None
    try:
        for _ in range(warmup):  # untimed: caches, the branch predictor, the CPU's clock settle
            run_sweep(name, config, games, seed=seed, threads=threads, options=options, prepared=prepared,
                      keep_rows=False)
        run = run_sweep(name, config, games, seed=seed, threads=threads, options=options, prepared=prepared,
                        progress=progress_callback(progress, name), keep_rows=bool(rows) and stream is None,
                        on_chunk=None if stream is None else stream.write)
        runs = [run]
        while repeat is not None and len(runs) < repeat and not runs[-1].interrupted:
            runs.append(run_sweep(name, config, games, seed=seed, threads=threads, options=options,
                                  prepared=prepared, keep_rows=False))
    except BaseException:
        if stream is not None:
            stream.abort()
        raise
    summary = summarize(run)
    if repeat is not None:
        _add_repeats(summary, [r for r in runs if not r.interrupted], warmup)
    if stream is None:
        result = SweepResult(summary=summary, _table=records_table(run) if rows else None, _raw=run)
    else:
        result = SweepResult(summary=summary, _raw=run, file=_close_stream(stream, run, summary, games))
    raise_if_terminated(summary, result)
    return result



def check_repeat(repeat, warmup) -> tuple[int | None, int]:
    if repeat is not None and (isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer)) or repeat < 1):
        raise SweepError(f"repeat={repeat!r} must be a whole number >= 1")
    if isinstance(warmup, bool) or not isinstance(warmup, (int, np.integer)) or warmup < 0:
        raise SweepError(f"warmup={warmup!r} must be a whole number >= 0")
    if warmup and repeat is None:
        raise SweepError("warmup needs repeat (the timed runs it comes before)")
    return (None if repeat is None else int(repeat)), int(warmup)


def _add_repeats(summary: dict, runs: list, warmup: int) -> None:
    """``repeats`` from the timed runs of the same games, and the speed interval it supports."""
    from fastsnake.snake.benchmark import repeat_summary

    rates = [r.stats.games / max(r.cpu_seconds, 1e-9) for r in runs]
    summary["repeats"] = repeat_summary(rates, warmup)
    summary["games_per_cpu_second_ci95"] = summary["repeats"]["median_ci95"]


def _close_stream(stream, run, summary: dict, games: int) -> str | None:
    """The file a streamed sweep's rows went to: `out` when every game was played, a partial name
    beside it when stopped early (``summary["partial_file"]``), None when no game finished."""
    from fastsnake.snake.report import run_record

    if run.stats.games == 0:  # stopped before the first chunk: no file of no games
        stream.abort()
        return None
    if run.stats.games < games:
        summary["partial_file"] = stream.keep_partial(run_record(summary))
        return summary["partial_file"]
    return stream.close(run_record(summary))


def file_parameters(policy: str, config: GameConfig, seed: int, options: dict, games: int) -> dict:
    return {"format": SWEEP_FORMAT, "policy": policy, "rows": config.rows, "cols": config.cols,
            "start_length": config.start_length, "tail_rule": config.tail_rule, "max_moves": config.move_cap,
            "seed": seed, "first_game": 0, "games": games, "options": options,
            "policy_resolved": resolved_name(policy)}



def compare_to_precision(names, config, cap, seed, base, precision, threads, own, progress,
                          keep_rows=True) -> list[SweepResult]:
    from fastsnake.snake.precision import run_to_precision

    def progress_of(name, k):
        return progress_callback(progress, f"{name} round {k}")

    runs, paired, info = run_to_precision(
        names, config, cap, seed, target=precision, baseline=base, threads=threads, options_of=own,
        keep_rows=keep_rows, progress_of=progress_of if progress else None)
    group = []
    for run, pair in zip(runs, paired, strict=True):
        summary = summarize(run)
        summary["precision"] = info
        if len(names) > 1:
            summary["paired"] = pair
        group.append(SweepResult(summary, records_table(run) if keep_rows else None, None, run))
    stopped = [r for r in group if r.summary.get("signal") == "SIGTERM"]
    if stopped:
        raise Terminated(f"terminated (SIGTERM): kept the {stopped[0].summary['games']:,} finished games", group)
    return group


def sweep_to_precision(name, config, games, seed, precision, *, threads=None, out=None, progress=False,
                       rows=True, options=None) -> SweepResult:
    """`sweep(..., precision=P)`: rounds of one policy until the mean's 95 % half-width is at most
    P x the mean (`fastsnake.snake.precision`); `out` (``*.parquet``) gets the games played."""
    from fastsnake.snake.precision import check_precision

    precision = check_precision(precision)
    if out is not None:
        if is_folder_target(out):
            raise SweepError("a sweep to a precision writes one Parquet file: give out a *.parquet name, not a folder")
        check_output(out)
    if rows or out is not None:
        try:
            check_memory(int(games) * BYTES_PER_KEPT_GAME, f"games={int(games):,}: a sweep to a precision keeps "
                                                         "the rows of up to that many games")
        except MemoryBudgetError as exc:
            raise SweepError(f"{exc}; lower games or keep only the summary with rows=False (no out)") from None
    group = compare_to_precision([name], config, int(games), seed, 0, precision, threads,
                                  lambda _: options or {}, progress, keep_rows=rows or out is not None)
    result = group[0]
    if out is not None and result.summary["games"]:
        # The games played are known only at the end: the file is written whole then (the rows
        # were kept), as games 0 .. n-1 of the plain sweep's parameters with games = n.
        # Through the store's writer, as every sweep file: identity columns, footer, checks.
        from fastsnake.snake.report import run_record

        run = result._raw
        stream = ParquetStream(out, dict(run.parameters(), games=run.games), seed)
        try:
            stream.write(run.first_game, run.rows)
        except BaseException:
            stream.abort()
            raise
        if result.interrupted:
            result.file = result.summary["partial_file"] = stream.keep_partial(run_record(result.summary))
        else:
            result.file = stream.close(run_record(result.summary))
    if not rows:
        result._table = None
    raise_if_terminated(result.summary, result)
    return result



def verify_sweep(path, *, repair: bool = False, replay: int | None = None, replay_seed: int | None = None) -> dict:
    """Check a sweep file or folder: every page checksum, every chunk against the manifest's
    record (rows, first and last game, seed, content hash), and every game's index and seed.

    Parameters
    ----------
    path : str or path
        A sweep's ``*.parquet`` file (or a ``*.partial.parquet`` an interrupted sweep kept), or
        a sweep folder.
    repair : bool
        For a folder whose manifest is missing or damaged (a power loss on a file system that
        ignores fsync): first rebuild it from the chunks' footers, refusing chunks that disagree
        (the damaged manifest is kept beside it); ``repaired`` in the result says what was done.
    replay : int, optional
        Games of each run re-played from their seeds and compared with their rows (default
        16; 0: none): up to a quarter of them of each outcome, the rest at random. A row that its
        game contradicts (a "won" for a game that died, moves or apples changed) is damaged.
    replay_seed : int, optional
        Chooses the sample (the same seed, the same games); default: a fresh random one.

    Returns
    -------
    dict
        ``path, kind`` ("file" or "folder"), ``ok`` (True when nothing is damaged, doubled or
        out of place), ``complete`` (every game present), ``games`` (asked), ``rows`` (read),
        ``missing``, ``doubled``, ``damaged`` (lists of ``[first, last]`` game ranges),
        ``problems`` (one line each, naming the file), ``warnings`` (a file written by a newer
        fastsnake), ``replay`` (the re-played sample: ``sample, seed, games, replayed,
        contradicted, skipped``; see `fastsnake.snake.seedcheck.replay_sample`) and, for a folder,
        ``chunks``.

    Raises
    ------
    InputError
        When `path` does not exist or is no sweep at all.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.parquet")
    >>> _ = fastsnake.sweep("cycle", 6, 100, out=path)
    >>> fastsnake.verify_sweep(path)["ok"]
    True
    """
    check_path(path, "path")
    sample = seedcheck.check_sample(seedcheck.DEFAULT_REPLAY_SAMPLE if replay is None else replay)
    seed = seedcheck.sample_seed(replay_seed)
    with named_by_files():  # no model a file names is ever loaded: its games are skipped, and said so
        repaired = repair_manifest(path) if repair else None
        newer = warn_if_newer_files(path)  # before the check: a newer format may be why it fails
        report = dict(verify_sweep_path(path), warnings=newer)
        if report["ok"]:  # a sample re-played from its seeds as `replay --from` plays a game
            seedcheck.apply_to_report(report, seedcheck.replay_sample(path, sample, seed))
    if repair:
        report["repaired"] = repaired
    return report



def read_sweep(path):
    """The games of a sweep file, sweep folder or compare file as one ``pyarrow.Table``, every row checked.

    The rows are read through the checks `verify_sweep` makes (page checksums, each game's index and
    seed against the file's parameters, a folder's chunks against its manifest): damaged data is
    refused, never returned. The columns are those of the sweep files (`fastsnake.snake.record`
    and the identity columns: ``policy, rows, cols, ...``); a compare file's rows name their policy.

    Parameters
    ----------
    path : str or path
        A sweep's ``*.parquet`` file, a sweep folder, or a compare file (``compare(..., out=)``).

    Returns
    -------
    pyarrow.Table

    Raises
    ------
    SweepError
        (an InputError) when `path` does not exist, is no sweep, or is damaged.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.parquet")
    >>> _ = fastsnake.sweep("cycle", 6, 100, out=path)
    >>> fastsnake.read_sweep(path).num_rows
    100
    """
    check_path(path, "path")
    with named_by_files():  # reading plays no game: no model a file names is ever loaded
        return read_checked(path)[1]
