"""Fault injection over many rounds: does any fault lose finished games or get damaged data accepted?

Each round picks a fault at random and a target (a single sweep file or a sweep folder):

* signal: a real `fastsnake sweep` process is sent SIGINT, SIGTERM or SIGKILL at a random moment
  (during start-up, compilation, a chunk or the final rename), over an earlier complete file;
* bitflip: one random bit of a finished file, chunk or manifest is flipped (or the file is cut
  short at a random length), then it is read, verified and (folders) resumed;
* fulldisk: a real sweep process runs under a random file size limit (RLIMIT_FSIZE, as `ulimit -f`);
* writers: two sweep processes write the same target at once.

A round counts as **lost** when games an earlier run had finished are gone or changed (a complete
file replaced by a part, a folder that cannot be resumed to the uninterrupted rows), and as
**silent** when damaged data was read back (or verified) as good. Run:

    python bench/fault_injection.py --rounds 1000 [--seed 1] [--json]

Not part of any test suite (it takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "snake"))
os.environ.setdefault("NUMBA_CACHE_DIR", str(REPO / ".cache" / "numba"))

from faults import flip_bit, truncate  # noqa: E402

import fastsnake  # noqa: E402
from fastsnake.errors import InputError  # noqa: E402
from fastsnake.snake.dataset import read_sweep  # noqa: E402

COLUMNS = ("game", "seed", "outcome", "moves", "apples", "length")
# Small sweeps: one is long enough to be interrupted part-way (tens of chunks), short enough to
# finish within a round when it is not.
POLICY, SIZE, GAMES, CHUNK = "cycle", 6, 6000, 200


def rows(table) -> dict:
    return {c: table.column(c).to_pylist() for c in COLUMNS}


class Trial:
    def __init__(self, work: Path, rng: random.Random):
        self.work, self.rng = work, rng
        self.reference = {seed: rows(fastsnake.sweep(POLICY, SIZE, GAMES, seed).table) for seed in (1, 2)}
        self.good_file = work / "good.parquet"
        fastsnake.sweep(POLICY, SIZE, GAMES, 1, out=self.good_file)
        self.good_folder = work / "good"
        fastsnake.sweep(POLICY, SIZE, GAMES, 1, out=self.good_folder, chunk_size=CHUNK)

    # -- helpers ------------------------------------------------------------------------------
    def command(self, out: Path, seed: int = 1) -> list[str]:
        cmd = [sys.executable, "-m", "fastsnake", "sweep", "--policy", POLICY, "--size", str(SIZE), "--games",
               str(GAMES), "--seed", str(seed), "--threads", "1", "--out", str(out), "--json"]
        return cmd + (["--chunk-size", str(CHUNK)] if not str(out).endswith(".parquet") else [])

    def fresh(self, kind: str) -> Path:
        """A round's target: a copy of the complete file, or a new folder name."""
        folder = Path(tempfile.mkdtemp(dir=self.work))
        if kind == "file":
            target = folder / "big.parquet"
            shutil.copyfile(self.good_file, target)
        else:
            target = folder / "ds"
        return target

    def matches(self, target: Path, seed: int = 1, prefix: bool = False) -> bool:
        """Does `target` read back as the reference rows (or a prefix of them)?"""
        got = rows(read_sweep(target)[1])
        want = self.reference[seed]
        if prefix:
            n = len(got["game"])
            return all(got[c] == want[c][:n] for c in COLUMNS)
        return got == want

    def resume_to_reference(self, target: Path) -> str | None:
        """Finish a folder (in this process) and compare; None if it equals the reference, else why."""
        if not (target / "_manifest.json").exists():
            return None  # never started: nothing was finished, nothing can be lost
        seed = json.loads((target / "_manifest.json").read_text())["sweep"]["seed"]  # two writers: either
        try:
            fastsnake.resume_sweep(target, threads=1)
        except InputError as exc:
            return f"resume refused: {exc}"
        return None if self.matches(target, seed) else "resumed rows differ"

    # -- faults -------------------------------------------------------------------------------
    def signal(self) -> str | None:
        kind = self.rng.choice(["file", "folder"])
        target = self.fresh(kind)
        sig = self.rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
        proc = subprocess.Popen(self.command(target), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(self.rng.uniform(0.0, 3.0))
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=600)
        if kind == "file":
            before = self.good_file.read_bytes()
            if proc.returncode == 0:  # finished before the signal: a new complete file of the same games
                return None if self.matches(target) else "complete run wrote other rows"
            # Killed after its rename, a run leaves its own complete file (same games; the row groups
            # may differ): only a file that is not whole is a loss.
            if target.read_bytes() != before and not self.matches(target):
                return f"{signal.Signals(sig).name} (exit {proc.returncode}) left other rows in the complete file"
            partial = target.with_name("big.partial.parquet")
            if partial.exists() and not self.matches(partial, prefix=True):
                return "partial file holds other rows"
            return None
        return self.resume_to_reference(target)

    def bitflip(self) -> str | None:
        """One random bit (or a cut) in a finished file, chunk or manifest: refused, or harmless."""
        kind = self.rng.choice(["file", "folder"])
        folder = Path(tempfile.mkdtemp(dir=self.work))
        if kind == "file":
            target = folder / "big.parquet"
            shutil.copyfile(self.good_file, target)
            victim = target
        else:
            target = folder / "ds"
            shutil.copytree(self.good_folder, target)
            names = sorted(p.name for p in target.iterdir() if p.name != "_writer.lock")
            victim = target / self.rng.choice(names)
        size = victim.stat().st_size
        if self.rng.random() < 0.2:
            truncate(victim, self.rng.randrange(size))
        else:
            flip_bit(victim, self.rng.randrange(size), self.rng.randrange(8))
        try:
            ok = self.matches(target)
        except InputError:
            ok = None  # refused: the damage was seen
        if ok is False:
            return "damaged data read back as good"
        try:
            report = fastsnake.verify_sweep(target)
            if report["complete"] and ok is None:
                return "verify calls a file complete that reading refuses"
        except InputError:
            pass
        if kind == "folder" and ok is False:
            return "damaged folder read back"
        return None

    def fulldisk(self) -> str | None:
        kind = self.rng.choice(["file", "folder"])
        target = self.fresh(kind)
        limit = self.rng.choice([1, 2, 4, 8, 16, 32, 64, 128]) * 1024

        def limit_size():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

        proc = subprocess.run(self.command(target), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              preexec_fn=limit_size, timeout=600)
        if proc.returncode not in (0, 1, 2):
            return f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"
        if "Traceback" in proc.stderr or "internal error" in proc.stderr:
            return f"not one line: {proc.stderr.strip().splitlines()[-1:]}"
        if kind == "file":
            if proc.returncode == 0 or target.read_bytes() != self.good_file.read_bytes():
                return None if self.matches(target) else "the file holds other rows"
            return None
        return self.resume_to_reference(target)

    def writers(self) -> str | None:
        kind = self.rng.choice(["file", "folder"])
        target = self.fresh(kind)
        seeds = (1, self.rng.choice([1, 2]))
        procs = [subprocess.Popen(self.command(target, seed), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True) for seed in seeds]
        results = [p.communicate(timeout=600) for p in procs]
        codes = [p.returncode for p in procs]
        if any(c not in (0, 2) for c in codes) or any("Traceback" in err for _, err in results):
            return f"writers ended {codes}: {[err.strip().splitlines()[-1:] for _, err in results]}"
        if kind == "file":
            if self.matches(target, seeds[0]) or self.matches(target, seeds[1]):
                return None
            return "the file is neither writer's whole result"
        return self.resume_to_reference(target)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long, whatever --rounds says")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    weights = {"bitflip": 6, "signal": 2, "fulldisk": 1, "writers": 1}
    work = Path(tempfile.mkdtemp(prefix="fastsnake-faults-"))
    started = time.time()
    try:
        trial = Trial(work, rng)
        rounds, failures = Counter(), []
        for k in range(args.rounds):
            if args.minutes is not None and time.time() - started > args.minutes * 60:
                break
            fault = rng.choices(list(weights), list(weights.values()))[0]
            rounds[fault] += 1
            try:
                problem = getattr(trial, fault)()
            except Exception as exc:  # noqa: BLE001 - a crash of the harness or the code is a finding too
                problem = f"crash: {type(exc).__name__}: {exc}"
            if problem:
                failures.append({"round": k, "fault": fault, "problem": problem})
                sys.stderr.write(f"round {k} {fault}: {problem}\n")
            if k % 50 == 0:
                sys.stderr.write(f"progress: {k + 1} rounds, {len(failures)} failed, {time.time() - started:.0f} s\n")
            for leftover in work.iterdir():
                if leftover.is_dir() and leftover.name.startswith("tmp"):
                    shutil.rmtree(leftover, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    silent = sum(1 for f in failures if "read back" in f["problem"] or "verify calls" in f["problem"])
    lost = len(failures) - silent
    report = {"rounds": sum(rounds.values()), "by_fault": dict(rounds), "failed_rounds": len(failures),
              "lost_or_refused": lost, "silent": silent, "failures": failures[:50],
              "seconds": round(time.time() - started, 1)}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['rounds']} rounds {report['by_fault']} in {report['seconds']} s: "
              f"{report['failed_rounds']} failed ({lost} lost games, {report['silent']} accepted damage silently)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
