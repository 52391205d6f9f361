"""`main(PARTS)`: the interpreted tier's background compile, in a process of its own.

Started detached by `fastsnake.warm.tier` (own session, stdout and stderr in the log file). One
runs at a time: the runner holds `tier.LOCK_FILE` while it compiles; a process started meanwhile
queues its parts (`QUEUE_FILE`) for the runner and exits. The runner releases its lock only while
holding the queue's lock, after finding the queue empty, so no queued part is ever left behind.
Niced, so that the command the user waits for keeps the cores.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from contextlib import contextmanager

NICENESS = 10
QUEUE_FILE = "background-queue.json"
QUEUE_LOCK = "background-queue.lock"


@contextmanager
def _locked(path):
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def main(parts: list[str]) -> int:
    from fastsnake.warm import ahead, store, tier

    root = store.cache_root()
    root.mkdir(parents=True, exist_ok=True)
    runner = open(root / tier.LOCK_FILE, "a")  # noqa: SIM115 - held across the loop below
    with _locked(root / QUEUE_LOCK):
        try:
            fcntl.flock(runner, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            queued = store.read_json(QUEUE_FILE).get("parts", [])
            store.write_json(QUEUE_FILE, {"parts": list(dict.fromkeys([*queued, *parts]))})
            _log(f"queued {' '.join(parts)} behind the compile running now")
            return 0
    try:
        os.nice(NICENESS)
    except OSError:
        pass
    failed = False
    while parts:
        _log(f"compiling {' '.join(parts)} (pid {os.getpid()})")
        report = ahead.warm(parts, jobs=1)
        for row in report["parts"]:
            failed |= bool(row["error"])
            state = f"failed: {row['error']}" if row["error"] else "cached" if row["cached"] else "compiled"
            _log(f"{row['part']}: {state} in {row['seconds']:.1f} s")
        with _locked(root / QUEUE_LOCK):
            parts = store.read_json(QUEUE_FILE).get("parts", [])
            store.write_json(QUEUE_FILE, {"parts": []})
            if not parts:
                fcntl.flock(runner, fcntl.LOCK_UN)
    runner.close()
    return 1 if failed else 0


def _log(text: str) -> None:
    sys.stdout.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {text}\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
