"""Peak memory and the answer to Ctrl-C of sweep folders of 10**9, 10**12 and 10**15 requested games.

    python bench/bench_huge_games.py [--after 8] [--limit-gb 4] [--keep]

Each case runs ``python -m fastsnake sweep --policy cycle --size 4 --games G --out DIR`` in a child
process (under an address-space limit, ``--limit-gb``, so that a regression cannot take the machine:
issue 46 saw 16.7 GB in 36 s for 10**15 before this was fixed). A job the disk cannot hold is refused
up front; one that runs gets SIGINT (then, resumed, SIGTERM) `--after` seconds after it started, and
the seconds from the signal to the child's exit are measured. Prints, per case: exit status, peak RSS
of the child (``ru_maxrss`` of ``os.wait4``), wall seconds, seconds to answer the signal, and the
first line of stderr. Exit status 1 when a case used more than 1 GB or took more than a second to
answer its signal.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
MAX_RSS_MB = 1024
MAX_ANSWER_S = 1.0


def run(argv, limit, after, sig):
    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, PYTHONPATH=str(HERE))
    t0 = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "fastsnake", *argv], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=env, preexec_fn=limited, text=True)
    sent = None
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if sig is not None and sent is None and time.perf_counter() - t0 >= after:
            child.send_signal(sig)
            sent = time.perf_counter()
        time.sleep(0.01)
    end = time.perf_counter()
    err = child.stderr.read()
    code = os.waitstatus_to_exitcode(status)
    lines = [ln for ln in err.splitlines() if ln.startswith("fastsnake:") and "compiling" not in ln]
    return {"code": code, "rss_mb": usage.ru_maxrss / 1024, "seconds": end - t0,
            "answer_s": None if sent is None else end - sent, "says": (lines[-1] if lines else "")[:150]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--after", type=float, default=8.0, help="seconds before the signal (default 8)")
    parser.add_argument("--limit-gb", type=float, default=4.0, help="the child's address-space limit (default 4)")
    parser.add_argument("--keep", action="store_true", help="keep the folders written")
    args = parser.parse_args()
    limit = int(args.limit_gb * (1 << 30))
    work = Path(tempfile.mkdtemp(prefix="fastsnake-huge-"))
    base = ["sweep", "--policy", "cycle", "--size", "4"]
    cases = [
        ("10^15 games", [*base, "--games", str(10**15), "--out", str(work / "a")], None),
        ("10^12 games", [*base, "--games", str(10**12), "--out", str(work / "b")], None),
        ("10^9 games, --chunk-size 10", [*base, "--games", str(10**9), "--chunk-size", "10", "--out",
                                         str(work / "c")], None),
        ("10^9 games, SIGINT", [*base, "--games", str(10**9), "--out", str(work / "d")], signal.SIGINT),
        ("10^9 games, --resume, SIGTERM", ["sweep", "--resume", str(work / "d")], signal.SIGTERM),
    ]
    print(f"free on {work}: {shutil.disk_usage(work).free / 1e9:.1f} GB; load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores; limit {args.limit_gb} GB")
    bad = False
    for name, argv, sig in cases:
        got = run(argv, limit, args.after, sig)
        answer = "" if got["answer_s"] is None else f", answered {signal.Signals(sig).name} in {got['answer_s']:.2f} s"
        print(f"{name:32s} exit {got['code']:3d}  peak RSS {got['rss_mb']:7.1f} MB  {got['seconds']:6.1f} s{answer}"
              f"\n    {got['says']}")
        bad |= got["rss_mb"] > MAX_RSS_MB or (got["answer_s"] or 0) > MAX_ANSWER_S
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
