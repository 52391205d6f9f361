"""Cold starts: how long a first call takes with an empty numba cache, and how long the same call
takes once the cache is warm (issue 29).

Each case runs in a fresh subprocess twice with the same, initially empty, temporary
NUMBA_CACHE_DIR: the first run compiles everything the case needs (cold), the second loads it
from the cache (warm). "compile share" is the part of the cold run the warm run does not pay:
(cold - warm) / cold. Both runs are on the compiled tier (FASTSNAKE_TIER=compiled).

With --tiered, each case also runs once more on its own empty cache as a user gets it
(FASTSNAKE_TIER=auto): "tiered s" is that first call's wall time (interpreted when the job is
small, see docs/performance.md), "ready s" when the background compile it started had finished
(counted from the call's start; the script waits for it before the next case).

    python bench/bench_cold_start.py                       # every case, one at a time
    python bench/bench_cold_start.py --only play-cycle,tour --jobs 2
    python bench/bench_cold_start.py --list                # the case names
    python bench/bench_cold_start.py --markdown            # the table for docs/performance.md
    python bench/bench_cold_start.py --tiered --only play-strongest   # + the tiered first call

Cases run serially by default: two cold compiles side by side on a 2-core machine measure the
machine, not fastsnake. This is a script, not a pytest benchmark (a cold case takes minutes).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastsnake.snake.policies import builtin_names

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "fastsnake"]
# Built-in policies, as the registry lists them (aliases like `strongest` included: a newcomer types those).
POLICIES = builtin_names()

PUZZLE_3X3 = "8 6 7 2 5 4 3 0 1"  # one of the two hardest 3x3 instances (31 moves)
PUZZLE_5X5 = "2 20 7 21 17 15 23 16 24 11 1 22 12 10 3 4 5 8 0 9 14 18 13 6 19"  # puzzle random --seed 1
ENV_STEP = """
import gymnasium, numpy as np, fastsnake.envs
envs = gymnasium.make_vec("fastsnake/Snake-v0", num_envs=8, vectorization_mode="vector_entry_point", size=10)
envs.reset(seed=0)
envs.step(np.zeros(8, dtype=np.int64))
"""
USER_POLICY_SWEEP = f"""
import sys
sys.path.insert(0, {str(REPO / "examples" / "fastsnake-zigzag")!r})
import fastsnake, fastsnake_zigzag
fastsnake.sweep(fastsnake_zigzag.POLICY, 10, 1000)
"""

LIBRARY_CALLS = {"env-make_vec-step": "gymnasium.make_vec(..., num_envs=8) + reset + step (python)",
                 "user-numba-policy-sweep": "fastsnake.sweep(fastsnake_zigzag.POLICY, 10, 1000) (python)"}


def cases() -> dict[str, list[str]]:
    """name -> argv of one first call (a CLI verb, or `python -c` for the library)."""
    found = {f"play-{p}": CLI + ["play", "--policy", p, "--size", "10"] for p in POLICIES}
    found.update({
        "policies": CLI + ["policies"],
        "sweep-cycle": CLI + ["sweep", "--policy", "cycle", "--size", "10", "--games", "1000"],
        "compare-cycle-greedy": CLI + ["compare", "--size", "10", "--games", "100", "--policies", "cycle,greedy"],
        "puzzle-astar-3x3": CLI + ["puzzle", "solve", "--size", "3", "--start", PUZZLE_3X3, "--algorithm", "astar"],
        "puzzle-idastar-3x3": CLI + ["puzzle", "solve", "--size", "3", "--start", PUZZLE_3X3,
                                     "--algorithm", "idastar"],
        "puzzle-reduce-5x5": CLI + ["puzzle", "solve", "--size", "5", "--start", PUZZLE_5X5,
                                    "--algorithm", "reduce"],
        "puzzle-random": CLI + ["puzzle", "random", "--size", "3"],
        "tour-knight-8-closed": CLI + ["tour", "--piece", "1,2", "--size", "8", "--closed"],
        "reach-knight-8": CLI + ["reach", "--piece", "1,2", "--size", "8", "--jumps", "3"],
        "env-make_vec-step": [sys.executable, "-c", ENV_STEP],
        "user-numba-policy-sweep": [sys.executable, "-c", USER_POLICY_SWEEP],
        "warm-all": CLI + ["warm", "--all"],
        "replay-from-sweep": CLI + ["replay", "--from", "{work}/sweep.parquet", "--pick", "longest",
                                    "--out", "{work}/game.npz"],
        "replay-check": CLI + ["replay", "--check", "{work}/game.npz"],
        "report": CLI + ["report", "{work}/sweep.parquet", "--out", "{work}/report.html"],
    })
    return found


# Files a case reads, made first with a cache of their own (so the case's cache stays cold).
SETUP = {
    "replay-from-sweep": [CLI + ["sweep", "--policy", "cycle", "--size", "10", "--games", "100",
                                 "--out", "{work}/sweep.parquet"]],
    "replay-check": [CLI + ["play", "--policy", "cycle", "--size", "10", "--replay", "{work}/game.npz"]],
    "report": [CLI + ["sweep", "--policy", "cycle", "--size", "10", "--games", "100",
                      "--out", "{work}/sweep.parquet"]],
}


def timed(argv: list[str], cache: str, tier: str = "compiled") -> tuple[float, str | None, str]:
    """(wall seconds, error text or None, stderr) of one run with NUMBA_CACHE_DIR=cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, FASTSNAKE_TIER=tier)
    env.pop("FASTSNAKE_QUIET_COMPILE", None)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - t0
    error = None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]
    return seconds, error, proc.stderr


# The interpreted tier's background compile: its lock and log in the cache root (fastsnake.warm.tier).
BACKGROUND_LOCK = "background-warm.lock"
BACKGROUND_LOG = "background-warm.log"


def background_done(cache: str, started: float, timeout: float = 1800) -> float | None:
    """Seconds from `started` until the background compile in `cache` released its lock (None: none ran)."""
    log = Path(cache) / BACKGROUND_LOG
    deadline = time.perf_counter() + timeout
    while "compiling" not in (log.read_text() if log.exists() else ""):
        if time.perf_counter() > deadline or not log.exists() and time.perf_counter() - started > 60:
            return None
        time.sleep(0.2)
    with open(Path(cache) / BACKGROUND_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # blocks until the runner (and whatever it queued) is done
    return time.perf_counter() - started


def measure_tiered(argv: list[str], work: str) -> dict:
    cache = tempfile.mkdtemp(prefix="tiered-")
    try:
        t0 = time.perf_counter()
        seconds, error, stderr = timed(argv, cache, tier="auto")
        interpreted = "this run is interpreted" in stderr
        ready = background_done(cache, t0) if interpreted else None
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    row = {"tiered_seconds": round(seconds, 1), "interpreted": interpreted,
           "ready_seconds": None if ready is None else round(ready, 1)}
    if error:
        row["tiered_error"] = error
    return row


def measure(name: str, argv: list[str], tiered: bool = False) -> dict:
    cache = tempfile.mkdtemp(prefix=f"cold-{name}-")
    work = tempfile.mkdtemp(prefix=f"work-{name}-")
    setup_cache = tempfile.mkdtemp(prefix=f"setup-{name}-")
    label = " ".join(["fastsnake"] + [a.replace("{work}/", "") for a in argv[3:]]) if argv[:3] == CLI \
        else LIBRARY_CALLS[name]
    argv = [a.replace("{work}", work) for a in argv]
    try:
        error = None
        for step in SETUP.get(name, []):
            error = error or timed([a.replace("{work}", work) for a in step], setup_cache)[1]
        cold, error, _ = timed(argv, cache) if error is None else (float("nan"), error, "")
        warm, error2, _ = timed(argv, cache) if error is None else (float("nan"), None, "")
        extra = measure_tiered(argv, work) if tiered and error is None and argv[:3] == CLI else {}
    finally:
        for folder in (cache, work, setup_cache):
            shutil.rmtree(folder, ignore_errors=True)
    row = {"case": name, "command": label,
           "cold_seconds": round(cold, 1), "warm_seconds": round(warm, 1),
           "compile_share": round((cold - warm) / cold, 2) if cold == cold and warm == warm else None, **extra}
    if error or error2:
        row["error"] = error or error2
    return row


def _tiered_cells(r: dict) -> tuple[str, str]:
    if "tiered_seconds" not in r:
        return "", ""
    if not r["interpreted"]:
        return f"{r['tiered_seconds']} (compiled)", ""
    return f"{r['tiered_seconds']} (interpreted)", "" if r["ready_seconds"] is None else str(r["ready_seconds"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated case names (default: all; see --list)")
    parser.add_argument("--jobs", type=int, default=1, help="cases run side by side (default 1: serially)")
    parser.add_argument("--list", action="store_true", help="print the case names and stop")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--json", action="store_true", help="print one JSON list on stdout")
    parser.add_argument("--tiered", action="store_true",
                        help="also time each CLI case's first call as a user gets it (interpreted tier)")
    args = parser.parse_args(argv)
    table = cases()
    if args.list:
        print("\n".join(table))
        return 0
    names = args.only.split(",") if args.only else list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r} (see --list)")
    started = time.perf_counter()

    def run(name):
        row = measure(name, table[name], tiered=args.tiered)
        tiered = f", tiered {' / ready '.join(c for c in _tiered_cells(row) if c)} s" if args.tiered else ""
        sys.stderr.write(f"{name}: cold {row['cold_seconds']} s, warm {row['warm_seconds']} s{tiered}"
                         f"{'  ERROR ' + row['error'] if 'error' in row else ''}\n")
        return row

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(run, names))
    sys.stderr.write(f"{len(rows)} cases in {time.perf_counter() - started:.0f} s, {args.jobs} at a time\n")
    if args.json:
        print(json.dumps(rows))
    elif args.markdown:
        extra = " tiered first call s | compiled in background by s |" if args.tiered else ""
        print(f"| case | command | cold s | warm s | compile share |{extra}\n|---|---|---:|---:|---:|"
              + ("---:|---:|" if args.tiered else ""))
        for r in rows:
            share = "error: " + r["error"] if "error" in r else f"{r['compile_share']:.0%}"
            cells = "".join(f" {c} |" for c in _tiered_cells(r)) if args.tiered else ""
            print(f"| {r['case']} | `{r['command']}` | {r['cold_seconds']} | {r['warm_seconds']} | {share} |{cells}")
    else:
        width = max(len(r["case"]) for r in rows)
        print(f"{'case'.ljust(width)}  cold s  warm s  compile" + ("  tiered s / ready s" if args.tiered else ""))
        for r in rows:
            share = "ERROR " + r["error"] if "error" in r else f"{r['compile_share']:.0%}"
            tiered = "  " + " / ".join(c for c in _tiered_cells(r) if c) if args.tiered else ""
            print(f"{r['case'].ljust(width)}  {r['cold_seconds']:6.1f}  {r['warm_seconds']:6.1f}  {share:>7}{tiered}")
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
