"""Speed guard: every hot path's speed as a ratio to a plain baseline kernel timed in the same run,
checked against the reference ratios in bench/speed/reference.json.

    .venv/bin/python bench/speed/guard.py                  # all paths; exit 1 if one is below half its reference
    .venv/bin/python bench/speed/guard.py --only env,engine
    .venv/bin/python bench/speed/guard.py --update --rounds 5 --repeat 5   # re-record reference.json (CONTRIBUTING.md)
    PYTHONPATH=<checkout> .venv/bin/python bench/speed/guard.py   # another checkout's code, this guard

A path's figure is its work per CPU-second on one thread (moves, games, env steps, nodes, squares,
rows), the best of `--rounds` timed runs (more for short paths, until MIN_TIMED_CPU seconds of them)
after a warm-up run outside the timing (compiles, caches, first-touch of memory). The baseline
(`baseline_kernel`, a fixed xorshift walk reading and writing a 256 KB table) is timed just before
each path, best of its own runs, so the ratio path / baseline leaves out how fast the machine is and
how busy it is just then. CPU time, not wall time, so other jobs on the cores count less; best of k,
so a burst of load in one run does not. A path fails when its ratio falls below half its reference (a
slowdown of 2x; the noise on a shared 2-core machine stays well inside that); the exit status is then
1, with one line per failing path.

The baseline kernel and each path's work are fixed: changing either makes the ratios incomparable
with reference.json, which must then be re-recorded in the same change (CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from legal_sampler import LegalSampler  # noqa: E402  (the agent of the env paths, beside this file)

# The tests' numba cache (tests/conftest.py), so that a guard run after the tests finds warm kernels.
os.environ.setdefault("NUMBA_CACHE_DIR", str(_REPO / ".cache" / "numba"))
REFERENCE = Path(__file__).resolve().with_name("reference.json")
# A path fails below this fraction of its reference ratio.
FLOOR = 0.5
ROUNDS = 3
# A path is timed at least `rounds` times and until its timed runs add up to MIN_TIMED_CPU seconds
# (at most MAX_ROUNDS runs): the best of many short runs, not of three. This VM's speed drifts in
# phases of seconds, and memory-bound paths (the vector env's 20 ms runs) lose up to half in a bad
# phase, which three runs could not step around.
MIN_TIMED_CPU = 0.6
MAX_ROUNDS = 30
ERROR = "error: "  # a path's result that says it could not run (a failure, unlike a skip)

# Every built-in policy (the registry's) is timed on 10x10; the games a timed run plays, tuned per
# policy to about 0.1-0.3 CPU-s on the project's machine. A policy missing here plays DEFAULT_GAMES;
# one missing from reference.json fails (tests/test_speed_guard.py).
POLICY_GAMES = {
    "cycle": 10_000,
    "greedy": 2_000,
    "greedy-dynamic": 300,
    "thesis-shortcut": 1_000,
    "thesis-shortcut-faithful": 1_000,
    "snake-ai": 300,
    "snake-ai-safe": 100,
    "phc": 3_000,
    "phc-faithful": 3_000,
    "dhcr": 300,
    "cell": 200,
    "grove": 100,
    "strongest": 100,
}
DEFAULT_GAMES = 100
# Big-board kernels: (policy, side, games).
BIG_BOARDS = (("cell", 20, 6), ("grove", 20, 3))
ENV_NUM, ENV_SIDE, ENV_STEPS = 4096, 10, 100
SB3_NUM, SB3_STEPS = 1024, 100
ENGINE_GAMES = 10_000  # cycle 10x10: about 2,400 moves a game
PUZZLE_KORF = 2  # Korf's 15-puzzle instance 2, IDA* with Manhattan
TOUR_SIDE = 1000
REPORT_GAMES = 1_000_000
REPORT_SIDE = 4


def builtin_policies() -> list[str]:
    """The policies fastsnake itself ships, as its registry lists them (no install step: a policy
    registered in the source tree is timed, and needs a reference, from the commit that adds it)."""
    from fastsnake.snake.policies import builtin_names

    return builtin_names()


def path_names() -> list[str]:
    """Every path the guard times, in order (reference.json must hold a ratio for each)."""
    names = ["engine cycle 10x10"]
    names += [f"policy {name} 10x10" for name in builtin_policies()]
    names += [f"policy {name} {side}x{side}" for name, side, _ in BIG_BOARDS]
    names += ["env step grid", "sb3 step grid", "puzzle idastar", "tour knight", "report 1e6 games"]
    return names


# -- the comparison (no timing: tests/test_speed_guard.py) -----------------------------------------


def verdicts(measured: dict, reference: dict, floor: float = FLOOR) -> tuple[list[dict], list[str]]:
    """Rows of the table and the failure lines.

    measured: path -> ratio to the baseline, or a string: why the path was skipped, or (starting
    ``error:``) why it could not run, which fails. reference: path -> reference ratio, or None: not
    recorded yet (the ratio is shown, nothing fails). A path fails when its ratio is below `floor`
    times its reference, or when the reference does not list it (a new path must come with an entry)."""
    rows, failures = [], []
    for path, ratio in measured.items():
        ref = reference.get(path)
        if isinstance(ratio, str) and ratio.startswith(ERROR):
            rows.append({"path": path, "ratio": None, "reference": ref, "status": "FAIL"})
            failures.append(f"guard: FAIL {path}: {ratio}")
            continue
        if isinstance(ratio, str):
            rows.append({"path": path, "ratio": None, "reference": ref, "status": f"skipped: {ratio}"})
            continue
        if path not in reference:
            status = "FAIL"
            failures.append(f"guard: FAIL {path}: ratio {ratio:.4g} has no reference in {REFERENCE.name}")
        elif ref is None:
            status = "not recorded yet"
        elif ratio < floor * ref:
            status = "FAIL"
            failures.append(f"guard: FAIL {path}: ratio {ratio:.4g} is below {floor:g} x its reference {ref:.4g} "
                            f"({ratio / ref:.2f}x)")
        else:
            status = "ok"
        rows.append({"path": path, "ratio": ratio, "reference": ref, "status": status})
    return rows, failures


def load_reference(path: Path = REFERENCE) -> dict:
    return json.loads(path.read_text())["ratios"] if path.exists() else {}


# -- timing ---------------------------------------------------------------------------------------


def cpu_best(run, rounds: int) -> tuple[float, float]:
    """(work of a run, best CPU seconds of the runs) of ``run() -> work``, or of ``run() -> (work, CPU
    seconds)`` for a run that times only its own part; one untimed run first, then `rounds` timed runs
    and more until they add up to MIN_TIMED_CPU seconds (MAX_ROUNDS at most)."""
    run()
    best, work, spent, runs = float("inf"), 0.0, 0.0, 0
    while runs < rounds or (spent < MIN_TIMED_CPU and runs < MAX_ROUNDS):
        c0 = time.process_time()
        done = run()
        seconds = time.process_time() - c0
        work, seconds = done if isinstance(done, tuple) else (done, seconds)
        best, spent, runs = min(best, seconds), spent + seconds, runs + 1
    return work, max(best, 1e-9)


_BASELINE = {}


def baseline_kernel():
    """The reference kernel, compiled once: a fixed xorshift walk over a 256 KB int32 table
    (a load, an add and a store at a pseudo-random slot, a dependency chain through the generator)."""
    if "kernel" not in _BASELINE:
        import numpy as np
        from numba import njit

        @njit(nogil=True)
        def walk(table, steps):
            x = np.uint64(0x9E3779B97F4A7C15)
            mask = np.uint64(table.shape[0] - 1)
            acc = 0
            for _ in range(steps):
                x ^= x << np.uint64(13)
                x ^= x >> np.uint64(7)
                x ^= x << np.uint64(17)
                i = x & mask
                v = table[i]
                table[i] = v + 1
                acc += v
            return acc

        _BASELINE["kernel"] = walk
        _BASELINE["table"] = np.zeros(1 << 16, np.int32)
        walk(_BASELINE["table"], 10)
    return _BASELINE["kernel"], _BASELINE["table"]


BASELINE_STEPS = 20_000_000


def baseline_rate(rounds: int) -> float:
    walk, table = baseline_kernel()
    work, cpu = cpu_best(lambda: (walk(table, BASELINE_STEPS), BASELINE_STEPS)[1], rounds)
    return work / cpu


# -- the paths: each a setup returning (unit, run) with run() -> work done ---------------------------


def _one_thread():
    import numba

    numba.set_num_threads(1)


def sweep_path(policy: str, side: int, games: int, unit: str = "games"):
    """A policy's sweep kernel on side x side, one thread, `games` games from seed 7: games (or
    moves) per CPU-second. The kernel the CLI runs, without the chunking around it."""
    import numpy as np

    from fastsnake.snake import record
    from fastsnake.snake.board import GameConfig
    from fastsnake.snake.sweep import prepare

    pol, _, params, cfg, nbr = prepare(policy, GameConfig(side, side), {})
    out = np.zeros((games, record.width()), np.int64)  # a row per game, as wide as the record

    def run():
        pol.sweep_kernel(cfg, nbr, params, np.uint64(7), np.int64(0), out, 1)
        return float(out[:, 1].sum()) if unit == "moves" else float(games)

    return unit, run


def env_path():
    """gym.make_vec(vector_entry_point), 4,096 envs 10x10, grid observations, one thread, a random
    legal action per env each step: env steps per CPU-second inside ``envs.step`` (observations,
    infos and resets included; the numpy sampler of the actions left out, as it is no part of the env)."""
    import gymnasium as gym

    import fastsnake.envs as E

    envs = gym.make_vec(E.ENV_ID, num_envs=ENV_NUM, vectorization_mode="vector_entry_point", size=ENV_SIDE,
                        threads=1)
    sample = LegalSampler(ENV_NUM)
    state = {"info": envs.reset(seed=0)[1]}

    def run():
        info, inside = state["info"], 0.0
        for _ in range(ENV_STEPS):
            actions = sample(info["action_mask"])
            c0 = time.process_time()
            info = envs.step(actions)[4]
            inside += time.process_time() - c0
        state["info"] = info
        return float(ENV_NUM * ENV_STEPS), inside

    return "env steps", run


def sb3_path():
    """Stable-Baselines3's VecEnv over the batch (`fastsnake.envs.sb3.SnakeVecEnv`), 1,024 envs
    10x10, grid, one thread, random legal actions: env steps per CPU-second inside ``step``. Needs
    stable-baselines3 and torch; skipped (with the reason) where they are not installed."""
    try:
        from fastsnake.envs.sb3 import SnakeVecEnv
    except ImportError as exc:
        return str(exc).splitlines()[0]
    venv = SnakeVecEnv(SB3_NUM, size=ENV_SIDE, obs="grid", threads=1)
    venv.seed(0)
    venv.reset()
    sample = LegalSampler(SB3_NUM)

    def run():
        inside = 0.0
        for _ in range(SB3_STEPS):
            actions = sample(venv.action_masks())
            c0 = time.process_time()
            venv.step(actions)
            inside += time.process_time() - c0
        return float(SB3_NUM * SB3_STEPS), inside

    return "env steps", run


def puzzle_path():
    """IDA* with the Manhattan heuristic on Korf's 15-puzzle instance 2: nodes per CPU-second."""
    from fastsnake.puzzle import solve

    golden = _REPO / "tests" / "puzzle" / "golden" / "korf100.csv"
    tiles = next(line.split(",")[3] for line in golden.read_text().splitlines()
                 if line.startswith(f"{PUZZLE_KORF},"))

    def run():
        return float(solve(tiles, rows=4, cols=4, algorithm="idastar", heuristic="manhattan").nodes_generated)

    return "nodes", run


def tour_path():
    """An open knight's tour of 1000x1000 by search (Warnsdorff with backtracking): squares per CPU-second."""
    from fastsnake.tour import Piece, find_tour

    knight = Piece.leaper(1, 2)

    def run():
        result = find_tour(knight, TOUR_SIDE, TOUR_SIDE, 0, method="search", time_limit=60)
        if not result.found:
            raise RuntimeError(f"the guard's tour was not found: {result.reason}")
        return float(TOUR_SIDE * TOUR_SIDE)

    return "squares", run


def report_path(work_dir: str):
    """The report of a 10^6-game sweep file (cycle 4x4, made outside the timing) with 100 picked
    games: rows per CPU-second."""
    import fastsnake

    sweep = os.path.join(work_dir, "sweep.parquet")
    if not os.path.exists(sweep):
        fastsnake.sweep("cycle", REPORT_SIDE, REPORT_GAMES, out=sweep)
    page = os.path.join(work_dir, "report.html")

    def run():
        info = fastsnake.report(sweep, page, worst=30, best=30, died=20, random=20)
        return float(info["games"])

    return "rows", run


def setups(work_dir: str) -> dict:
    """path name -> a setup() returning (unit, run) or a string (why the path is skipped here)."""
    found = {"engine cycle 10x10": lambda: sweep_path("cycle", 10, ENGINE_GAMES, unit="moves")}
    for name in builtin_policies():
        games = POLICY_GAMES.get(name, DEFAULT_GAMES)
        found[f"policy {name} 10x10"] = lambda name=name, games=games: sweep_path(name, 10, games)
    for name, side, games in BIG_BOARDS:
        found[f"policy {name} {side}x{side}"] = lambda name=name, side=side, games=games: sweep_path(name, side, games)
    found["env step grid"] = env_path
    found["sb3 step grid"] = sb3_path
    found["puzzle idastar"] = puzzle_path
    found["tour knight"] = tour_path
    found["report 1e6 games"] = lambda: report_path(work_dir)
    assert list(found) == path_names()
    return found


def machine() -> str:
    try:
        from fastsnake.machine import describe

        return describe()
    except ImportError:
        return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def measure(names: list[str], rounds: int, work_dir: str, log=print) -> dict:
    """path -> {"ratio", "rate", "unit", "baseline", "cpu"} or a string (skipped: why)."""
    _one_thread()
    table = setups(work_dir)
    results = {}
    for name in names:
        t0 = time.perf_counter()
        try:
            made = table[name]()
            if isinstance(made, str):
                results[name] = made
                log(f"  {name}: skipped ({made})")
                continue
            unit, run = made
            base = baseline_rate(rounds)
            work, cpu = cpu_best(run, rounds)
        except Exception as exc:  # one broken path is reported as a failure; the others still run
            results[name] = f"{ERROR}{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            log(f"  {name}: {results[name]}")
            continue
        rate = work / cpu
        results[name] = {"ratio": rate / base, "rate": rate, "unit": unit, "baseline": base, "cpu": cpu}
        log(f"  {name}: {rate:,.0f} {unit}/CPU-s, {rate / base:.4g}x baseline, {cpu:.3f} CPU-s a run "
            f"({time.perf_counter() - t0:.1f} s wall in all)")
    return results


def median_results(runs: list[dict]) -> dict:
    """Per path, the result of the run with the median ratio among `runs` (several `measure` results;
    the lower middle of an even count); a path that never ran keeps its last reason (a string)."""
    merged = {}
    for name in runs[0]:
        measured = sorted((r[name] for r in runs if not isinstance(r[name], str)), key=lambda r: r["ratio"])
        merged[name] = measured[(len(measured) - 1) // 2] if measured else runs[-1][name]
    return merged


def git_commit() -> str:
    try:
        import fastsnake

        root = Path(fastsnake.__file__).resolve().parents[1]
        return subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


ABOUT = ("Reference ratios (path per CPU-second / baseline kernel per CPU-second, same run) for "
         "bench/speed/guard.py; a path fails below half of its ratio. Provenance below; how to "
         "re-record honestly: CONTRIBUTING.md, 'Speed guard'.")


def updated_reference(args, measured: dict) -> dict:
    """reference.json after ``--update``: every path's measured ratio written. A whole run (no ``--only``)
    rewrites the file's provenance; ``--only`` changes the ratios of the paths it timed and nothing else
    (the file's provenance and notes kept), and records under ``paths`` where those ratios came from."""
    old = json.loads(args.reference.read_text()) if args.reference.exists() else {}
    ratios = dict(old.get("ratios", {}))
    written = {k: float(f"{v:.4g}") for k, v in measured.items() if not isinstance(v, str)}
    ratios.update(written)
    for name in path_names():
        ratios.setdefault(name, None)  # listed, not recorded yet
    command = ("python bench/speed/guard.py --update" + (f" --only {args.only}" if args.only else "")
               + (f" --rounds {args.rounds}" if args.rounds != ROUNDS else "")
               + (f" --repeat {args.repeat}" if args.repeat > 1 else ""))
    provenance = {"command": command, "machine": machine(),
                  "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                  "commit": git_commit()}
    if not args.only or not old:
        return {"about": ABOUT, **provenance, "ratios": ratios}
    paths = dict(old.get("paths", {}))
    paths.update({name: provenance for name in written})
    return {**old, "ratios": ratios, "paths": paths}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated substrings: time only the paths whose name holds one")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"timed runs a path, best taken ({ROUNDS})")
    parser.add_argument("--repeat", type=int, default=1,
                        help="time every path this many times and keep each path's median run (for --update)")
    parser.add_argument("--reference", type=Path, default=REFERENCE)
    parser.add_argument("--update", action="store_true", help="write the measured ratios to the reference file")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON value at the end")
    args = parser.parse_args(argv)

    import fastsnake

    names = path_names()
    if args.only:
        keys = [k.strip() for k in args.only.split(",") if k.strip()]
        names = [n for n in names if any(k in n for k in keys)]
        if not names:
            # Not a pass: a typo, or a policy that is not registered (fastsnake/snake/policies/__init__.py).
            print(f"guard: error: --only {args.only!r} matches no path; the paths are: {', '.join(path_names())}",
                  file=sys.stderr)
            return 2
    started = time.perf_counter()
    print(f"speed guard: {len(names)} paths, best of {args.rounds}, one thread, CPU time; fastsnake from "
          f"{Path(fastsnake.__file__).resolve().parent} ({git_commit()})", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="fastsnake-guard-") as work_dir:
        runs = [measure(names, args.rounds, work_dir, log=lambda line: print(line, file=sys.stderr, flush=True))
                for _ in range(max(1, args.repeat))]
    results = median_results(runs)
    measured = {name: (r if isinstance(r, str) else r["ratio"]) for name, r in results.items()}
    reference = load_reference(args.reference)
    rows, failures = verdicts(measured, reference)

    print(f"machine: {machine()}")
    print(f"{'path':34s} {'per CPU-second':>22s} {'ratio':>10s} {'reference':>10s} {'vs ref':>7s}  status")
    for row in rows:
        r = results[row["path"]]
        ref = row["reference"]
        if row["ratio"] is None and row["status"] == "FAIL":
            print(f"{row['path']:34s} {r}")
            continue
        if row["ratio"] is None:
            print(f"{row['path']:34s} {'':>22s} {'':>10s} {ref if ref is not None else '-':>10} {'':>7s}  "
                  f"{row['status']}")
            continue
        absolute = f"{r['rate']:,.0f} {r['unit']}"
        shown_ref = f"{ref:.4g}" if ref is not None else "-"
        versus = f"{row['ratio'] / ref:.2f}" if ref else "-"
        print(f"{row['path']:34s} {absolute:>22s} {row['ratio']:10.4g} {shown_ref:>10s} {versus:>7s}  {row['status']}")
    bases = [r["baseline"] for r in results.values() if not isinstance(r, str)]
    if bases:
        print(f"baseline: {min(bases) / 1e6:,.1f}..{max(bases) / 1e6:,.1f} M steps/CPU-s over the run; "
              f"guard took {time.perf_counter() - started:.0f} s wall")

    if args.update:
        record = updated_reference(args, measured)
        args.reference.write_text(json.dumps(record, indent=2) + "\n")
        print(f"wrote {args.reference}")
        # The written ratios are the reference now: only a path that could not run still fails.
        failures = verdicts(measured, record["ratios"])[1]
    if args.json:
        print(json.dumps({"results": results, "failures": failures}))
    for line in failures:
        print(line, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
