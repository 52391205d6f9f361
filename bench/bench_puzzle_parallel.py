"""Parallel IDA* (`solve(..., threads=N)`) against the serial search, in one process, alternating.

    python bench/bench_puzzle_parallel.py speed --instance korf100:88 --heuristic manhattan --rounds 3
    python bench/bench_puzzle_parallel.py speed --instance korf-felner-50:38 --heuristic pdb --rounds 3
    python bench/bench_puzzle_parallel.py memory --instance korf-felner-50:38 --heuristic pdb
    python bench/bench_puzzle_parallel.py memory --instance walk:5:80:1 --heuristic pdb --partition 5-5-5-5-4

`speed`: the heuristic's context and kernel are loaded first; then, per round, one serial solve and one
with `--threads` (default 2), their order alternating round by round; every solve's wall seconds, CPU-s
of the process (all threads), nodes and length. Prints the wall speed-up (serial wall / threaded wall)
per round, its mean with a 95 % t-interval over the rounds, the node and length agreement, and the load
average before and after. `memory`: the peak resident set of a fresh process solving the instance with 1
and with `--threads` threads (alternating, `--rounds` each), and their ratio (pattern databases are
memory-mapped: their pages count in both).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def instance(spec: str):
    """(rows, cols, tiles, published length) of 'korf100:ID' or 'korf-felner-50:ID', or of
    'walk:SIDE:MOVES:SEED' (a random walk of the blank from the goal; length None: not published)."""
    name, _, ident = spec.partition(":")
    if name == "walk":
        side, moves, seed = (int(x) for x in ident.split(":"))
        board = np.arange(side * side, dtype=np.int8)
        rng = np.random.default_rng(seed)
        blank = 0
        for _ in range(moves):
            r, c = divmod(blank, side)
            cells = [(r + dr) * side + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                     if 0 <= r + dr < side and 0 <= c + dc < side]
            cell = cells[int(rng.integers(len(cells)))]
            board[blank], board[cell] = board[cell], 0
            blank = cell
        return side, side, board, None
    path = (ROOT / "tests" / "puzzle" / "golden" / "korf100.csv" if name == "korf100"
            else ROOT / "fastsnake" / "puzzle" / "instances" / f"{name}.csv")
    for line in path.read_text().splitlines():
        if line[:1].isdigit():
            parts = line.split(",")
            if parts[0] == ident:
                tiles = np.array(parts[-1].split(), np.int8)
                side = int(round(len(tiles) ** 0.5))
                return side, side, tiles, int(parts[1])
    raise SystemExit(f"no instance {spec!r}")


def t95(values):
    """Mean and the half-width of its 95 % t-interval."""
    from scipy import stats

    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    half = stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    return mean, half


def speed(args) -> dict:
    from fastsnake.machine import describe
    from fastsnake.puzzle import solve
    from fastsnake.puzzle.solver import heuristic_context

    rows, cols, tiles, length = instance(args.instance)
    goal = np.arange(rows * cols, dtype=np.int8)
    ctx = heuristic_context(args.heuristic, rows, cols, goal, args.partition)
    from fastsnake.puzzle import PuzzleLimitError

    try:  # load the kernel (a solve stopped at a few nodes), so that no round times a compile
        solve(tiles, goal, rows=rows, cols=cols, algorithm="idastar", heuristic=args.heuristic, context=ctx,
              max_nodes=10_000)
    except PuzzleLimitError:
        pass
    load0 = os.getloadavg()
    runs = {1: [], args.threads: []}
    for r in range(args.rounds):
        order = (1, args.threads) if r % 2 == 0 else (args.threads, 1)
        for threads in order:
            w, c = time.perf_counter(), time.process_time()
            res = solve(tiles, goal, rows=rows, cols=cols, algorithm="idastar", heuristic=args.heuristic,
                        context=ctx, threads=threads, per_iteration=True, max_nodes=10**12)
            w, c = time.perf_counter() - w, time.process_time() - c
            assert length is None or res.length == length, (res.length, length)
            runs[threads].append({"wall": w, "cpu": c, "nodes": res.nodes_generated, "length": res.length,
                                  "iterations": [i["nodes_generated"] for i in res.extra["iterations"]],
                                  "load": os.getloadavg()[0]})
            print(f"round {r + 1}: {threads} thread(s): {w:.2f} s wall, {c:.2f} CPU-s, {res.nodes_generated:,} "
                  f"nodes, length {res.length}, load {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)
    serial, par = runs[1], runs[args.threads]
    ratios = [s["wall"] / p["wall"] for s, p in zip(serial, par, strict=True)]
    mean, half = t95(ratios)
    same = all(p["iterations"][:-1] == serial[0]["iterations"][:-1] for p in par)
    return {"instance": args.instance, "heuristic": args.heuristic, "partition": args.partition,
            "threads": args.threads, "rounds": args.rounds,
            "wall_speedup": ratios, "wall_speedup_mean": mean, "wall_speedup_95": half,
            "serial_wall": [s["wall"] for s in serial], "threaded_wall": [p["wall"] for p in par],
            "serial_cpu": [s["cpu"] for s in serial], "threaded_cpu": [p["cpu"] for p in par],
            "serial_nodes": serial[0]["nodes"], "threaded_nodes": [p["nodes"] for p in par],
            "length": serial[0]["length"], "lengths_agree": all(p["length"] == serial[0]["length"] for p in par),
            "earlier_iterations_agree": same, "load_before": load0, "load_after": os.getloadavg(),
            "machine": describe()}


_CHILD = """
import json, resource, sys, numpy as np
from fastsnake.puzzle import solve
tiles = np.array(sys.argv[1].split(), np.int8); side = int(round(len(tiles) ** 0.5))
r = solve(tiles, rows=side, cols=side, algorithm="idastar", heuristic=sys.argv[2], threads=int(sys.argv[3]),
          partition=sys.argv[4] or None, max_nodes=10**12)
print(json.dumps({"rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "length": r.length}))
"""


def memory(args) -> dict:
    rows, cols, tiles, length = instance(args.instance)
    text = " ".join(map(str, tiles.tolist()))
    peaks = {1: [], args.threads: []}
    for r in range(args.rounds):
        for threads in ((1, args.threads) if r % 2 == 0 else (args.threads, 1)):
            out = subprocess.run([sys.executable, "-c", _CHILD, text, args.heuristic, str(threads),
                                  args.partition or ""], check=True,
                                 capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
            doc = json.loads(out.stdout.strip().splitlines()[-1])
            assert length is None or doc["length"] == length
            peaks[threads].append(doc["rss_kib"] * 1024)
            print(f"round {r + 1}: {threads} thread(s): peak RSS {doc['rss_kib'] / 1024:,.0f} MiB",
                  file=sys.stderr, flush=True)
    return {"instance": args.instance, "heuristic": args.heuristic, "partition": args.partition,
            "threads": args.threads, "peak_rss_bytes": {str(k): v for k, v in peaks.items()},
            "ratio": max(peaks[args.threads]) / max(peaks[1]), "load": os.getloadavg()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("speed", "memory"))
    ap.add_argument("--instance", default="korf100:88", help="korf100:ID or korf-felner-50:ID")
    ap.add_argument("--heuristic", default="manhattan")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--partition", default=None, help="pdb tile groups (default: the board's preset)")
    args = ap.parse_args(argv)
    out = speed(args) if args.what == "speed" else memory(args)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
