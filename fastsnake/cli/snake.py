"""Snake verbs: play, sweep, compare, replay."""

from __future__ import annotations

from fastsnake.cli import common
from fastsnake.errors import InputError, Terminated
from fastsnake.files import LINE_CHARS, SHOWN_CHARS, printable

REPLAY_TAG = "fastsnake-replay/1"

def _game_options(parser, *, size_group=None, size_help="board RxC or N (2..256 a side)"):
    (size_group or parser).add_argument("--size", required=size_group is None, type=common.size_text,
                                        help=size_help)
    parser.add_argument("--start-length", type=common.whole_number, default=3,
                        help="start length of the snake (default 3)")
    parser.add_argument("--tail", choices=("follow", "blocked"), default="follow",
                        help="follow: the head may enter the cell the tail leaves; blocked: it may not")
    parser.add_argument("--max-moves", type=common.whole_number, default=None,
                        help="move cap (default (R*C)^2: game ends 'stuck')")
    parser.add_argument("--seed", type=common.nonnegative_int, default=0, help="base seed (default 0)")
    parser.add_argument("--cycle", choices=("zigzag", "random"), default=None,
                        help="Hamiltonian cycle of cycle-based policies (default zigzag)")
    parser.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                        help="other policy option ('fastsnake policies --help' lists each policy's)")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _policy_list(*example_lines: str):
    """An epilog evaluated only when the help is shown: every policy with its one-line summary."""

    def epilog() -> str:
        import re
        import shutil
        import textwrap

        import fastsnake

        details = fastsnake.policies(details=True)
        width = max((len(name) for name in details), default=0)
        room = max(40, min(100, shutil.get_terminal_size().columns - 2) - width - 4)
        lines = []
        for name, info in details.items():
            text = re.sub(r"^`[^`]+`:\s*", "", info["summary"]) + (" (never loses)" if info["guaranteed"] else "")
            wrapped = textwrap.wrap(text, room) or [""]
            lines.append(f"  {name.ljust(width)}  {wrapped[0]}")
            lines += [" " * (width + 4) + more for more in wrapped[1:]]
        return ("policies ('fastsnake policies' for more):\n" + "\n".join(lines) + "\n\n"
                + common.examples(*example_lines) + "\n\n" + EXIT_CODES)

    return epilog


def _option_list() -> str:
    """The policies' options as they declare them (`fastsnake policies --json` lists the same rows);
    policies with the same options share one entry."""
    import json
    import textwrap

    import fastsnake

    groups: dict[str, list[str]] = {}
    for name, info in fastsnake.policies(details=True).items():
        if info["options"]:
            groups.setdefault(json.dumps(info["options"]), []).append(name)
    lines = ["policy options (--opt NAME=VALUE on play, sweep and compare; keyword arguments in the library):"]
    for rows, names in groups.items():
        lines.append(f"  {', '.join(names)}:")
        for opt, row in json.loads(rows).items():
            default = row["default_by_size"] or row["default"]
            text = f"{opt}: {row['allowed']}, default {default}; {row['help']}"
            lines += textwrap.wrap(text, 96, initial_indent="    ", subsequent_indent="      ")
    return "\n".join(lines)


def _rules(args) -> dict:
    return {"start_length": args.start_length, "tail": args.tail, "max_moves": args.max_moves}


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
    p = sub.add_parser("policies", help="list every Snake policy: built-in, installed and where it comes from",
                       epilog=lambda: _option_list() + "\n\n" + common.examples(
                           "fastsnake policies", "fastsnake policies --json     # summary, origin, options of each"))
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=cmd_policies)

    p = sub.add_parser("play", help="play one game (the one a sweep with the same seed played)",
                       epilog=_policy_list(
                           "fastsnake play --policy greedy --size 10",
                           "fastsnake play --policy cycle --size 10 --seed 7 --game 3 --json   # game 3 of that sweep",
                           "fastsnake play --policy phc --size 12x16 --replay game.npz && fastsnake view game.npz"))
    p.add_argument("--policy", required=True, help="a policy name (listed below)")
    p.add_argument("--game", type=common.nonnegative_int, default=0, help="game index within the seed (default 0)")
    p.add_argument("--replay", metavar="FILE.npz", help="write the game as a replay file")
    _game_options(p)
    p.set_defaults(handler=cmd_play, tier_job=_play_job)

    p = sub.add_parser("sweep", help="play many games of one policy; summary and per-game records",
                       epilog=_policy_list(
                           "fastsnake sweep --policy cycle --size 10 --games 1000000 --out sweep.parquet",
                           "fastsnake sweep --policy greedy --size 10 --games 10000 --out greedy.parquet "
                           "--plot greedy.png",
                           "fastsnake sweep --policy cycle --size 20 --games 2000000 --out big/  # resumable folder",
                           "fastsnake sweep --resume big/                                        # finish it later"))
    need = p.add_argument_group("required (all but --resume DIR)")
    need.add_argument("--policy", help="a policy name (listed below)")
    need.add_argument("--games", type=common.whole_number, help="number of games")
    p.add_argument("--threads", type=common.whole_number, default=None,
                   help="numba threads (default: all cores; with --cluster: per worker, default 1)")
    p.add_argument("--out", metavar="FILE.parquet|DIR",
                   help="per-game records (one row a game: game, seed, outcome, moves, ...): one Parquet file, or a "
                        "resumable folder of chunk files when the name does not end in .parquet")
    p.add_argument("--resume", metavar="DIR", help="finish the missing chunks of a sweep folder")
    _model_option(p, "with --resume: ")
    p.add_argument("--chunk-size", type=common.positive_int, default=None,
                   help="games per chunk file of a sweep folder (default 50,000)")
    p.add_argument("--cluster", metavar="local[:N]|tcp://HOST:PORT",
                   help="run the chunks on a dask cluster (needs fastsnake[dist] and a sweep folder)")
    p.add_argument("--plot", metavar="FILE.png", help="histogram of moves per game (needs matplotlib)")
    p.add_argument("--precision", type=float, metavar="P", default=None,
                   help="play rounds of games until the mean's 95%% half-width is at most P x the mean "
                        "(e.g. 0.01); --games is then the most; --out must be a .parquet file; exit 3 when the "
                        "target is not reached")
    _repeat_options(p)
    _format_option(p)
    _game_options(p, size_group=need)
    _first_group(p, need)
    p.set_defaults(handler=cmd_sweep, tier_job=_sweep_job)

    p = sub.add_parser("verify", help="check a sweep file or folder (which games are missing, doubled or damaged) "
                                      "or a puzzle or tour study file (every row, a few searches again)",
                       epilog=common.examples("fastsnake verify sweep.parquet",
                                              "fastsnake verify big/ --json     # a sweep folder, every chunk",
                                              "fastsnake verify sweep.parquet --replay 1000 --replay-seed 7"))
    p.add_argument("path", metavar="FILE.parquet|DIR", help="a sweep's --out file or folder")
    p.add_argument("--repair", action="store_true",
                   help="rebuild a sweep folder's missing or damaged manifest from its chunks' footers, then check")
    p.add_argument("--replay", type=common.nonnegative_int, default=None, metavar="N",
                   help="re-play N games of each run from their seeds (default 16; 0: none): up to N/4 of each "
                        "outcome, the rest at random; a row its game contradicts (outcome, moves, apples) is "
                        "damaged. A study file: N rows searched again (default 3)")
    p.add_argument("--replay-seed", type=common.nonnegative_int, default=None, metavar="S",
                   help="choose the re-played games with seed S (the same S, the same games; default: a fresh "
                        "random seed, printed)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=cmd_verify)

    p = sub.add_parser("compare", help="several policies on the same seeds, one table",
                       epilog=_policy_list(
                           "fastsnake compare --size 10 --games 10000 --policies cycle,greedy",
                           "fastsnake compare --size 8 --games 5000 --policies cycle,phc,cell --out c.parquet "
                           "--plot c.png",
                           "fastsnake compare --size 20 --games 100000 --policies cell,grove --precision 0.002",
                           "fastsnake compare --size 8,12,16 --games 500 --policies cycle,greedy --plot scaling.png"))
    p.add_argument("--policies", default=None, help="comma-separated policy names (default: all, listed below); "
                   "the first is the baseline of the paired comparisons")
    p.add_argument("--games", type=common.whole_number, required=True,
                   help="games per policy (with --precision: the most)")
    p.add_argument("--baseline", metavar="NAME", default=None,
                   help="the policy every other is paired with (default: the first of --policies)")
    p.add_argument("--precision", type=float, metavar="P", default=None,
                   help="play rounds of games until every 95%% half-width (each mean, each paired difference) is "
                        "at most P x the (baseline's) mean, e.g. 0.01; --games is then the most; a difference that "
                        "cannot exist (a policy that never wins) is skipped; exit 3 when the target is not reached")
    p.add_argument("--threads", type=common.whole_number, default=None, help="numba threads (default: all cores)")
    p.add_argument("--out", metavar="FILE.parquet|DIR", help="per-game records of every policy and board size, in "
                   "the sweep files' columns (policy, rows, cols, run_id ...): one file, or a folder of one "
                   "compare-RxC.parquet per board")
    p.add_argument("--plot", metavar="FILE.png", help="moves histograms of every policy; with several sizes, mean "
                   "moves and games per CPU-second against cells, log-log (needs matplotlib)")
    p.add_argument("--all-pairs", action="store_true",
                   help="pair every policy with every other (not only with the baseline), with Holm-adjusted p-values")
    p.add_argument("--test", choices=("t", "wilcoxon"), default="t",
                   help="wilcoxon: add the Wilcoxon signed-rank test of the moves difference (default: paired t only)")
    p.add_argument("--robust", action="store_true",
                   help="median and interquartile mean (IQM) of the moves, each with a bootstrap 95%% interval")
    _repeat_options(p)
    p.add_argument("--save-baseline", metavar="NAME", default=None,
                   help="keep this run's summary and per-game outcomes as baseline NAME (see --baseline-from)")
    p.add_argument("--baseline-from", metavar="NAME|FILE", default=None,
                   help="pair today's games with a saved baseline's on the same seeds; exit 4 when a policy is "
                        "significantly worse")
    p.add_argument("--allow-partial", action="store_true",
                   help="with --baseline-from: accept a comparison where some policies or games of the run are not in "
                        "the baseline (by default that is exit 2); the headline says how many were compared")
    p.add_argument("--require-all", action="store_true",
                   help="with --baseline-from: exit 2 unless the run plays every game and policy of the baseline "
                        "(without it, the headline counts the baseline's games not played)")
    p.add_argument("--slower", type=float, metavar="SHARE", default=0.10,
                   help="with --baseline-from: a median speed more than SHARE below the baseline's counts as worse "
                        "(default 0.10; needs --repeat on both runs)")
    _format_option(p, tables=True)
    _game_options(p, size_help="board RxC or N (2..256 a side), or several: 10,20,30x40")
    p.set_defaults(handler=cmd_compare, tier_job=_compare_job)

    p = sub.add_parser("replay", help="re-create a game of a sweep from its seed and save it; or check a replay file",
                       epilog=common.examples(
                           "fastsnake replay --from greedy.parquet --pick died --out died.npz",
                           "fastsnake replay --from sweep.parquet --pick 41 --out game41.npz   # game 41 of the sweep",
                           "fastsnake replay --from c.parquet --policy phc --game 7 --out g7.npz   # of a compare file",
                           "fastsnake replay --check died.npz --json"))
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="source", metavar="RESULTS.parquet", help="a sweep's --out file or folder")
    source.add_argument("--check", metavar="FILE.npz", help="validate a replay file: re-play it under the rules, and "
                        "its policy's game from its seed on its board, every field equal")
    p.add_argument("--pick", default="died", help="died (the first game that died), longest, shortest or a game "
                   "index, e.g. 41 (default died)")
    p.add_argument("--game", type=int, metavar="N", help="game N (the same as --pick N)")
    p.add_argument("--policy", help="of a compare file: the policy whose game to re-create")
    p.add_argument("--size", help="of a compare file of several boards: the board, RxC")
    p.add_argument("--out", metavar="FILE.npz", help="replay file to write (with --from)")
    _model_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=cmd_replay)


def _model_option(p, prefix: str = "") -> None:
    p.add_argument("--model", action="append", default=[], metavar="PATH",
                   help=f"{prefix}the model file to play a 'model:...' policy the input names (its SHA-256 must be "
                        f"the recorded one; repeatable): a model is never loaded from a path a file names")


EXIT_CODES = """exit status:
  0    done
  1    a failure of ours
  2    bad input
  3    a --precision target not reached (the results are printed)
  4    a policy significantly worse than its --baseline-from (compare)
  130  Ctrl-C (the finished games are kept), 143 SIGTERM"""


def _repeat_options(p) -> None:
    p.add_argument("--repeat", type=common.positive_int, metavar="N", default=None,
                   help="time the games N times (fresh kernel calls, the same games): min / median / max games per "
                        "CPU-second and a bootstrap 95%% interval of the median")
    p.add_argument("--warmup", type=common.nonnegative_int, metavar="K", default=0,
                   help="with --repeat: K untimed runs first (default 0; the compile is never timed)")


def _format_option(p, tables: bool = False) -> None:
    p.add_argument("--format", dest="table_format", choices=("text", "markdown", "csv", "latex"), default="text",
                   help="the tables printed: aligned text (default), Markdown or LaTeX for people; CSV as data "
                        "(numbers as numbers, each interval as NAME, NAME_ci_low, NAME_ci_high; one table: "
                        + ("the one --table picks)" if tables else "the summary)"))
    if tables:
        p.add_argument("--table", choices=("summary", "paired", "robust", "baseline"), default=None,
                       help="print this table only (default: every table; with --format csv, the summary)")
        p.add_argument("--tables", metavar="PREFIX", default=None,
                       help="also write every table, one a file, in --format: PREFIX.summary.csv, "
                            "PREFIX.paired.csv, ... (.md, .tex, .txt for the other formats)")


def _game_input(args, names, sizes) -> None:
    """The rules, seed and (one policy's) options checked as the game's set-up checks them, before a
    tier job may start a background compile: bad input is one line, and nothing compiles."""
    from fastsnake.snake import check_game_input

    check_game_input(names, sizes, args.seed, start_length=args.start_length, tail=args.tail,
                     max_moves=args.max_moves, options=_options(args))


def _play_job(args):
    from fastsnake.warm import snake_job

    _game_input(args, [args.policy], [args.size])
    return snake_job([args.policy], args.size, max_moves=args.max_moves)


def _sweep_job(args):
    """A tiny sweep may run interpreted; a resumed or clustered one is never tiny enough to tell."""
    from fastsnake.warm import snake_job

    if args.resume or args.cluster or None in (args.policy, args.size, args.games):
        return None
    _game_input(args, [args.policy], [args.size])
    return snake_job([args.policy], args.size, args.games, args.max_moves)


def _compare_job(args):
    import fastsnake
    import fastsnake.snake
    from fastsnake.warm import snake_job

    names = [p.strip() for p in (args.policies or "").split(",") if p.strip()] or list(fastsnake.policies())
    # Several sizes: the largest board is the one that decides whether to compile.
    sizes = fastsnake.snake.board_sizes(args.size)
    biggest = max(sizes, key=lambda size: _cells(size)) if len(sizes) > 1 else args.size
    _game_input(args, [], sizes)  # options: each policy takes its own (the handler checks them)
    return snake_job(names, biggest, args.games, args.max_moves)


def _cells(size) -> int:
    from fastsnake.sizes import parse_size

    try:
        rows, cols = parse_size(size)
    except InputError:
        return 0
    return rows * cols


def _first_group(parser, group) -> None:
    """Show `group` right after the positionals, before the other options."""
    parser._action_groups.remove(group)
    parser._action_groups.insert(1 if parser._positionals._group_actions else 0, group)


def format_table(summaries: list[dict], rows_of=None, fmt: str = "text") -> str:
    """A table of `summaries` (`fastsnake.snake.summary_rows`, or `rows_of`) as text, Markdown, CSV or LaTeX."""
    import fastsnake.snake as api

    header, body = (rows_of or api.summary_rows)(summaries)
    return api.render_table(header, body, fmt)


def cmd_sweep(args):
    import fastsnake

    _check_plot(args)
    try:
        result = _run_sweep(fastsnake, args)
        if args.repeat:
            _warn_if_loaded()
    except Terminated as stop:  # SIGTERM: say what was kept, then exit 143 (no plot: stop promptly)
        if stop.result is None:
            raise
        _finish_sweep(args, stop.result.summary, True)
        raise
    if args.plot:
        result.plot(args.plot)
    return _finish_sweep(args, result.summary, result.interrupted)


def _run_sweep(fastsnake, args):
    if args.precision is not None and (args.resume or args.cluster):
        raise InputError("--precision plays rounds on this machine: it cannot be combined with "
                         f"{'--resume' if args.resume else '--cluster'}")
    if args.resume:
        if args.out and args.out != args.resume:
            raise InputError("give either --resume DIR or --out DIR, not both")
        return fastsnake.resume_sweep(args.resume, threads=args.threads, cluster=args.cluster, progress=_progress_bar(),
                                      models=args.model)
    if args.model:
        raise InputError("--model names the model of a folder to resume: give --resume DIR (or --policy model:PATH)")
    _require(args, "policy", "size", "games")
    _expect_policy(args.policy)
    if args.out:
        common.check_output("--out", args.out, folder_target=not args.out.endswith(".parquet"))
    if args.cluster and not args.out:
        raise InputError("--cluster writes a sweep folder: give --out DIR")
    # Without --out only the summary is printed: rows are kept only when a plot needs them,
    # so a sweep of any size runs in bounded memory.
    if args.precision is not None and args.out and not args.out.endswith(".parquet"):
        raise InputError("--precision writes one Parquet file: give --out FILE.parquet, not a folder")
    if args.warmup and not args.repeat:
        raise InputError("--warmup needs --repeat N (the timed runs it comes before)")
    if args.repeat and (args.precision is not None or args.cluster or (args.out and not args.out.endswith(".parquet"))):
        raise InputError("--repeat times the games in memory or to one file: it cannot be combined with --precision, "
                         "--cluster or a folder --out")
    return fastsnake.sweep(args.policy, args.size, args.games, args.seed, **_rules(args), threads=args.threads,
                           out=args.out, progress=_progress_bar(), chunk_size=args.chunk_size, cluster=args.cluster,
                           rows=bool(args.plot), precision=args.precision, repeat=args.repeat, warmup=args.warmup,
                           **_options(args))


def _require(args, *names):
    for name in names:
        if getattr(args, name) is None:
            raise InputError(f"sweep needs --{name.replace('_', '-')}")


def _finish_sweep(args, summary, interrupted):
    fmt = getattr(args, "table_format", "text")
    if not args.json and fmt == "csv":  # as data: numbers as numbers
        import fastsnake.snake as api

        print(api.render_csv(*api.summary_table([summary])).rstrip("\n"))
    elif not args.json and fmt != "text":
        print(format_table([summary], fmt=fmt))
    elif not args.json:
        import fastsnake.snake as api

        print(api.describe_sweep(summary))
        print(format_table([summary], api.compare_rows if summary.get("repeats") else None))
        if summary.get("precision"):
            for line in api.compare_lines([summary]):
                print(line)
        if (args.out or args.resume) and not summary.get("partial_file"):
            common.log(f"per-game records: {common.shown(args.out or args.resume)}")
    if interrupted:
        requested = summary.get("games_requested", 0)
        where = ""
        if summary.get("partial_file"):
            where = f" in {common.shown(summary['partial_file'])} ({common.shown(args.out)} was left as it was)"
        elif summary.get("folder"):
            folder = common.shown(summary["folder"])
            where = f" in {folder} (finish it with: fastsnake sweep --resume {folder})"
        common.log(f"interrupted: kept the {summary['games']:,} finished games of {requested:,}{where}")
        if args.json:
            common.emit_json(summary)
        if summary.get("signal") == "SIGTERM":
            return summary  # the caller re-raises Terminated
        raise KeyboardInterrupt
    _exit_status(args, [summary])
    return summary


def _study_verifier(kind: str):
    """`verify_study` of the problem `kind` (``"puzzle"``, ``"tour"``)."""
    if kind == "puzzle":
        from fastsnake.puzzle import verify_study

        return verify_study
    from fastsnake import tour

    return tour.study.verify_study


def _study_row_checker(kind: str):
    """`row_problems` of the problem `kind` (``"puzzle"``, ``"tour"``)."""
    if kind == "puzzle":
        from fastsnake.puzzle import row_problems

        return row_problems
    from fastsnake import tour

    return tour.study.row_problems


def _verify_study(args, kind: str):
    """`verify` of a puzzle or tour study rows file (`fastsnake.puzzle.verify_study`,
    `fastsnake.tour.study.verify_study`): its checksum, every row, a few searches done again."""
    if args.repair:
        raise InputError(f"--repair rebuilds a sweep folder's manifest; {args.path!r} is a {kind} study file")
    sample = {} if args.replay is None else {"resolve": args.replay}
    report = _study_verifier(kind)(args.path, **sample)
    if args.json:
        common.emit_json(report)
    else:
        unit = "instances" if kind == "puzzle" else "trials"
        state = "intact" if report["ok"] else "DAMAGED"
        print(f"{common.shown(report['path'])}: {kind} study: {state}: {report['rows']:,} rows, "
              f"{report[unit]:,} {unit}; {len(report['problems']):,} problem(s)")
        for problem in report["problems"]:
            print(f"  {printable(problem, LINE_CHARS)}")
        done = report["resolved"]
        if done:
            print(f"  searched again: {len(done):,} row(s), {sum(not d['ok'] for d in done):,} contradict their rows")
        for why in report.get("not_resolved") or ():
            print(f"  not searched again: {printable(why, LINE_CHARS)}")
    if not report["ok"]:
        raise InputError(f"{args.path!r} is damaged: {report['problems'][0]}")
    return None


def cmd_verify(args):
    import fastsnake
    from fastsnake.runs import is_run_folder
    from fastsnake.study import study_kind

    if is_run_folder(args.path):  # a study's run folder (puzzle or tour compare --out DIR)
        return _verify_run_folder(args)
    kind = study_kind(args.path)
    if kind in ("puzzle", "tour"):
        return _verify_study(args, kind)
    report = fastsnake.verify_sweep(args.path, repair=args.repair, replay=args.replay, replay_seed=args.replay_seed)
    if args.json:
        common.emit_json(report)
    else:
        if report.get("repaired"):
            print(f"{common.shown(args.path)}: {report['repaired']}")
        # a compare file: one line per run (policy and board), each checked as a sweep file
        for part in report.get("sections") or [report]:
            state = "complete" if part["complete"] else "intact, incomplete" if part["ok"] else "DAMAGED"
            run = f" [{printable(part['policy'], SHOWN_CHARS)} {part['board']}]" if "sections" in report else ""
            print(f"{common.shown(report['path'])}{run}: {state}: {part['rows']:,} rows of {part['games']:,} games; "
                  f"{part['missing_games']:,} missing, {part['doubled_games']:,} doubled, "
                  f"{part['damaged_games']:,} damaged")
            for key in ("missing", "doubled", "damaged"):
                if part[key]:
                    ranges = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in part[key][:10])
                    more = " ..." if len(part[key]) > 10 else ""
                    print(f"  {key}: {ranges}{more}")
            for problem in part["problems"]:
                print(f"  {printable(problem, LINE_CHARS)}")
        _print_replay(report.get("replay"))
    if not report["ok"]:
        raise InputError(f"{args.path!r} is damaged: {report['problems'][0] if report['problems'] else 'see above'}")
    return None


def _verify_run_folder(args):
    """`verify DIR` of a run folder: every chunk against the manifest, and its rows file when finished."""
    from fastsnake import study as S
    from fastsnake.runs import RunFolder

    if args.repair or args.replay:
        raise InputError("--repair and --replay apply to sweeps; a study's run folder is checked as it is "
                         "(remove a damaged chunk and run its command again to redo it)")
    report = RunFolder.open(args.path).verify()
    if report["ok"] and report["complete"]:
        try:
            report["rows_file"] = S.read_rows(args.path)[1].num_rows
            kind = S.study_kind(args.path)
            if kind in ("puzzle", "tour"):  # its rows as a study file's: every row, a few searches again
                report["study"] = _study_verifier(kind)(args.path)
                if not report["study"]["ok"]:
                    report.update(ok=False, damaged=report["study"]["problems"])
        except InputError as exc:
            report.update(ok=False, damaged=[str(exc)])
    elif report["ok"]:  # unfinished: the rows its chunks hold, each checked as a study file's rows
        kind = S.study_kind(args.path)
        if kind in ("puzzle", "tour"):
            problems = _study_row_checker(kind)(S.read_study(args.path)[1].to_pylist())
            if problems:
                report.update(ok=False, damaged=problems)
    if args.json:
        common.emit_json(report)
    else:
        state = "complete" if report["complete"] and report["ok"] else "intact, incomplete" if report["ok"] \
            else "DAMAGED"
        print(f"{common.shown(args.path)}: {state}: {report['kind']} run {report['run_id']}, {report['finished']:,} "
              f"of {report['chunks']:,} chunks ({report['units']:,} units); {report['missing']:,} missing")
        for problem in report["damaged"]:
            print(f"  {printable(problem, LINE_CHARS)}")
    if not report["ok"]:
        raise InputError(f"{args.path!r} is damaged: {report['damaged'][0]}")
    return None


def _print_replay(sample) -> None:
    """verify's line about the games it re-played from their seeds."""
    if not sample or not sample["sample"]:
        return
    shown = ", ".join(str(g["game"]) for g in sample["games"][:10]) + (" ..." if len(sample["games"]) > 10 else "")
    bad = len(sample["contradicted"])
    print(f"  re-played {sample['replayed']:,} game(s) from their seeds (--replay-seed {sample['seed']}): "
          f"{bad:,} contradict their rows" + (f"; games {shown}" if shown else ""))
    for line in sample["skipped"]:
        print(f"  not re-played: {line}")


def _check_plot(args):
    """Fail before a long run, not after it, when the plot cannot be drawn."""
    if getattr(args, "plot", None):
        common.check_output("--plot", args.plot)
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InputError("--plot needs matplotlib: pip install 'fastsnake[plot]'") from None


def cmd_compare(args):
    import fastsnake.snake as api

    _check_plot(args)
    several = len(api.board_sizes(args.size)) > 1
    if args.out:
        common.check_output("--out", args.out)
    if args.warmup and not args.repeat:
        raise InputError("--warmup needs --repeat N (the timed runs it comes before)")
    if args.repeat and args.precision is not None:
        raise InputError("--repeat times a fixed number of games: it cannot be combined with --precision")
    _check_tables(args)
    baseline_source = api.find_baseline(args.baseline_from) if args.baseline_from else None
    if baseline_source is not None:
        api.read_baseline(baseline_source)  # a damaged or malformed baseline fails before the games
    if args.allow_partial and baseline_source is None:
        raise InputError("--allow-partial accepts a partial --baseline-from comparison: name a baseline")
    if args.require_all and baseline_source is None:
        raise InputError("--require-all qualifies a --baseline-from comparison: name a baseline")
    if args.save_baseline:
        api.baseline_path(args.save_baseline)  # a bad name fails before the games
    results = api.compare_runs(args.policies, args.size, args.games, args.seed, **_rules(args), threads=args.threads,
                               progress=_progress_bar(), baseline=args.baseline, precision=args.precision,
                               all_pairs=args.all_pairs, test=args.test, robust=args.robust, repeat=args.repeat,
                               warmup=args.warmup, **_options(args))
    summaries = [r.summary for r in results]
    interrupted = any(r.interrupted for r in results)
    if args.repeat:
        _warn_if_loaded()
    verdict = None
    if baseline_source is not None and not interrupted:
        verdict = api.check_baseline(results, baseline_source, slower=args.slower,
                                     allow_partial=args.allow_partial, require_all=args.require_all)
    if args.out:
        api.write_compare(results, args.out)
    if args.tables:
        _write_tables(api, args, summaries, verdict)
    if args.save_baseline and not interrupted:
        saved = api.save_baseline(results, args.save_baseline)
        common.log(f"baseline {args.save_baseline!r}: {common.shown(saved)}")
    if args.plot:
        if several:
            api.plot_scaling(summaries, args.plot)
        else:
            api.plot_results(results, args.plot)
    if not args.json:
        _print_compare(api, summaries, args.table_format, verdict, args.table)
    if interrupted:
        if args.json:
            common.emit_json(summaries)
        raise KeyboardInterrupt
    _exit_status(args, summaries, verdict)
    return summaries


def _check_tables(args) -> None:
    """--table and --tables fail before the games, not after them."""
    if args.table == "robust" and not args.robust:
        raise InputError("--table robust needs --robust (the table it prints)")
    if args.table == "baseline" and not args.baseline_from:
        raise InputError("--table baseline needs --baseline-from NAME|FILE (the check it prints)")
    if args.table == "paired" and args.policies is not None and len([n for n in args.policies.split(",")
                                                                     if n.strip()]) < 2:
        raise InputError("--table paired needs two policies or more (one paired with the other)")
    if args.tables:
        import fastsnake.snake as api

        common.check_output("--tables", api.table_file(args.tables, "summary", args.table_format))


def _compare_tables(api, summaries, fmt, verdict) -> dict:
    """{name: table text} of every table the run made (`api.DATA_TABLES` names), in `fmt`: CSV as
    data (`api.data_tables`), the others the printed tables."""
    if fmt == "csv":
        return {name: api.render_csv(header, rows).rstrip("\n")
                for name, (header, rows) in api.data_tables(summaries, verdict).items()}
    tables = {"summary": api.compare_rows(summaries)}
    if any(s.get("paired") or s.get("pairs") for s in summaries):
        tables["paired"] = api.paired_rows(summaries)
    if any(s.get("robust") for s in summaries):
        tables["robust"] = api.robust_rows(summaries)
    if verdict is not None:
        tables["baseline"] = api.baseline_rows(verdict)
    return {name: api.render_table(header, rows, fmt) for name, (header, rows) in tables.items()}


def _write_tables(api, args, summaries, verdict) -> None:
    """--tables PREFIX: each table in its own file, whole or absent."""
    from fastsnake.files import written_atomically

    for name, text in _compare_tables(api, summaries, args.table_format, verdict).items():
        path = api.table_file(args.tables, name, args.table_format)
        with written_atomically(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text + "\n")
        common.log(f"{name} table: {common.shown(path)}")


def _print_compare(api, summaries, fmt, verdict, table=None) -> None:
    if table is not None or fmt == "csv":  # one table a stream: the one picked, CSV's summary by default
        tables = _compare_tables(api, summaries, fmt, verdict)
        name = table or "summary"
        if name not in tables:
            common.log(f"fastsnake: no {name} table: this run made none")
            if fmt == "csv":
                print(api.render_csv(api.table_header(name), []).rstrip("\n"))  # the header: still data
            return
        print(tables[name])
        others = [n for n in tables if n != name]
        if table is None and others:
            common.log(f"fastsnake: CSV is one table a stream: this is the summary; also made: {', '.join(others)} "
                       "(--table NAME prints one, --tables PREFIX writes each to a file)")
        return
    tables = list(_compare_tables(api, summaries, fmt, verdict).values())
    if fmt != "text":  # the tables alone, for a paper, a blank line between
        print("\n\n".join(tables))
        return
    s = summaries[0]
    boards = ", ".join(dict.fromkeys(f"{x['rows']}x{x['cols']}" for x in summaries))
    counts = sorted({x["games"] for x in summaries})
    games = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}-{counts[-1]:,}"
    print(f"{boards}, start length {s['start_length']}, tail {s['tail_rule']}, "
          f"seed {s['seed']}, {games} games per policy")
    print("\n\n".join(tables))
    for line in api.compare_lines(summaries):
        print(line)
    if verdict is not None:
        for line in api.baseline_lines(verdict):
            print(line)


def _exit_status(args, summaries, verdict=None) -> None:
    """3 when a --precision target was not reached, 4 when a policy is worse than its baseline (that first)."""
    if verdict is not None and verdict["worse"]:
        common.log(f"fastsnake: worse than baseline {verdict['baseline']!r}: " + ", ".join(verdict["worse"]))
        args.exit_status = 4
        return
    missed = [s["precision"] for s in summaries if s.get("precision") and not s["precision"]["reached"]]
    if missed:
        info = missed[0]
        common.log(f"fastsnake: precision {info['target']:.2%} not reached within {info['cap']:,} games "
                   f"(widest: {info['limiting']}); exit status 3")
        args.exit_status = 3


def _warn_if_loaded() -> None:
    """Timing on a machine busier than its cores measures the queue: say so (the games are unaffected)."""
    import fastsnake.snake as api

    note = api.load_warning()
    if note:
        common.log(f"fastsnake: warning: {note}")


def cmd_play(args):
    import fastsnake

    if args.replay:
        common.check_output("--replay", args.replay)
    _expect_policy(args.policy)
    game = fastsnake.play(args.policy, args.size, args.seed, args.game, **_rules(args), **_options(args))
    if args.replay:
        game.save(args.replay)
    result = dict(game.summary, seconds=game.seconds, compile_seconds=game.compile_seconds)
    if not args.json:
        load = (f", +{game.compile_seconds:.2f} s {common.kernel_time_name()}"
                if game.compile_seconds and game.compile_seconds > 0.01 else "")
        print(f"{result['policy']} on {game.rows}x{game.cols}, seed {args.seed}, game {args.game}: "
              f"{result['outcome']} after {result['moves']:,} moves, {result['apples']} apples, "
              f"length {result['length']} ({game.seconds * 1e3:.1f} ms{load})")
        if args.replay:
            common.log(f"replay: {common.shown(args.replay)}")
    return result


def _progress_bar() -> bool:
    """A progress bar on stderr when it is a terminal: tqdm draws none elsewhere, so elsewhere it is
    not even imported (part of every sweep's start-up)."""
    import sys

    return sys.stderr.isatty()


def _expect_policy(name: str) -> None:
    """A cold run's compile notice names the policy (its first compile is an engine helper)."""
    from fastsnake.warm import expect

    expect(f"policy {name}'s kernels", f"policy:{name}")


def cmd_policies(args):
    import fastsnake

    details = fastsnake.policies(details=True)
    if not args.json:
        width = max(len(name) for name in details)
        for name, info in details.items():
            origin = "" if info["origin"] == "fastsnake" else f" [{info['origin']}, {info['kind']}]"
            mark = " (never loses)" if info["guaranteed"] else ""
            summary = info["summary"]
            if len(summary) > 100:
                summary = summary[:97].rsplit(" ", 1)[0] + " ..."
            print(f"{name.ljust(width)}  {summary}{mark}{origin}")
    return details


def _check_parquet(flag: str, path: str) -> None:
    """One short line for a file that is not Parquet or was cut short (pyarrow's own text is long)."""
    import os

    from fastsnake.files import not_utf8

    if not os.path.isfile(path) or not_utf8(path):
        return  # a folder, a missing file, a name pyarrow cannot take: the library words those
    import pyarrow.parquet as pq

    try:
        pq.read_metadata(path)
    except (OSError, ValueError):
        raise InputError(f"{flag} {path!r} is not a readable Parquet file (cut short, or another format)") from None


def cmd_replay(args):
    import fastsnake

    if args.check:
        game = fastsnake.check_game(args.check, models=args.model)
        result = dict(game.summary, file=args.check, valid=True)
        if not args.json:
            print(f"{common.shown(args.check)}: valid {REPLAY_TAG} ({game.policy}, {game.rows}x{game.cols}, "
                  f"{result['outcome']} after {result['moves']:,} moves)")
        return result
    if not args.out:
        raise InputError("replay --from needs --out FILE.npz")
    common.check_output("--out", args.out)
    _check_parquet("--from", args.source)
    pick = args.pick if args.game is None else str(args.game)
    game = fastsnake.replay_game(args.source, pick, policy=args.policy, size=args.size, models=args.model)
    game.save(args.out)
    result = dict(game.summary, seconds=game.seconds, file=args.out)
    if not args.json:
        print(f"game {game.game} of {common.shown(args.source)} ({game.policy}, seed {game.seed}): "
              f"{result['outcome']} after {result['moves']:,} moves -> {common.shown(args.out)}")
    return result
