"""Cold compile cost of each kernel family, in CPU seconds.

Each family compiles in a fresh subprocess with its own empty temporary NUMBA_CACHE_DIR, doing what
`fastsnake warm` does for that part (`fastsnake.warm.parts.run_part`): every built-in policy
(``policy:NAME``, one per kernel: aliases such as `strongest` share their policy's; its play and sweep
kernels on 10x10 and on a board past the single-word masks), ``puzzle`` (A*, IDA*, reduce and the
pattern-database builders `auto` picks), ``puzzle-large`` (reduce on boards over 127 cells), ``tour``
and ``envs`` (the Gymnasium env's and vector env's step). The figure is the child's CPU time, user +
sys (`resource.getrusage(RUSAGE_CHILDREN)`), so it holds on a loaded machine where wall time does not;
``import`` is the part of it spent before the first compile (Python and fastsnake's imports).

    python bench/compile_times.py                          # every family, one at a time
    python bench/compile_times.py --only policy:cycle,policy:cell --json
    python bench/compile_times.py --only policy:grove --warm   # also a second, warm run in the same cache
    python bench/compile_times.py --only policy:cell --before /tmp/old --rows   # A/B against another tree
    PYTHONPATH=/other/checkout python bench/compile_times.py --only tour   # another checkout's code

`--before TREE` runs each family twice, back to back: first with TREE's code (PYTHONPATH), then with
this one's, and prints both and their ratio (alternating, so a change of load hits both alike).
`--rows` then hashes, in the same (now warm) cache, each policy's sweep rows and replays on 6x6, 10x10
and 16x16 boards, seeds 0 and 7, one and two threads: equal hashes before and after = the same games.

Families run serially: two cold compiles side by side on a 2-core machine measure the machine.
Environment experiments pass through to the child (NUMBA_OPT=..., say).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
c0 = time.process_time()
from fastsnake.warm.parts import run_part
c1 = time.process_time()
result = run_part(sys.argv[1])
result["import_cpu"] = round(c1 - c0, 2)
result["part_cpu"] = round(time.process_time() - c1, 2)
print(json.dumps(result))
"""

ROWS = r"""
import hashlib, json, sys
import fastsnake
name, out = sys.argv[1], {}
for size in (6, 10, 16):
    for seed in (0, 7):
        for threads in (1, 2):
            rows = fastsnake.sweep(name, size, 24, seed=seed, threads=threads).table
            rows = rows.select(["game", "seed", "outcome", "moves", "apples", "length"]).to_pylist()
            out[f"{size} {seed} t{threads}"] = repr(rows)
        game = fastsnake.play(name, size, seed=seed, game=3)
        out[f"{size} {seed} play"] = repr((game.outcome, [int(m) for m in game.moves]))
print(hashlib.sha1(json.dumps(out, sort_keys=True).encode()).hexdigest()[:16])
"""


def families() -> list[str]:
    """Every family `fastsnake warm` knows, in its order: the built-in policies, then the other parts."""
    from fastsnake.warm.parts import OTHER_PARTS, builtin_policy_parts

    return builtin_policy_parts() + list(OTHER_PARTS)


def _env(cache: str, tree: str | None) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, FASTSNAKE_TIER="compiled")
    if tree is not None:
        env["PYTHONPATH"] = tree
    return env


def _child(part: str, cache: str, tree: str | None = None) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # cwd: not the checkout (``python -c`` puts the current directory before PYTHONPATH)
    env = _env(cache, tree)
    proc = subprocess.run([sys.executable, "-c", CHILD, part], env=env, cwd=cache, capture_output=True,
                          text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"family {part} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if result.get("error"):
        raise SystemExit(f"family {part} failed: {result['error']}")
    result["cpu"] = round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2)
    return result


def _rows(part: str, cache: str, tree: str | None) -> str | None:
    """A hash of the games of `part`'s policy (`ROWS`), played from the warm cache; None for other parts."""
    if not part.startswith("policy:"):
        return None
    proc = subprocess.run([sys.executable, "-c", ROWS, part.split(":", 1)[1]], env=_env(cache, tree), cwd=cache,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"rows of {part} failed:\n{proc.stderr[-3000:]}")
    return proc.stdout.strip().splitlines()[-1]


def measure(part: str, warm: bool = False, rows: bool = False, tree: str | None = None) -> dict:
    cache = tempfile.mkdtemp(prefix="fastsnake-compile-times-")
    try:
        cold = _child(part, cache, tree)
        out = {"family": part, "cpu": cold["cpu"], "import": cold["import_cpu"], "wall": cold["seconds"]}
        if warm:
            out["warm_cpu"] = _child(part, cache, tree)["cpu"]
        if rows:
            out["rows"] = _rows(part, cache, tree)
        return out
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated families (default: all; see --list)")
    parser.add_argument("--list", action="store_true", help="print the families and exit")
    parser.add_argument("--warm", action="store_true", help="also run each family again in its warm cache")
    parser.add_argument("--rows", action="store_true", help="also hash each policy's games (same games: same hash)")
    parser.add_argument("--before", metavar="TREE", help="first run each family on TREE's code (A/B, alternating)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    known = families()
    if args.list:
        print("\n".join(known))
        return
    chosen = args.only.split(",") if args.only else known
    unknown = [f for f in chosen if f not in known]
    if unknown:
        parser.error(f"unknown families {unknown}; known: {', '.join(known)}")
    load = os.getloadavg()[0]
    results = []
    befores = []
    for part in chosen:
        runs = []
        if args.before:
            befores.append(measure(part, args.warm, args.rows, args.before))
            runs.append(("before ", befores[-1]))
        r = measure(part, args.warm, args.rows)
        results.append(r)
        runs.append(("" if not args.before else "after  ", r))
        if not args.json:
            for tag, run in runs:
                warm = f"  warm {run['warm_cpu']:6.1f}" if args.warm else ""
                rows = f"  rows {run['rows']}" if run.get("rows") else ""
                print(f"{tag}{part:36s} cpu {run['cpu']:7.1f} s  (import {run['import']:4.1f}){warm}  "
                      f"wall {run['wall']:7.1f} s{rows}", flush=True)
            if args.before:
                print(f"ratio  {part:36s} {r['cpu'] / befores[-1]['cpu']:.2f}", flush=True)
    total = round(sum(r["cpu"] for r in results), 1)
    load_after = os.getloadavg()[0]
    if args.json:
        extra = {"before": befores, "before_total_cpu": round(sum(r["cpu"] for r in befores), 1)} if befores else {}
        print(json.dumps({"families": results, "total_cpu": total, **extra,
                          "load": [round(load, 1), round(load_after, 1)], "cpus": os.cpu_count(),
                          "python": sys.version.split()[0]}))
    else:
        if befores:
            print(f"{'total before':36s} cpu {sum(r['cpu'] for r in befores):7.1f} s")
        print(f"{'total':36s} cpu {total:7.1f} s   (load {load:.1f} -> {load_after:.1f} on {os.cpu_count()} cpus, "
              f"python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
