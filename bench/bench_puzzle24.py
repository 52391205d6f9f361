"""The 24-puzzle benchmark: Korf & Felner's 50 instances, easiest first, with PDBs.

Usage:
    python bench/bench_puzzle24.py --count 3 [--heuristic pdb] [--partition 6-6-6-6] [--json]

The tables (6-6-6-6 of the standard goal, looked up with its main-diagonal reflection)
are built once into the PDB cache ($FASTSNAKE_CACHE_DIR/pdb, else the repository's
.cache/pdb: 4 x 127,512,000 bytes; the first build takes many CPU-minutes) and loaded
once; the instances are solved in one process, the N with the fewest published nodes
first. Per instance: length (checked against the published optimum and replayed move by
move), nodes generated, CPU-s of the search, nodes per CPU-s, the published node count
(labelled published: Korf & Felner 2002, Table 2, as transcribed in clausecker/24puzzle
doc/korf.txt, where the column is headed "expansions"), and the process's peak RSS
(with, after the setup and at the end, its resident anonymous and file-backed megabytes:
mapped tables are file-backed pages that processes share).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

_REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("FASTSNAKE_CACHE_DIR", str(_REPO / ".cache"))
GOLDEN = _REPO / "tests" / "puzzle" / "golden" / "korf_felner_24.csv"


def instances():
    """[(id, optimal length, published nodes, start tiles)] in file order."""
    out = []
    for line in GOLDEN.read_text().splitlines():
        if line and line[0].isdigit():
            i, length, nodes, tiles = line.split(",")
            out.append((int(i), int(length), int(nodes), [int(t) for t in tiles.split()]))
    return out


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_split() -> dict:
    """Resident MB now, anonymous and file-backed (Linux; empty elsewhere)."""
    try:
        with open("/proc/self/status") as fh:
            return {line.split(":")[0]: int(line.split()[1]) // 1024 for line in fh
                    if line.startswith(("RssAnon", "RssFile"))}
    except OSError:
        return {}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=3, help="the N easiest instances (by published nodes)")
    ap.add_argument("--ids", default=None, help="comma-separated instance ids instead of --count")
    ap.add_argument("--heuristic", default="pdb")
    ap.add_argument("--partition", default=None)
    ap.add_argument("--max-nodes", type=int, default=10**12)
    ap.add_argument("--memory-budget", default=None,
                    help="bytes for the tables (pdb-max's eight sparse tables need about 2.1 GB: 3G)")
    ap.add_argument("--prune-depth", type=int, default=None,
                    help="longest pruned move string (default: the board's; 0: no duplicate-path pruning)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from fastsnake.puzzle import apply_moves, solve
    from fastsnake.puzzle.solver import heuristic_context

    goal = np.arange(25, dtype=np.int8)
    rows = instances()
    if args.ids:
        want = {int(x) for x in args.ids.split(",")}
        chosen = [r for r in rows if r[0] in want]
    else:
        chosen = sorted(rows, key=lambda r: r[2])[:args.count]
    c0, w0 = time.process_time(), time.perf_counter()
    ctx = heuristic_context(args.heuristic, 5, 5, goal, args.partition,
                            progress=lambda s: print(s, file=sys.stderr, flush=True),
                            memory_budget=args.memory_budget)
    from fastsnake.puzzle.prune import move_pruning

    move_pruning(5, 5, args.prune_depth)  # found (or loaded) in the setup, not in the first search
    one_move = goal.copy()
    one_move[[0, 1]] = one_move[[1, 0]]
    solve(one_move, goal, rows=5, cols=5, algorithm="idastar", heuristic=args.heuristic, context=ctx,
          prune_depth=args.prune_depth)  # loads the search kernel: not in the first instance's CPU-s either
    setup = {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - w0,
             "info": ctx[1], "rss_mb_after_setup": _rss_mb(), "rss_split_mb": _rss_split()}
    if not args.json:
        print(f"tables ready: {setup['cpu_s']:.1f} CPU-s, {setup['wall_s']:.1f} s wall, "
              f"RSS {setup['rss_mb_after_setup']:.0f} MB", flush=True)
        print(f"{'#':>3} {'len':>4} {'opt':>4} {'ok':>3} {'nodes':>16} {'expanded':>16} {'published':>16} "
              f"{'CPU-s':>9} {'M nodes/CPU-s':>14}", flush=True)
    results = []
    for i, length, published, tiles in chosen:
        c = time.process_time()
        r = solve(np.array(tiles, np.int8), goal, rows=5, cols=5, algorithm="idastar",
                  heuristic=args.heuristic, context=ctx, max_nodes=args.max_nodes, prune_depth=args.prune_depth)
        cpu = time.process_time() - c
        ok = r.length == length and apply_moves(tiles, r.moves, 5, 5).tolist() == goal.tolist()
        row = {"id": i, "length": r.length, "optimal_length": length, "ok": bool(ok),
               "nodes_generated": r.nodes_generated, "nodes_expanded": r.nodes_expanded,
               "published_nodes": published,
               "cpu_s": round(cpu, 3), "nodes_per_cpu_s": round(r.nodes_generated / max(cpu, 1e-9)),
               "h_start": r.h_start, "prune_depth": r.extra.get("prune_depth"), "rss_mb": round(_rss_mb())}
        results.append(row)
        if not args.json:
            print(f"{i:>3} {r.length:>4} {length:>4} {'yes' if ok else 'NO':>3} {r.nodes_generated:>16,} "
                  f"{r.nodes_expanded:>16,} "
                  f"{published:>16,} {cpu:>9.1f} {row['nodes_per_cpu_s'] / 1e6:>14.2f}", flush=True)
    total_nodes = sum(x["nodes_generated"] for x in results)
    total_cpu = sum(x["cpu_s"] for x in results)
    summary = {"instances": len(results), "all_optimal": all(x["ok"] for x in results),
               "nodes_generated": total_nodes, "search_cpu_s": round(total_cpu, 2),
               "nodes_per_cpu_s": round(total_nodes / max(total_cpu, 1e-9)), "peak_rss_mb": round(_rss_mb()),
               "rss_split_mb": _rss_split(),
               "load_average": os.getloadavg()}
    if args.json:
        print(json.dumps({"setup": setup, "results": results, "summary": summary}, default=str))
    else:
        print(f"total: {len(results)} instances, all optimal: {summary['all_optimal']}, {total_nodes:,} nodes, "
              f"{total_cpu:.1f} CPU-s, {summary['nodes_per_cpu_s'] / 1e6:.2f} M nodes/CPU-s, peak RSS "
              f"{summary['peak_rss_mb']} MB, load {summary['load_average'][0]:.1f}")
    return 0 if summary["all_optimal"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
