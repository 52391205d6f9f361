"""`fastsnake tour` and `fastsnake reach`: leaper tours and n-jump reach sets."""

from __future__ import annotations

import argparse

from fastsnake.cli import common
from fastsnake.errors import InputError
from fastsnake.warm import NeedsCompiled, interpreted_run

_PIECE_HELP = ("symmetric (a,b)-leaper, or its name: 1,2 knight, 1,3 camel, 2,3 zebra, 1,4 giraffe, "
               "0,1 wazir, ...; repeat for a compound piece")
_BOARD_PRINT_MAX = 26


def _method_names():
    """The --method choices: auto and the registered tour methods (`fastsnake.tour.method_names`)."""
    from fastsnake.tour import method_names

    return method_names()


_METHODS = common.LazyChoices(_method_names)


def register(subparsers) -> None:
    tour = subparsers.add_parser(
        "tour",
        help="a tour of a leaper over the board (Warnsdorff DFS, or construction for big knight boards)",
        description="Find an open or closed tour of any leaper, or count tours exactly (--count). "
        "Squares: 'R,C' 0-based with row 0 at the top, or chess notation (a1 = bottom-left) on boards at most 26 wide.",
        epilog=common.examples("fastsnake tour --piece knight --size 8 --start a1",
                               "fastsnake tour --piece 1,2 --size 6 --closed --count",
                               "fastsnake tour --piece knight --size 50 --closed --save k50.npz --json",
                               "fastsnake tour --moves '0,1;1,0;-1,-1' --asymmetric --size 4"),
    )
    _piece_args(tour)
    tour.add_argument("--start", help="start square 'R,C' or e.g. 'a1' (default 0,0; with --count: every square)")
    tour.add_argument("--closed", action="store_true", help="the last square must leap back to the first")
    tour.add_argument("--time-limit", type=_positive_float, default=None, metavar="S",
                      help="stop with an error after S seconds of search with no verdict (default 10; "
                           "--count: no limit, the count is then a lower bound)")
    tour.add_argument("--max-nodes", type=common.positive_int, default=None, metavar="N",
                      help="stop with an error after N search nodes with no verdict (default: no limit)")
    tour.add_argument("--seed", type=common.nonnegative_int, default=0, help="tie-break seed (default 0)")
    # metavar: argparse formats choices when an argument is added; the registry is read when they are checked
    tour.add_argument("--method", choices=_METHODS, default="auto", metavar="NAME",
                      help="one of %(choices)s (fastsnake.tour.methods; default auto: construction for the knight "
                           "on big boards and closed tours, else search)")
    tour.add_argument("--count", action="store_true", help="count all tours exhaustively instead of finding one")
    tour.add_argument("--save", metavar="FILE", help="write the tour to FILE (.npz or .json, format fastsnake-tour/1)")
    tour.add_argument("--no-path", action="store_true", help="leave the path out of the JSON (huge boards)")
    tour.add_argument("--json", action="store_true", help="print one JSON object")
    tour.set_defaults(handler=run_tour, tier_job=_tour_job)
    _compare_parser(tour)

    reach = subparsers.add_parser(
        "reach",
        help="squares at exactly N jumps (shortest distance, or any walk with --walk)",
        description="Squares whose shortest jump distance from the start is exactly N, or with --walk "
        "those where some walk of exactly N jumps (revisits allowed) ends.",
        epilog=common.examples("fastsnake reach --piece knight --size 8 --start a1 --jumps 2",
                               "fastsnake reach --piece 1,2 --piece 0,1 --size 100x50 --jumps 7 --walk --json"),
    )
    _piece_args(reach)
    reach.add_argument("--start", help="start square 'R,C' or e.g. 'a1' (default 0,0)")
    reach.add_argument("--jumps", "-n", dest="n", type=common.nonnegative_int, required=True, metavar="N",
                       help="number of jumps")
    reach.add_argument("--walk", action="store_true", help="walks of exactly N jumps (revisits allowed)")
    reach.add_argument("--save", metavar="FILE",
                       help="write the cells to FILE (.npz or .json, format fastsnake-reach/1)")
    reach.add_argument("--no-cells", action="store_true", help="leave the cell list out of the JSON")
    reach.add_argument("--json", action="store_true", help="print one JSON object")
    reach.set_defaults(handler=run_reach, tier_job=_reach_job)


def _tour_job(args):
    """The input checked first (`_tour_input`: bad input starts no background compile), then what
    a tour needs compiled."""
    from fastsnake.warm import tour_job

    _tour_input(args)
    if args.count and args.time_limit is not None:
        return None  # a count cut by time is a lower bound: interpreted, a smaller one
    rows, cols = args.size
    return tour_job(rows, cols, count=args.count)


def _reach_job(args):
    from fastsnake.warm import tour_job

    _piece_board(args)
    rows, cols = args.size
    return tour_job(rows, cols, jumps=args.n)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


def _piece_args(parser) -> None:
    parser.add_argument("--piece", action="append", metavar="A,B", help=_PIECE_HELP)
    parser.add_argument("--moves", dest="moves", metavar="'DR,DC;...'",
                        help="explicit jumps; all rotations and reflections are added unless --asymmetric")
    parser.add_argument("--asymmetric", action="store_true",
                        help="use the listed --moves exactly (a one-way piece: a directed move graph)")
    # Checked in `_piece_board` rather than by argparse: `tour compare` (a subverb) takes its own --size.
    parser.add_argument("--size", type=common.size_arg(1, 4000), metavar="RxC",
                        help="board size RxC or N (up to 4000x4000; required)")


def _compare_parser(tour) -> None:
    sub = tour.add_subparsers(dest="tour_verb", metavar="compare", parser_class=common.Parser)
    sub.required = False
    p = sub.add_parser("compare", help="a study of tour methods over boards, pieces and start squares",
                       epilog=common.examples(
                           "fastsnake tour compare --size 6,8 --piece knight --closed",
                           "fastsnake tour compare --size 5x6,6 --methods search --seeds 0,1,2 "
                           "--out tours.parquet --format csv"))
    p.add_argument("--size", required=True, type=_sizes, metavar="N,RxC,...",
                   help="boards, comma-separated (e.g. 6,8 or 5x6,6x6)")
    p.add_argument("--piece", action="append", metavar="A,B",
                   help="a piece (1,2 or knight; 'a,b;c,d' a compound one); repeat to compare pieces "
                        "(default knight)")
    p.add_argument("--closed", action="store_true", help="closed tours")
    p.add_argument("--methods", default=None, metavar="NAME,...",
                   help="registered methods, comma-separated (default: every built-in one): a seeded one, e.g. "
                        "search, runs once per --seeds; one that does not apply to a trial (construct: the "
                        "knight's construction) counts it inapplicable")
    p.add_argument("--seeds", default="0", metavar="S,S,...", help="tie-break seeds of search (default 0)")
    p.add_argument("--starts", default="all", choices=("all", "corner"),
                   help="start squares: every one (default) or the corner only")
    p.add_argument("--time-limit", type=_positive_float, default=10.0, metavar="S",
                   help="per trial (default 10)")
    p.add_argument("--max-nodes", type=common.positive_int, default=None, metavar="N")
    p.add_argument("--out", metavar="FILE|DIR", default=None,
                   help="FILE.parquet: one Parquet row per trial and method, written at the end; DIR (a name "
                        "without a suffix, an existing or empty folder, or ending in /): a run folder, each chunk "
                        "of trials kept as it finishes: run the same command again after a crash to finish it, "
                        "and DIR/RUN_ID.parquet holds the rows at the end")
    common.study_run_options(p, f"fewer than {SMALL_TOUR_STUDY} trials")
    common.study_baseline_options(p, "method", "trial")
    p.add_argument("--format", default=None, choices=("text", "json", "csv", "markdown", "latex"))
    p.add_argument("--table", default="methods", choices=("methods", "pairs"),
                   help="--format csv: the table printed (default methods)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(handler=run_compare, tier_job=None)


# A tour study of fewer trials runs in this process unless --workers says otherwise: starting worker
# processes (about a second of CPU each, to import and load the kernels) costs more than it saves.
SMALL_TOUR_STUDY = 200


def _sizes(text: str):
    size = common.size_arg(1, 4000)
    return [size(part) for part in text.split(",") if part.strip()]


# The largest tie-break seed (a kernel's int64).
MAX_SEED = 2**63 - 1


def _seeds(text: str) -> list[int]:
    """--seeds: whole numbers 0..MAX_SEED, refused (exit 2, the limit named) before any work."""
    from fastsnake.reading import check_count

    out = []
    for part in (p for p in text.split(",") if p.strip()):
        try:
            value = common.whole_number(part)
        except argparse.ArgumentTypeError as exc:
            raise InputError(f"--seeds: {exc}") from None
        out.append(check_count(value, MAX_SEED, "--seeds: seed", error=InputError))
    return out


def run_compare(args):
    """`tour compare`: a study (`fastsnake.tour.study`); every input checked before the first search."""
    from fastsnake import __version__
    from fastsnake import study as S
    from fastsnake import tour as T

    fmt = "json" if args.json else (args.format or "text")
    seeds = _seeds(args.seeds)
    arms = T.study.check_methods(args.methods, seeds or [0])
    trials = T.study.trials(args.size, args.piece or ["knight"], args.closed, args.starts)
    folder = None
    if common.run_folder_out(args.out):
        if common.pooled_folder(args.out):
            common.log(f"fastsnake: note: {common.shown(args.out)} holds other files and no run: the rows go to "
                       "DIR/RUN_ID.parquet at the end (not resumable; give a new or empty folder to resume)")
        else:
            folder = args.out
    for path in (args.out if folder is None else None, args.save_baseline):
        if path is not None:
            S.check_out(path)
    workers, cluster = common.study_workers(args, small=len(trials) < SMALL_TOUR_STUDY)
    if args.baseline_from is None and (args.allow_partial or args.require_all):
        raise InputError("--allow-partial and --require-all qualify a check against a baseline: name one with "
                         "--baseline-from FILE")
    base_rows = None if args.baseline_from is None else T.study.check_baseline_trials(
        trials, args.baseline_from, arms, allow_partial=args.allow_partial, require_all=args.require_all)
    writes = args.out is not None or args.save_baseline is not None
    # the rows file's imports on a thread while the workers search, not after them (joined before use)
    behind = S.rows.import_writer_behind() if writes and (cluster or workers > 1) else None
    study = T.study.run_study(trials, arms, time_limit=args.time_limit, max_nodes=args.max_nodes,
                              progress=None if args.quiet else common.log, workers=workers, cluster=cluster,
                              folder=folder, bar=not (args.quiet or args.json), warn=common.log)
    if study.interrupted:
        args.exit_status = 130
        common.log(f"fastsnake: interrupted: {len(study.trials)} trials finished (kept"
                   + (f" in {common.shown(folder)}: run the same command again to finish it)" if folder else ")"))
    summary = T.study.summarize(study)
    tables = T.study.study_tables(summary)
    written = {}
    if writes:
        if behind is not None:
            behind.join()
        table, meta = T.study.rows_table(study.rows), T.study.study_meta(study)
        if folder is not None:
            written["folder"] = str(folder)
        if args.out is not None and not (folder is not None and study.interrupted):  # a folder: rows when whole
            written["rows"] = S.write_rows(table, args.out, meta)
            if fmt == "csv":
                written["tables"] = S.write_csv(tables, S.csv_stem(args.out, study.run_id))
        if args.save_baseline is not None:
            written["baseline"] = S.write_rows(table, args.save_baseline, meta)
    verdict = None
    if base_rows is not None:
        verdict = T.study.check_baseline(study, base_rows, allow_partial=args.allow_partial, slower=args.slower,
                                         require_all=args.require_all, path=args.baseline_from)
        if verdict["worse"]:
            common.log(f"fastsnake: worse than baseline {args.baseline_from!r}: " + ", ".join(verdict["worse"]))
            args.exit_status = 4
    out = {"trials": len(study.trials), "run_id": study.run_id, "fastsnake_version": __version__,
           "methods": summary["methods"], "pairs": summary["pairs"], "impossible": summary["impossible"],
           "noise_floor": summary["floor"], "options": study.options,
           "interrupted": study.interrupted, "baseline": verdict, "files": written,
           "run": common.run_json(study.run_outcome, workers, cluster)}
    if fmt == "json":
        if not args.json:
            common.emit_json(out)
            return None
        return out
    if fmt == "csv":
        print(S.to_csv(next(t for t in tables if t.name == args.table)), end="")
        return None
    print(S.render(tables, "text" if fmt == "text" else fmt))
    if fmt == "text":
        print(f"success rate: tours found among the starts where a tour may exist; {summary['impossible']:,} "
              f"start(s) proved to have none are apart, in no method's failures. CPU-s differences within the "
              f"noise floor ({summary['floor']['text']}) are not significant")
        common.print_baseline_and_files(args.baseline_from, verdict, written, "method")
    return None


def _piece_board(args):
    """(piece, rows, cols, start square or None), checked."""
    from fastsnake.tour import parse_piece, parse_square

    moves = args.moves
    if args.asymmetric and args.piece:
        raise InputError("--asymmetric applies to --moves only, not to --piece")
    if args.asymmetric and not moves:
        raise InputError("--asymmetric needs --moves")
    if not args.piece and moves is None:
        raise InputError("give a piece: --piece a,b (e.g. 1,2 for the knight) or --moves 'dr,dc;...'")
    if args.size is None:
        raise InputError("the following arguments are required: --size")
    piece = parse_piece(args.piece, moves, args.asymmetric)
    rows, cols = args.size
    start = None if args.start is None else parse_square(args.start, rows, cols)
    return piece, rows, cols, start


def _tour_input(args):
    """`tour`'s input checks, none of which compiles a kernel: (piece, rows, cols, start)."""
    found = _piece_board(args)
    if args.count:
        if args.save:
            raise InputError("--save applies to a single tour, not to --count")
        if args.max_nodes is not None:
            raise InputError("--max-nodes applies to a single tour, not to --count (use --time-limit)")
    elif args.save:
        from fastsnake.tour import check_save_path

        check_save_path(args.save)  # a bad extension fails before a long search
    return found


def run_tour(args):
    from fastsnake.tour import find_tour, square_name

    piece, rows, cols, start = _tour_input(args)
    if args.count:
        return _run_count(args, piece, rows, cols, start)
    from fastsnake.tour import DEFAULT_TIME_LIMIT

    limit = DEFAULT_TIME_LIMIT if args.time_limit is None else args.time_limit
    result = find_tour(piece, rows, cols, 0 if start is None else start, closed=args.closed, time_limit=limit,
                       seed=args.seed, method=args.method, max_nodes=args.max_nodes)
    if result.exists is None:  # stopped at a limit with no verdict: one line
        if interpreted_run() and result.extra.get("limit", "time") == "time":
            raise NeedsCompiled("the interpreted search reached its time limit")  # compiled, it may not
        if result.extra.get("limit", "time") != "time":
            raise result.limit_error(cli=True)  # the node limit: exit 2
        # the time limit (issue 63): exit 3, with what the search did so far (no verdict, its nodes)
        common.log(f"fastsnake: {result.limit_error(cli=True)}; exit status 3")
        args.exit_status = 3
        if not args.json:
            print(f"no verdict: the search stopped at its time limit of {result.limit_value:g} s after "
                  f"{result.nodes:,} nodes")
        return result.to_json(include_path=False)
    if args.save:
        from fastsnake.tour import save_tour

        try:
            save_tour(args.save, result)
        except OSError as exc:
            raise InputError(f"cannot write {args.save!r}: {exc.strerror}") from None
    if not args.json:
        kind = "closed" if args.closed else "open"
        where = square_name(result.start, rows, cols)
        if result.found:
            print(f"{kind} {piece.name} tour of {rows}x{cols} from {where}: found in {_took(result.seconds)} "
                  f"({result.method}, {result.nodes} nodes{_loaded(result.compile_seconds)})")
            if rows <= _BOARD_PRINT_MAX and cols <= _BOARD_PRINT_MAX:
                print(_board_text(result.path, rows, cols))
        else:
            print(f"no {kind} {piece.name} tour of {rows}x{cols} from {where}: {result.reason}")
        if args.save:
            print(f"saved to {common.shown(args.save)}")
    return result.to_json(include_path=not args.no_path)


def _run_count(args, piece, rows, cols, start):
    from fastsnake.tour import count_tours

    if rows * cols > 64:
        common.log(f"counting every tour of a {rows}x{cols} board may take very long (Ctrl-C stops it)")
    result = count_tours(piece, rows, cols, start, closed=args.closed, time_limit=args.time_limit)
    out = result.to_json()
    if not args.json:
        what = out["what"]
        bound = "" if result.complete else " (time limit reached: a lower bound)"
        where = "" if args.closed else (" from every start" if start is None else f" from {args.start}")
        print(f"{result.count} {what} of the {piece.name} on {rows}x{cols}{where}{bound}; "
              f"{result.nodes} nodes in {_took(result.seconds)}{_loaded(result.compile_seconds, ' (', ')')}")
        if start is None and not args.closed and rows <= _BOARD_PRINT_MAX and cols <= _BOARD_PRINT_MAX:
            width = max(len(str(v)) for v in result.per_start.values())
            for r in range(rows):
                print(" ".join(str(result.per_start.get(r * cols + c, "?")).rjust(width) for c in range(cols)))
    return out


def run_reach(args):
    from fastsnake import tour as tours  # `fastsnake.tour.reach` names both a module and the function

    piece, rows, cols, start = _piece_board(args)
    result = tours.reach(piece, rows, cols, 0 if start is None else start, args.n, walk=args.walk)
    if args.save:
        from fastsnake.tour import save_reach

        try:
            save_reach(args.save, result)
        except OSError as exc:
            raise InputError(f"cannot write {args.save!r}: {exc.strerror}") from None
    if not args.json:
        how = "ends of walks of exactly" if args.walk else "squares at exactly"
        print(f"{result.count} {how} {args.n} jumps of the {piece.name} on {rows}x{cols}"
              f"{_loaded(result.compile_seconds, ' (', ')')}")
        if rows <= 60 and cols <= 60:
            mark = bytearray(b"." * (rows * cols))
            for v in result.cells:
                mark[int(v)] = ord("#")
            mark[result.start] = ord("S") if mark[result.start] == ord(".") else ord("@")
            for r in range(rows):
                print(" ".join(chr(x) for x in mark[r * cols:(r + 1) * cols]))
        if args.save:
            print(f"saved to {common.shown(args.save)}")
    return result.to_json(include_cells=not args.no_cells)


def _loaded(seconds: float, before: str = "; ", after: str = "") -> str:
    """The kernel load/compile time, said apart from the search time (empty when negligible)."""
    return f"{before}+{_took(seconds)} {common.kernel_time_name()}{after}" if seconds >= 0.01 else ""


def _took(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _board_text(path, rows: int, cols: int) -> str:
    order = [0] * (rows * cols)
    for i, v in enumerate(path):
        order[int(v)] = i + 1
    width = len(str(rows * cols))
    lines = []
    for r in range(rows):
        rank = str(rows - r).rjust(2) if cols <= 26 else ""
        lines.append(rank + " " + " ".join(str(order[r * cols + c]).rjust(width) for c in range(cols)))
    if cols <= 26:
        lines.append("   " + " ".join(chr(ord("a") + c).rjust(width) for c in range(cols)))
    return "\n".join(lines)
