"""A user's heuristic against the built-in: the same paths and node counts, and the speed ratio.

    PYTHONPATH=. .venv/bin/python bench/bench_user_heuristic.py                 # Korf's first 25
    PYTHONPATH=. .venv/bin/python bench/bench_user_heuristic.py --cheapest 12   # a cheaper subset

`bench/user_manhattan.py` is Manhattan distance written to the contract of
`fastsnake.puzzle.register_heuristic` (an njit ``evaluate`` and ``update``). Each instance of Korf's
100 (tests/puzzle/golden/korf100.csv) chosen is solved by IDA* with the built-in ``manhattan``, with
the user's evaluate + update (``user-update``) and with its evaluate alone (``user-evaluate``), in
an order that rotates per instance, after an untimed warm-up that loads (or compiles) all three
kernels. Asserted: every path and node count equals the built-in's. Printed: each heuristic's nodes
per CPU-second (total nodes / total CPU-s of the solves) and, against the built-in, the geometric mean
of the per-instance ratios of nodes per CPU-second with its 95 % interval (t on the log ratios), the
instance count, and the machine. Targets (issue 54): >= 0.7 with the update, >= 0.25 without.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import user_manhattan  # noqa: E402

from fastsnake.puzzle import register_heuristic, solve  # noqa: E402

HEURISTICS = ("manhattan", "user-update", "user-evaluate")


def korf100() -> dict:
    rows = {}
    for line in (REPO / "tests" / "puzzle" / "golden" / "korf100.csv").read_text().splitlines():
        if line and line[0].isdigit():
            i, length, nodes, tiles = line.split(",")
            rows[int(i)] = (int(length), int(nodes), tiles)
    return rows


def interval(ratios: list[float]) -> tuple[float, float, float]:
    """Geometric mean of `ratios` and its 95 % interval (t on the logs)."""
    from scipy import stats

    logs = np.log(ratios)
    mean = float(logs.mean())
    if len(logs) < 2:
        return math.exp(mean), float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(logs) - 1) * logs.std(ddof=1) / math.sqrt(len(logs)))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=25, help="Korf's instances 1..N (default 25)")
    ap.add_argument("--cheapest", type=int, default=None,
                    help="only the N of them with the fewest published nodes (Korf 1985)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    register_heuristic("user-update", user_manhattan.evaluate, user_manhattan.update)
    register_heuristic("user-evaluate", user_manhattan.evaluate)
    korf = korf100()
    ids = list(range(1, args.first + 1))
    if args.cheapest:
        ids = sorted(sorted(ids, key=lambda i: korf[i][1])[:args.cheapest])
    for h in HEURISTICS:  # untimed: load or compile the kernels
        solve(korf[12][2], rows=4, cols=4, algorithm="idastar", heuristic=h)
    rows = []
    for k, i in enumerate(ids):
        order = HEURISTICS[k % 3:] + HEURISTICS[:k % 3]
        got = {}
        for h in order:
            c0 = time.process_time()
            r = solve(korf[i][2], rows=4, cols=4, algorithm="idastar", heuristic=h)
            got[h] = (r, time.process_time() - c0)
        base = got["manhattan"][0]
        assert base.length == korf[i][0], i
        for h in HEURISTICS[1:]:
            r = got[h][0]
            assert (r.moves, r.nodes_generated, r.nodes_expanded) == (
                base.moves, base.nodes_generated, base.nodes_expanded), (i, h)
        rows.append({"instance": i, "length": base.length, "nodes": base.nodes_generated,
                     **{f"cpu_{h}": got[h][1] for h in HEURISTICS}})
        print(f"instance {i}: {base.nodes_generated:,} nodes, "
              + ", ".join(f"{h} {got[h][1]:.2f} CPU-s" for h in HEURISTICS), file=sys.stderr)
    nodes = sum(r["nodes"] for r in rows)
    out = {"instances": ids, "nodes": nodes, "machine": f"{platform.machine()} {platform.processor()} "
           f"{os.cpu_count()} cpus, {platform.python_version()}", "heuristics": {}}
    for h in HEURISTICS:
        cpu = sum(r[f"cpu_{h}"] for r in rows)
        entry = {"cpu_seconds": cpu, "nodes_per_cpu_second": nodes / cpu}
        if h != "manhattan":
            gm, lo, hi = interval([r["cpu_manhattan"] / r[f"cpu_{h}"] for r in rows])
            entry.update(ratio=gm, ratio_low=lo, ratio_high=hi)
        out["heuristics"][h] = entry
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"Korf's 15-puzzle instances {ids} ({len(ids)}), IDA*, {nodes:,} nodes each heuristic; "
          f"same paths and node counts: yes; {out['machine']}")
    for h, e in out["heuristics"].items():
        ratio = (f"  ratio to manhattan {e['ratio']:.3f} [95 % {e['ratio_low']:.3f}, {e['ratio_high']:.3f}]"
                 if "ratio" in e else "")
        print(f"  {h:14s} {e['nodes_per_cpu_second'] / 1e6:8.2f} M nodes/CPU-s  {e['cpu_seconds']:8.2f} CPU-s{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
