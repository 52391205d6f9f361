"""Cold compile time of the cell-tree kernels (`cell`, `grove`): CPU and wall of each first call.

Each case runs in a fresh subprocess with its own empty temporary NUMBA_CACHE_DIR, so it compiles
everything it needs (the engine, the celltree helpers and the kernel) as the quick test suite does
on a clean CI clone. Cases are the calls the slow quick tests make:

    play-cell         cell's play kernel, 10x10 (one kernel pair for every board size since issue 44;
                      its search, `plan.cell_replan`, compiles once outside the kernels, `celltree.link`)
    play-cell-big     cell's play kernel with the big-board fallbacks' params (2, 3 = 0), as
                      test_snake_agent_cell_dhcr.py's big-board test calls it
    sequence          the five calls above in one process, each step's CPU after the ones before it
                      (what one pytest-xdist worker pays: helpers compiled once are shared)
    play-grove        grove's play kernel, 10x10
    sweep-cell        run_sweep("cell", 10x10, 2 games)
    sweep-grove       run_sweep("grove", 10x10, 2 games)
    sweep-cycle       run_sweep("cycle", 10x10, 2 games); sweep-cycle-random the same with the
                      random cycle (`--cycle random`: its builder, `cycles.random_cells`, compiles too)

With --llvm it times numba's LLVM work per code library (`CPUCodeLibrary`: function passes, module
passes over the library's final module with every callee linked in, machine code), CPU-s: a parfor
kernel's loop is in four libraries (its gufunc, the gufunc's wrapper, the parallel wrapper, the kernel),
each optimising and emitting all the code linked into it again.

With --events the child also records numba's compile events (`numba.core.event`): the total of
"numba:compile" (each function's numba compile, nested) and "numba:llvm_lock" / LLVM
optimisation where numba reports them, to split front end (typing, lowering) from LLVM.

    python bench/compile_celltree.py                        # every case, one at a time
    python bench/compile_celltree.py --only play-grove --events
    python bench/compile_celltree.py --only sweep-cycle --events --llvm --json
    PYTHONPATH=/other/checkout python bench/compile_celltree.py --only play-cell   # other code

Experiments (environment variables of the child, old code through PYTHONPATH): NUMBA_OPT=0 (how much
is LLVM's optimisation), COMPILE_BENCH_NO_SAVE=1 (compile without writing numba's cache),
COMPILE_BENCH_NO_WRAPPERS=1 (celltree helpers without CPython/cfunc wrappers, as
`celltree.compiled_only` now builds them; run it on code from before that change).

Findings (2026-11-26, numba 0.68.1, 2 cores shared with other jobs, load 3-5: CPU-s are +-10 %):
- Cold, on main: play-cell 64 CPU-s (117 functions compiled), play-cell-big 71-72, play-grove
  118-145 (126 functions), sweep-cell 65.
- Split (--events, wall shares): play-grove: numba's native_lowering 51 % (includes LLVM's
  per-function passes and the wrappers), IR inlining (inline_inlinables) 24 %, type inference 12 %;
  time under numba's LLVM lock 33 %. NUMBA_OPT=0 cut play-cell 64 -> 47 CPU-s (-26 %): LLVM's
  optimisation is about a quarter; the front end (typing, IR inlining, lowering) the rest.
  Not writing the cache: 64 -> 58 (-9 %).
- Most self time: the play kernel itself (its final module: numba re-optimises every linked
  callee's code again at each separately compiled level, then emits machine code), the detour
  chain (`chain_with` inlined with `apple_test_with` and, for grove and cell-big, every
  big-board outline test inlined), `enumerate_routes`, `plan_test`, `suffix_test`.
- Tried, not landed (below the 25 % asked for): celltree helpers that only compiled code calls
  built without CPython/cfunc wrappers (njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)):
  play-grove -4 %, play-cell -6..-16 %; with `outline.big_board_test` a compiled call instead of
  inline="always" (one copy of the row-mask/queue outline tests instead of three in grove):
  play-grove 138.6 -> 119.7 (-14 %), play-cell-big 72.1 -> 67.8 (-6 %), same-time A/B runs.

Cases run serially: two cold compiles side by side on a 2-core machine measure the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

CHILD = r"""
import json, os, resource, sys, time
import numpy as np
case, events, llvm_split = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
if llvm_split:  # CPU-s of numba's LLVM work per code library (each compiled function, each parfor level)
    from numba.core import codegen as _cg
    _llvm = {}
    def _timed(cls, name, key):
        orig = getattr(cls, name)
        def timed(self, *a, **k):
            t = time.process_time()
            try:
                return orig(self, *a, **k)
            finally:
                lib = str(self.name).split(" object at")[0].lstrip("<").split(".")[-1]
                lib = lib.split("_0x")[0]  # the parfor's gufunc: one name in every process
                slot = _llvm.setdefault(lib, {})
                slot[key] = slot.get(key, 0.0) + time.process_time() - t
        setattr(cls, name, timed)
    _timed(_cg.CPUCodeLibrary, "_optimize_functions", "function passes")
    _timed(_cg.CPUCodeLibrary, "_optimize_final_module", "module passes")
    _timed(_cg.JITCodeLibrary, "_finalize_specific", "machine code")
if os.environ.get("COMPILE_BENCH_NO_WRAPPERS"):  # experiment: helpers without CPython/cfunc wrappers
    import numba
    _njit = numba.njit
    def njit(*args, **kw):
        # only the celltree helpers (kernels and what Python calls keep theirs)
        if sys._getframe(1).f_globals.get("__name__", "").startswith("fastsnake.snake.celltree"):
            kw.setdefault("no_cpython_wrapper", True)
            kw.setdefault("no_cfunc_wrapper", True)
        return _njit(*args, **kw)
    numba.njit = njit
if os.environ.get("COMPILE_BENCH_NO_SAVE"):  # experiment: compile without writing the cache
    from numba.core import caching
    caching.Cache.save_overload = lambda self, sig, data: None
if events:
    from numba.core import event
    recorders = [event.install_recorder(kind) for kind in ("numba:compile", "numba:run_pass", "numba:llvm_lock")]
    recs = [r.__enter__() for r in recorders]
from fastsnake.snake.board import GameConfig
from fastsnake.snake.policies import get_policy
from fastsnake.snake.rng import game_seed_py
from fastsnake.snake.sweep import run_sweep
import fastsnake.snake.celltree.plan  # imports outside the timed call

def play(name, edit=None):
    config = GameConfig(10, 10, 1, "blocked")
    policy = get_policy(name)
    params = policy.params(config, None)
    if edit:
        edit(params)
    cfg, nbr = config.arrays()
    return policy.play_kernel(cfg, nbr, params, np.uint64(game_seed_py(3, 0)))

def big(params):
    params[2] = 0
    params[3] = 0

calls = {
    "play-cell": lambda: play("cell"),
    "play-cell-big": lambda: play("cell", big),
    "play-grove": lambda: play("grove"),
    "sweep-cell": lambda: run_sweep("cell", GameConfig(10, 10, 1, "blocked"), 2),
    "sweep-grove": lambda: run_sweep("grove", GameConfig(10, 10, 1, "blocked"), 2),
    "sweep-cycle": lambda: run_sweep("cycle", GameConfig(10, 10, 1, "blocked"), 2),
    "sweep-cycle-random": lambda: run_sweep("cycle", GameConfig(10, 10, 1, "blocked"), 2,
                                            options={"cycle": "random"}),
}
c0, w0 = time.process_time(), time.perf_counter()
out = {"case": case}
if case == "sequence":  # what one test worker pays: each call after the ones before it
    for step in ("play-cell", "play-cell-big", "play-grove", "sweep-cell", "sweep-grove"):
        s0 = time.process_time()
        calls[step]()
        out[step + " cpu"] = round(time.process_time() - s0, 1)
else:
    calls[case]()
out.update(cpu=time.process_time() - c0, wall=time.perf_counter() - w0)
if events:
    # Exclusive (self) time per compiled function and per compiler pass, from one stack over the
    # nested compile and pass events; LLVM work (under numba's LLVM lock) counted apart.
    evs = sorted(((ts, i, ev) for i, rec in enumerate(recs[:2]) for ts, ev in rec.buffer), key=lambda t: t[0])
    stack, by_fn, by_pass, count = [], {}, {}, 0
    def label(ev):
        if ev.kind == "numba:compile":
            d = ev.data["dispatcher"]
            return "fn", getattr(d, "__qualname__", None) or getattr(getattr(d, "py_func", d), "__qualname__", str(d))
        return "pass", ev.data["name"].split(" [")[0]
    last = None
    for ts, _, ev in evs:
        if stack and last is not None:
            kind, name, fn = stack[-1]
            (by_fn if kind == "fn" else by_pass)[name] = (by_fn if kind == "fn" else by_pass).get(name, 0.0) + ts - last
            if kind == "pass":
                by_fn[fn] = by_fn.get(fn, 0.0) + ts - last
        last = ts
        if ev.is_start:
            kind, name = label(ev)
            fn = name if kind == "fn" else (stack[-1][2] if stack else "?")
            stack.append((kind, name, fn))
            count += kind == "fn"
        else:
            stack.pop()
    llvm, depth, t0 = 0.0, 0, 0.0
    for ts, ev in recs[2].buffer:
        if ev.is_start:
            depth += 1
            t0 = ts if depth == 1 else t0
        else:
            depth -= 1
            llvm += ts - t0 if depth == 0 else 0
    out["functions compiled"] = count
    out["llvm lock s"] = round(llvm, 2)
    out["top functions (self s)"] = sorted(((round(v, 2), k) for k, v in by_fn.items()), reverse=True)[:12]
    out["top passes (self s)"] = sorted(((round(v, 2), k) for k, v in by_pass.items()), reverse=True)[:10]
if llvm_split:
    total = {}
    for parts in _llvm.values():
        for key, v in parts.items():
            total[key] = total.get(key, 0.0) + v
    out["llvm cpu s"] = {k: round(v, 2) for k, v in total.items()}
    out["llvm cpu s by library"] = sorted(((round(sum(p.values()), 2), lib) for lib, p in _llvm.items()),
                                          reverse=True)[:10]
print(json.dumps(out))
"""

CASES = ("play-cell", "play-cell-big", "play-grove", "sweep-cell", "sweep-grove", "sweep-cycle", "sweep-cycle-random",
         "sequence")


def run_case(case: str, events: bool, llvm: bool = False) -> dict:
    cache = tempfile.mkdtemp(prefix="fastsnake-compile-")
    try:
        # cwd: not the checkout (``python -c`` puts the current directory before PYTHONPATH)
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, FASTSNAKE_TIER="compiled")
        flags = ["1" if events else "0", "1" if llvm else "0"]
        proc = subprocess.run([sys.executable, "-c", CHILD, case, *flags], env=env, cwd=cache,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"case {case} failed:\n{proc.stderr[-3000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated cases (default: all): " + ", ".join(CASES))
    parser.add_argument("--events", action="store_true", help="also record numba's compile events")
    parser.add_argument("--llvm", action="store_true",
                        help="also split numba's LLVM work (function and module passes, machine code) by code library")
    parser.add_argument("--json", action="store_true", help="one JSON list on stdout")
    args = parser.parse_args()
    cases = args.only.split(",") if args.only else list(CASES)
    results = []
    for case in cases:
        r = run_case(case, args.events, args.llvm)
        results.append(r)
        if not args.json:
            extra = "".join(f"\n    {k}: {v}" for k, v in r.items() if k not in ("case", "cpu", "wall"))
            print(f"{case:15s} cpu {r['cpu']:7.1f} s  wall {r['wall']:7.1f} s{extra}", flush=True)
    if args.json:
        print(json.dumps(results))
    else:
        print(f"{'total':15s} cpu {sum(r['cpu'] for r in results):7.1f} s  "
              f"wall {sum(r['wall'] for r in results):7.1f} s   (python {sys.version.split()[0]}, "
              f"{os.cpu_count()} cpus; load shared)")


if __name__ == "__main__":
    main()
