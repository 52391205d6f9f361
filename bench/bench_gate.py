"""How fast the puzzle gate says "worse" (issue 64's target: a heuristic made 8x worse is reported
worse, exit 4, on Korf's 25 easiest in at most 3x the baseline run's CPU).

Usage:
    python bench/bench_gate.py [--easiest 25] [--rounds 3] [--stop-at 20] [--json]

A user's heuristic named ``mine`` is Manhattan (`bench/user_manhattan.py`'s, with its per-move
update) in the baseline run and Manhattan // 8 in the checked run: the same name, another module
(as an edit of the user's file or a knob read when the module loads would make it). Each run is a
whole ``fastsnake puzzle compare --instances korf100 --easiest N --algorithm idastar`` process,
its CPU-seconds (user + system, start-up included) read from the OS; both heuristics' kernels are
compiled by a warm-up run first. Rounds alternate baseline and checked runs; the table gives each
run's median CPU and their ratio, the checked run's exit status and verdict, and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import user_manhattan  # noqa: E402

WORSE = textwrap.dedent('''
    """Manhattan // 8: admissible, and far weaker: what `bench_gate.py` checks against the baseline."""
    from numba import njit


''') + user_manhattan.source(decorator="@njit(cache=True)", result="h // 8")
DRIVER = ("import importlib, sys; import fastsnake.puzzle as P; m = importlib.import_module(sys.argv[1]); "
          "P.register_heuristic('mine', m.evaluate, getattr(m, 'update', None)); "
          "from fastsnake.cli import main; sys.exit(main(sys.argv[2:]))")


def run(module: str, argv: list[str], env: dict) -> tuple[int, float, str, str]:
    """(exit status, CPU-seconds of the child, stdout, stderr) of one compare with `module` as ``mine``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-c", DRIVER, module, *argv], capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.returncode, cpu, proc.stdout, proc.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--easiest", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stop-at", type=float, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from fastsnake.machine import describe

    work = Path(tempfile.mkdtemp(prefix="bench-gate-"))
    (work / "gate_worse.py").write_text(WORSE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(work), os.environ.get("PYTHONPATH", "")]))
    base = str(work / "base.parquet")
    common = ["puzzle", "compare", "--instances", "korf100", "--easiest", str(args.easiest), "--heuristics", "mine",
              "--algorithm", "idastar", "--quiet"]
    check = [*common, "--baseline-from", base, "--json"] + ([] if args.stop_at is None else
                                                             ["--stop-at", str(args.stop_at)])
    # warm-up: both kernels compiled (and the baseline file written) before anything is timed
    code, _, _, err = run("user_manhattan", [*common, "--save-baseline", base], env)
    assert code == 0, err
    run("gate_worse", check, env)
    base_cpu, check_cpu, last = [], [], None
    for _ in range(args.rounds):
        code, cpu, _, err = run("user_manhattan", [*common, "--save-baseline", base], env)
        assert code == 0, err
        base_cpu.append(cpu)
        code, cpu, out, err = run("gate_worse", check, env)
        assert code == 4, f"the checked run exited {code}, not 4: {err}"
        check_cpu.append(cpu)
        last = json.loads(out)
    base_cpu.sort()
    check_cpu.sort()
    b, c = base_cpu[len(base_cpu) // 2], check_cpu[len(check_cpu) // 2]
    verdict = last["baseline"]
    result = {"instances": args.easiest, "rounds": args.rounds, "baseline_cpu_seconds": base_cpu,
              "checked_cpu_seconds": check_cpu, "ratio": c / b, "exit": 4, "worse": verdict["worse"],
              "decided": verdict["decided"], "stop_at": verdict["stop_at"], "headline": verdict["headline"],
              "load": os.getloadavg(), "machine": describe()}
    if args.json:
        print(json.dumps(result, indent=1, default=str))
        return 0
    print("| run | CPU-s (median of %d; all) | exit |" % args.rounds)
    print("|---|---|---|")
    print(f"| baseline: `mine` = Manhattan, {args.easiest} instances | {b:.2f} "
          f"({', '.join(f'{x:.2f}' for x in base_cpu)}) | 0 |")
    print(f"| checked: `mine` = Manhattan // 8, `--baseline-from` | {c:.2f} "
          f"({', '.join(f'{x:.2f}' for x in check_cpu)}) | 4 |")
    print(f"\nratio checked / baseline: {c / b:.2f}; worse: {'; '.join(verdict['worse'])}; "
          f"decided: {verdict['decided']}; {verdict['headline']}")
    print(f"load {os.getloadavg()[0]:.1f}; {describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
