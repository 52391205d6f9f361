"""`fastsnake puzzle solve|batch|compare|random|check`: the sliding-puzzle verbs."""

from __future__ import annotations

import argparse
import math
import re

from fastsnake.cli import common
from fastsnake.errors import InputError


def _heuristic_names():
    """The --heuristic choices: the registered names (`fastsnake.puzzle.heuristics.REGISTRY`) and auto."""
    from fastsnake.puzzle import heuristic_names

    return (*heuristic_names(), "auto")


_HEURISTICS = common.LazyChoices(_heuristic_names)


def register(subparsers) -> None:
    top = subparsers.add_parser("puzzle", help="sliding puzzles: optimal solutions up to 6x6, "
                                               "short ones up to 100x100",
                                epilog=common.examples(
                                    "fastsnake puzzle solve --size 3x3 --start '012 345 678' --goal '806 547 231'",
                                    "fastsnake puzzle random --size 4 --count 3 --seed 1",
                                    "fastsnake puzzle compare --size 3 --count 20",
                                    "fastsnake puzzle solve --help      # each subverb's options and examples"))
    sub = top.add_subparsers(dest="puzzle_verb", metavar="SUBVERB", parser_class=common.Parser)
    sub.required = True

    p = sub.add_parser("solve", help="solve one instance (or a --batch file of them)",
                       epilog=common.examples(
                           "fastsnake puzzle solve --start '8 6 7 2 5 4 3 0 1'",
                           "fastsnake puzzle solve --start '13 8 14 3 9 1 0 7 15 5 4 10 12 2 6 11' "
                           "--algorithm idastar --heuristic pdb --json   # Korf's #55: 41 moves",
                           "fastsnake puzzle random --size 20 | fastsnake puzzle solve --size 20 --batch - "
                           "--algorithm reduce",
                           "fastsnake puzzle random --size 3 --count 50 --seed 1 > eight.txt && "
                           "fastsnake puzzle solve --batch eight.txt --threads 2 --json"))
    _board_args(p, need_start=True)
    p.add_argument("--batch", metavar="FILE", default=None,
                   help="one instance a line: tiles, optionally '; goal tiles' ('-' = stdin); "
                        "blank lines and '#' lines are skipped")
    p.add_argument("--threads", type=common.positive_int, default=1,
                   help="--start: threads searching the one instance (parallel IDA*: the same moves, at most "
                        "the cores allowed); --batch: instances solved in parallel (results in input order)")
    p.add_argument("--whole-last-iteration", action="store_true",
                   help="IDA*: search the last iteration to its end after its first solution (its node count "
                        "is then the whole iteration's; without it, the nodes up to the first solution, the same "
                        "with any --threads)")
    p.add_argument("--per-iteration", action="store_true",
                   help="IDA*: print each iteration's bound and nodes (always in --json with --threads above 1)")
    p.add_argument("--algorithm", default="auto", choices=("astar", "idastar", "bfs", "reduce", "auto"),
                   help="auto: optimal up to 16 cells (A* below 12, IDA* from 12) and on 5x5 "
                        "(IDA* with the 6-6-6-6 pattern databases, built once if missing), reduce "
                        "above or when the optimal search stops at a limit; reduce: a short, not "
                        "optimal solution on any board up to 100x100")
    # metavar: argparse formats an argument's choices when it is added; the registered names
    # are read only when this help is printed or a value is checked (no numba at start-up)
    p.add_argument("--heuristic", default="auto", choices=_HEURISTICS, metavar="NAME",
                   help="one of %(choices)s (default %(default)s)")
    _limit_args(p)
    p.add_argument("--partition", "--pdb", dest="partition", default=None,
                   help="pdb tile groups, e.g. 6-6-3 (default on 4x4), 5-5-5, 7-8 (built on first "
                        "use: minutes, 2.2 GB while building, so --memory-budget 3G; 577 MB of files) or "
                        "'1,2,3/4,5,6,7/…' (goal tiles); pdb-max: partitions joined by '+' "
                        "(default 6-6-6-6+6-6-6-6b on 5x5, 6-6-3+5-5-5 on 4x4)")
    p.add_argument("--prune-depth", type=_prune_depth, default=None, metavar="N",
                   help="IDA*: longest move string pruned as a duplicate path (default by board size, "
                        "12 on 4x4 and 5x5; 0: only never undoing the last move, as before 0.2)")
    p.add_argument("--save", metavar="FILE", default=None, help="write the solution for the viewer")
    _samples_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(handler=cmd_solve, tier_job=_solve_job)

    p = sub.add_parser("batch", help="solve a file of instances optimally, one per worker process",
                       epilog=common.examples(
                           "fastsnake puzzle random --size 3 --count 50 --seed 1 > eight.txt && "
                           "fastsnake puzzle batch eight.txt --workers 2 --json",
                           "fastsnake puzzle random --size 3 --count 4 --seed 2 > four.txt && "
                           "fastsnake puzzle batch four.txt --heuristic manhattan"))
    p.add_argument("file", help="one instance a line (tiles); blank lines and '#' lines are skipped")
    p.add_argument("--size", type=common.size_arg(1, 100), default=None,
                   help="board size RxC or N (default: from the first line)")
    p.add_argument("--goal", default=None, help="goal tiles (default: blank top-left, then 1, 2, ...)")
    p.add_argument("--workers", type=common.positive_int, default=2,
                   help="worker processes, one instance each at a time (default 2)")
    p.add_argument("--algorithm", default="auto", choices=("astar", "idastar", "auto"))
    p.add_argument("--heuristic", default="auto", choices=_HEURISTICS, metavar="NAME",
                   help="one of %(choices)s (default %(default)s)")
    p.add_argument("--partition", "--pdb", dest="partition", default=None,
                   help="pdb tile groups (default 6-6-3 on 4x4, 6-6-6-6 on 5x5)")
    p.add_argument("--max-nodes", type=common.positive_int, default=None, metavar="N",
                   help="an instance stops with an error past N generated nodes (default 2,000,000,000)")
    p.add_argument("--time-limit", type=_positive_float, default=None, metavar="S",
                   help="an instance stops with an error after S seconds")
    p.add_argument("--memory-budget", default=None, metavar="BYTES",
                   help="pattern databases that would not fit are refused up front (default 2G)")
    _samples_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object at the end")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(handler=cmd_batch)

    p = sub.add_parser("compare", help="a study of heuristics on shared instances: Korf's 100, random, a file",
                       epilog=common.examples(
                           "fastsnake puzzle compare --size 3 --count 20",
                           "fastsnake puzzle compare --instances assignment --heuristics manhattan,linear-conflict "
                           "--out study.parquet",
                           "fastsnake puzzle compare --instances assignment --heuristics manhattan,linear-conflict "
                           "--format markdown",
                           "fastsnake puzzle compare --size 3 --count 500 --precision 0.05 "
                           "--heuristics manhattan,linear-conflict",
                           "fastsnake puzzle compare --size 3 --count 30 --heuristics manhattan,linear-conflict "
                           "--save-baseline base.parquet && fastsnake puzzle compare --size 3 --count 30 "
                           "--heuristics manhattan,linear-conflict --baseline-from base.parquet  # exit 4: more nodes"))
    _board_args(p, need_start=False)
    p.add_argument("--instances", default=None, metavar="NAME|FILE",
                   help="korf100 (15-puzzle), korf-felner-50 (24-puzzle), assignment (the 8-puzzle "
                        "assignment's 3 cases), random (--size, --count, --seed; the default), or a file: "
                        "one instance a line (tiles[; goal]) or a CSV with id,tiles columns")
    p.add_argument("--easiest", type=common.positive_int, default=None, metavar="N",
                   help="korf100, korf-felner-50: the N instances with the fewest published IDA* nodes")
    p.add_argument("--count", type=common.positive_int, default=None,
                   help="random: instances (default 10; with --precision the most, default 1,000)")
    p.add_argument("--seed", type=common.whole_number, default=0)
    p.add_argument("--heuristics", default="misplaced,manhattan,linear-conflict",
                   help="comma-separated list (default misplaced,manhattan,linear-conflict); the first is "
                        "the baseline of the pairs")
    p.add_argument("--algorithm", default="auto", choices=("astar", "idastar", "auto"),
                   help="auto: A* below 12 cells, IDA* from 12")
    p.add_argument("--partition", "--pdb", dest="partition", default=None,
                   help="pdb tile groups (as puzzle solve)")
    p.add_argument("--all-pairs", action="store_true",
                   help="compare every pair of heuristics (Holm-adjusted), not each against the first")
    p.add_argument("--precision", type=_positive_float, default=None, metavar="X",
                   help="random: instances in rounds until every pair's ratio interval is within X "
                        "(half-width / ratio, e.g. 0.05), at most --count")
    p.add_argument("--out", metavar="FILE|DIR", default=None,
                   help="FILE.parquet: one Parquet row per instance and heuristic, written at the end; DIR (a "
                        "name without a suffix, an existing or empty folder, or ending in /): a run folder, each "
                        "search kept as it finishes: run the same command again after a crash to finish it, "
                        "and DIR/RUN_ID.parquet holds the rows at the end; with --format csv, each table as "
                        "FILE.TABLE.csv beside it")
    common.study_run_options(p, "boards of at most 12 cells")
    common.study_baseline_options(p, "heuristic", "instance", stop_at=True)
    p.add_argument("--format", default=None, choices=("text", "json", "csv", "markdown", "latex"),
                   help="text (default), json (as --json), csv (data: one table, see --table), markdown, latex")
    p.add_argument("--table", default="heuristics", choices=("heuristics", "pairs"),
                   help="--format csv: the table printed (default heuristics)")
    p.add_argument("--admissibility-samples", type=common.whole_number, default=None, metavar="N",
                   help="states of each board a user's heuristic is checked on against their true distance "
                        "before the searches (default 40; 0: none); one found above it, or a path longer than "
                        "the optimum, marks the heuristic's rows optimal=false with a warning")
    _limit_args(p, per="per solve")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(handler=cmd_compare)

    p = sub.add_parser("random", help="random solvable instances (uniform over the solvable half)",
                       epilog=common.examples("fastsnake puzzle random --size 4 --count 3 --seed 1"))
    _board_args(p, need_start=False)
    p.add_argument("--count", type=common.positive_int, default=1)
    p.add_argument("--seed", type=common.whole_number, default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_random)

    p = sub.add_parser("check", help="validate a solution file written by --save",
                       epilog=common.examples("fastsnake puzzle solve --start '8 6 7 2 5 4 3 0 1' --save s.json",
                                              "fastsnake puzzle check s.json"))
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_check)


def _samples_arg(p) -> None:
    p.add_argument("--admissibility-samples", type=common.nonnegative_int, default=None, metavar="N",
                   help="states of the board a user's heuristic is checked on against their true distance "
                        "(and for writing into its arguments) before its results may say optimal (default 40; "
                        "0: not checked, so not optimal); what is seen against it, or against its path, makes "
                        "a result 'not proven optimal' (optimal=false, optimal_reason) with one warning")


def _limit_args(p, per: str = "") -> None:
    per = f" {per}" if per else ""
    p.add_argument("--max-nodes", type=common.positive_int, default=None, metavar="N",
                   help=f"optimal searches stop with an error past N generated nodes{per} "
                        "(default 2,000,000,000; auto reduces instead)")
    p.add_argument("--memory-budget", default=None, metavar="BYTES",
                   help="A*/BFS stop with an error before their stored states pass BYTES (e.g. 512M, 4G; "
                        "default $FASTSNAKE_MEMORY_BUDGET or 2G); pattern databases that would not fit "
                        "are refused up front")
    p.add_argument("--time-limit", type=_positive_float, default=None, metavar="S",
                   help=f"optimal searches stop with an error after S seconds{per} (default none)")


def _limits(args) -> dict:
    from fastsnake.puzzle import DEFAULT_MAX_NODES
    from fastsnake.sizes import memory_budget

    budget = None if args.memory_budget is None else memory_budget(args.memory_budget)
    return dict(max_nodes=args.max_nodes or DEFAULT_MAX_NODES, time_limit=args.time_limit,
                memory_budget=budget)


def _cli_limit_error(exc) -> InputError:
    """The library's limit error, worded with the command-line options."""
    from fastsnake.puzzle import limit_message

    return InputError(limit_message(exc.limit, exc.value, exc.result, cli=True))


def _prune_depth(text: str) -> int:
    from fastsnake.puzzle import MAX_PRUNE_DEPTH

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_PRUNE_DEPTH:
        raise argparse.ArgumentTypeError(f"{text!r} is not from 0 to {MAX_PRUNE_DEPTH}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def _board_args(p, need_start: bool) -> None:
    p.add_argument("--rows", type=common.positive_int, default=None)
    p.add_argument("--cols", type=common.positive_int, default=None)
    p.add_argument("--size", type=common.size_arg(1, 100), default=None, help="RxC (instead of --rows/--cols)")
    if need_start:
        p.add_argument("--start", default=None, help='tiles, e.g. "1 2 3 …", "1,2,…" or "012 345 678"')
    p.add_argument("--goal", default=None, help="goal tiles (default: 0 1 2 … row-major, blank first)")


def _dims(args, text: str | None) -> tuple[int, int]:
    """--rows/--cols/--size, else inferred from the short form or a square tile count."""
    if args.size is not None:
        if args.rows is not None or args.cols is not None:
            raise InputError("give either --size or --rows/--cols, not both")
        return args.size
    if args.rows is not None and args.cols is not None:
        return args.rows, args.cols
    tokens = [t for t in re.split(r"[\s,;]+", (text or "").strip()) if t]
    if (text and "," not in text and len(tokens) > 1 and len({len(t) for t in tokens}) == 1
            and all(t.isdigit() for t in tokens) and len(tokens[0]) > 1):
        rows, cols = len(tokens), len(tokens[0])
    elif tokens and math.isqrt(len(tokens)) ** 2 == len(tokens):
        rows = cols = math.isqrt(len(tokens))
    else:
        raise InputError("give the board size with --rows and --cols (or --size RxC)")
    if (args.rows is not None and args.rows != rows) or (args.cols is not None and args.cols != cols):
        raise InputError(f"board {text!r} is {rows}x{cols}, not what --rows/--cols say")
    return rows, cols


def _progress(args):
    if getattr(args, "quiet", False):
        return None
    return common.log


# Heuristics cheap enough to run interpreted: the others build tables first.
_TIER_HEURISTICS = ("auto", "misplaced", "manhattan", "linear-conflict")


def _solve_job(args):
    """One small board may be solved interpreted; a batch, a table heuristic or a time limit not.
    The input is checked first (`_solve_input`): bad input starts no background compile."""
    from fastsnake.warm import puzzle_job

    if _solve_input(args) is None:
        return None  # a batch: its file is read and checked by the handler, never tiered
    if (args.time_limit is not None or args.partition is not None or args.heuristic not in _TIER_HEURISTICS
            or args.threads != 1 or args.whole_last_iteration or args.per_iteration):
        return None
    rows, cols = _dims(args, args.start)
    return puzzle_job(rows, cols, args.algorithm)


def _solve_input(args) -> tuple[int, int] | None:
    """`puzzle solve`'s input checks, none of which loads or compiles a kernel: the options that
    go together, the board size, the start and goal tiles (their count, values and the size's
    limit for the algorithm), the limits and the --save path. (rows, cols) of one instance; None
    for --batch (checked by `_solve_batch`)."""
    from fastsnake import puzzle as P

    if (args.start is None) == (args.batch is None):
        raise InputError("give exactly one of --start and --batch")
    if args.batch is not None:
        return None
    _check_threads(args)
    rows, cols = _dims(args, args.start)
    # The count and values of the tiles (a board too big for an optimal search is refused by `solve`,
    # before it loads a kernel; it is never small enough to run interpreted).
    P.parse_tiles(args.start, rows, cols, "start", P.MAX_CELLS_ANY)
    if args.goal is not None:
        P.parse_tiles(args.goal, rows, cols, "goal", P.MAX_CELLS_ANY)
    _limits(args)  # a bad --memory-budget
    if args.max_nodes is not None and args.max_nodes < 16:
        raise InputError(f"--max-nodes {args.max_nodes} must be at least 16")
    if args.save:
        common.check_output("--save", args.save)
    return rows, cols


def _check_threads(args) -> None:
    """--threads of one instance: 1 to the cores allowed, IDA* only (`puzzle.check_threads`)."""
    from fastsnake.puzzle import check_threads

    try:
        check_threads(args.threads)
    except ValueError as exc:
        raise InputError(f"--{exc}") from None
    if args.threads > 1 and args.algorithm in ("astar", "bfs", "reduce"):
        raise InputError(f"--threads {args.threads}: only IDA* searches on several threads, not --algorithm "
                         f"{args.algorithm}")


def cmd_solve(args):
    from fastsnake import puzzle as P

    if _solve_input(args) is None:
        return _solve_batch(args)
    rows, cols = _dims(args, args.start)
    try:
        result = P.solve(args.start, args.goal, rows=rows, cols=cols, algorithm=args.algorithm,
                         heuristic=args.heuristic, partition=args.partition,
                         progress=_progress(args), prune_depth=args.prune_depth, threads=args.threads,
                         whole_last_iteration=args.whole_last_iteration, per_iteration=args.per_iteration,
                         admissibility_samples=args.admissibility_samples, **_limits(args))
    except P.PuzzleLimitError as exc:
        if exc.limit != "time" or exc.result is None:
            raise _cli_limit_error(exc) from None
        return _time_limit_reached(args, exc)
    if args.save:
        P.save_solution(args.save, result)
    out = result.as_dict()
    out["tile_moves"] = None if result.moves is None else [P.TILE_MOVE_NAMES[m] for m in result.moves]
    if not args.json:
        from fastsnake.puzzle import MAX_CELLS_ANY

        start = P.parse_tiles(result.start, rows, cols, "start", MAX_CELLS_ANY)
        goal = P.parse_tiles(result.goal, rows, cols, "goal", MAX_CELLS_ANY)
        print(f"{rows}x{cols} board\nstart:\n{P.format_board(start, rows, cols)}\n"
              f"goal:\n{P.format_board(goal, rows, cols)}")
        if not result.solvable:
            print("unsolvable (parity rule): no search needed")
        else:
            if result.status == "solved":
                fallback = result.extra.get("fallback")
                why = f" ({fallback}, so reduced)" if fallback else ""
                if result.optimal_reason:
                    print(f"length {result.length}, not proven optimal ({result.optimal_reason})")
                else:
                    print(f"{'optimal length' if result.optimal else 'length (not optimal)'}: "
                          f"{result.length}{why}")
                print(f"moves (blank): {common.abridged(result.moves, 'moves', '--json or --save FILE') or '(none)'}")
            else:
                print(f"no solution: {result.status}")
            threads = f", {result.threads} threads" if result.threads > 1 else ""
            print(f"algorithm: {result.algorithm}, heuristic: {result.heuristic} "
                  f"(h(start) = {result.h_start}){threads}")
            _print_iterations(result, args.per_iteration)
            print(f"nodes generated: {result.nodes_generated:,}, expanded: {result.nodes_expanded:,}")
            mem = f", memory {result.memory_bytes / 2**20:.1f} MiB" if result.memory_bytes else ""
            setup = f", +{result.setup_seconds:.2f} s tables" if result.setup_seconds > 0.01 else ""
            load = (f", +{result.compile_seconds:.2f} s {common.kernel_time_name()}"
                    if result.compile_seconds > 0.01 else "")
            print(f"time: {result.seconds:.3f} s search{load}{setup}{mem}")
        if args.save:
            print(f"saved: {common.shown(args.save)}")
    return out


def _print_iterations(result, asked: bool) -> None:
    """IDA*'s nodes per iteration (--per-iteration), the last one's saying what it counts."""
    its = result.extra.get("iterations")
    if not asked or not its:
        return
    for it in its:
        note = ""
        if not it["complete"]:
            beyond = it.get("searched_generated", it["nodes_generated"]) - it["nodes_generated"]
            note = (" (to the first solution" + (f"; the threads searched {beyond:,} more)" if beyond > 0 else ")")
                    if result.extra.get("last_iteration") == "to first solution" else " (stopped at a limit)")
        packets = f", {it['packets']:,} packets" if it.get("packets") else ""
        print(f"  bound {it['bound']}: {it['nodes_generated']:,} nodes generated{packets}{note}")


def _time_limit_reached(args, exc):
    """`puzzle solve` stopped by --time-limit: one line on stderr, what was found so far (the node
    counts, IDA*'s last bound) on stdout, exit status 3."""
    common.log(f"fastsnake: {_cli_limit_error(exc)}")
    args.exit_status = 3
    r = exc.result
    out = r.as_dict()
    out["tile_moves"] = None
    if not args.json:
        bound = r.extra.get("bound")
        print(f"time limit of {args.time_limit:g} s reached: no solution yet; {r.nodes_generated:,} nodes generated, "
              f"{r.nodes_expanded:,} expanded" + (f", IDA* bound {bound}" if bound is not None else "")
              + f" ({r.algorithm} + {r.heuristic})")
    return out


def _batch_lines(path: str) -> list[tuple[int, str]]:
    """(line number, text) of the instance lines of a batch file, read bounded (`fastsnake.reading`:
    a regular file or standard input, at most its caps of bytes, line length and instances)."""
    from fastsnake.reading import MAX_INSTANCES, read_text

    try:
        text = read_text(path, "batch file")
    except OSError as exc:
        raise InputError(f"cannot read batch file {path!r}: {exc.strerror}") from None
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            if len(out) == MAX_INSTANCES:
                raise InputError(f"batch file {path!r} holds more than {MAX_INSTANCES:,} instances, the most a "
                                 "batch takes: split it")
            out.append((i, line))
    if not out:
        raise InputError(f"batch file {path!r} holds no instances")
    return out


def _solve_batch(args):
    import time

    from fastsnake.puzzle import PuzzleLimitError, limit_message, solve_many

    if args.save:
        raise InputError("--save takes one instance, not --batch")
    lines = _batch_lines(args.batch)
    if args.size is None and (args.rows is None or args.cols is None):
        first = lines[0][1].partition(";")[0]
        rows, cols = _dims(args, first)
    else:
        rows, cols = _dims(args, None)
    t0 = time.perf_counter()
    c0 = time.process_time()
    results = solve_many([text for _, text in lines], args.goal, rows=rows, cols=cols,
                         algorithm=args.algorithm, heuristic=args.heuristic,
                         threads=args.threads, errors="keep", partition=args.partition,
                         progress=_progress(args), prune_depth=args.prune_depth,
                         admissibility_samples=args.admissibility_samples, **_limits(args))
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    out = []
    bad = []
    for (lineno, _), r in zip(lines, results, strict=True):
        if isinstance(r, PuzzleLimitError):
            msg = limit_message(r.limit, r.value, r.result, cli=True)
            bad.append(f"line {lineno}: {msg}")
            out.append({"line": lineno, "error": msg})
        elif isinstance(r, Exception):
            msg = str(r).split(": ", 1)[1]  # drop solve_many's "instance i: "
            bad.append(f"line {lineno}: {msg}")
            out.append({"line": lineno, "error": msg})
        else:
            out.append({"line": lineno, **r.as_dict()})
    if args.json:
        common.emit_json(out)
    else:
        for doc in out:
            if "error" in doc:
                print(f"line {doc['line']}: error: {doc['error']}")
            elif not doc["solvable"]:
                print(f"line {doc['line']}: unsolvable")
            else:
                opt = ("optimal" if doc["optimal"] else
                       "not proven optimal" if doc.get("optimal_reason") else "not optimal")
                print(f"line {doc['line']}: {doc['status']}, length {doc['length']} ({opt}), "
                      f"{doc['algorithm']} + {doc['heuristic']}, {doc['nodes_generated']:,} nodes, "
                      f"{doc['seconds']:.3f} s")
        good = [d for d in out if "error" not in d]
        print(f"{len(good)} instances solved on {rows}x{cols} in {wall:.2f} s wall, {cpu:.2f} CPU-s "
              f"({args.threads} thread{'s' if args.threads > 1 else ''})"
              + (f"; {len(bad)} bad line{'s' if len(bad) > 1 else ''}" if bad else ""))
    if bad and all(isinstance(r, PuzzleLimitError) and r.limit == "time" for r in results if isinstance(r, Exception)):
        args.exit_status = 3  # only time limits: what was found is printed above
        common.log(f"fastsnake: {len(bad)} instance{'s' if len(bad) > 1 else ''} stopped at the time limit "
                   "(the others were solved); exit status 3")
        return None
    if bad:
        shown = "; ".join(bad[:5]) + (f"; and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise InputError(f"batch file {args.batch!r}: {len(bad)} bad line{'s' if len(bad) > 1 else ''} "
                         f"(the others were solved): {shown}")
    return None  # printed above (so a bad line can still exit 2 after the list)


def cmd_batch(args):
    """`puzzle batch FILE`: per instance length, nodes, CPU-s; Ctrl-C keeps the finished ones."""
    from fastsnake import puzzle as P

    lines = _batch_lines(args.file)
    first = lines[0][1].partition(";")[0]
    rows, cols = _dims(argparse.Namespace(size=args.size, rows=None, cols=None), None if args.size else first)
    goal = P.parse_tiles(args.goal, rows, cols, "goal") if args.goal else None
    done = []

    def shown(res):
        line = lines[res["index"]][0]
        res = {"line": line, **{k: v for k, v in res.items() if k != "index"}}
        done.append(res)
        if not args.json:
            if "error" in res:
                print(f"line {line}: error: {res['error']}", flush=True)
            else:
                rate = res["nodes_per_cpu_second"]
                doubt = ", not proven optimal" if res.get("optimal_reason") else ""
                threads = f", {res['threads']} threads" if res.get("threads", 1) > 1 else ""
                print(f"line {line}: length {res['length']}{doubt}, {res['nodes_generated']:,} nodes, "
                      f"{res['cpu_seconds']:.2f} CPU-s"
                      + (f", {rate / 1e6:.2f} M nodes/CPU-s" if rate else "") + threads, flush=True)

    try:
        outcome = P.solve_processes([text for _, text in lines], goal, rows=rows, cols=cols,
                                    heuristic=args.heuristic, algorithm=args.algorithm, workers=args.workers,
                                    partition=args.partition, max_nodes=args.max_nodes,
                                    time_limit=args.time_limit, memory_budget=args.memory_budget,
                                    progress=_progress(args), on_result=shown,
                                    admissibility_samples=args.admissibility_samples,
                                    # the runner's progress line (a terminal): the text lines are their own
                                    bar=args.json and not args.quiet)
    except P.PuzzleInputError as exc:
        raise InputError(f"batch file {args.file!r}: {exc}") from None
    good = [r for r in done if "error" not in r]
    doubted = [r for r in good if r.get("optimal_reason")]
    if doubted:
        common.log("fastsnake: warning: " + P.not_proven_line(doubted[0]["optimal_reason"], len(doubted),
                                                                 doubted[0]["length"]))
    nodes = sum(r["nodes_generated"] for r in good)
    cpu = sum(r["cpu_seconds"] for r in good)
    summary = {"instances": len(lines), "finished": len(done), "solved": len(good),
               "interrupted": outcome.interrupted, "nodes_generated": nodes, "cpu_seconds": cpu,
               "nodes_per_cpu_second": nodes / cpu if cpu > 0 else None,
               "setup_seconds": outcome.setup_seconds, "workers": args.workers}
    if outcome.interrupted:
        args.exit_status = 130
        common.log(f"fastsnake: interrupted: {len(done)} of {len(lines)} instances finished (kept)")
    if args.json:
        common.emit_json({"rows": rows, "cols": cols, "results": sorted(done, key=lambda r: r["line"]),
                          "summary": summary, "tables": outcome.tables})
    else:
        print(f"{len(good)} of {len(lines)} instances solved on {rows}x{cols}: {nodes:,} nodes, {cpu:.2f} CPU-s"
              + (f", {nodes / cpu / 1e6:.2f} M nodes/CPU-s" if cpu > 0 else "")
              + f" ({args.workers} worker{'s' if args.workers > 1 else ''})")
    if len(good) < len(done) and not outcome.interrupted:
        # an instance stopped at a limit: the user's limit, not our failure (3: time limits only; 2: others)
        args.exit_status = 3 if all(r.get("limit") == "time" for r in done if "error" in r) else 2
        common.log(f"fastsnake: {len(done) - len(good)} of {len(lines)} instances stopped at a limit; exit status "
                   f"{args.exit_status}")
    return None


def cmd_compare(args):
    """`puzzle compare`: a study of heuristics (`fastsnake.puzzle.study`); everything is checked
    before the first search or table build."""
    from fastsnake import __version__
    from fastsnake import puzzle as P
    from fastsnake import study as S

    fmt = "json" if args.json else (args.format or "text")
    if args.json and args.format not in (None, "json"):
        raise InputError(f"--json and --format {args.format} disagree: give one")
    spec = args.instances or "random"
    board_given = args.size is not None or args.rows is not None or args.cols is not None
    rows = cols = None
    if spec == "random":
        if not board_given:
            raise InputError("give the board size with --size (or --rows and --cols), or --instances NAME|FILE")
        rows, cols = _dims(args, None)
    elif board_given:
        rows, cols = _dims(args, None)
    if spec != "random" and (args.count is not None or args.precision is not None):
        raise InputError(f"--count and --precision apply to --instances random, not {spec!r}")
    names = P.check_heuristics(args.heuristics)
    count = args.count if args.count is not None else (1000 if args.precision is not None else 10)
    from fastsnake.reading import MAX_INSTANCES, check_count

    check_count(count, MAX_INSTANCES, "--count")  # before any instance is drawn
    instances = P.load_instances(spec, rows=rows, cols=cols, count=count, seed=args.seed,
                                 easiest=args.easiest, goal=args.goal)
    for inst in instances:
        if args.algorithm == "astar" and inst.rows * inst.cols > 16:
            raise InputError(f"A* keeps every state: {inst.rows}x{inst.cols} instances need --algorithm idastar")
    folder = _study_folder(args)
    for path in (args.out if folder is None else None, args.save_baseline):
        if path is not None:
            S.check_out(path)
    workers, cluster = common.study_workers(args, small=all(i.rows * i.cols <= 12 for i in instances))
    base_rows = None
    _baseline_flags(args)
    if args.baseline_from is not None:
        # --precision plays a prefix of the instances: how many the baseline must hold is decided after the run.
        base_rows = P.check_baseline_instances(instances, names, args.baseline_from,
                                               allow_partial=args.allow_partial or args.precision is not None,
                                               require_all=args.require_all and args.precision is None)
    run_id = S.new_run_id()
    kwargs = dict(partition=args.partition, progress=_progress(args), run_id=run_id, warn=common.log,
                  workers=workers, cluster=cluster, bar=not (args.quiet or args.json), **_limits(args))
    if base_rows is not None:
        stop_at = P.DEFAULT_STOP_AT if args.stop_at is None else args.stop_at
        kwargs["node_caps"] = P.stop_caps(base_rows, stop_at)
    if args.admissibility_samples is not None:  # else run_study's default
        kwargs["admissibility_samples"] = args.admissibility_samples
    precision = None
    if args.precision is not None:
        study, precision = P.run_to_precision(rows, cols, names, args.algorithm, target=args.precision, cap=count,
                                              seed=args.seed, goal=args.goal, all_pairs=args.all_pairs, **kwargs)
    else:
        study = P.run_study(instances, names, args.algorithm, folder=folder, **kwargs)
    run_id = study.run_id  # a resumed folder's
    if study.interrupted:
        args.exit_status = 130
        common.log(f"fastsnake: interrupted: {len(study.instances)} instances finished (kept"
                   + (f" in {common.shown(folder)}: run the same command again to finish it)" if folder else ")"))
    summary = P.summarize(study, all_pairs=args.all_pairs)
    tables = P.study_tables(summary)
    written = {}
    if args.out is not None or args.save_baseline is not None:
        table = P.rows_table(study.rows)
        meta = P.study_meta(study, spec)
        if folder is not None:
            written["folder"] = str(folder)
        if args.out is not None and not (folder is not None and study.interrupted):  # a folder: rows when whole
            written["rows"] = S.write_rows(table, args.out, meta)
            if fmt == "csv":
                written["tables"] = S.write_csv(tables, S.csv_stem(args.out, run_id))
        if args.save_baseline is not None:
            written["baseline"] = S.write_rows(table, args.save_baseline, meta)
    verdict = None
    if base_rows is not None:
        verdict = P.check_baseline(study, base_rows, allow_partial=args.allow_partial, slower=args.slower,
                                   require_all=args.require_all, path=args.baseline_from)
        verdict["stop_at"] = stop_at
        verdict["decided"] = dict(study.decided)
        if verdict["worse"]:
            common.log(f"fastsnake: worse than baseline {args.baseline_from!r}: " + ", ".join(verdict["worse"]))
            args.exit_status = 4
    if precision is not None and not precision["reached"] and not args.exit_status:
        common.log(f"fastsnake: precision {precision['target']:.2%} not reached within {precision['cap']:,} "
                   f"instances (widest: {precision['limiting']}); exit status 3")
        args.exit_status = 3
    out = _compare_json(study, summary, spec, names, precision, verdict, written, __version__)
    out["run"] = common.run_json(study.run_outcome, workers, cluster)
    if out["run"] is not None:  # the tail of a run on workers searches on the idle workers' cores
        out["run"]["threaded_searches"] = sum((r.get("threads") or 1) > 1 for r in study.rows)
    if fmt == "json":
        if not args.json:
            common.emit_json(out)
            return None
        return out
    if fmt == "csv":
        sys_out = next(t for t in tables if t.name == args.table)
        print(S.to_csv(sys_out), end="")
        return None
    if fmt in ("markdown", "latex"):
        print(S.render(tables, fmt))
        return None
    first = study.instances[0] if study.instances else None
    where = (f"{len(study.instances)} instances of {spec}" + (f" ({first.rows}x{first.cols})" if first else "")
             + (f", seed {args.seed}" if spec == "random" else ""))
    print(f"{where}: {', '.join(names)}; CPU-seconds per search, kernels loaded and tables built beforehand")
    print(S.render(tables, "text"))
    flagged = [n for n, e in study.admissibility.items() if not e["admissible"]]
    print("every optimal search agrees on every length" + (" and with the published optima"
                                                          if any(i.optimum for i in study.instances) else "")
          + (f", {', '.join(flagged)} apart" if flagged else ""))
    for name, e in study.admissibility.items():
        sampled = f"no value above the true distance on {e['samples']:,} sampled states, " if e["samples"] else ""
        print(f"{name}: " + (_inadmissible_line(e) if not e["admissible"] else
                             sampled + "no path longer than an optimal one"
                             + ("" if e["samples"] else " (no states sampled)")))
    if precision is not None:
        print(f"precision {precision['target']:.2%}: {'reached' if precision['reached'] else 'not reached'} "
              f"with {precision['instances']:,} instances in {precision['rounds']} rounds "
              f"(widest: {precision['limiting']})")
    common.print_baseline_and_files(args.baseline_from, verdict, written, "heuristic")
    for name, where in (verdict or {}).get("decided", {}).items():
        print(f"  decided: {name} stopped past {verdict['stop_at']:g}x the baseline's nodes on instance {where}: "
              "worse" + ("" if folder else ", its later instances not searched") + " (--stop-at)")
    return None


def _study_folder(args):
    """The run folder --out names (`common.run_folder_out`), or None (a rows file, or an existing folder
    of other files: rows pooled there as DIR/RUN_ID.parquet at the end, as 0.x did)."""
    if not common.run_folder_out(args.out):
        return None
    if common.pooled_folder(args.out):
        common.log(f"fastsnake: note: {common.shown(args.out)} holds other files and no run: the rows go to "
                   "DIR/RUN_ID.parquet at the end (not resumable; give a new or empty folder to resume)")
        return None
    if getattr(args, "precision", None) is not None:
        raise InputError("--precision plays rounds of instances: give --out FILE.parquet, not a run folder")
    return args.out


def _baseline_flags(args) -> None:
    """--allow-partial, --require-all and --stop-at qualify --baseline-from: refused without it."""
    for flag, given in (("--allow-partial", args.allow_partial), ("--require-all", args.require_all),
                        ("--stop-at", getattr(args, "stop_at", None) is not None)):
        if given and args.baseline_from is None:
            raise InputError(f"{flag} qualifies a check against a baseline: name one with --baseline-from FILE")


def _inadmissible_line(e: dict) -> str:
    """What a study saw against a user's heuristic, in one line."""
    seen = []
    if e["sample_violations"]:
        seen.append(f"{e['sample_violations']:,} of {e['samples']:,} sampled states above their true distance")
    if e["longer_path_count"]:
        seen.append(f"{e['longer_path_count']:,} paths longer than the optimum")
    return "NOT admissible (" + "; ".join(seen) + "): its rows are marked optimal=false"


def _compare_json(study, summary, spec, names, precision, verdict, written, version) -> dict:
    """`puzzle compare --json`: the summary, plus the keys of 0.x's compare (deprecated, kept a release)."""
    first = study.instances[0] if study.instances else None
    lengths, optimal = {}, {}
    for r in study.rows:  # an optimal search's length (not an inadmissible heuristic's), else the first's
        if r["heuristic"] == names[0]:
            lengths[r["instance_id"]] = r["length"]
        if r["optimal"]:
            optimal.setdefault(r["instance_id"], r["length"])
    lengths = {i: optimal.get(i, n) for i, n in lengths.items()}
    per = summary["heuristics"]
    for s in per.values():  # the old flat keys (wall seconds were search seconds)
        s["mean_nodes_generated"] = s["nodes_generated"]["mean"]
        s["median_nodes_generated"] = s["nodes_generated"]["median"]
        s["mean_nodes_expanded"] = s["nodes_expanded"]["mean"]
        s["median_nodes_expanded"] = s["nodes_expanded"]["median"]
        s["mean_seconds"] = s["cpu_seconds"]["mean"]  # deprecated: was wall seconds, now CPU-seconds
        s["median_seconds"] = s["cpu_seconds"]["median"]
    known = [x for x in lengths.values() if x is not None]
    return {"instances": spec, "count": len(study.instances), "run_id": study.run_id, "fastsnake_version": version,
            "rows": first.rows if first else None, "cols": first.cols if first else None,
            "goal": list(first.goal) if first else None, "instance_ids": [i.id for i in study.instances],
            "heuristics": per, "pairs": summary["pairs"], "all_pairs": summary["all_pairs"],
            "noise_floor": summary.get("floor"),
            "lengths_agree": True, "lengths": [lengths.get(i.id) for i in study.instances],
            "admissibility": summary["admissibility"],
            "mean_length": sum(known) / len(known) if known else None, "options": study.options,
            "interrupted": study.interrupted, "precision": precision, "baseline": verdict, "files": written}


def cmd_random(args):
    import numpy as np

    from fastsnake import puzzle as P
    from fastsnake.reading import MAX_INSTANCES, check_count

    if args.rows is None and args.cols is None and args.size is None:
        raise InputError("give the board size with --rows and --cols (or --size RxC)")
    check_count(args.count, MAX_INSTANCES, "--count")
    rows, cols = _dims(args, None)
    from fastsnake.puzzle import MAX_CELLS_ANY

    goal = (P.parse_tiles(args.goal, rows, cols, "goal", MAX_CELLS_ANY) if args.goal
            else P.goal_default(rows, cols))
    rng = np.random.default_rng(args.seed)
    boards = [P.random_solvable(rows, cols, goal, rng) for _ in range(args.count)]
    out = {"rows": rows, "cols": cols, "goal": goal.tolist(), "seed": args.seed,
           "instances": [b.tolist() for b in boards]}
    if not args.json:
        for b in boards:
            print(" ".join(str(int(t)) for t in b))
    return out


# A file's "optimal": true is a claim; `check` repeats it only after an optimal search agrees,
# on boards where one finishes in moments (else it says it could not verify it).
CHECK_OPTIMAL_CELLS = 16
CHECK_OPTIMAL_SECONDS = 20.0


def cmd_check(args):
    from fastsnake import puzzle as P

    sol = P.load_solution(args.file)
    optimal, optimum, unverified = sol.optimal, None, None
    if sol.optimal:
        if sol.rows * sol.cols > CHECK_OPTIMAL_CELLS:
            unverified = f"no optimal search on a board over {CHECK_OPTIMAL_CELLS} cells"
        else:
            try:
                optimum = P.solve(sol.start.tolist(), sol.goal.tolist(), rows=sol.rows, cols=sol.cols,
                                  time_limit=CHECK_OPTIMAL_SECONDS).length
            except P.PuzzleLimitError:
                unverified = f"the optimal search did not finish in {CHECK_OPTIMAL_SECONDS:.0f} s"
            optimal = None if optimum is None else len(sol.moves) == optimum
    out = {"file": args.file, "valid": True, "rows": sol.rows, "cols": sol.cols,
           "length": len(sol.moves), "optimal": optimal, "optimal_claimed": sol.optimal,
           "optimal_length": optimum}
    if unverified:
        out["optimal"] = None
        out["optimal_unverified"] = unverified
    if args.json:
        common.emit_json(out)
    else:
        note = ""
        if sol.optimal and optimal:
            note = " (optimal, verified by search)"
        elif sol.optimal and unverified:
            note = f" (claims optimal; not verified: {unverified})"
        print(f"{common.shown(args.file)}: valid {sol.rows}x{sol.cols} solution, {len(sol.moves)} moves{note}")
    if optimal is False and sol.optimal:
        raise InputError(f"{args.file!r} claims an optimal solution, but its {len(sol.moves)} moves are not: "
                         f"the optimum is {optimum}")
    return None
