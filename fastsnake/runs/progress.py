"""One progress line on stderr: done/total, rate and an ETA from the finished chunks.

Drawn only on a terminal (`ProgressLine.wanted`); redrawn in place at most `REDRAW_SECONDS` apart,
cleared at the end. The rate and the ETA count the units of the chunks finished in this run (not
those a rerun found finished), so a resumed run's ETA is what is left at today's pace.
"""

from __future__ import annotations

import sys
import time

REDRAW_SECONDS = 0.2


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "ETA ?"
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"ETA {seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"ETA {seconds // 60}m{seconds % 60:02d}s"
    return f"ETA {seconds}s"


def line(label: str, done: int, total: int, fresh: int, elapsed: float, workers: int) -> str:
    """The progress line: ``puzzle study: 37/200 units (18%), 2.5/s, ETA 1m05s, 2 workers``."""
    rate = fresh / elapsed if elapsed > 0 and fresh else None
    eta = (total - done) / rate if rate else None
    share = f" ({100 * done // total}%)" if total else ""
    rate_text = f"{rate:.3g}/s" if rate else "-/s"
    return (f"{label}: {done:,}/{total:,}{share}, {rate_text}, {eta_text(eta)}, "
            f"{workers} worker{'s' if workers != 1 else ''}")


class ProgressLine:
    """``update(done, fresh)`` redraws the line; ``close()`` clears it."""

    def __init__(self, label: str, total: int, workers: int, stream=None):
        self.label, self.total, self.workers = label, total, workers
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.last = 0.0
        self.width = 0

    @staticmethod
    def wanted(stream=None) -> bool:
        stream = stream or sys.stderr
        try:
            return stream.isatty()
        except (AttributeError, ValueError):
            return False

    def update(self, done: int, fresh: int, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < REDRAW_SECONDS:
            return
        self.last = now
        text = line(self.label, done, self.total, fresh, now - self.start, self.workers)
        pad = max(0, self.width - len(text))
        self.width = len(text)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0
