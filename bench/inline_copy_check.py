"""numba's inliner with a callee's IR copied once (`fastsnake._numba_inline`) against numba's own copying:
the same LLVM IR for every kernel, and the compile CPU of each.

For each policy, two fresh processes, each with its own empty NUMBA_CACHE_DIR, compile the policy's
sweep and play kernels (a 4-game sweep and one game on 6x6, as `fastsnake.sweep` and `fastsnake.play`
do): one as fastsnake does, one inside `per_block_copies()` (numba's per-block deepcopy). Each prints its
CPU seconds from the first call to the end and a hash of each kernel's LLVM IR, with what differs between
two compiles in any case (the parallel loop's function address, label counters) taken out. Rounds
alternate which process goes first.

    python bench/inline_copy_check.py                              # every built-in policy, 1 round
    python bench/inline_copy_check.py --policies cycle,greedy --rounds 3
    NUMBA_OPT=1 python bench/inline_copy_check.py --policies phc   # at the tests' level
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from statistics import median

CHILD = r"""
import contextlib, hashlib, json, re, sys, time
per_block = sys.argv[2] == "per-block"
import fastsnake
import fastsnake.snake.engine  # configures numba (the inliner's copying among it)
from fastsnake._numba_inline import per_block_copies
from fastsnake.snake.policies import get_policy
from fastsnake.snake.policies.kernels import compiled_kernels

def normalised(llvm):
    llvm = re.sub(r"0x[0-9a-f]+", "ADDR", llvm)
    labels = {}
    return re.sub(r"\bB\d+\b", lambda m: labels.setdefault(m.group(0), f"L{len(labels)}"), llvm)

name = sys.argv[1]
c0 = time.process_time()
with per_block_copies() if per_block else contextlib.nullcontext():
    fastsnake.sweep(name, 6, 4, 1)
    fastsnake.play(name, 6, 1)
cpu = time.process_time() - c0
policy = get_policy(name)
hashes = {}
for entry in (policy.sweep_kernel, policy.play_kernel):
    for kernel in compiled_kernels(entry):
        for sig in kernel.signatures:
            text = normalised(kernel.inspect_llvm(sig))
            hashes[kernel.py_func.__name__] = hashlib.sha1(text.encode()).hexdigest()[:16]
print(json.dumps({"cpu": round(cpu, 2), "llvm": hashes}))
"""


def child(name: str, mode: str) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, FASTSNAKE_TIER="compiled", FASTSNAKE_QUIET_COMPILE="1")
        proc = subprocess.run([sys.executable, "-c", CHILD, name, mode], env=env, cwd=cache, capture_output=True,
                              text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{name} ({mode}) failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policies", help="comma-separated policy names (default: every built-in, aliases once)")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    if args.policies:
        names = args.policies.split(",")
    else:
        from fastsnake.snake.policies import builtin_names, get_policy

        names = [n for n in builtin_names() if get_policy(n).alias_of is None]
    same_everywhere = True
    print(f"{'policy':28s} {'shared CPU-s':>13s} {'per-block CPU-s':>16s} {'ratio':>6s}  LLVM IR")
    for name in names:
        shared, per_block, same = [], [], True
        for r in range(args.rounds):
            order = ("shared", "per-block") if r % 2 == 0 else ("per-block", "shared")
            got = {mode: child(name, mode) for mode in order}
            shared.append(got["shared"]["cpu"])
            per_block.append(got["per-block"]["cpu"])
            same = same and got["shared"]["llvm"] == got["per-block"]["llvm"] and bool(got["shared"]["llvm"])
        same_everywhere = same_everywhere and same
        print(f"{name:28s} {median(shared):13.2f} {median(per_block):16.2f} {median(shared) / median(per_block):6.2f}"
              f"  {'the same' if same else 'DIFFERS'}", flush=True)
    return 0 if same_everywhere else 1


if __name__ == "__main__":
    sys.exit(main())
