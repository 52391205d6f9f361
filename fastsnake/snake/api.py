"""The Snake library: sweep, play, compare, and users' own policies.

These functions are the public face (re-exported as ``fastsnake.sweep`` etc.);
the CLI is a thin layer over them, so a summary printed by ``fastsnake sweep
--json`` is the `SweepResult.summary` of the same call. Bad input raises a
`ValueError` subclass (`fastsnake.InputError`) naming the value and the rule.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import warnings
from dataclasses import dataclass, field

import numpy as np

from fastsnake.errors import InputError, Terminated, counted
from fastsnake.files import file_in_the_way, not_utf8, shown_value
from fastsnake.renamed import RENAMED_KEYS
from fastsnake.sizes import MemoryBudgetError, check_memory, parse_size
from fastsnake.snake.board import MAX_SIDE, MIN_SIDE, BoardError, GameConfig
from fastsnake.snake.policies import (
    EnginePolicy,
    PolicyError,
    all_policies,
    available,
    get_policy,
    is_family_name,
    named_by_files,
    recorded_options,
    register_policy,
    require_named,
    resolved_name,
    warn_once,
)
from fastsnake.snake.policies.user import Policy
from fastsnake.snake.replay import (
    Replay,
    ReplayError,
    compile_and_play,
    game_mismatch,
    load_replay,
    replay_from_sweep,
    save_replay,
)
from fastsnake.snake.rng import MAX_GAMES
from fastsnake.snake.store import (
    DEFAULT_CHUNK_SIZE,
    MANIFEST,
    SWEEP_FORMAT,
    ParquetStream,
    SweepDataset,
    SweepSpec,
    check_folder_disk,
    read_sweep,
    repair_manifest,
    verify_sweep_path,
)
from fastsnake.snake.sweep import (
    SweepError,
    check_games,
    check_seed,
    check_threads,
    prepare,
    raise_if_terminated,
    records_table,
    run_dataset_sweep,
    run_sweep,
    summarize,
    summary_dict,
    write_table_atomically,
)

__all__ = [
    "Game", "Policy", "SweepResult", "compare", "load_game", "play", "policies", "register_policy",
    "replay_game", "report_sweeps", "resume_sweep", "sweep", "verify_sweep",
]


def __getattr__(name):
    # The text tables and sentences moved to `fastsnake.snake.present` (one presentation module
    # for the CLI and the report); their old home still answers, with a warning, for a release.
    if name in _MOVED_TO_PRESENT:
        from fastsnake.snake import present

        warnings.warn(f"fastsnake.snake.api.{name} moved to fastsnake.snake.present.{_MOVED_TO_PRESENT[name]}",
                      DeprecationWarning, stacklevel=2)
        return getattr(present, _MOVED_TO_PRESENT[name])
    raise AttributeError(f"module 'fastsnake.snake.api' has no attribute {name!r}")


_MOVED_TO_PRESENT = {"compare_rows": "compare_rows", "compare_lines": "compare_lines", "summary_rows": "summary_rows"}

_TIMING_KEYS = frozenset({"seconds", "games_per_second", "moves_per_second", "cpu_seconds", "games_per_cpu_second",
                          "moves_per_cpu_second", "compile_seconds", "threads", "games_per_second_ci95",
                          "games_per_cpu_second_ci95", "moves_per_cpu_second_ci95", "timed_chunks",
                          "scaling"})


def board(size, start_length: int = 3, tail: str = "follow", max_moves: int | None = None) -> GameConfig:
    """The validated rules of a game on `size` (an int, ``(rows, cols)`` or ``"RxC"``)."""
    try:
        rows, cols = parse_size(size, lo=MIN_SIDE, hi=MAX_SIDE)
    except InputError as exc:
        raise BoardError(str(exc)) from None
    for name, value in (("start_length", start_length), ("max_moves", max_moves)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
            raise BoardError(f"{name}={value!r} is not a whole number")
    return GameConfig(rows, cols, int(start_length), tail, None if max_moves is None else int(max_moves))


# -- naming policies given as objects --------------------------------------------------------

_adhoc_lock = threading.Lock()
_adhoc: dict[int, tuple[object, str]] = {}  # id(object) -> (object, the name it was registered under)


def policy_name(policy) -> str:
    """The registered name of `policy`: a name, or a `Policy`/decide function (registered on first use)."""
    if isinstance(policy, str):
        return policy
    if isinstance(policy, EnginePolicy):
        return policy.name
    with _adhoc_lock:
        known = _adhoc.get(id(policy))
        if known is not None and known[0] is policy:
            if known[1] not in available():  # unregistered since: register it again under its name
                register_policy(known[1], policy)
            return known[1]
        fn = policy.decide if isinstance(policy, Policy) else policy
        if not callable(fn):
            raise PolicyError(f"policy {policy!r} is not a name, a fastsnake.Policy or a decide(state, ws) function")
        if isinstance(policy, Policy) and policy.name is not None:  # its own name, or an error when taken
            register_policy(policy.name, policy)
            _adhoc[id(policy)] = (policy, policy.name)
            return policy.name
        base = getattr(fn, "__name__", "policy").strip("<>") or "policy"
        base = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in base).strip("-_.")[:48] or "policy"
        taken = set(available())
        name = next(n for n in itertools.chain([base], (f"{base}-{k}" for k in itertools.count(2))) if n not in taken)
        register_policy(name, policy)
        _adhoc[id(policy)] = (policy, name)
        return name


def _progress(progress, label: str, unit: str = "game"):
    """None, a caller's callback(done, total), or (True) a tqdm bar on stderr."""
    if not progress:
        return None
    if callable(progress):
        return progress
    from tqdm import tqdm

    bar = None

    def update(done, total):
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, initial=done, desc=label, unit=unit, file=sys.stderr, leave=False,
                       disable=None, dynamic_ncols=True)
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update


# -- sweeps ----------------------------------------------------------------------------------

@dataclass
class SweepResult:
    """The outcome of `sweep`: per-game rows (`table`) and the exact statistics (`summary`).

    ``summary`` holds the keys ``fastsnake sweep --json`` prints. ``table`` is a
    ``pyarrow.Table`` with one row a game: ``game, seed, outcome, moves, apples,
    length``; for a sweep written to a folder it is read from the folder on first use.
    """

    summary: dict
    _table: object = None
    folder: str | None = None
    _raw: object = field(default=None, repr=False)  # the engine's arrays, for plots
    file: str | None = None  # the Parquet file the rows were streamed to

    @property
    def interrupted(self) -> bool:
        return bool(self.summary.get("interrupted"))

    @property
    def table(self):
        """The per-game rows (None for a sweep run with ``rows=False``)."""
        if self._table is None and (self.folder or self.file) is not None:
            self._table = read_sweep(self.folder or self.file)[1]
        return self._table

    def to_pandas(self):
        """The per-game rows as a pandas DataFrame (needs pandas)."""
        return _to_pandas(self.table)

    def summary_frame(self):
        """The summary as a one-row pandas DataFrame (needs pandas)."""
        import pyarrow as pa

        return _to_pandas(pa.Table.from_pylist([_flat(self.summary)]))

    def plot(self, path) -> None:
        """Moves histogram (and apples vs moves of games that died) as a PNG (needs matplotlib)."""
        plot_results([self], path)

    def report(self, path, **picks) -> dict:
        """Write the browser report of this sweep to `path` (one self-contained HTML file).

        `picks` are those of `fastsnake.report` (``worst``, ``best``, ``died``, ``random``,
        ``picks``, ``sample``, ``title``). Returns what `fastsnake.report` returns.
        """
        return report_sweeps([self], path, **picks)

    def __repr__(self):
        s = self.summary
        return (f"SweepResult({s['policy']!r} on {s['rows']}x{s['cols']}: {s['games']:,} games, "
                f"win rate {s['win_rate']:.2%}, mean moves {s['moves_mean']:.1f})")


def _to_pandas(table):
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise InputError("to_pandas() needs pandas: pip install pandas (or 'fastsnake[pandas]')") from None
    return table.to_pandas()


def _flat(summary: dict) -> dict:
    """A summary as one table row: dicts and lists of dicts (``pairs``, ``[]`` for the first policy) as JSON."""
    def cell(v):
        nested = isinstance(v, dict) or (isinstance(v, list) and (not v or any(isinstance(x, dict) for x in v)))
        return json.dumps(v, sort_keys=True) if nested else v

    return {k: cell(v) for k, v in summary.items()}


def _check_output(path, what="out") -> None:
    folder = os.path.dirname(os.path.abspath(str(path)))
    if not os.path.isdir(folder):
        blocker = file_in_the_way(path)
        if blocker is not None:
            raise SweepError(f"{what}={str(path)!r}: {blocker!r} is a file, not a folder")
        raise SweepError(f"{what}={str(path)!r}: folder {folder!r} does not exist")


def _is_folder_target(out) -> bool:
    return out is not None and not str(out).endswith(".parquet")


def _check_path(value, name: str) -> None:
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise SweepError(f"{name}={value!r} is not a path (give a str or pathlib.Path)")
    if value is not None and not_utf8(value):
        raise SweepError(f"{name}={os.fspath(value)!r} is not valid UTF-8, which Parquet files need (pyarrow "
                         f"reads paths as UTF-8): rename it")


# What one game costs in memory when its row is kept: the kernel row (4 x int64) and its Arrow
# columns (game, seed, moves int64; apples, length int32; outcome index int32; identity columns
# policy and tail_rule indices int32, rows and cols int16, start_length int32).
BYTES_PER_KEPT_GAME = 32 + 8 * 3 + 4 * 3 + 4 * 3 + 2 * 2


def sweep(policy, size, games, seed=0, *, start_length=3, tail="follow", max_moves=None, threads=None,
          out=None, progress=False, chunk_size=None, cluster=None, rows=True, precision=None, repeat=None,
          warmup=0, **options) -> SweepResult:
    """Play `games` games of `policy` on a `size` board; game i uses seed ``game_seed(seed, i)``.

    Parameters
    ----------
    policy : str, Policy or callable
        A registered name (see `policies`), a `fastsnake.Policy`, or a ``decide(state, ws)`` function.
    size : int, (int, int) or str
        Board size: ``10``, ``(10, 12)`` or ``"10x12"`` (2..256 a side).
    games : int
        Number of games (at least 1).
    seed : int
        Base seed (0 .. 2**64-1). Game k of this sweep equals ``play(policy, size, seed, game=k)``.
    start_length : int
        Start length of the snake (default 3).
    tail : {"follow", "blocked"}
        Whether the head may enter the cell the tail leaves in the same move.
    max_moves : int, optional
        Move cap; a game reaching it ends "stuck" (default (rows*cols)**2).
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
        Policy options, e.g. ``cycle="random"``; checked as ``--opt`` is.

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
    games = check_games(games)
    seed = check_seed(seed)
    config = board(size, start_length, tail, max_moves)
    _check_path(out, "out")
    if threads is not None:
        check_threads(threads)
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer))
                                   or not 1 <= chunk_size <= MAX_GAMES):
        raise SweepError(f"chunk_size={shown_value(chunk_size)} must be a whole number 1..2**62 (game indices "
                         "are int64)")
    repeat, warmup = _check_repeat(repeat, warmup)
    if repeat is not None and (precision is not None or cluster is not None or _is_folder_target(out)):
        raise SweepError("repeat times the games in memory or to one *.parquet file: not with precision, cluster "
                         "or a folder out")
    if precision is not None:  # rounds over the plain sweep's games: fastsnake.snake.precision
        if cluster is not None:
            raise SweepError("a sweep to a precision runs on this machine: give either cluster or precision")
        return sweep_to_precision(name, config, games, seed, precision, threads=threads, out=out, progress=progress,
                                  rows=rows, options=options)
    if cluster is not None and not _is_folder_target(out):
        raise SweepError("a cluster sweep writes a sweep folder: give out a folder name (not *.parquet)")
    prepared = prepare(name, config, options)  # the policy, its resolved options and kernel inputs
    resolved = prepared[1]
    # The sink: a sweep folder (resumable, its own runner), a sweep file, or memory.
    if _is_folder_target(out):
        spec = SweepSpec(prepared[0].name, config.rows, config.cols, config.start_length, config.tail_rule,
                         config.move_cap, seed, games, 0, resolved, int(chunk_size or DEFAULT_CHUNK_SIZE))
        if not os.path.exists(os.path.join(out, MANIFEST)):  # a new folder: refused before it is made
            check_folder_disk(out, spec)
        dataset = SweepDataset.open(out, spec, policy_resolved=prepared[0].alias_of or prepared[0].name)
        return _run_folder(dataset, threads, cluster, progress)
    stream = None
    if out is not None:
        _check_output(out)
        stream = ParquetStream(out, _file_parameters(prepared[0].name, config, seed, resolved, games), seed)
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
                        progress=_progress(progress, name), keep_rows=bool(rows) and stream is None,
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


def _check_repeat(repeat, warmup) -> tuple[int | None, int]:
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


def _file_parameters(policy: str, config: GameConfig, seed: int, options: dict, games: int) -> dict:
    return {"format": SWEEP_FORMAT, "policy": policy, "rows": config.rows, "cols": config.cols,
            "start_length": config.start_length, "tail_rule": config.tail_rule, "max_moves": config.move_cap,
            "seed": seed, "first_game": 0, "games": games, "options": options,
            "policy_resolved": resolved_name(policy)}


def resume_sweep(folder, *, threads=None, cluster=None, progress=False, models=()) -> SweepResult:
    """Finish the missing chunks of a sweep folder (what an interrupted ``sweep(out=folder)`` left).

    Parameters
    ----------
    folder : str or path
        A sweep folder written by `sweep` with a folder `out`.
    threads : int, optional
        Threads (default: all cores; with `cluster`, per worker, default 1).
    cluster : str, optional
        ``"local"``, ``"local:N"`` or a dask scheduler address.
    progress : bool or callable
        True draws a progress bar on stderr; a callable gets ``(done, total)`` chunks.
    models : sequence of paths
        Model files to play a ``model:PATH`` policy the folder names with (matched by the SHA-256
        it recorded): a model is never loaded from the path a folder names.

    Returns
    -------
    SweepResult
        The summary of every game in the folder; ``table`` reads the folder on first use.

    Raises
    ------
    InputError
        When the folder holds no sweep (no manifest) or cannot be written.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> folder = os.path.join(tempfile.mkdtemp(), "s")
    >>> _ = fastsnake.sweep("cycle", 6, 100, out=folder, chunk_size=40)
    >>> fastsnake.resume_sweep(folder).summary["games"]  # nothing missing: nothing played
    100
    """
    _check_path(folder, "folder")
    with named_by_files(models):
        dataset = SweepDataset.open(folder)
        spec = dataset.spec
        recorded_options(spec.policy, spec.options)  # a model the folder names: matched with `models`
        if cluster and is_family_name(spec.policy):
            raise SweepError(f"{spec.policy!r} is a model: resume its folder on this machine, with the model "
                             f"file named, not on a cluster")
        return _run_folder(dataset, threads, cluster, progress)


def _compile_sweep_kernel(spec, threads: int) -> float:
    """Compile (or load) a folder sweep's kernel before its clock starts: the seconds it took, kept
    apart from the sweep's ``seconds`` (`cancel.compile_first`; the rows' shape does not change the
    kernel's type, so an empty array stands for them)."""
    import numba

    from fastsnake.snake.cancel import compile_first

    numba.set_num_threads(threads)
    policy, _, params, cfg, nbr = prepare(spec.policy, spec.config, spec.options)
    return compile_first(policy.sweep_kernel, cfg, nbr, params, np.uint64(spec.seed), np.int64(0),
                         np.zeros((0, 0), np.int64), 1)


def _run_folder(dataset, threads, cluster, progress) -> SweepResult:
    spec = dataset.spec
    bar = _progress(progress, spec.policy, "chunk")
    with dataset.writing():
        missing, before = dataset.scan()
        check_folder_disk(dataset.path, spec, missing)  # before compiling: refused at once
        compile_seconds = None  # a cluster's workers compile on their own machines
        if cluster:
            from fastsnake.snake.cluster import ClusterRunner

            threads = threads or 1
            with ClusterRunner(cluster, threads) as runner:
                sys.stderr.write(f"cluster: {runner.workers()} workers, {threads} thread(s) each\n")
                acc, seconds, cpu, stopped = run_dataset_sweep(
                    dataset, threads=threads, progress=bar, chunk_source=runner.chunk_source(spec.to_json()))
        else:
            threads = check_threads(threads)
            compile_seconds = _compile_sweep_kernel(spec, threads)
            acc, seconds, cpu, stopped = run_dataset_sweep(dataset, threads=threads, progress=bar)
    summary = summary_dict(acc, spec.policy, spec.config, spec.options, spec.seed, threads, seconds, cpu,
                           compile_seconds=compile_seconds,
                           before=before, games_requested=spec.games, interrupted=stopped is not None,
                           signal=stopped if stopped not in (None, True) else None,
                           folder=str(dataset.path), chunks=spec.n_chunks, chunk_size=spec.chunk_size,
                           cluster=cluster)
    result = SweepResult(summary=summary, folder=str(dataset.path))
    raise_if_terminated(summary, result)
    return result


def verify_sweep(path, *, repair: bool = False) -> dict:
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

    Returns
    -------
    dict
        ``path, kind`` ("file" or "folder"), ``ok`` (True when nothing is damaged, doubled or
        out of place), ``complete`` (every game present), ``games`` (asked), ``rows`` (read),
        ``missing``, ``doubled``, ``damaged`` (lists of ``[first, last]`` game ranges),
        ``problems`` (one line each, naming the file) and, for a folder, ``chunks``.

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
    _check_path(path, "path")
    with named_by_files():  # verify plays no game: no model a file names is ever loaded
        repaired = repair_manifest(path) if repair else None
        report = verify_sweep_path(path)
    if repair:
        report["repaired"] = repaired
    return report


def plot_results(results, path) -> None:
    """Moves histograms of one or more `SweepResult`s as one PNG (needs matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'fastsnake[plot]'") from None
    _check_output(path, "path")
    from fastsnake.snake.plots import plot_sweeps, table_view

    views = []
    for r in results:
        raw = r._raw
        if raw is not None and raw.stats is not None and raw.games == raw.stats.games:
            views.append(raw)
        elif r.table is not None:
            s = r.summary
            config = GameConfig(s["rows"], s["cols"], s["start_length"], s["tail_rule"], s["max_moves"])
            views.append(table_view(r.table, s["policy"], config))
        else:
            raise InputError("plots need the sweep's rows: sweep with rows=True (the default) or an out file")
    plot_sweeps(views, path)


def plot_scaling(summaries, path) -> None:
    """Mean moves and games per CPU-second against cells, log-log, of a compare over several board
    sizes (its summaries, with their ``scaling`` fits) as one PNG (needs matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'fastsnake[plot]'") from None
    _check_output(path, "path")
    from fastsnake.snake.plots import plot_scaling as draw

    draw([s.summary if isinstance(s, SweepResult) else s for s in summaries], path)


# -- compare ---------------------------------------------------------------------------------

def compare_runs(policies, size, games, seed=0, *, start_length=3, tail="follow", max_moves=None, threads=None,
                 progress=False, baseline=None, precision=None, all_pairs=False, test="t", robust=False, repeat=None,
                 warmup=0, **options) -> list[SweepResult]:
    """One in-memory sweep per board size and policy, same seeds; stops after a sweep interrupted by Ctrl-C.

    `size` is one size or several (a list, or ``"10,20x24,30"``): one result per size and policy,
    sizes in the order given. Every result but the baseline's (the first policy, or `baseline`)
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
    repeat, warmup = _check_repeat(repeat, warmup)
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
    seed = check_seed(seed)
    if threads is not None:
        check_threads(threads)
    base = _baseline_index(names, baseline)
    if precision is not None:
        from fastsnake.snake.precision import check_precision

        precision = check_precision(precision)
    configs = [board(item, start_length, tail, max_moves) for item in board_sizes(size)]
    taken = set().union(*(p.option_names for p in engine_policies))
    unused = sorted(set(k for k, v in options.items() if v is not None) - taken)
    if unused:
        raise PolicyError(f"no compared policy takes option {unused[0]!r}")

    def own(name):
        return {k: v for k, v in options.items() if k in get_policy(name).option_names}

    results = []
    for config in configs:
        if precision is not None:
            group = _compare_to_precision(names, config, int(games), seed, base, precision, threads, own, progress)
        else:
            group = []
            for name in names:
                try:
                    result = sweep(name, (config.rows, config.cols), games, seed, start_length=start_length, tail=tail,
                                   max_moves=max_moves, threads=threads, progress=progress, repeat=repeat,
                                   warmup=warmup, **own(name))
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


def _compare_to_precision(names, config, cap, seed, base, precision, threads, own, progress,
                          keep_rows=True) -> list[SweepResult]:
    from fastsnake.snake.precision import run_to_precision

    def progress_of(name, k):
        return _progress(progress, f"{name} round {k}")

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
        if _is_folder_target(out):
            raise SweepError("a sweep to a precision writes one Parquet file: give out a *.parquet name, not a folder")
        _check_output(out)
    if rows or out is not None:
        try:
            check_memory(int(games) * BYTES_PER_KEPT_GAME, f"games={int(games):,}: a sweep to a precision keeps "
                                                         "the rows of up to that many games")
        except MemoryBudgetError as exc:
            raise SweepError(f"{exc}; lower games or keep only the summary with rows=False (no out)") from None
    group = _compare_to_precision([name], config, int(games), seed, 0, precision, threads,
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


def compare(policies, size, games, seed=0, *, start_length=3, tail="follow", max_moves=None, threads=None,
            out=None, progress=False, baseline=None, precision=None, all_pairs=False, test="t", robust=False,
            repeat=None, warmup=0, save_baseline=None, baseline_from=None, slower=0.10, **options):
    """Several policies on the same games: a ``pyarrow.Table`` with one row per board size and policy.

    The columns are the summary keys of `sweep` (``policy, moves_mean, moves_mean_ci95, win_rate,
    win_rate_ci95, ...``; ``options``, ``paired``, ``precision`` and ``scaling`` as JSON strings).
    `policies` is a list of names/`Policy` objects, a comma-separated string, or None for every
    registered policy; the first (or `baseline`) is the baseline: every other row's ``paired``
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
    `slower` for the speed): every row gains ``baseline_check``, whose ``worse`` lists findings.

    Examples
    --------
    >>> import fastsnake
    >>> table = fastsnake.compare(["cycle", "greedy"], 6, 50)
    >>> table.column("policy").to_pylist()
    ['cycle', 'greedy']
    """
    if out is not None:
        _check_path(out, "out")
        _check_output(out)
    from fastsnake.snake import benchmark

    if save_baseline is not None:
        benchmark.baseline_path(save_baseline)
    if baseline_from is not None:
        benchmark.find_baseline(baseline_from)
    results = compare_runs(policies, size, games, seed, start_length=start_length, tail=tail, max_moves=max_moves,
                           threads=threads, progress=progress, baseline=baseline, precision=precision,
                           all_pairs=all_pairs, test=test, robust=robust, repeat=repeat, warmup=warmup, **options)
    if out is not None:
        write_compare(results, out)
    if baseline_from is not None:
        benchmark.check_baseline(results, baseline_from, slower=slower)
    if save_baseline is not None:
        benchmark.save_baseline(results, save_baseline)
    return compare_table(results)


def compare_table(results):
    import pyarrow as pa

    rows = [_flat(r.summary) for r in results]
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

    _check_path(path, "path")
    if _is_folder_target(path):
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
    compared = [{"parameters": _file_parameters(r.summary["policy"], _config_of(r.summary), r.summary["seed"],
                                                r.summary["options"], r.summary["games"]),
                 "run": run_record(r.summary)} for r in results]
    meta = dict(table.schema.metadata or {})
    meta[COMPARE_META_KEY] = json.dumps(compared).encode()
    write_table_atomically(table.replace_schema_metadata(meta), path)


def _config_of(summary: dict) -> GameConfig:
    return GameConfig(summary["rows"], summary["cols"], summary["start_length"], summary["tail_rule"],
                      summary["max_moves"])


# -- the browser report ------------------------------------------------------------------------

def report_sweeps(inputs, out, *, worst=None, best=None, died=None, random=None, picks=(), sample=None,
                  title=None, progress=False, extra_games=(), extra_problems=()) -> dict:
    """Write the browser report of sweeps: one self-contained HTML page (see `fastsnake.report`).

    `inputs` are sweep files, sweep folders, compare files or `SweepResult`s. Returns
    ``{"out", "bytes", "policies", "games", "picked", "embedded", "problems", "notes", "seconds"}``;
    ``problems`` lists, one line each, what could not go into the page (the page is written anyway
    when anything could). `extra_games` are more page entries for the player (replays, puzzle
    solutions, tours: `fastsnake.report` makes them) and `extra_problems` lines already found.
    """
    import time

    from fastsnake.snake import report as rp

    t0 = time.perf_counter()
    if isinstance(inputs, (str, os.PathLike, SweepResult)):
        inputs = [inputs]
    if not inputs:
        raise rp.ReportError("a report needs at least one input")
    _check_output(out)
    problems: list[str] = list(extra_problems)
    sources = rp.load_inputs(inputs, problems)
    for source in sources:  # a model a file names, and no model file named for it: one line, now
        require_named(source.policy, source.params.get("options"))
    counts = {k: v for k, v in (("worst", worst), ("best", best), ("died", died), ("random", random),
                                ("sample", sample)) if v is not None}
    bar = _report_progress() if progress else None
    data = rp.build(sources, picks=tuple(picks), title=title, problems=problems, progress=bar, **counts)
    for entry in extra_games:
        data["games"].append(dict(entry, index=len(data["games"])))
    data["problems"], data["notes"] = counted(data["problems"]), counted(data["notes"])  # each once, counted
    size = rp.write_report(out, data)
    games = data["games"]
    return {"out": str(out), "bytes": size, "policies": [s["policy"] for s in data["sections"]],
            "games": sum(s["summary"]["games"] for s in data["sections"]), "picked": len(games),
            "embedded": sum(1 for g in games if "data" in g), "problems": data["problems"],
            "notes": data["notes"],
            "seconds": time.perf_counter() - t0}


def _report_progress():
    def say(what, done, total):
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{what}: {done}/{total}\x1b[K")
            sys.stderr.flush()
    return say


# -- single games ----------------------------------------------------------------------------

class Game:
    """One game, recorded: what `play` returns and a replay file holds.

    Attributes: ``policy, rows, cols, seed, game, outcome`` ("won", "died", "stuck"),
    ``moves`` (uint8 array, 0 up 1 right 2 down 3 left), ``apples`` (apples eaten),
    ``length`` (final length), ``body`` (start body, tail first), ``apple_cells`` (the
    apple at the start and after each one eaten), ``cycle`` (the policy's cycle as
    ``order[cell]``, or None), ``seconds`` (time to play it, the kernel's compile apart),
    ``compile_seconds`` (compiling or loading the kernel before it: 0.0 when it was ready; None
    for a game read from a file).
    """

    def __init__(self, replay: Replay, seconds: float = 0.0, compile_seconds: float | None = None):
        self.replay = replay
        self.seconds = seconds
        self.compile_seconds = compile_seconds

    policy = property(lambda self: self.replay.policy)
    rows = property(lambda self: self.replay.rows)
    cols = property(lambda self: self.replay.cols)
    seed = property(lambda self: self.replay.seed)
    game = property(lambda self: self.replay.game)
    outcome = property(lambda self: self.replay.outcome)
    moves = property(lambda self: self.replay.moves)
    body = property(lambda self: self.replay.body)
    apple_cells = property(lambda self: self.replay.apples)
    cycle = property(lambda self: self.replay.cycle)
    options = property(lambda self: self.replay.options)

    @property
    def apples(self) -> int:
        return self.summary["apples"]

    @property
    def length(self) -> int:
        return self.summary["length"]

    @property
    def summary(self) -> dict:
        """``policy, rows, cols, seed, game, outcome, moves (count), apples, length``: a dict, as
        `SweepResult.summary` is (calling it, ``game.summary()``, still works, with a DeprecationWarning)."""
        return _CallableSummary(self.replay.summary())

    def save(self, path) -> None:
        """Write the replay file (``fastsnake-replay/1``) that ``fastsnake view`` and ``replay --check`` read."""
        save_replay(self.replay, path)

    def __repr__(self):
        s = self.summary
        return (f"Game({s['policy']!r} {s['rows']}x{s['cols']} seed {s['seed']} game {s['game']}: {s['outcome']} "
                f"after {s['moves']:,} moves, {s['apples']} apples)")


class _CallableSummary(dict):
    """`Game.summary` when it was a method: a dict that may still be called, with a warning."""

    def __call__(self) -> dict:
        warnings.warn("Game.summary() is deprecated: summary is a dict, as SweepResult.summary is; "
                      "use game.summary", DeprecationWarning, stacklevel=2)
        return dict(self)


def play(policy, size, seed=0, game=0, *, start_length=3, tail="follow", max_moves=None, **options) -> Game:
    """Play game `game` of base seed `seed`: the very game a sweep with that seed played.

    Arguments are those of `sweep`. Returns a `Game` (moves, outcome, apples, length,
    cycle, ``save(path)``).

    Examples
    --------
    >>> import fastsnake
    >>> fastsnake.play("cycle", 6, seed=7, game=3).outcome
    'won'
    """
    name = policy_name(policy)
    seed = check_seed(seed)
    if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not 0 <= game < 2**63:
        raise SweepError(f"game={game!r} must be a whole number >= 0 and < 2**63")
    config = board(size, start_length, tail, max_moves)
    replay, seconds, compile_seconds = compile_and_play(name, config, seed, int(game), options)
    return Game(replay, seconds, compile_seconds)


def load_game(path, *, verify: bool = True, models=()) -> Game:
    """Read a replay file; with `verify` (default) its moves are re-played under the rules.

    Parameters
    ----------
    path : str or path
        A ``fastsnake-replay/1`` file (``Game.save``, ``fastsnake play --replay``).
    verify : bool
        Re-play the moves under the rules and refuse a file they contradict.
    models : sequence of paths
        Model files for a ``model:PATH`` policy the file names (matched by its recorded SHA-256):
        a model is never loaded from the path a file names.

    Returns
    -------
    Game

    Raises
    ------
    ReplayError
        (an InputError) for a missing, foreign, truncated or inconsistent file.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.npz")
    >>> fastsnake.play("cycle", 6, seed=1).save(path)
    >>> fastsnake.load_game(path).outcome
    'won'
    """
    with named_by_files(models):
        return Game(load_replay(path, verify=verify))


def check_game(path, *, models=()) -> Game:
    """Read a replay file and check it is the game it names: under the rules (as `load_game`), and
    re-played by its policy from its seed on its board, every field equal (`replay --check`).

    Parameters
    ----------
    path : str or path
        A ``fastsnake-replay/1`` file.
    models : sequence of paths
        Model files for a ``model:PATH`` policy the file names (matched by its recorded SHA-256).

    Returns
    -------
    Game

    Raises
    ------
    ReplayError
        Naming the first field that differs from the game re-played (``rows`` altered shows as a
        start body or apples the seed does not give, a moved apple as that apple, ...).
    PolicyError
        When the file's policy cannot be played here (not installed, or a model not named).

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.npz")
    >>> fastsnake.play("greedy", 6, seed=1).save(path)
    >>> fastsnake.check_game(path).outcome
    'died'
    """
    with named_by_files(models):
        replay = load_replay(path, verify=True)
        problem = game_mismatch(replay)
    if problem:
        raise ReplayError(f"replay {str(path)!r} is not the game of {replay.policy!r}, seed {replay.seed}, game "
                          f"{replay.game} on {replay.rows}x{replay.cols}: {problem}")
    return Game(replay)


def replay_game(sweep_file, pick="died", *, policy=None, size=None, models=()) -> Game:
    """Re-create a game of a sweep file, folder or compare file from its seed (sweeps store no moves).

    Parameters
    ----------
    sweep_file : str or path
        A sweep's ``*.parquet`` file or sweep folder, or a compare file (``compare(..., out=)``).
    pick : str or int
        ``"died"`` (the first game that died), ``"longest"``, ``"shortest"`` or a game index
        (``"lost"``, the old spelling of ``"died"``, still works with a DeprecationWarning).
    models : sequence of paths
        Model files to play a ``model:PATH`` policy the sweep names with (matched by the SHA-256 it
        recorded): a model is never loaded from the path a sweep file names.
    policy : str, optional
        Of a compare file, the policy whose game to re-create (the name asked, or the policy that
        played); needed when the file holds several.
    size : int, (int, int) or str, optional
        Of a compare file of several boards, the board ("10x10").

    Returns
    -------
    Game
        The game as the sweep played it (same seed, policy, rules and options).

    Raises
    ------
    ReplayError
        When the file is not a sweep, or holds no game matching `pick`.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.parquet")
    >>> _ = fastsnake.sweep("greedy", 6, 50, out=path)
    >>> fastsnake.replay_game(path, pick=7).game
    7
    """
    _check_path(sweep_file, "sweep_file")
    with named_by_files(models):
        replay, seconds = replay_from_sweep(sweep_file, str(pick), None if policy is None else policy_name(policy),
                                            size)
    return Game(replay, seconds)


# -- the registry ----------------------------------------------------------------------------

def policies(details: bool = False) -> dict:
    """Every policy, built-in, installed (entry-point group ``fastsnake.policies``) or registered.

    Returns ``{name: summary}`` (the summary's first paragraph); with ``details=True``
    ``{name: {"summary", "origin", "kind", "guaranteed", "options"}}`` where origin is
    the providing package and kind is ``engine`` (ours), ``numba`` or ``python``; options
    maps each option the policy declares to ``{"type", "default", "default_by_size", "low",
    "high", "words", "allowed", "help"}`` (``default`` is None when it depends on the board).
    A policy that cannot be loaded is left out with a warning on stderr.

    Parameters
    ----------
    details : bool
        Return a dict of facts per policy instead of its summary line.

    Returns
    -------
    dict

    Examples
    --------
    >>> import fastsnake
    >>> "cycle" in fastsnake.policies()
    True
    >>> fastsnake.policies(details=True)["cycle"]["guaranteed"]
    True
    """
    errors: list[str] = []
    found = all_policies(errors)
    for message in errors:
        warn_once(message)
    if not details:
        return {p.name: p.headline for p in found}
    return {
        p.name: {
            "summary": p.headline,
            "origin": p.origin,
            "kind": p.kind,
            "guaranteed": p.guaranteed,
            "options": {opt.name: opt.describe() for opt in p.options},
        }
        for p in found
    }


def timing_free(summary: dict) -> dict:
    """The summary without the keys that measure time (what two runs of one sweep share)."""
    return {k: v for k, v in summary.items() if k not in _TIMING_KEYS}
