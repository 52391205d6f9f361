"""Parallel IDA* beyond this machine, in simulation: the speed-up on P cores from the packet sizes of
real searches (`fastsnake.puzzle.ida_parallel`), and how many packets a core it needs.

    FASTSNAKE_CACHE_DIR=.cache python bench/sim_puzzle_parallel.py --korf 1-25 --felner 38 --json sim.json

Step 1 (measure): each instance is searched once with IDA* (`--heuristic`, default pdb), every
iteration split into about
`--packets` packets (a deep frontier), each packet searched whole (``whole_last_iteration``), recording
per iteration the nodes of every packet, its move prefix, the nodes until its first solution, and the
nodes of the frontier itself. These counts are deterministic: they are the serial search's tree cut
at the frontier. Every iteration is split (the threads' `PARALLEL_MIN_NODES` is not applied).

Step 2 (simulate): for P cores and k packets a core, each iteration's packets are merged by a shorter
prefix into the fewest coarser packets that are at least k*P (a coarser frontier of the same tree);
nodes between the two frontiers are counted as serial frontier work (pessimistic). P cores take the
packets in the serial order, each the next one when it is free (greedy list scheduling, as the
threads do); the iteration ends when the last packet ends; in the last iteration, when every packet
before the first solution's has ended and that one has reached its solution (the packets after it are
cut). Speed-up = the serial search's nodes / (frontier nodes + the P cores' makespans), in nodes: no
memory bandwidth, no scheduling overhead (the 2-core row beside the measured figure says how far off
that is). Prints one table: P, k, the speed-up and the efficiency (speed-up / P), over all instances.
"""

from __future__ import annotations

import argparse
import heapq
import json
import sys
from collections import OrderedDict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _rows(path: Path, ids) -> list:
    out = []
    for line in path.read_text().splitlines():
        if line[:1].isdigit():
            parts = line.split(",")
            if int(parts[0]) in ids:
                out.append((int(parts[0]), int(parts[1]), np.array(parts[-1].split(), np.int8)))
    return out


def _ids(text: str) -> set:
    out = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def measure(tiles, length: int, packets: int, context) -> dict:
    """One instance's iterations: serial nodes, frontier nodes, packets (nodes, prefix, found_at)."""
    from fastsnake.puzzle import board as B
    from fastsnake.puzzle import ida_parallel as IP
    from fastsnake.puzzle import prune as PR
    from fastsnake.puzzle.heuristics import heuristic_value, search_parts

    side = int(round(len(tiles) ** 0.5))
    hc = context
    parts = search_parts(hc)
    IP.FRONTIER_SHARE = 1.0  # a deep frontier whatever its cost: this is a measurement
    search = IP.ParallelIdaSearch(tiles, B.neighbours(side, side), hc, heuristic_value(tiles, hc), parts.ida_state,
                                  parts.ida, prune=PR.move_pruning(side, side), threads=2,
                                  packets_per_thread=packets // 2, min_parallel_nodes=0)
    status = search.run_search(10**13, whole_last_iteration=True)
    assert status == IP.FOUND and len(search.moves()) == length
    its = []
    for it in search.log:
        entry = {"bound": it["bound"], "nodes": it["nodes_generated"]}
        if it["packet_nodes"] is not None:
            entry["packets"] = it["packet_nodes"]
            entry["prefixes"] = [p.hex() for p in it["packet_prefixes"]]
            entry["found_at"] = it["packet_found_at"]
        its.append(entry)
    return {"length": length, "iterations": its}


def coarse(it: dict, want: int):
    """The iteration's packets merged by prefix into the fewest groups >= want (sizes, found_at of each
    group: nodes of the group before its first solution's packet plus that packet's, or None)."""
    sizes, found = it["packets"], it["found_at"]
    if "_prefixes" not in it:
        it["_prefixes"] = [bytes.fromhex(p) for p in it["prefixes"]]
        depth = max((len(p) for p in it["_prefixes"]), default=0)
        it["_counts"] = [len({p[:g] for p in it["_prefixes"]}) for g in range(depth + 1)]
    counts = it["_counts"]
    g = next((g for g, c in enumerate(counts) if c >= want), len(counts) - 1)
    groups: OrderedDict = OrderedDict()
    for s, p, f in zip(sizes, it["_prefixes"], found, strict=True):
        key = p[:g]
        size, first = groups.get(key, (0, None))
        if first is None and f is not None:
            first = size + f
        groups[key] = (size + s, first)
    return [v[0] for v in groups.values()], [v[1] for v in groups.values()]


def makespan(sizes, found, cores: int, last: bool) -> int:
    """Greedy list scheduling of `sizes` in order on `cores`; the last iteration ends at its first
    solution (every packet before it done, that one to its solution)."""
    free = [0] * cores
    heapq.heapify(free)
    end = 0
    stop = next((k for k, f in enumerate(found) if f is not None), None) if last else None
    for k, size in enumerate(sizes):
        start = heapq.heappop(free)
        if stop is not None and k == stop:
            return max(end, start + found[k])
        finish = start + size
        end = max(end, finish)
        heapq.heappush(free, finish)
    return end


def simulate(data: list, cores: int, per_core: int) -> tuple[float, float]:
    """(serial nodes, simulated parallel nodes-time) over every instance."""
    serial = parallel = 0.0
    for inst in data:
        its = inst["iterations"]
        for n, it in enumerate(its):
            last = n == len(its) - 1
            sizes, found = coarse(it, cores * per_core)
            frontier = it["nodes"] - sum(it["packets"])
            if last:
                stop = next((k for k, f in enumerate(found) if f is not None), len(sizes))
                serial += frontier + sum(sizes[:stop]) + (found[stop] if stop < len(sizes) else 0)
            else:
                serial += it["nodes"]
            parallel += frontier + makespan(sizes, found, cores, last)
    return serial, parallel


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--korf", default="1-25", help="Korf-100 ids, e.g. 1-25,40 ('' for none)")
    ap.add_argument("--felner", default="38", help="Korf-Felner-50 ids (5x5: the 6-6-6-6 tables)")
    ap.add_argument("--heuristic", default="pdb", help="the heuristic of Korf's 100 (5x5: always pdb)")
    ap.add_argument("--packets", type=int, default=8192, help="packets an iteration is split into when measured")
    ap.add_argument("--cores", default="2,8,64,512")
    ap.add_argument("--per-core", default="1,4,16")
    ap.add_argument("--data", default=None, help="read the measured packets from these JSON files (comma-separated; "
                                                 "skip step 1)")
    ap.add_argument("--json", default=None, help="write the measured packets and the table here")
    args = ap.parse_args(argv)
    if args.data:
        data = [inst for path in args.data.split(",") for inst in json.loads(Path(path).read_text())["instances"]]
    else:
        from fastsnake.puzzle.solver import heuristic_context

        data = []
        sets = (("korf100", ROOT / "tests" / "puzzle" / "golden" / "korf100.csv", args.korf, 4),
                ("korf-felner-50", ROOT / "fastsnake" / "puzzle" / "instances" / "korf-felner-50.csv", args.felner, 5))
        for name, path, ids, side in sets:
            rows = _rows(path, _ids(ids))
            if not rows:
                continue
            h = args.heuristic if side == 4 else "pdb"
            ctx = heuristic_context(h, side, side, np.arange(side * side, dtype=np.int8))[0]
            for ident, length, tiles in rows:
                inst = measure(tiles, length, args.packets, ctx)
                inst["id"] = f"{name}:{ident}:{h}"
                data.append(inst)
                print(f"{inst['id']}: {sum(i['nodes'] for i in inst['iterations']):,} nodes (whole last iteration)",
                      file=sys.stderr, flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps({"instances": data}))
    table = []
    for p in map(int, args.cores.split(",")):
        for k in map(int, args.per_core.split(",")):
            s, q = simulate(data, p, k)
            table.append({"cores": p, "packets_per_core": k, "speedup": s / q, "efficiency": s / q / p})
    print("| cores | packets a core | speed-up | efficiency |\n| ---: | ---: | ---: | ---: |")
    for row in table:
        print(f"| {row['cores']} | {row['packets_per_core']} | {row['speedup']:.1f} | {row['efficiency']:.0%} |")
    if args.json:
        clean = [{**inst, "iterations": [{k: v for k, v in it.items() if not k.startswith("_")}
                                         for it in inst["iterations"]]} for inst in data]
        Path(args.json).write_text(json.dumps({"instances": clean, "table": table}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
