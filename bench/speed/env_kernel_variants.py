"""The vector env's step kernel against variants that each undo one of its choices: µs a step.

The same recorded actions are replayed from one snapshot of 4,096 envs on 10x10 (random legal
actions), each variant on fresh copies of the batch, the variants in alternating rounds in one
process (this VM's speed drifts by a third over minutes); best and median of the rounds. Every
variant must leave the same batch as the kernel (asserted), so all play the same games.

- `kernels.step_range`: the kernel as it is;
- "mask with branches": `write_mask` as it was before (a branch per test of each neighbour);
- "grid copy per env": the grid row copied into the output by a loop per env, not `copy_rows` of a
  block of `GRID_COPY_BLOCK` rows; also blocks of 16 and 256 rows;
- "prefetch pre-pass": before each block, fetch the cells each env's move will touch (LLVM's prefetch).

Run: .venv/bin/python bench/speed/env_kernel_variants.py [--rounds 9] [--steps 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

import fastsnake.envs as E
from fastsnake.envs import kernels as K
from fastsnake.snake.board import CFG_TAIL_RULE, TAIL_FOLLOW
from fastsnake.snake.engine import BOX_MOVE, DIED, RUNNING, STUCK, WON, borrowed_row, boxed_move, copy_rows, play_until

sys.path.insert(0, str(Path(__file__).resolve().parent))
from legal_sampler import LegalSampler  # noqa: E402

ENVS, SIDE = 4096, 10


@njit(inline="always")
def mask_with_branches(cfg, nbr, occ, st, mask):
    follow = cfg[CFG_TAIL_RULE] == TAIL_FOLLOW
    base = st.head * 4
    for m in range(4):
        t = nbr[base + m]
        ok = t >= 0 and (occ[t] == 0 or (follow and t == st.tail))
        mask[m] = 1 if ok else 0


@intrinsic
def prefetch(typingctx, array, index):
    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        ary = context.make_array(array_type)(context, builder, args[0])
        at = context.cast(builder, args[1], index_type, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, array_type, ary, [at])
        byte_ptr, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.none(array, index), codegen


def variant(mask_fn, block, copy_per_env, prefetch_first):
    """`kernels.step_range` with its mask, copy and prefetch choices set by the arguments."""

    @njit(nogil=True)
    def step(cfg, nbr, path, batch, actions, out, lo, hi):
        reward, terminated, truncated, info, grids = out
        copy_grids = grids.shape[0] > 0
        box = np.empty(1, np.int64)
        pending = batch[K.B_PENDING]
        for first in range(lo, hi, block):
            end = min(first + block, hi)
            if prefetch_first:
                for i in range(first, end):
                    row = borrowed_row(batch[K.B_STATE], i)
                    target = nbr[row[K.S_HEAD] * 4 + actions[i]]
                    target = target & ~(target >> 31)
                    prefetch(borrowed_row(batch[K.B_OCC], i), target)
                    freepos = borrowed_row(batch[K.B_FREEPOS], i)
                    prefetch(freepos, target)
                    prefetch(freepos, row[K.S_TAIL])
            for i in range(first, end):
                if pending[i]:
                    batch[K.B_GAME][i] += 1
                    K.start_env(cfg, nbr, path, batch, i)
                    new = K.load_state(batch, i)
                    reward[i] = 0.0
                    terminated[i] = False
                    truncated[i] = False
                else:
                    g = K.game_of(cfg, nbr, batch, i)
                    old = K.load_state(batch, i)
                    box[BOX_MOVE] = actions[i]
                    new = play_until(g, box, boxed_move, old, old.moves + 1, None, None)
                    K.store_state(batch, i, new)
                    K.update_grid(old, new, borrowed_row(batch[K.B_GRID], i))
                    mask_fn(cfg, nbr, borrowed_row(batch[K.B_OCC], i), new, borrowed_row(batch[K.B_MASK], i))
                    r = 0.0
                    if new.apples > old.apples:
                        r = 1.0
                    elif new.outcome == DIED:
                        r = -1.0
                    reward[i] = r
                    terminated[i] = new.outcome == DIED or new.outcome == WON
                    truncated[i] = new.outcome == STUCK
                    pending[i] = new.outcome != RUNNING
                info[K.INFO_APPLES, i] = new.apples
                info[K.INFO_LENGTH, i] = new.length
                info[K.INFO_MOVES, i] = new.moves
                if copy_grids and copy_per_env:
                    src, dst = borrowed_row(batch[K.B_GRID], i), borrowed_row(grids, i)
                    for c in range(src.shape[0]):
                        dst[c] = src[c]
            if copy_grids and not copy_per_env:
                copy_rows(grids, batch[K.B_GRID], first, end)

    return step


VARIANTS = {
    "kernels.step_range": K.step_range,
    "mask with branches": variant(mask_with_branches, K.GRID_COPY_BLOCK, False, False),
    "grid copy per env": variant(K.write_mask, K.GRID_COPY_BLOCK, True, False),
    "mask with branches, copy per env": variant(mask_with_branches, K.GRID_COPY_BLOCK, True, False),
    "copy blocks of 16 rows": variant(K.write_mask, 16, False, False),
    "copy blocks of 256 rows": variant(K.write_mask, 256, False, False),
    "prefetch pre-pass": variant(K.write_mask, K.GRID_COPY_BLOCK, False, True),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args(argv)
    envs = gym.make_vec(E.ENV_ID, num_envs=ENVS, vectorization_mode="vector_entry_point", size=SIDE, threads=1)
    games = envs.unwrapped._games
    sample = LegalSampler(ENVS)
    info = envs.reset(seed=0)[1]
    for _ in range(20):  # leave the start positions
        info = envs.step(sample(info["action_mask"]))[4]
    snapshot = [a.copy() for a in games.batch]
    actions = []
    for _ in range(args.steps):
        actions.append(sample(info["action_mask"]))
        info = envs.step(actions[-1])[4]
    final = games.batch
    cells = SIDE * SIDE
    board = (games.cfg, games.nbr, games.path)
    for kernel in VARIANTS.values():  # compile
        kernel(*board, tuple(a.copy() for a in snapshot), actions[0], K.new_outputs(ENVS, cells, True), 0, ENVS)
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(args.rounds):
        for name, kernel in VARIANTS.items():
            batch = tuple(a.copy() for a in snapshot)
            spent = 0.0
            for a in actions:
                out = K.new_outputs(ENVS, cells, True)
                t0 = time.process_time()
                kernel(*board, batch, a, out, 0, ENVS)
                spent += time.process_time() - t0
            for mine, theirs in zip(batch, final, strict=True):
                assert np.array_equal(mine, theirs), f"{name} played other games"
            times[name].append(spent / args.steps * 1e6)
    print(f"{ENVS:,} envs {SIDE}x{SIDE}, {args.steps} steps of random legal actions, {args.rounds} rounds; "
          "CPU us a step")
    for name, spent in times.items():
        print(f"{name:34s} best {min(spent):7.1f}  median {statistics.median(spent):7.1f}  "
              f"({min(spent) / ENVS * 1e3:.1f} ns an env)")


if __name__ == "__main__":
    main()
