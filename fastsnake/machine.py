"""A one-line description of the machine a run happened on, for records and reports."""

from __future__ import annotations

import os
import platform
from functools import lru_cache


@lru_cache(maxsize=1)
def describe() -> str:
    """E.g. ``"AMD EPYC 7B13, 2 cores, Linux x86_64, Python 3.11.7"`` (no host name: reports travel)."""
    model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    parts = [model or platform.machine() or "unknown CPU", f"{cores} core{'s' if cores != 1 else ''}",
             f"{platform.system()} {platform.machine()}".strip(), f"Python {platform.python_version()}"]
    return ", ".join(p for p in parts if p)
