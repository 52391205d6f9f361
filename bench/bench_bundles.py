"""Kernel bundles (issue 61 item 4): what `fastsnake warm --import` saves a first sweep, and what the
imported kernels run at.

Everything runs in fresh processes on fresh caches in a temporary folder (nothing of yours is read or
written), on the compiled tier (FASTSNAKE_TIER=compiled), at numba's default optimisation level:

1. **cold**: the first ``fastsnake sweep --policy P --size 10 --games G`` on an empty cache: its compile CPU
   seconds (the compiling threads' CPU, from numba's compile events) and whole-process CPU.
2. **export**: ``fastsnake warm --policy P --export native.kernels`` on that cache (the part runs
   first: it loads what the sweep compiled and compiles the big-board variants it has not).
3. **import**: ``fastsnake warm --import native.kernels`` into an empty cache, then the same first
   sweep there: its compile CPU seconds (the target: at most 3) and whole-process CPU.
4. **generic**: the same part compiled with ``NUMBA_CPU_NAME=generic`` (the portable build: baseline
   x86-64 features only), exported, imported into an empty cache by a normal process (filed for this
   CPU), and its first sweep's compile CPU too.
5. **speed**: rounds of fresh processes, one per cache (native, imported, imported generic; the order
   turns each round), each timing the policy's sweep kernel on one thread (`guard.cpu_best`: the
   best of several runs, CPU time) at each size; the ratio imported / native of each round, their
   median and a distribution-free 95 % interval (`ab.median_interval`).

    .venv/bin/python bench/bench_bundles.py                  # grove, 100 games, 7 speed rounds
    .venv/bin/python bench/bench_bundles.py --rounds 9 --json
    .venv/bin/python bench/bench_bundles.py --no-generic     # skip the generic build (a minute of CPU less)
    .venv/bin/python bench/bench_bundles.py --work /tmp/bb   # keep the caches: run it again for more speed rounds

A cold compile of grove is about a minute of CPU; the whole script about four minutes on a quiet
2-core machine. Quote its table with the load it prints.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "speed"))

from ab import median_interval  # noqa: E402

# The first sweep, run with numba's compile events counted: prints {"compile_cpu", "compiles", "cpu"}.
FIRST_SWEEP = """
import json, sys, threading, time
from numba.core import event

class Watch(event.Listener):
    depth = 0
    compiles = 0
    cpu = 0.0
    def on_start(self, ev):
        if self.depth == 0:
            self.t0 = time.thread_time()
            self.compiles += 1
        self.depth += 1
    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            self.cpu += time.thread_time() - self.t0

watch = Watch()
event.register("numba:compile", watch)
from fastsnake.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
cpu = time.process_time()
sys.stderr.write("BENCH " + json.dumps({"compile_cpu": round(watch.cpu, 2), "compiles": watch.compiles,
                                        "cpu": round(cpu, 2), "code": code}) + "\\n")
"""

# One speed round in one cache: prints {label: games per CPU-second} of the sweep kernel.
SPEED = """
import json, sys
sys.path.insert(0, {speed!r})
import numba
numba.set_num_threads(1)
from guard import cpu_best, sweep_path
out = {{}}
for policy, side, games in {cases!r}:
    unit, run = sweep_path(policy, side, games)
    work, cpu = cpu_best(run, {repeat})
    out[f"{{policy}} {{side}}x{{side}}"] = work / cpu
print(json.dumps(out))
"""


def _env(cache: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "FASTSNAKE_"))}
    env.update(NUMBA_CACHE_DIR=str(cache), FASTSNAKE_TIER="compiled", FASTSNAKE_QUIET_COMPILE="1", **extra)
    return env


def _run(argv, env, what: str, timeout: float = 3600) -> tuple[subprocess.CompletedProcess, float]:
    """Run a child; (its result, its CPU seconds, children included)."""
    before = os.times()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    after = os.times()
    if proc.returncode != 0:
        sys.exit(f"bench_bundles: {what} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return proc, cpu


def first_sweep(cache: Path, policy: str, games: int, size: int, **extra) -> dict:
    argv = [sys.executable, "-c", FIRST_SWEEP, "sweep", "--policy", policy, "--size", str(size), "--games", str(games),
            "--json"]
    proc, cpu = _run(argv, _env(cache, **extra), f"the first sweep in {cache.name}")
    line = next(x for x in proc.stderr.splitlines() if x.startswith("BENCH "))
    found = json.loads(line[len("BENCH "):])
    if found["code"] not in (0, None):
        sys.exit(f"bench_bundles: the first sweep in {cache.name} exited {found['code']}:\n{proc.stderr[-3000:]}")
    found["process_cpu"] = round(cpu, 2)
    return found


def fastsnake(cache: Path, *args: str, **extra) -> tuple[dict, float]:
    proc, cpu = _run([sys.executable, "-m", "fastsnake", *args, "--json"], _env(cache, **extra),
                     "fastsnake " + " ".join(args))
    return json.loads(proc.stdout), round(cpu, 2)


def speed_round(cache: Path, cases, repeat: int) -> dict:
    code = SPEED.format(speed=str(HERE / "speed"), cases=list(cases), repeat=repeat)
    proc, _ = _run([sys.executable, "-c", code], _env(cache), f"a speed round in {cache.name}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


SETUP_KEYS = ("cold", "export", "import", "imported", "generic_export", "generic_import", "generic_imported",
              "setup_at", "setup_load")


def setup(out, args, tmp, native, imported, gen_build, gen_imported) -> None:
    """Steps 1-4: the cold sweep, the export, the import and its first sweep, the generic build's."""
    out["setup_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out["setup_load"] = load()
    out["cold"] = first_sweep(native, args.policy, args.games, args.size)
    print(f"cold first sweep: {out['cold']['compile_cpu']} CPU-s compiling, {out['cold']['process_cpu']} "
          f"CPU-s in all", file=sys.stderr)
    bundle = tmp / "native.kernels"
    made, cpu = fastsnake(native, "warm", "--policy", args.policy, "--export", str(bundle))
    out["export"] = {"cpu": cpu, "bytes": made["exported"]["bytes"], "kernels": made["exported"]["kernels"]}
    got, cpu = fastsnake(imported, "warm", "--import", str(bundle))
    out["import"] = {"cpu": cpu, "kernels": got["imported"]["kernels"]}
    out["imported"] = first_sweep(imported, args.policy, args.games, args.size)
    print(f"after import: {out['imported']['compile_cpu']} CPU-s compiling, {out['imported']['process_cpu']} "
          f"CPU-s in all", file=sys.stderr)
    if not args.no_generic:
        gbundle = tmp / "generic.kernels"
        made, cpu = fastsnake(gen_build, "warm", "--policy", args.policy, "--export", str(gbundle),
                              NUMBA_CPU_NAME="generic")
        out["generic_export"] = {"cpu": cpu, "bytes": made["exported"]["bytes"]}
        got, cpu = fastsnake(gen_imported, "warm", "--import", str(gbundle))
        out["generic_import"] = {"cpu": cpu, "kernels": got["imported"]["kernels"],
                                 "retargeted": got["imported"]["retargeted"]}
        out["generic_imported"] = first_sweep(gen_imported, args.policy, args.games, args.size)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policy", default="grove")
    ap.add_argument("--games", type=int, default=100, help="games of the first sweep (the CLI's default board)")
    ap.add_argument("--size", type=int, default=10, help="the first sweep's board side")
    ap.add_argument("--rounds", type=int, default=7, help="speed rounds (fresh processes per cache)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case and process (best kept)")
    ap.add_argument("--no-generic", action="store_true", help="skip the NUMBA_CPU_NAME=generic build")
    ap.add_argument("--work", metavar="DIR", help="keep the caches in DIR; a later run with the same DIR times "
                                                  "the speed rounds only (its compile figures are the first run's)")
    ap.add_argument("--json", action="store_true", help="print one JSON value on stdout after the table")
    args = ap.parse_args(argv)
    cases = ((args.policy, 10, 100), (args.policy, 20, 3))
    out = {"policy": args.policy, "games": args.games, "size": args.size, "load_before": load(), "machine": _machine()}
    t0 = time.time()
    held = contextlib.nullcontext(args.work) if args.work else tempfile.TemporaryDirectory(prefix="bench-bundles-")
    with held as tmp:
        tmp = Path(tmp)
        tmp.mkdir(parents=True, exist_ok=True)
        native, imported, gen_build, gen_imported = (tmp / n for n in ("native", "imported", "generic-build",
                                                                         "generic-imported"))
        saved = tmp / "setup.json"
        if saved.exists():  # --work DIR of an earlier run: its caches and compile figures, speed rounds only
            out.update(json.loads(saved.read_text()))
            print(f"caches and compile figures of the run in {tmp} ({out['setup_at']})", file=sys.stderr)
        else:
            setup(out, args, tmp, native, imported, gen_build, gen_imported)
            saved.write_text(json.dumps({k: out[k] for k in SETUP_KEYS if k in out}))
        caches = {"native": native, "imported": imported}
        if "generic_imported" in out and not args.no_generic:
            caches["generic"] = gen_imported
        rates = {name: [] for name in caches}
        names = list(caches)
        for k in range(args.rounds):
            order = names[k % len(names):] + names[:k % len(names)]
            for name in order:
                rates[name].append(speed_round(caches[name], cases, args.repeat))
            print(f"speed round {k + 1}/{args.rounds} done (load {load()})", file=sys.stderr)
    out["speed"] = {}
    for label in rates["native"][0]:
        row = {"native": statistics.median(r[label] for r in rates["native"])}
        for name in names[1:]:
            ratios = [r[label] / n[label] for r, n in zip(rates[name], rates["native"], strict=True)]
            low, high, coverage = median_interval(ratios)
            row[name] = {"rate": statistics.median(r[label] for r in rates[name]),
                         "ratio": statistics.median(ratios), "low": low, "high": high,
                         "coverage": round(coverage, 3), "rounds": len(ratios),
                         "round_ratios": [round(x, 4) for x in ratios]}
        out["speed"][label] = row
    out["load_after"] = load()
    out["seconds"] = round(time.time() - t0, 1)
    _table(out, names)
    if args.json:
        print(json.dumps(out))
    return 0


def _machine() -> str:
    import platform

    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} cores"


def _table(out: dict, names) -> None:
    p = out["policy"]
    print(f"machine: {out['machine']}; compile figures {out['setup_at']} (load {out['setup_load']}); speed rounds "
          f"load before {out['load_before']}, after {out['load_after']}; {out['seconds']} s")
    print(f"first `fastsnake sweep --policy {p} --size {out['size']} --games {out['games']}` "
          f"(compile CPU-s / process CPU-s):")
    print(f"  empty cache             {out['cold']['compile_cpu']:7.2f} / {out['cold']['process_cpu']:.2f}")
    print(f"  after warm --import     {out['imported']['compile_cpu']:7.2f} / {out['imported']['process_cpu']:.2f}"
          f"   (bundle {out['export']['bytes'] / 1e6:.2f} MB, {out['export']['kernels']} kernels; import "
          f"{out['import']['cpu']:.2f} CPU-s)")
    if "generic_imported" in out:
        g = out["generic_imported"]
        print(f"  after generic import    {g['compile_cpu']:7.2f} / {g['process_cpu']:.2f}"
              f"   (generic bundle {out['generic_export']['bytes'] / 1e6:.2f} MB)")
    print("sweep kernel speed, one thread (games per CPU-second; ratio to native, median of rounds [95 % interval]):")
    for label, row in out["speed"].items():
        cells = [f"native {row['native']:.1f}"]
        for name in names[1:]:
            r = row[name]
            cells.append(f"{name} {r['rate']:.1f} x{r['ratio']:.3f} [{r['low']:.3f}, {r['high']:.3f}] n={r['rounds']}")
        print(f"  {label:<12} " + "; ".join(cells))


if __name__ == "__main__":
    sys.exit(main())
