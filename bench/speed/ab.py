"""A/B of the hot paths: two trees' code, alternating fresh processes, CPU time, ratio after/before.

    .venv/bin/python bench/speed/ab.py --before 878e551                  # that commit vs this working tree
    .venv/bin/python bench/speed/ab.py --before main --after HEAD --rounds 11 --only cycle,env
    .venv/bin/python bench/speed/ab.py --before 878e551 --json           # the table, then one JSON value

`--before` and `--after` are git revisions, checked out into temporary git worktrees (removed at the
end); `--after worktree` (the default) is the tree this script sits in, uncommitted edits included.
Each tree gets its own numba cache in a temporary folder, filled by one untimed warm-up process per
tree before the rounds, so compiling is no part of any figure. Then, round after round, one fresh
process per tree (``PYTHONPATH=<tree>``; which tree goes first alternates) times every chosen path on
one thread: the guard's work and timing (`guard.py`: its paths, `cpu_best`: an untimed run, then the
best of at least `--repeat` timed runs, CPU time). A path's ratio is taken round by round (after /
before of the same round, so a drift of the machine's speed moves both sides alike); the table gives
each side's median work per CPU-second, the median of the round ratios and a distribution-free 95 %
interval for it (order statistics of the ratios; `median_interval`).

The guard catches collapses (a path below half its reference); this catches 5 % steps: run it for any
change to the engine, a policy kernel or the env step (CONTRIBUTING.md, "Speed guard").
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
WORKTREE = "worktree"
ROUNDS = 9
REPEAT = 3
CONFIDENCE = 0.95

# The paths beyond the guard's (`guard.path_names`): the big-board sweeps of the policies whose
# game loop is the engine's (policy, side, games a timed run; about 0.1-0.5 CPU-s each).
EXTRA_SWEEPS = (("cycle", 30, 300), ("greedy", 30, 40), ("phc", 30, 300))
# Whole sweeps through `run_sweep` (the chunking, cancellation and statistics around the kernel, as
# `fastsnake sweep` runs them; bench/bench_cancel_poll.py's cases): (policy, side, games a timed run).
WHOLE_SWEEPS = (("cycle", 10, 100_000), ("cycle", 30, 1_500))
# What runs without --only: the engine, the policy kernels most of the engine's time goes to, the envs.
HOT = ("engine cycle 10x10", "sweep cycle 10x10", "sweep cycle 30x30", "policy cycle 10x10", "policy cycle 30x30",
       "policy greedy 10x10", "policy greedy 30x30", "policy phc 10x10", "policy phc 30x30", "env step grid",
       "sb3 step grid")


class ABError(ValueError):
    """Bad arguments to the A/B (the CLI prints ``ab: error: ...`` and exits 2)."""


# -- the statistics (no timing: tests/test_speed_ab.py) --------------------------------------------


def round_ratios(before: list, after: list) -> list[float]:
    """after[k] / before[k] for every round k where both sides have a figure (None: the path failed
    in that round's process)."""
    if len(before) != len(after):
        raise ABError(f"rounds differ: {len(before)} before, {len(after)} after")
    return [a / b for b, a in zip(before, after, strict=True) if a is not None and b is not None and b > 0]


def _binom_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(0, k + 1)) / 2 ** n


def median_interval(values: list[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(low, high, coverage): the narrowest order-statistic interval (x_(j), x_(n+1-j)) around the median
    of `values` whose coverage, 1 - 2 P(Binomial(n, 1/2) <= j - 1), is at least `confidence`
    (distribution-free: it needs only independent rounds). Fewer than 6 values cannot reach 95 %: the
    interval is then the whole range, and its coverage says so."""
    if not values:
        raise ABError("no values")
    if not 0 < confidence < 1:
        raise ABError(f"confidence must lie in (0, 1), not {confidence}")
    xs = sorted(values)
    n = len(xs)
    best = (xs[0], xs[-1], 1 - 2 * _binom_cdf(0, n))
    for j in range(1, n // 2 + 1):  # x_(j) .. x_(n+1-j), 1-based
        coverage = 1 - 2 * _binom_cdf(j - 1, n)
        if coverage < confidence:
            break
        best = (xs[j - 1], xs[n - j], coverage)
    return best


def summarize(before: list, after: list, confidence: float = CONFIDENCE) -> dict:
    """A path's line: medians of each side (None rounds left out), the median round ratio after/before
    and its interval (None when no round has both sides)."""
    ratios = round_ratios(before, after)
    b = [x for x in before if x is not None]
    a = [x for x in after if x is not None]
    line = {"before": statistics.median(b) if b else None, "after": statistics.median(a) if a else None,
            "rounds": len(ratios), "ratio": None, "low": None, "high": None, "coverage": None}
    if ratios:
        low, high, coverage = median_interval(ratios, confidence)
        line.update(ratio=statistics.median(ratios), low=low, high=high, coverage=coverage)
    return line


def choose_paths(known: list[str], only: str | None) -> list[str]:
    """The paths to time: `HOT` without `only`, else every known path whose name holds one of the
    comma-separated substrings of `only` (ABError when none does)."""
    if only is None:
        return [p for p in known if p in HOT]
    keys = [k.strip() for k in only.split(",") if k.strip()]
    if not keys:
        raise ABError("--only names no path")
    chosen = [p for p in known if any(k in p for k in keys)]
    if not chosen:
        raise ABError(f"--only {only!r} matches no path; paths: {', '.join(known)}")
    return chosen


def check_args(rounds: int, repeat: int) -> None:
    if rounds < 1:
        raise ABError(f"--rounds must be at least 1, not {rounds}")
    if repeat < 1:
        raise ABError(f"--repeat must be at least 1, not {repeat}")


# -- the paths, shared with the guard ----------------------------------------------------------------


def _guard():
    sys.path.insert(0, str(HERE))
    import guard

    return guard


def known_paths() -> list[str]:
    """The guard's paths (in its order), then `EXTRA_SWEEPS`. Needs fastsnake importable (the policy
    names come from its entry points)."""
    guard = _guard()
    return (guard.path_names() + [f"policy {p} {s}x{s}" for p, s, _ in EXTRA_SWEEPS]
            + [f"sweep {p} {s}x{s}" for p, s, _ in WHOLE_SWEEPS])


def whole_sweep_path(policy: str, side: int, games: int):
    """`run_sweep` of `games` games from seed 2 on one thread: games per CPU-second of the whole call."""
    from fastsnake.snake.board import GameConfig
    from fastsnake.snake.sweep import run_sweep

    def run():
        run_sweep(policy, GameConfig(side, side), games, seed=2, threads=1)
        return float(games)

    return "games", run


def child(names: list[str], repeat: int) -> dict:
    """In a fresh process on one tree: path -> work per CPU-second (best of `repeat` timed runs or more,
    `guard.cpu_best`), or a string: why the path did not run. Also "module": where fastsnake came from."""
    guard = _guard()
    import fastsnake

    guard._one_thread()
    found: dict = {"module": str(Path(fastsnake.__file__).resolve())}
    with tempfile.TemporaryDirectory(prefix="fastsnake-ab-") as work_dir:
        table = guard.setups(work_dir)
        for policy, side, games in EXTRA_SWEEPS:
            table[f"policy {policy} {side}x{side}"] = (
                lambda policy=policy, side=side, games=games: guard.sweep_path(policy, side, games))
        for policy, side, games in WHOLE_SWEEPS:
            table[f"sweep {policy} {side}x{side}"] = (
                lambda policy=policy, side=side, games=games: whole_sweep_path(policy, side, games))
        for name in names:
            try:
                made = table[name]()
                if isinstance(made, str):
                    found[name] = f"skipped: {made}"
                    continue
                work, cpu = guard.cpu_best(made[1], repeat)
                found[name] = work / cpu
            except Exception as exc:  # noqa: BLE001 - one path that cannot run on a tree is reported
                found[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return found


# -- the trees and the rounds -----------------------------------------------------------------------


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout.strip()


def resolve(rev: str) -> str:
    """The commit a revision names (ABError when git does not know it)."""
    try:
        return _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except subprocess.CalledProcessError:
        raise ABError(f"unknown revision {rev!r}") from None


def run_tree(tree: Path, cache: Path, names: list[str], repeat: int, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache), NUMBA_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(names),
                           "--repeat", str(repeat)], env=env, cwd=tree, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise SystemExit(f"ab: error: the process on {tree} failed:\n{proc.stderr[-3000:]}")
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    module = Path(found.pop("module"))
    if tree.resolve() not in module.parents:
        raise SystemExit(f"ab: error: {tree} did not provide fastsnake (imported {module})")
    return found


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ab", description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="git revision of the code before the change")
    parser.add_argument("--after", default=WORKTREE, help="git revision after the change, or 'worktree' "
                        "(default: this tree, uncommitted edits included)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"alternating rounds ({ROUNDS})")
    parser.add_argument("--repeat", type=int, default=REPEAT,
                        help=f"timed runs a path in each process, at least; the best is kept ({REPEAT})")
    parser.add_argument("--only", help="comma-separated substrings: the paths whose name holds one "
                        f"(default: {', '.join(HOT)})")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds a process may take (1800)")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON value at the end")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child), args.repeat)))
        return 0
    try:
        if not args.before:
            raise ABError("--before REV is required")
        check_args(args.rounds, args.repeat)
        commits = {"before": resolve(args.before),
                   "after": WORKTREE if args.after == WORKTREE else resolve(args.after)}
        names = choose_paths(known_paths(), args.only)
    except ABError as exc:
        print(f"ab: error: {exc}", file=sys.stderr)
        return 2

    started = time.perf_counter()
    loads = [load_average()]
    scratch = Path(tempfile.mkdtemp(prefix="fastsnake-ab-"))
    added = []
    try:
        trees = {}
        for side in ("before", "after"):
            if commits[side] == WORKTREE:
                trees[side] = REPO
                continue
            tree = scratch / side
            _git("worktree", "add", "--detach", "--quiet", str(tree), commits[side])
            added.append(tree)
            trees[side] = tree
        caches = {side: scratch / f"cache-{side}" for side in trees}
        log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
        log(f"ab: {len(names)} paths, before {commits['before'][:10]}, after {str(commits['after'])[:10]}, "
            f"{args.rounds} rounds, load {loads[0]}")
        for side in ("before", "after"):  # warm-up: compile into each tree's own cache
            t0, c0 = time.perf_counter(), _children_cpu()
            run_tree(trees[side], caches[side], names, 1, args.timeout)
            log(f"ab: warm-up {side}: {_children_cpu() - c0:.1f} CPU-s, {time.perf_counter() - t0:.0f} s wall")
        figures: dict = {side: {name: [] for name in names} for side in trees}
        notes: dict = {}
        for k in range(args.rounds):
            order = ("before", "after") if k % 2 == 0 else ("after", "before")
            for side in order:
                found = run_tree(trees[side], caches[side], names, args.repeat, args.timeout)
                for name in names:
                    value = found.get(name)
                    if isinstance(value, str):
                        notes[f"{side}: {name}"] = value
                        value = None
                    figures[side][name].append(value)
            loads.append(load_average())
            log(f"ab: round {k + 1}/{args.rounds} done, load {loads[-1]}")
    finally:
        for tree in added:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                           capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)

    lines = {name: summarize(figures["before"][name], figures["after"][name]) for name in names}
    print(f"A/B: before {commits['before'][:10]}, after {str(commits['after'])[:10]}; {args.rounds} alternating "
          f"rounds, one thread, CPU time, best of >= {args.repeat} runs a process; "
          f"load average (1, 5, 15 min) {loads[0]} at the start, {loads[-1]} at the end")
    print(f"{'path':30s} {'before /CPU-s':>15s} {'after /CPU-s':>15s} {'after/before':>12s}  95 % interval")
    for name, line in lines.items():
        if line["ratio"] is None:
            print(f"{name:30s} {'':>15s} {'':>15s} {'-':>12s}  (no round ran on both trees)")
            continue
        print(f"{name:30s} {line['before']:15,.0f} {line['after']:15,.0f} {line['ratio']:12.3f}  "
              f"{line['low']:.3f}..{line['high']:.3f} ({line['coverage'] * 100:.1f} %, {line['rounds']} rounds)")
    for key, note in notes.items():
        print(f"  {key}: {note}")
    print(f"took {time.perf_counter() - started:.0f} s wall")
    if args.json:
        print(json.dumps({"before": commits["before"], "after": commits["after"], "rounds": args.rounds,
                          "repeat": args.repeat, "loads": loads, "paths": lines, "figures": figures,
                          "notes": notes}))
    return 0


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


if __name__ == "__main__":
    sys.exit(main())
