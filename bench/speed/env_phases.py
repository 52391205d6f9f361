"""The speed guard's env path, timed again and again in one process: how much the machine's speed
moves for a memory-bound path (same code, same kind of games), with page faults and system time, so a
slow phase can be told from work that changed.

Run: .venv/bin/python bench/speed/env_phases.py [--blocks 14] [--pause 1.0]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import guard  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=14, help="blocks of 5 runs of the env path")
    parser.add_argument("--pause", type=float, default=1.0, help="seconds of sleep between blocks")
    args = parser.parse_args(argv)
    guard._one_thread()
    _, run = guard.env_path()
    run()
    rates = []
    for _ in range(args.blocks):
        before = resource.getrusage(resource.RUSAGE_SELF)
        best = max(work / cpu for work, cpu in (run() for _ in range(5)))
        after = resource.getrusage(resource.RUSAGE_SELF)
        rates.append(best)
        print(f"env step grid: {best / 1e6:6.2f} M env steps/CPU-s (best of 5 runs); page faults "
              f"{after.ru_minflt - before.ru_minflt + after.ru_majflt - before.ru_majflt}, system CPU "
              f"{after.ru_stime - before.ru_stime:.3f} s", flush=True)
        time.sleep(args.pause)
    print(f"range {min(rates) / 1e6:.2f}..{max(rates) / 1e6:.2f} M ({max(rates) / min(rates):.2f}x) over "
          f"{args.blocks} blocks")


if __name__ == "__main__":
    main()
