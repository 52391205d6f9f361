"""The `warm` verb: compile kernels ahead of time; `--clear` removes stale cache folders; `--export` and
`--import` carry compiled kernels to another machine in one file (a kernel bundle)."""

from __future__ import annotations

import sys

from fastsnake.cli import common
from fastsnake.errors import FastsnakeError, InputError

BAR_WIDTH = 24


def register(sub) -> None:
    p = sub.add_parser(
        "warm", help="compile kernels ahead of time (parallel), carry them to another machine, or --clear stale "
                     "cache folders",
        description="Compile the numba kernels of what you name, in parallel processes, so the first real call "
                    "loads them in about a second. Kernels are compiled again after a source edit, a numba or "
                    "fastsnake upgrade, or on another CPU; --clear removes the folders those left behind. "
                    "--export FILE writes the compiled kernels (of what you name, else all) into one file, a "
                    "kernel bundle; --import FILE installs a bundle's kernels on another machine with the same "
                    "fastsnake, Python and numba and a CPU that can run them (checked first: anything else is "
                    "refused and nothing is written).",
        epilog=common.examples("fastsnake warm --policy strongest,cycle",
                               "fastsnake warm --all            # every policy, the puzzle, tour and env kernels",
                               "fastsnake warm --clear --json   # remove stale cache folders, say what was freed",
                               "fastsnake warm --policy cycle --export cycle.kernels  # compile, then bundle them",
                               "fastsnake warm --import cycle.kernels --json   # on another machine, checked first"))
    p.add_argument("--policy", metavar="X,Y", help="comma-separated policy names (play and sweep kernels)")
    p.add_argument("--puzzle", action="store_true", help="the sliding-puzzle kernels")
    p.add_argument("--tour", action="store_true", help="the leaper tour and reach kernels")
    p.add_argument("--envs", action="store_true", help="the Gymnasium env kernels (needs fastsnake[rl])")
    p.add_argument("--all", action="store_true", help="every built-in policy, --puzzle, --tour and --envs")
    p.add_argument("--jobs", type=common.positive_int, default=None,
                   help="processes compiling side by side (default: one per core)")
    p.add_argument("--force", action="store_true", help="run parts marked as compiled too")
    p.add_argument("--clear", action="store_true",
                   help="remove cache folders of other sources than the installed ones (then warm what is named)")
    p.add_argument("--export", metavar="FILE",
                   help="write the compiled kernels of what is named (else every part in the cache) into FILE")
    p.add_argument("--import", dest="import_file", metavar="FILE",
                   help="install the kernels of a bundle FILE written by --export (before warming what is named)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=cmd_warm)


def cmd_warm(args):
    from fastsnake import warm

    result = {}
    if args.clear:
        result["cleared"] = warm.clear_stale()
        if not args.json:
            cleared = result["cleared"]
            print(f"removed {len(cleared['removed'])} stale cache folder(s), freed "
                  f"{cleared['freed_bytes'] / 1e6:.1f} MB in {cleared['root']}")
    if args.import_file is not None and args.export is not None:
        raise InputError("warm takes --import or --export, not both")
    if args.import_file is not None:
        result["imported"] = warm.import_bundle(args.import_file)
        if not args.json:
            _say_imported(args.import_file, result["imported"])
    policies = [name.strip() for name in (args.policy or "").split(",") if name.strip()]
    if not (policies or args.puzzle or args.tour or args.envs or args.all):
        if args.export is not None:
            result["exported"] = warm.export_bundle(args.export)
            if not args.json:
                _say_exported(result["exported"])
            return result
        if args.clear or args.import_file is not None:
            return result
        raise InputError("warm needs what to compile: --policy X,Y, --puzzle, --tour, --envs or --all "
                         "(or --clear, --import FILE, --export FILE)")
    parts = warm.resolve_parts(policies, puzzle=args.puzzle, tour=args.tour, envs=args.envs,
                               everything=args.all)
    if args.export is not None:
        warm.check_bundle_target(args.export)  # refused before any compile, not after
    report = warm.warm(parts, jobs=args.jobs, force=args.force, progress=_Bar(len(parts)))
    result.update(report)
    failed = [row for row in report["parts"] if row["error"]]
    if not args.json:
        for row in report["parts"]:
            state = ("failed: " + row["error"]) if row["error"] else "cached" if row["cached"] else \
                "compiled" if row["compiled"] else "loaded"
            print(f"{row['part']:<32} {row['seconds']:7.1f} s  {state}")
        print(f"{len(parts)} part(s) in {report['seconds']:.1f} s, {report['jobs']} process(es); "
              f"cache: {report['cache']}")
    if failed:
        result["failed"] = [row["part"] for row in failed]
        if args.json:
            common.emit_json(result)
        raise WarmFailed(f"{len(failed)} part(s) failed: " + "; ".join(f"{r['part']}: {r['error']}" for r in failed))
    if args.export is not None:
        result["exported"] = warm.export_bundle(args.export, parts=parts)
        if not args.json:
            _say_exported(result["exported"])
    return result


def _say_imported(path, report: dict) -> None:
    moved = (f", compiled for CPU {report['bundle_cpu']} and filed for this one ({report['cpu']})"
             if report["retargeted"] else "")
    print(f"installed {report['kernels']} kernel(s) from {common.shown(path)} into {report['cache']} "
          f"({report['present']} there already){moved}")


def _say_exported(report: dict) -> None:
    print(f"wrote {common.shown(report['path'])}: {report['kernels']} kernel(s) in {report['folders']} cache "
          f"folder(s), {report['bytes'] / 1e6:.1f} MB, for CPU {report['cpu']}")


class WarmFailed(FastsnakeError):
    """A part could not be compiled: our failure (exit 1), named in one line."""


class _Bar:
    """`[#####-----] 3/14 policy:cell 41.2 s` on stderr: redrawn on a terminal, a line a part elsewhere."""

    def __init__(self, total: int):
        self.total = total
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, total: int, row: dict) -> None:
        filled = BAR_WIDTH * done // max(total, 1)
        state = "cached" if row["cached"] else "failed" if row["error"] else f"{row['seconds']:.1f} s"
        line = f"warm [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {done}/{total} {row['part']} {state}"
        if self.tty:
            sys.stderr.write("\r\033[K" + line + ("\n" if done == total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
