"""`fastsnake view` (show or export a replay, puzzle solution, tour or reach file) and `fastsnake report`
(the same files and sweeps as one self-contained HTML page)."""

from __future__ import annotations

import argparse
import os

from fastsnake.cli import common
from fastsnake.errors import InputError, cli_text
from fastsnake.files import SHOWN_CHARS, printable

OVERLAYS = ("cycle", "path")
MAX_CELL = 64


def register(subparsers) -> None:
    register_report(subparsers)
    p = subparsers.add_parser(
        "view",
        help="show a Snake replay, puzzle solution, tour or reach file (needs pygame)",
        description="Interactive viewer (space play/pause, arrows step/speed, Home/End, c cycle, "
                    "p path, s screenshot, q quit) or headless export with --export. Needs the viewer "
                    "extra: pip install 'fastsnake[viewer]'.",
        epilog=common.examples(
            "fastsnake view died.npz --play --show cycle          # a replay made by 'replay' or 'play --replay'",
            "fastsnake view died.npz --export died.gif --every 5  # no window (e.g. over ssh): an animated GIF",
            "fastsnake view s.json --export frames/               # PNG frames of a puzzle solution, tour or reach set",
        ),
    )
    p.add_argument("file", metavar="FILE", help="a .npz replay, a puzzle solution, or a tour/reach file")
    p.add_argument("--export", metavar="OUT.gif|DIR/", help="render without a window: an animated GIF or PNG frames")
    p.add_argument("--every", type=common.positive_int, default=None, metavar="K",
                   help="with --export: every K-th move (default 1; the last frame is always included)")
    p.add_argument("--speed", type=int, default=20, metavar="N",
                   help="moves per second, 1..10000 (default 20; also the GIF frame rate)")
    p.add_argument("--cell", type=common.positive_int, default=None, metavar="PX",
                   help=f"pixels per cell, 1..{MAX_CELL} (default: board about 760 px)")
    p.add_argument("--show", default="", metavar="LIST",
                   help="overlays on at start, comma-separated: cycle, path")
    p.add_argument("--play", action="store_true", help="start playing at once")
    p.add_argument("--shots", default=".", metavar="DIR", help="folder for 's' screenshots (default .)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=cmd_view)


def _overlays(text: str) -> set[str]:
    names = {t.strip() for t in text.split(",") if t.strip()}
    bad = sorted(names - set(OVERLAYS))
    if bad:
        raise InputError(f"--show {text!r}: unknown overlay {bad[0]!r} (choose from {', '.join(OVERLAYS)})")
    return names


def cmd_view(args):
    from fastsnake import viewer

    speed = viewer.check_speed(args.speed)
    if args.cell is not None and args.cell > MAX_CELL:
        raise InputError(f"--cell {args.cell} is outside 1..{MAX_CELL}")
    if args.every is not None and not args.export:
        raise InputError("--every applies to --export only")
    overlays = _overlays(args.show)
    if args.export:
        # a bad target fails before loading the file
        common.check_output("--export", args.export, folder_target=viewer.export_kind(args.export) == "png")
    viewer.require_pygame()  # fail early, with the install hint, when pygame is missing
    if not args.export:
        try:
            viewer.check_display()  # no display: say so, rather than play to an invisible window
        except InputError as exc:
            raise InputError(f"{exc}: --export OUT.gif (or --export DIR/ for PNG frames)") from None
    view = viewer.open_view(args.file)
    known = set(view.toggles.values())
    result = dict(view.summary(), file=args.file)
    if args.export:
        written = viewer.export_frames(view, args.export, every=args.every or 1, speed=speed, cell=args.cell,
                                overlays=frozenset(overlays & known))
        result.update(written)
        if not args.json:
            what = "GIF" if written["format"] == "gif" else "PNG frames in"
            w, h = written["size"]
            print(f"wrote {written['written']:,} frames ({w}x{h}) to {what} {common.shown(args.export)} "
                  f"in {written['seconds']:.1f} s")
        return result

    stem = os.path.splitext(os.path.basename(args.file))[0] or "fastsnake"
    player = viewer.run_window(view, speed=speed, cell=args.cell, shots_dir=args.shots, stem=stem,
                               play=args.play, overlays=overlays & known)
    result.update(frame=player.frame, screenshots=[str(p) for p in player.shots])
    if not args.json:
        for path in player.shots:
            print(f"screenshot: {common.shown(path)}")
    return result


def register_report(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="one self-contained HTML page of sweeps: plots, tables and a replay player (no display needed)",
        description="Write one HTML file (all scripts and data inlined: it opens from file:// after scp) with "
                    "the run's configuration, the summary table, plots and a player for picked games. INPUT: "
                    "sweep files, sweep folders, compare files (several policies side by side), or files "
                    "'fastsnake view' shows (replay .npz, puzzle solution, tour) for a page of just the player; "
                    "or one study file ('puzzle compare --out', 'tour compare --out'): its plots, tables and "
                    "picked solutions (--pick longest, shortest, most-nodes, fewest-nodes or an instance id).",
        epilog=common.examples(
            "fastsnake report sweep.parquet --out report.html",
            "fastsnake report c.parquet --out compare.html --worst 5 --pick 41   # compare file: a section a policy",
            "fastsnake report big/ --out big.html --random 50                      # a sweep folder, streamed",
            "fastsnake report died.npz s.json --out games.html                     # just the player",
            "fastsnake report study.parquet --out study.html --pick 3x3             # a puzzle study",
        ),
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="sweep files or folders, compare files, viewer files")
    p.add_argument("--out", required=True, metavar="FILE.html", help="the page to write")
    p.add_argument("--worst", type=common.nonnegative_int, default=None, metavar="N",
                   help="pick the N games with the most moves per policy (default 10)")
    p.add_argument("--best", type=common.nonnegative_int, default=None, metavar="N",
                   help="pick the N games with the fewest moves per policy (default 10)")
    p.add_argument("--died", type=common.nonnegative_int, default=None, metavar="N",
                   help="pick every game that died, and every stuck one, up to N each per policy (default 20)")
    # 0.1.0's spelling of --died, renamed without notice: works again, with a warning, until 0.3.0 (CHANGELOG.md).
    p.add_argument("--lost", type=common.nonnegative_int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--random", type=common.nonnegative_int, default=None, metavar="N",
                   help="pick N games uniformly at random per policy (default 10)")
    p.add_argument("--pick", action="append", default=[], metavar="EXPR",
                   help="also pick, as 'replay --pick' does: died, longest, shortest or a game index (repeatable)")
    p.add_argument("--sample", type=common.nonnegative_int, default=None, metavar="N",
                   help="games re-played per policy for the moves-per-apple plot (default 30)")
    p.add_argument("--replay", type=common.nonnegative_int, default=None, metavar="N",
                   help="also re-play N games of each run from their seeds to check its rows, chosen as "
                        "'verify --replay' chooses them (default 16): a run they contradict is marked DAMAGED")
    p.add_argument("--replay-seed", type=common.nonnegative_int, default=None, metavar="S",
                   help="choose those games with seed S (default: a fresh random seed, named on the page)")
    p.add_argument("--title", default=None, help="the page's title")
    p.add_argument("--model", action="append", default=[], metavar="PATH",
                   help="the model file to re-play a 'model:...' policy an input names (its SHA-256 must be the "
                        "recorded one; repeatable): a model is never loaded from a path a file names")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=cmd_report)


def cmd_report(args):
    import fastsnake

    if not args.out.endswith((".html", ".htm")):
        raise InputError(f"--out {args.out!r}: the report is an HTML page; name it *.html")
    common.check_output("--out", args.out)
    if args.lost is not None:
        if args.died is not None:
            raise InputError("give the count once, with --died (--lost is its deprecated spelling)")
        common.log("fastsnake: warning: 'report --lost' is deprecated; use --died")
        args.died = args.lost
    result = fastsnake.report(args.inputs, args.out, worst=args.worst, best=args.best, died=args.died,
                              random=args.random, picks=args.pick, sample=args.sample, title=args.title,
                              progress=not args.json, models=args.model, replay=args.replay,
                              replay_seed=args.replay_seed)
    for note in result["notes"]:
        if note not in result.get("warnings", ()):  # printed already, as "fastsnake: warning: ..."
            common.log(f"note: {note}")
    if not args.json and result.get("kind") == "study":
        print(f"wrote {common.shown(args.out)} ({result['bytes'] / 1e6:.2f} MB): {result['study']} study of "
              f"{result['trials']:,} {'instances' if result['study'] == 'puzzle' else 'trials'}, "
              f"{len(result['plots'])} plots, {len(result['tables'])} tables, {result['picked']} solution(s) "
              f"to play, in {result['seconds']:.1f} s")
    elif not args.json:
        policies = ", ".join(printable(p, SHOWN_CHARS) for p in result["policies"])  # names a file holds
        what = f"{policies}: {result['games']:,} games, " if result["policies"] else ""
        print(f"wrote {common.shown(args.out)} ({result['bytes'] / 1e6:.2f} MB): "
              f"{what}{result['picked']} picked game(s), "
              f"{result['embedded']} playable, in {result['seconds']:.1f} s")
    if result["problems"]:
        if args.json:
            common.emit_json(result)
        said = "; ".join(cli_text(p) for p in result["problems"])
        raise InputError(f"{said} (the rest of the report is in {args.out})")
    return result
