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
    PYTHONPATH=/other/checkout python bench/compile_times.py --only tour   # another checkout's code

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


def families() -> list[str]:
    """Every family `fastsnake warm` knows, in its order: the built-in policies, then the other parts."""
    from fastsnake.warm.parts import OTHER_PARTS, builtin_policy_parts

    return builtin_policy_parts() + list(OTHER_PARTS)


def _child(part: str, cache: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # cwd: not the checkout (``python -c`` puts the current directory before PYTHONPATH)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, FASTSNAKE_TIER="compiled")
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


def measure(part: str, warm: bool = False) -> dict:
    cache = tempfile.mkdtemp(prefix="fastsnake-compile-times-")
    try:
        cold = _child(part, cache)
        out = {"family": part, "cpu": cold["cpu"], "import": cold["import_cpu"], "wall": cold["seconds"]}
        if warm:
            out["warm_cpu"] = _child(part, cache)["cpu"]
        return out
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated families (default: all; see --list)")
    parser.add_argument("--list", action="store_true", help="print the families and exit")
    parser.add_argument("--warm", action="store_true", help="also run each family again in its warm cache")
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
    for part in chosen:
        r = measure(part, args.warm)
        results.append(r)
        if not args.json:
            warm = f"  warm {r['warm_cpu']:6.1f}" if args.warm else ""
            print(f"{part:36s} cpu {r['cpu']:7.1f} s  (import {r['import']:4.1f}){warm}  wall {r['wall']:7.1f} s",
                  flush=True)
    total = round(sum(r["cpu"] for r in results), 1)
    load_after = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"families": results, "total_cpu": total, "load": [round(load, 1), round(load_after, 1)],
                          "cpus": os.cpu_count(), "python": sys.version.split()[0]}))
    else:
        print(f"{'total':36s} cpu {total:7.1f} s   (load {load:.1f} -> {load_after:.1f} on {os.cpu_count()} cpus, "
              f"python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
