"""Studies on every core (issue 61): wall-clock speedup of 2 worker processes over 1, rows equal,
and a resume check (SIGKILL at random moments, then the same command again).

Usage:
    python bench/bench_study_workers.py puzzle [--first 25] [--max-published 20000000] [--rounds 2]
    python bench/bench_study_workers.py tour [--sizes 30,31,...] [--tour-seeds 0,1,2,3] [--rounds 2]
    python bench/bench_study_workers.py resume [--first 25] [--kills 5] [--seed 0]
    python bench/bench_study_workers.py plan [--rate 24.55e6] [--workers 1,2,4,8,16,64]

puzzle: `fastsnake puzzle compare --instances FILE --heuristics manhattan,linear-conflict --algorithm
idastar` on the first `--first` instances of Korf's 100 whose published IDA* node count (Korf 1985,
Manhattan) is at most `--max-published` (a subset: the whole 100 with Manhattan is CPU-hours), once
with `--workers 1` and once with `--workers 2`, alternating, `--rounds` times each. tour: `fastsnake
tour compare` over a dozen boards, likewise (`--tour-seeds`: the search's tie-break seeds, one search
each per trial: more search per trial against the same serial part). Each run is a fresh process (its
kernels loaded from the warm cache, as a user's second run); wall seconds include its start-up and the
workers' (spawn, imports, kernel loads). The ratio is instances (trials) per wall-second of 2 workers over 1, each
round's pair measured back to back; its mean and 95 % t interval over the rounds (two rounds or more);
the load average before and after each run is printed beside it (the machine may be shared). Beside the
wall clock, each run's CPU-seconds in the command's own process (not its workers': where the rows are
gathered, summarised and written), a figure the load hardly moves, in all and per unit. Rows are
compared on every column but CPU-seconds and the run id.

resume: the puzzle study into a run folder with --workers 2, killed with SIGKILL after a random delay
(`--kills` times, delays drawn from `--seed`), then run to the end; the final rows must equal an
uninterrupted run's; per kill it prints the chunks present before and after, and the chunks the
next run computed again beyond those missing (work lost with the kill: at most one chunk per worker,
those running when the kill landed).

plan: the 24-puzzle on paper (docs/scale.md): the wall time of all 50 Korf-Felner instances on N workers
from their published IDA* node counts (6-6-6-6 and reflection; ours are within a few per cent of them
on the easiest) and a measured rate (`--rate` nodes per CPU-second; default 24.55 M, docs/measurements.md,
"Puzzle heuristics as modules"), each instance one chunk, started longest first (LPT) or in the listed
order, against the bound max(total / N, the largest instance).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

H2 = "manhattan,linear-conflict"
# The columns that may differ from run to run (CPU, the threads a tail search got, the run id): the
# puzzle study's own list (`fastsnake.puzzle.study.MEASURED_COLUMNS`); a tour study has a subset of them.
MEASURED = ("cpu_seconds", "threads", "table_cpu_seconds", "run_id")


def load() -> float:
    return os.getloadavg()[0]


def rows(path) -> list:
    path = Path(path)
    if path.is_dir():
        path = next(p for p in path.glob("*.parquet"))
    return [{k: v for k, v in r.items() if k not in MEASURED} for r in pq.read_table(path).to_pylist()]


def korf_file(first: int, max_published: int, folder: Path) -> Path:
    from fastsnake import puzzle as P

    chosen = [i for i in P.load_instances("korf100") if i.published_nodes <= max_published][:first]
    path = folder / "korf.csv"
    path.write_text("id,length,tiles\n" + "".join(f"{i.id},{i.optimum},{' '.join(map(str, i.start))}\n"
                                                  for i in chosen))
    return path


def children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# `fastsnake ARGS` as `python -m fastsnake` runs it, saying at exit its own CPU-seconds (without its
# workers'): the command's process, where a study gathers the rows and writes them.
PARENT_CPU = "fastsnake-bench: parent CPU-s "
LAUNCHER = f"""
import atexit, os, resource, sys


def said():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    os.write(2, ("\\n{PARENT_CPU}%r\\n" % (ru.ru_utime + ru.ru_stime)).encode())


if __name__ == "__main__":
    atexit.register(said)
    sys.argv = ["fastsnake", *sys.argv[1:]]
    from fastsnake.__main__ import run

    run()
"""


def timed(argv) -> tuple[float, float, float, dict]:
    before = load()
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", LAUNCHER, *argv, "--json", "--quiet"], capture_output=True,
                          text=True, env=dict(os.environ, FASTSNAKE_QUIET_COMPILE="1"))
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    doc = json.loads(done.stdout)
    doc["_cpu"] = children_cpu() - cpu0  # the command's CPU-seconds, its workers' included
    said = [line for line in done.stderr.splitlines() if line.startswith(PARENT_CPU)]
    doc["_parent_cpu"] = float(said[-1][len(PARENT_CPU):]) if said else None  # without its workers'
    return wall, before, load(), doc


def interval(ratios):
    n = len(ratios)
    mean = sum(ratios) / n
    if n < 2:
        return mean, None
    from scipy import stats

    sd = math.sqrt(sum((r - mean) ** 2 for r in ratios) / (n - 1))
    half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return mean, (mean - half, mean + half)


def speedup(kind: str, base: list, units: int, rounds: int, folder: Path) -> dict:
    ratios, runs = [], []
    reference = None
    for k in range(rounds):
        walls = {}
        for n in ((1, 2) if k % 2 == 0 else (2, 1)):
            out = folder / f"{kind}-{k}-{n}.parquet"
            wall, before, after, doc = timed([*base, "--workers", str(n), "--out", str(out)])
            walls[n] = wall
            got = rows(out)
            reference = reference or got
            same = got == reference
            parent = doc["_parent_cpu"]
            runs.append({"round": k, "workers": n, "wall_s": round(wall, 2), "cpu_s": round(doc["_cpu"], 2),
                         "parent_cpu_s": parent, "parent_cpu_ms_per_unit": 1e3 * parent / units,
                         "load_before": before, "load_after": after, "rows_equal": same})
            print(f"{kind} round {k} workers {n}: {wall:.1f} s wall, {doc['_cpu']:.1f} CPU-s ({parent:.2f} in the "
                  f"command's process: {1e3 * parent / units:.3f} ms a unit), {units / wall:.3g} {kind} units/s, "
                  f"load {before:.1f} -> {after:.1f}, rows equal to the first run: {same}", flush=True)
            if not same:
                differ = sorted({k for a, b in zip(got, reference, strict=False) for k in a if a.get(k) != b.get(k)})
                raise SystemExit(f"rows differ ({len(got)} against {len(reference)} rows; columns {differ})")
        ratios.append(walls[1] / walls[2])
    mean, ci = interval(ratios)
    parent = {n: [r["parent_cpu_ms_per_unit"] for r in runs if r["workers"] == n] for n in (1, 2)}
    print(f"{kind}: 2 workers {mean:.2f}x the {kind} units per wall-second of 1 "
          + (f"(95 % t interval {ci[0]:.2f}-{ci[1]:.2f}, {rounds} rounds)" if ci else
             "(one round: no interval; --rounds 2 or more give one)")
          + "; the command's own CPU a unit: " + ", ".join(f"{n} worker{'s' * (n > 1)} {sum(v) / len(v):.3f} ms"
                                                        for n, v in parent.items()), flush=True)
    return {"kind": kind, "units": units, "rounds": rounds, "speedup_mean": mean, "speedup_ci95": ci,
            "speedups": ratios, "runs": runs, "cores": len(os.sched_getaffinity(0))}


def resume(base: list, kills: int, seed: int, folder: Path) -> dict:
    rng = random.Random(seed)
    target = folder / "resume"
    plain = folder / "plain.parquet"
    wall, *_ = timed([*base, "--workers", "2", "--out", str(plain)])
    argv = [sys.executable, "-m", "fastsnake", *base, "--workers", "2", "--out", str(target), "--quiet"]
    env = dict(os.environ, FASTSNAKE_QUIET_COMPILE="1")
    report = []
    for k in range(kills):
        before = len(list(target.glob("chunk-*.json"))) if target.exists() else 0
        delay = rng.uniform(1.0, max(1.5, wall * 0.6))
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        after = len(list(target.glob("chunk-*.json")))
        report.append({"kill": k, "after_s": round(delay, 2), "chunks_before": before, "chunks_after": after})
        print(f"kill {k} after {delay:.1f} s: {before} -> {after} chunks kept", flush=True)
    done = subprocess.run([*argv, "--json"], capture_output=True, text=True, env=env)
    doc = json.loads(done.stdout)
    equal = rows(doc["files"]["rows"]) == rows(plain)
    print(f"final run: {doc['run']['chunks_resumed']} chunks found, {doc['run']['chunks_computed']} computed; "
          f"rows equal to an uninterrupted run's: {equal}")
    return {"kills": report, "final": doc["run"], "rows_equal": equal}


def plan(rate: float, workers: list[int]) -> dict:
    import heapq

    from fastsnake import puzzle as P

    insts = P.load_instances("korf-felner-50")
    nodes = [i.published_nodes for i in insts]
    total, largest = sum(nodes), max(nodes)

    def makespan(order, n):
        free = [0.0] * n
        for x in order:
            heapq.heapreplace(free, free[0] + x)
        return max(free)

    out = []
    print(f"{len(nodes)} instances, {total:,} published nodes ({total / rate / 3600:,.1f} CPU-hours at "
          f"{rate / 1e6:.2f} M nodes/CPU-s); largest {largest:,} ({largest / rate / 3600:.1f} h), "
          f"smallest {min(nodes):,}: {largest / min(nodes):,.0f}x")
    print("| workers | bound max(total/N, largest), h | longest first, h | as listed, h |")
    for n in workers:
        bound = max(total / n, largest) / rate / 3600
        lpt = makespan(sorted(nodes, reverse=True), n) / rate / 3600
        listed = makespan(nodes, n) / rate / 3600
        out.append({"workers": n, "bound_h": bound, "longest_first_h": lpt, "listed_h": listed})
        print(f"| {n} | {bound:,.1f} | {lpt:,.1f} | {listed:,.1f} |")
    return {"rate": rate, "total_nodes": total, "largest": largest, "rows": out}


def main() -> None:
    from fastsnake.machine import describe

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("puzzle", "tour", "resume", "plan"))
    p.add_argument("--rate", type=float, default=24.55e6)
    p.add_argument("--workers", default="1,2,4,8,16,64")
    p.add_argument("--first", type=int, default=25)
    p.add_argument("--max-published", type=int, default=20_000_000)
    p.add_argument("--sizes", default="30,31,32,33,34,35,36,37,38,39,40,41")
    p.add_argument("--tour-seeds", default=None, metavar="S,S,...",
                   help="tour: the search's tie-break seeds (default: the command's, one seed)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--kills", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--group-nice", type=int, default=None, metavar="N",
                   help="run in a session of its own whose scheduling group (Linux autogroup) has nice N: on a "
                        "machine shared through autogroups, every process of a session shares one group's "
                        "share of the CPU whatever their number, so 2 workers cannot beat 1 while other "
                        "sessions keep the cores busy; a negative N gives the bench's group the machine, as if "
                        "idle (root only; say so beside the figures)")
    args = p.parse_args()
    if args.what == "plan":
        print(json.dumps(plan(args.rate, [int(w) for w in args.workers.split(",")])))
        return
    if args.group_nice is not None:
        if os.getsid(0) != os.getpid():  # a session leader already (started by `setsid`) keeps its own
            os.setsid()
        with open("/proc/self/autogroup", "w") as fh:
            fh.write(str(args.group_nice))
        print(f"scheduling group: {open('/proc/self/autogroup').read().strip()}", flush=True)
    print(f"machine: {describe()}; {len(os.sched_getaffinity(0))} cores allowed; load {load():.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="fs-bench-workers-") as tmp:
        folder = Path(tmp)
        if args.what in ("puzzle", "resume"):
            instances = korf_file(args.first, args.max_published, folder)
            base = ["puzzle", "compare", "--instances", str(instances), "--heuristics", H2, "--algorithm", "idastar"]
            if args.what == "puzzle":
                result = speedup("puzzle", base, args.first, args.rounds, folder)
            else:
                result = resume(base, args.kills, args.seed, folder)
        else:
            sizes = args.sizes
            trials = sum(int(s) ** 2 for s in sizes.split(","))
            base = ["tour", "compare", "--size", sizes, "--methods", "search,construct", "--closed",
                    *(["--seeds", args.tour_seeds] if args.tour_seeds else [])]
            result = speedup("tour", base, trials, args.rounds, folder)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
