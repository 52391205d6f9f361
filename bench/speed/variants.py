"""Cycles per move of the 10x10 cycle game loop, with kernel variants that each leave one part out.

Each variant is the engine's move loop specialised to `cycle` (zig-zag, start 3, tail follows),
1 thread, serial; parts are switched off by closure constants (folded at compile time). Variants run in
interleaved rounds (each sees the same machine load); best of N rounds.

Run: PYTHONPATH=bench/speed .venv/bin/python bench/speed/variants.py 100000 3
"""

import sys
import time

import numpy as np
from numba import njit

from fastsnake.snake.board import CFG_MAX_MOVES, GameConfig
from fastsnake.snake.engine import (
    DIED,
    G_BODY,
    G_FREE,
    G_FREEPOS,
    G_OCC,
    G_RNG,
    RUNNING,
    STUCK,
    WON,
    ix,
    new_game,
    start_game,
)
from fastsnake.snake.policies.cycle import W_CELLS, W_MOVE, cycle_workspace, reset_cycle
from fastsnake.snake.rng import below, game_seed
from fastsnake.snake.sweep import prepare


def make(APPLE=True, RING=True, OCC=True, FREEL=True, DECIDE=True, STATS=True):
    @njit
    def kern(cfg, nbr, params, base_seed, ngames, nxt, prv, out):
        g = new_game(cfg, nbr)
        ws = cycle_workspace(cfg, nbr, params)
        body, occ, free, freepos, rng = g[G_BODY], g[G_OCC], g[G_FREE], g[G_FREEPOS], g[G_RNG]
        mv = ws[W_MOVE]
        n = body.shape[0]
        max_moves = cfg[CFG_MAX_MOVES]
        total = 0
        for k in range(ngames):
            st = start_game(g, ws, reset_cycle, game_seed(base_seed, k))
            head, tail, hi, ti, length, apple, nfree = (
                st.head,
                st.tail,
                st.head_i,
                st.tail_i,
                st.length,
                st.apple,
                st.nfree,
            )
            moves = 0
            apples = 0
            outcome = RUNNING
            while True:
                if DECIDE:
                    m = mv[ix(head)]
                    target = nbr[ix(head * 4 + m)]
                else:
                    target = nxt[ix(head)]
                if STATS:
                    moves += 1
                hi += 1
                if hi == n:
                    hi = 0
                if target == apple:
                    length += 1
                    last = nfree - 1
                    if OCC:
                        occ[ix(target)] = 1
                    if RING:
                        body[ix(hi)] = target
                    if FREEL:
                        pos = freepos[ix(target)]
                        moved = free[ix(last)]
                        free[ix(pos)] = moved
                        freepos[ix(moved)] = pos
                    nfree = last
                    if STATS:
                        apples += 1
                    if last == 0:
                        outcome = WON
                        break
                    if APPLE and FREEL:
                        apple = free[ix(below(rng, last))]
                    elif APPLE:  # no free list: rejection on the occupancy
                        while True:
                            c = below(rng, n)
                            if occ[ix(c)] == 0:
                                break
                        apple = c
                    else:  # no draw: the free cell just behind the tail
                        apple = prv[ix(tail)]
                else:
                    if OCC:
                        if occ[ix(target)] != 0 and target != tail:
                            outcome = DIED
                            break
                        occ[ix(tail)] = 0
                        occ[ix(target)] = 1
                    if RING:
                        body[ix(hi)] = target
                        ti += 1
                        if ti == n:
                            ti = 0
                        newtail = body[ix(ti)]
                    else:
                        newtail = nxt[ix(tail)]
                    if FREEL and target != tail:
                        pos = freepos[ix(target)]
                        free[ix(pos)] = tail
                        freepos[ix(tail)] = pos
                    tail = newtail
                head = target
                if STATS and moves >= max_moves:
                    outcome = STUCK
                    break
            out[k, 0] = outcome
            if STATS:
                out[k, 1] = moves
                out[k, 2] = apples
                out[k, 3] = length
            total += moves
        return total

    return kern


VARIANTS = {
    "full": {},
    "no apple draw (apple behind the tail)": dict(APPLE=False),
    "no body ring (tail from the cycle table)": dict(RING=False),
    "no occupancy (no collision test)": dict(OCC=False),
    "no free-cell list (apple by rejection)": dict(FREEL=False),
    "no decide (next cell from a table)": dict(DECIDE=False),
    "no statistics (no counters, no cap)": dict(STATS=False),
    "floor: head chain + apple test only": dict(APPLE=False, RING=False, OCC=False, FREEL=False, DECIDE=False),
}

if __name__ == "__main__":
    from clock import ghz

    games = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    config = GameConfig(10, 10)
    pol, _, params, cfg, nbr = prepare("cycle", config, {})
    ws = cycle_workspace(cfg, nbr, params)
    cells = ws[W_CELLS]
    nxt = np.empty(100, np.int64)
    prv = np.empty(100, np.int64)
    for k in range(100):
        nxt[cells[k]] = cells[(k + 1) % 100]
        prv[cells[k]] = cells[k - 1]
    kerns = {name: make(**f) for name, f in VARIANTS.items()}
    outs = {}
    for kern in kerns.values():
        kern(cfg, nbr, params, np.uint64(0), 2, nxt, prv, np.zeros((2, 4), np.int64))
    best = {name: 1e9 for name in kerns}
    moves = {}
    for _ in range(rounds):  # interleaved rounds: every variant sees the same machine load
        for name, kern in kerns.items():
            out = np.zeros((games, 4), np.int64)
            c = time.process_time()
            kern(cfg, nbr, params, np.uint64(0), games, nxt, prv, out)
            best[name] = min(best[name], time.process_time() - c)
            moves[name] = int(out[:, 1].sum())
            outs[name] = out
    moves["no statistics (no counters, no cap)"] = moves["full"]
    f = ghz() * 1e9
    full = best["full"] / moves["full"] * f
    print(f"clock ~{f / 1e9:.2f} GHz; {games} games, best of {rounds}")
    print("| variant | M moves/CPU-s | cycles/move | saved vs full |")
    print("|---|---|---|---|")
    for name in kerns:
        c = best[name] / moves[name] * f
        print(f"| {name} | {moves[name] / best[name] / 1e6:.0f} | {c:.1f} | {full - c:+.1f} |")
