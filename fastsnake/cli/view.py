"""`fastsnake view`: show or export a replay, puzzle solution, tour or reach file."""

from __future__ import annotations

import os

from fastsnake.cli import common
from fastsnake.errors import InputError

OVERLAYS = ("cycle", "path")
MAX_CELL = 64


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "view",
        help="show a Snake replay, puzzle solution, tour or reach file (needs pygame)",
        description="Interactive viewer (space play/pause, arrows step/speed, Home/End, c cycle, "
                    "p path, s screenshot, q quit) or headless export with --export. Needs the viewer "
                    "extra: pip install 'fastsnake[viewer]'.",
        epilog=common.examples(
            "fastsnake view died.npz --play --show cycle          # a replay made by 'replay' or 'play --replay'",
            "fastsnake view died.npz --export died.gif --every 5  # no window (e.g. over ssh): an animated GIF",
            "fastsnake view tour.json --export frames/            # PNG frames of a tour, solution or reach set",
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
            print(f"wrote {written['written']:,} frames ({w}x{h}) to {what} {args.export} "
                  f"in {written['seconds']:.1f} s")
        return result

    stem = os.path.splitext(os.path.basename(args.file))[0] or "fastsnake"
    player = viewer.run_window(view, speed=speed, cell=args.cell, shots_dir=args.shots, stem=stem,
                               play=args.play, overlays=overlays & known)
    result.update(frame=player.frame, screenshots=[str(p) for p in player.shots])
    if not args.json:
        for path in player.shots:
            print(f"screenshot: {path}")
    return result
