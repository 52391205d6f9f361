"""Start-up: what a command costs as a whole process, and which imports it pays for (issue 44).

Three cases, each a fresh `fastsnake` process, measured by the CPU time the kernel charges it
(user + system, from ``os.wait4``: every thread of the child, numba's included) and its wall time:

- ``help``: ``fastsnake --help`` (budget: 0.3 CPU-s);
- ``sweep-warm``: ``fastsnake sweep --policy cycle --size 10 --games 1000 --json`` on a warm numba
  cache (budget: 0.9 CPU-s, the whole process);
- ``sweep-cold``: the same sweep on a fresh, empty NUMBA_CACHE_DIR (budget: 10 s wall on a quiet
  machine; the compile runs on one core, so its CPU time is what a quiet machine's wall time would be).

The warm cases run ``--runs`` times in alternating rounds (and alternating with ``--baseline``'s
tree when given: ratios new / baseline of the medians); the medians decide the budgets. Then
``python -X importtime`` of the help and the warm sweep, by top-level package: the cumulative time
of its outermost imports (what paid for it) and its own modules' self time, largest first. The machine's load
(1-minute average, before and after) is printed beside: on a busy machine every figure is high.

    python bench/bench_startup.py                      # this checkout, 7 rounds, one cold sweep
    python bench/bench_startup.py --runs 9 --cold 0    # warm cases only
    python bench/bench_startup.py --baseline /tmp/base # A/B: a checkout of another revision
    python bench/bench_startup.py --json               # one JSON value on stdout

A checkout of another revision: ``git worktree add /tmp/base 878e551`` (its code is imported
through PYTHONPATH with this environment's packages). Children run without PYTHONDONTWRITEBYTECODE
(an installed package has its .pyc files: compiling every module from source is not start-up);
one unmeasured run per tree first writes them and warms the numba cache. Exit status 1 when a budget
fails (the cold one only counts on a quiet machine: load below a quarter of the cores).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SWEEP = ["sweep", "--policy", "cycle", "--size", "10", "--games", "1000", "--json"]
CASES = {"help": ["--help"], "sweep-warm": SWEEP}
BUDGETS = {"help": ("cpu", 0.3), "sweep-warm": ("cpu", 0.9), "sweep-cold": ("wall", 10.0)}
QUIET_LOAD_PER_CORE = 0.25


def _launcher(tree: Path) -> list[str]:
    """``python -c`` running the `fastsnake` console script's function from `tree`'s package."""
    code = (f"import sys; sys.path.insert(0, {str(tree)!r}); sys.argv[0] = 'fastsnake'; "
            "from fastsnake.__main__ import run; sys.exit(run())")
    return [sys.executable, "-c", code]


def _env(cache: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "NUMBA_DISABLE_JIT")}
    env.update(NUMBA_CACHE_DIR=str(cache), FASTSNAKE_TIER="compiled", FASTSNAKE_QUIET_COMPILE="1", **extra)
    return env


def run_once(tree: Path, argv: list[str], cache: Path, importtime: bool = False) -> dict:
    """One child process: its CPU seconds (user + sys, every thread), wall seconds, stdout, stderr."""
    cmd = _launcher(tree)
    if importtime:
        cmd.insert(1, "-X")
        cmd.insert(2, "importtime")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([*cmd, *argv], stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=_env(cache))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"bench_startup: {' '.join(argv)} failed ({proc.returncode}): {stderr[-2000:]}")
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "stdout": stdout, "stderr": stderr}


def check(case: str, result: dict) -> None:
    """Every run must have done its work: the help printed the verbs, the sweep played 1,000 games."""
    if case == "help":
        assert "sweep" in result["stdout"] and "usage: fastsnake" in result["stdout"], result["stdout"][:500]
    else:
        summary = json.loads(result["stdout"])
        assert summary["games"] == 1000 and summary["policy"] == "cycle", summary


def by_package(stderr: str) -> dict[str, dict[str, float]]:
    """``-X importtime`` lines -> per top-level package, largest first: ``own`` seconds (the self time
    of its modules) and ``cumulative`` seconds (the cumulative time of its outermost imports: with
    what they import from other packages, as the import that pays for it sees it)."""
    rows = []  # (depth, top-level package, self s, cumulative s), in the order Python printed them
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = line[len("import time:"):].split("|")
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        rows.append((depth, name.strip().split(".")[0], int(self_us) / 1e6, int(cumulative_us) / 1e6))
    totals: dict[str, dict[str, float]] = {}
    stack: list[tuple[int, str]] = []  # the enclosing imports (a child is printed before its parent)
    for depth, top, own, cumulative in reversed(rows):
        while stack and stack[-1][0] >= depth:
            stack.pop()
        entry = totals.setdefault(top, {"own": 0.0, "cumulative": 0.0})
        entry["own"] += own
        if not stack or stack[-1][1] != top:  # an outermost import of this package
            entry["cumulative"] += cumulative
        stack.append((depth, top))
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]["cumulative"]))


def load() -> float:
    return os.getloadavg()[0]


def measure(trees: dict[str, Path], runs: int, cold: int, importtime: bool) -> dict:
    caches = {label: Path(tempfile.mkdtemp(prefix=f"bench-startup-{label}-")) for label in trees}
    report = {"machine": {"cores": os.cpu_count(), "load_before": round(load(), 2)},
              "trees": {label: str(tree) for label, tree in trees.items()}, "cases": {}}
    try:
        for label, tree in trees.items():  # .pyc files and a warm numba cache, unmeasured
            for case, argv in CASES.items():
                check(case, run_once(tree, argv, caches[label]))
        samples = {(label, case): [] for label in trees for case in CASES}
        for _ in range(runs):
            for case, argv in CASES.items():
                for label, tree in trees.items():
                    result = run_once(tree, argv, caches[label])
                    check(case, result)
                    samples[label, case].append(result)
        for _ in range(cold):
            for label, tree in trees.items():
                fresh = Path(tempfile.mkdtemp(prefix="bench-startup-cold-"))
                try:
                    result = run_once(tree, SWEEP, fresh)
                finally:
                    shutil.rmtree(fresh, ignore_errors=True)
                check("sweep-cold", result)
                samples.setdefault((label, "sweep-cold"), []).append(result)
        for (label, case), results in samples.items():
            row = report["cases"].setdefault(case, {})
            row[label] = {"cpu_median": round(statistics.median(r["cpu"] for r in results), 3),
                          "wall_median": round(statistics.median(r["wall"] for r in results), 3),
                          "cpu": [round(r["cpu"], 3) for r in results],
                          "wall": [round(r["wall"], 3) for r in results]}
        if importtime:
            report["importtime"] = {
                label: {case: {k: {what: round(v, 4) for what, v in times.items()} for k, times in
                               by_package(run_once(tree, argv, caches[label], importtime=True)["stderr"]).items()}
                        for case, argv in CASES.items()}
                for label, tree in trees.items()}
    finally:
        for cache in caches.values():
            shutil.rmtree(cache, ignore_errors=True)
    report["machine"]["load_after"] = round(load(), 2)
    report["budgets"] = judge(report)
    return report


def judge(report: dict) -> dict:
    """PASS/FAIL per case for the tree measured ("new"); the cold budget needs a quiet machine."""
    cores = report["machine"]["cores"] or 1
    quiet = max(report["machine"]["load_before"], report["machine"]["load_after"]) < QUIET_LOAD_PER_CORE * cores
    verdicts = {}
    for case, (what, limit) in BUDGETS.items():
        row = report["cases"].get(case, {}).get("new")
        if row is None:
            continue
        value = row[f"{what}_median"]
        verdict = "PASS" if value <= limit else "FAIL"
        if case == "sweep-cold" and not quiet:
            verdict += " (not judged: the machine is busy)"
        verdicts[case] = {"measure": what, "value": value, "budget": limit, "verdict": verdict}
    return verdicts


def show(report: dict) -> None:
    m = report["machine"]
    print(f"machine: {m['cores']} cores, load {m['load_before']} before, {m['load_after']} after")
    labels = list(report["trees"])
    for case, rows in report["cases"].items():
        for label in labels:
            row = rows[label]
            print(f"{case:11s} {label:8s} median {row['cpu_median']:7.3f} CPU-s {row['wall_median']:7.3f} s wall"
                  f"   (CPU-s of each run: {', '.join(f'{c:.2f}' for c in row['cpu'])})")
        if len(labels) == 2:
            new, base = rows["new"], rows["baseline"]
            print(f"{'':11s} new / baseline: {new['cpu_median'] / base['cpu_median']:.3f} CPU, "
                  f"{new['wall_median'] / base['wall_median']:.3f} wall")
    for case, v in report["budgets"].items():
        unit = "CPU-s" if v["measure"] == "cpu" else "s wall"
        print(f"budget {case:11s} {v['value']:.3f} {unit} <= {v['budget']}: {v['verdict']}")
    for label, cases in report.get("importtime", {}).items():
        for case, packages in cases.items():
            total = sum(times["own"] for times in packages.values())
            print(f"importtime {case} ({label}): {total:.3f} s in all; by top-level package, cumulative s "
                  f"(own s):")
            for name, times in list(packages.items())[:12]:
                print(f"  {name:36s} {times['cumulative']:7.3f} ({times['own']:.3f})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="alternating rounds of the warm cases (default 7)")
    parser.add_argument("--cold", type=int, default=1, help="cold sweeps per tree (default 1; 0: none)")
    parser.add_argument("--baseline", type=Path, help="a checkout of another revision, measured alternately")
    parser.add_argument("--no-importtime", action="store_true", help="skip the -X importtime listing")
    parser.add_argument("--json", action="store_true", help="one JSON value on stdout")
    args = parser.parse_args(argv)
    trees = {"new": REPO}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    report = measure(trees, max(1, args.runs), max(0, args.cold), not args.no_importtime)
    report["command"] = "python bench/bench_startup.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.json:
        print(json.dumps(report))
    else:
        show(report)
    return 1 if any(v["verdict"] == "FAIL" for v in report["budgets"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
