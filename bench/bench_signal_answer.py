"""Seconds from SIGINT or SIGTERM to the end of a `fastsnake sweep`, at each stage of it (issue 46:
"answered within a second at every stage").

    python bench/bench_signal_answer.py [--repeat 3] [--json]

Each case runs ``python -m fastsnake sweep ...`` in a child process and signals it at a fixed point
of its run, which the child says on ``FASTSNAKE_READY_FD`` (`fastsnake.signals.announce`):

* planning: at ``cli`` (the CLI's handlers are in place; the verbs, numba and pyarrow still load,
  the job is checked and planned, the kernels load from the cache), and one second later;
* scanning: at ``scanning`` of a ``--resume`` of a folder of many finished chunks (each is checked
  as it is read);
* writing: after the third ``kernel`` (chunks are played and written; a ``--games 10**15`` sweep
  with no ``--out`` plays and sums them).

Prints, per case and signal, the largest and median answer over ``--repeat`` runs (wall seconds
from the signal to the child's exit, as the parent sees it), the exit statuses, and the load.
Exit status 1 when an answer took a second or more, or a status was not the signal's (130, 143).
Needs the kernels of policy cycle in the cache (``fastsnake warm --policy cycle``): a compile is a
stage of its own, answered the same way, but it makes the planning stage last a minute.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
MAX_ANSWER_S = 1.0
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
BASE = ["sweep", "--policy", "cycle", "--size", "4", "--threads", "1"]


def signalled(argv, sig, event: str, count: int = 1, delay: float = 0.0, timeout: float = 600) -> dict:
    """Run ``fastsnake ARGV``, send `sig` `delay` seconds after the `count`-th `event` it announces;
    its answer."""
    read_fd, write_fd = os.pipe()
    env = dict(os.environ, PYTHONPATH=str(HERE), FASTSNAKE_READY_FD=f"{write_fd}:{os.fstat(write_fd).st_ino}",
               FASTSNAKE_TIER="compiled")
    child = subprocess.Popen([sys.executable, "-m", "fastsnake", *argv], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=env, pass_fds=(write_fd,), text=True)
    os.close(write_fd)
    seen, sent, due, buffer = 0, None, None, b""
    deadline = time.monotonic() + timeout
    while child.poll() is None and time.monotonic() < deadline:
        if due is not None and sent is None and time.perf_counter() >= due:
            child.send_signal(sig)
            sent = time.perf_counter()
        ready, _, _ = select.select([read_fd], [], [], 0.002)
        if not ready:
            continue
        chunk = os.read(read_fd, 4096)
        if not chunk:
            break
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if line.decode() == event and due is None:
                seen += 1
                if seen == count:
                    due = time.perf_counter() + delay
    code = child.wait(timeout=max(1.0, deadline - time.monotonic()))
    end = time.perf_counter()
    os.close(read_fd)
    err = child.stderr.read()
    lines = [ln for ln in err.splitlines() if ln.startswith("fastsnake: error")]
    return {"code": code, "answer_s": None if sent is None else end - sent, "says": (lines[-1] if lines else "")[:120]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fastsnake-answer-"))
    env = dict(os.environ, PYTHONPATH=str(HERE))
    # A folder of 400 finished chunks of 20,000 games, for the scans.
    scanned = work / "scanned"
    subprocess.run([sys.executable, "-m", "fastsnake", *BASE, "--games", str(8_000_000), "--chunk-size", "20000",
                    "--out", str(scanned)], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cases = [
        ("10^15 games, planning", lambda: [*BASE, "--games", str(10**15)], "cli", 1, 0.0),
        ("10^15 games, planning +1 s", lambda: [*BASE, "--games", str(10**15)], "cli", 1, 1.0),
        ("10^15 games, playing", lambda: [*BASE, "--games", str(10**15)], "kernel", 3, 0.0),
        ("10^9 games --out, planning", lambda: [*BASE, "--games", str(10**9), "--out", str(fresh())], "cli", 1, 0.0),
        ("10^9 games --out, planning +1 s", lambda: [*BASE, "--games", str(10**9), "--out", str(fresh())], "cli", 1,
         1.0),
        ("10^9 games --out, writing", lambda: [*BASE, "--games", str(10**9), "--out", str(fresh())], "kernel", 3,
         0.0),
        ("resume of 400 chunks, scanning", lambda: ["sweep", "--resume", str(resumable())], "scanning", 1, 0.0),
    ]
    counter = [0]

    def fresh() -> Path:
        counter[0] += 1
        return work / f"out{counter[0]}"

    def resumable() -> Path:  # the scanned folder with its last chunk to play again
        target = fresh()
        shutil.copytree(scanned, target)
        (target / "chunk-00000399.parquet").unlink()
        return target

    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.repeat} run(s) a case", file=sys.stderr)
    results, bad = [], False
    for name, argv, event, count, delay in cases:
        for sig in CODES:
            runs = [signalled(argv(), sig, event, count, delay) for _ in range(args.repeat)]
            answers = [r["answer_s"] for r in runs if r["answer_s"] is not None]
            codes = sorted({r["code"] for r in runs})
            row = {"case": name, "signal": signal.Signals(sig).name, "codes": codes,
                   "max_s": round(max(answers), 3) if answers else None,
                   "median_s": round(statistics.median(answers), 3) if answers else None,
                   "signalled": len(answers), "runs": len(runs), "says": runs[-1]["says"]}
            results.append(row)
            bad |= codes != [CODES[sig]] or not answers or max(answers) >= MAX_ANSWER_S
            if not args.json:
                print(f"{name:32s} {row['signal']:8s} exit {codes}  answered in {row['median_s']} s median, "
                      f"{row['max_s']} s max ({row['signalled']}/{row['runs']} signalled)", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({"load": os.getloadavg()[0], "cases": results}))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
