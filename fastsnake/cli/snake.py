"""Snake verbs: play, sweep, compare, replay."""

from __future__ import annotations

import sys

from fastsnake.cli import common
from fastsnake.errors import InputError

REPLAY_TAG = "fastsnake-replay/1"

SUMMARY_COLUMNS = (
    ("policy", "policy", "{}"),
    ("win %", "win_rate", "{:.2%}"),
    ("lost %", "loss_rate", "{:.2%}"),
    ("stuck %", "stuck_rate", "{:.2%}"),
    ("mean", "moves_mean", "{:.1f}"),
    ("std", "moves_std", "{:.1f}"),
    ("min", "moves_min", "{}"),
    ("q25", "moves_q25", "{:.0f}"),
    ("median", "moves_median", "{:.0f}"),
    ("q75", "moves_q75", "{:.0f}"),
    ("max", "moves_max", "{}"),
    ("apples", "apples_mean", "{:.2f}"),
    ("games/s", "games_per_second", "{:,.0f}"),
)


def _game_options(parser, *, size_required=True):
    parser.add_argument("--size", required=size_required, type=common.size_arg(), help="board RxC or N (2..256 a side)")
    parser.add_argument("--start-length", type=int, default=3, help="start length of the snake (default 3)")
    parser.add_argument("--tail", choices=("follow", "blocked"), default="follow",
                        help="follow: the head may enter the cell the tail leaves; blocked: it may not")
    parser.add_argument("--max-moves", type=int, default=None, help="move cap (default (R*C)^2: game ends 'stuck')")
    parser.add_argument("--seed", type=common.nonnegative_int, default=0, help="base seed (default 0)")
    parser.add_argument("--cycle", choices=("zigzag", "random"), default=None,
                        help="Hamiltonian cycle of cycle-based policies (default zigzag)")
    parser.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="other policy option")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _config(args):
    from fastsnake.snake.board import GameConfig

    rows, cols = args.size
    return GameConfig(rows, cols, args.start_length, args.tail, args.max_moves)


def _options(args) -> dict:
    options = {}
    if args.cycle is not None:
        options["cycle"] = args.cycle
    for item in args.opt:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--opt {item!r} is not KEY=VALUE")
        lowered = value.lower()
        options[key.replace("-", "_")] = True if lowered == "true" else False if lowered == "false" else value
    return options


def register(sub) -> None:
    from fastsnake.snake.policies import available

    names = ", ".join(available())

    p = sub.add_parser("play", help="play one game (the one a sweep with the same seed played)")
    p.add_argument("--policy", required=True, help=f"one of: {names}")
    p.add_argument("--game", type=common.nonnegative_int, default=0, help="game index within the seed (default 0)")
    p.add_argument("--replay", metavar="FILE.npz", help="write the game as a replay file")
    _game_options(p)
    p.set_defaults(handler=cmd_play)

    p = sub.add_parser("sweep", help="play many games of one policy; summary and per-game records")
    p.add_argument("--policy", help=f"one of: {names}")
    p.add_argument("--games", type=int, help="number of games")
    p.add_argument("--threads", type=int, default=None,
                   help="numba threads (default: all cores; with --cluster: per worker, default 1)")
    p.add_argument("--out", metavar="FILE.parquet|DIR",
                   help="per-game records (game, seed, outcome, moves, apples, length): one Parquet file, or a "
                        "resumable folder of chunk files when the name does not end in .parquet")
    p.add_argument("--resume", metavar="DIR", help="finish the missing chunks of a sweep folder")
    p.add_argument("--chunk-size", type=common.positive_int, default=None,
                   help="games per chunk file of a sweep folder (default 50,000)")
    p.add_argument("--cluster", metavar="local[:N]|tcp://HOST:PORT",
                   help="run the chunks on a dask cluster (needs fastsnake[dist] and a sweep folder)")
    p.add_argument("--plot", metavar="FILE.png", help="histogram of moves per game (needs matplotlib)")
    _game_options(p, size_required=False)
    p.set_defaults(handler=cmd_sweep)

    p = sub.add_parser("compare", help="several policies on the same seeds, one table")
    p.add_argument("--policies", default=None, help=f"comma-separated (default: all of {names})")
    p.add_argument("--games", type=int, required=True, help="games per policy")
    p.add_argument("--threads", type=int, default=None, help="numba threads (default: all cores)")
    p.add_argument("--out", metavar="FILE.parquet", help="per-game records of every policy (column 'policy')")
    p.add_argument("--plot", metavar="FILE.png", help="moves histograms of every policy (needs matplotlib)")
    _game_options(p)
    p.set_defaults(handler=cmd_compare)

    p = sub.add_parser("replay", help="re-create a game of a sweep from its seed and save it; or check a replay file")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="source", metavar="RESULTS.parquet", help="a sweep's --out file")
    source.add_argument("--check", metavar="FILE.npz", help="validate a replay file and re-play it under the rules")
    p.add_argument("--pick", default="lost", help="lost | longest | shortest | game INDEX (default lost)")
    p.add_argument("--out", metavar="FILE.npz", help="replay file to write (with --from)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=cmd_replay)


def _progress(label: str, unit: str = "game"):
    """A progress callback (done, total) drawing a bar on stderr (nothing when stderr is not a terminal)."""
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


def _summary_row(summary: dict) -> list[str]:
    row = []
    games = max(summary["games"], 1)
    values = dict(summary, loss_rate=summary["losses"] / games, stuck_rate=summary["stuck"] / games)
    for _, key, fmt in SUMMARY_COLUMNS:
        value = values.get(key)
        row.append("-" if value is None else fmt.format(value))
    return row


def format_table(summaries: list[dict]) -> str:
    header = [title for title, _, _ in SUMMARY_COLUMNS]
    rows = [header] + [_summary_row(s) for s in summaries]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for k, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _describe(summary: dict) -> str:
    s = summary
    return (
        f"{s['policy']} on {s['rows']}x{s['cols']}, start length {s['start_length']}, tail {s['tail_rule']}, "
        f"seed {s['seed']}: {s['games']:,} games in {s['seconds']:.2f} s "
        f"({s['games_per_second']:,.0f} games/s, {s['moves_per_second'] / 1e6:,.1f} M moves/s, "
        f"{s['threads']} threads)"
    )


def cmd_sweep(args):
    if args.resume or (args.out and not args.out.endswith(".parquet")) or args.cluster:
        return _sweep_to_folder(args)
    from fastsnake.snake.sweep import run_sweep, summarize, write_parquet

    _require(args, "policy", "size", "games")
    config = _config(args)
    _check_outputs(args)
    result = run_sweep(args.policy, config, args.games, seed=args.seed, threads=args.threads,
                       options=_options(args), progress=_progress(args.policy))
    summary = summarize(result)
    if args.out:
        write_parquet(result, args.out)
    if args.plot:
        from fastsnake.snake.plots import plot_sweeps

        plot_sweeps([result], args.plot)
    return _finish_sweep(args, summary, result.interrupted)


def _require(args, *names):
    for name in names:
        if getattr(args, name) is None:
            raise InputError(f"sweep needs --{name.replace('_', '-')}")


def _finish_sweep(args, summary, interrupted):
    if not args.json:
        print(_describe(summary))
        print(format_table([summary]))
        if args.out or args.resume:
            common.log(f"per-game records: {args.out or args.resume}")
    if interrupted:
        common.log(f"interrupted: kept the {summary['games']:,} finished games of {summary.get('games_requested', 0):,}")
        if args.json:
            common.emit_json(summary)
        raise KeyboardInterrupt
    return summary


def _sweep_to_folder(args):
    from fastsnake.snake.dataset import DEFAULT_CHUNK_SIZE, SweepDataset, SweepSpec, run_dataset_sweep
    from fastsnake.snake.sweep import check_seed, check_threads, prepare, summary_dict

    if args.resume and args.out and args.out != args.resume:
        raise InputError("give either --resume DIR or --out DIR, not both")
    folder = args.resume or args.out
    if folder is None:
        raise InputError("--cluster writes a sweep folder: give --out DIR")
    if args.resume:
        dataset = SweepDataset.open(folder)
    else:
        _require(args, "policy", "size", "games")
        if args.games < 1:
            raise InputError(f"--games {args.games}: a sweep needs at least 1 game")
        config = _config(args)
        policy, resolved, _, _, _ = prepare(args.policy, config, _options(args))
        spec = SweepSpec(policy.name, config.rows, config.cols, config.start_length, config.tail_rule,
                         config.move_cap, check_seed(args.seed), args.games, 0, resolved,
                         args.chunk_size or DEFAULT_CHUNK_SIZE)
        dataset = SweepDataset.open(folder, spec)
    spec = dataset.spec
    _check_outputs(args)
    before = dataset.scan()[1]
    if args.cluster:
        from fastsnake.snake.cluster import ClusterRunner

        threads = args.threads or 1
        with ClusterRunner(args.cluster, threads) as runner:
            common.log(f"cluster: {runner.workers()} workers, {threads} thread(s) each")
            acc, seconds, cpu, interrupted = run_dataset_sweep(
                dataset, threads=threads, progress=_progress(spec.policy, "chunk"),
                chunk_source=runner.chunk_source(spec.to_json()))
    else:
        threads = check_threads(args.threads)
        acc, seconds, cpu, interrupted = run_dataset_sweep(dataset, threads=threads,
                                                           progress=_progress(spec.policy, "chunk"))
    summary = summary_dict(acc, spec.policy, spec.config, spec.options, spec.seed, threads, seconds, cpu,
                           before=before, games_requested=spec.games, interrupted=interrupted, folder=str(folder),
                           chunks=spec.n_chunks, chunk_size=spec.chunk_size,
                           cluster=args.cluster)
    if args.plot:
        from fastsnake.snake.dataset import read_dataset
        from fastsnake.snake.plots import plot_table

        plot_table(read_dataset(folder)[1], spec, args.plot)
    return _finish_sweep(args, summary, interrupted)


def _check_outputs(args):
    """Fail before a long run, not after it, when an output cannot be written."""
    import os

    for flag, path in (("--out", getattr(args, "out", None)), ("--plot", getattr(args, "plot", None))):
        if path:
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):
                raise InputError(f"{flag} {path!r}: folder {folder!r} does not exist")
    if getattr(args, "plot", None):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InputError("--plot needs matplotlib: pip install 'fastsnake[plot]'") from None


def cmd_compare(args):
    from fastsnake.snake.policies import available, get_policy
    from fastsnake.snake.sweep import records_table, run_sweep, summarize

    names = [n.strip() for n in args.policies.split(",")] if args.policies else available()
    for name in names:
        get_policy(name)  # unknown names fail before any game is played
    config = _config(args)
    _check_outputs(args)
    options = _options(args)
    results, summaries = [], []
    interrupted = False
    for name in names:
        policy_options = {k: v for k, v in options.items() if k in get_policy(name).options}
        result = run_sweep(name, config, args.games, seed=args.seed, threads=args.threads,
                           options=policy_options, progress=_progress(name))
        results.append(result)
        summaries.append(summarize(result))
        if result.interrupted:
            interrupted = True
            break
    if args.out:
        import pyarrow as pa
        import pyarrow.parquet as pq

        tables = []
        for result in results:
            table = records_table(result)
            tables.append(table.add_column(0, "policy", pa.array([result.policy] * table.num_rows)))
        try:
            pq.write_table(pa.concat_tables(tables, promote_options="permissive"), args.out)
        except OSError as exc:
            raise InputError(f"cannot write {args.out!r}: {exc}") from None
    if args.plot:
        from fastsnake.snake.plots import plot_sweeps

        plot_sweeps(results, args.plot)
    if not args.json:
        s = summaries[0]
        print(f"{s['rows']}x{s['cols']}, start length {s['start_length']}, tail {s['tail_rule']}, "
              f"seed {s['seed']}, {args.games:,} games per policy")
        print(format_table(summaries))
    if interrupted:
        if args.json:
            common.emit_json(summaries)
        raise KeyboardInterrupt
    return summaries


def cmd_play(args):
    from fastsnake.snake.replay import play_game, save_replay

    config = _config(args)
    replay, seconds = play_game(args.policy, config, args.seed, args.game, _options(args))
    if args.replay:
        save_replay(replay, args.replay)
    result = dict(replay.summary(), seconds=seconds)
    if not args.json:
        print(f"{result['policy']} on {config.rows}x{config.cols}, seed {args.seed}, game {args.game}: "
              f"{result['outcome']} after {result['moves']:,} moves, {result['apples']} apples, "
              f"length {result['length']} ({seconds * 1e3:.1f} ms)")
        if args.replay:
            common.log(f"replay: {args.replay}")
    return result


def cmd_replay(args):
    from fastsnake.snake.replay import load_replay, replay_from_sweep, save_replay

    if args.check:
        replay = load_replay(args.check)
        result = dict(replay.summary(), file=args.check, valid=True)
        if not args.json:
            print(f"{args.check}: valid {REPLAY_TAG} ({replay.policy}, {replay.rows}x{replay.cols}, "
                  f"{result['outcome']} after {result['moves']:,} moves)")
        return result
    if not args.out:
        raise InputError("replay --from needs --out FILE.npz")
    replay, seconds = replay_from_sweep(args.source, args.pick)
    save_replay(replay, args.out)
    result = dict(replay.summary(), seconds=seconds, file=args.out)
    if not args.json:
        print(f"game {replay.game} of {args.source} ({replay.policy}, seed {replay.seed}): "
              f"{result['outcome']} after {result['moves']:,} moves -> {args.out}")
    return result
