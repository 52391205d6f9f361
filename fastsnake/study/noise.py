"""The floor below which a difference of CPU-seconds is noise, measured on this machine.

Comparisons of CPU-seconds (tour methods, puzzle heuristics) pair runs trial by trial, and with
enough trials Wilcoxon's test calls a difference of a tenth of a millisecond "significant" although
no run of the same search twice gives the same time to that precision. `cpu_noise_floor` measures
two limits once per process: the process timer's resolution (the smallest step it shows, read in a
tight loop, and what the clock says of itself), and the run-to-run noise of one fixed piece of work
timed `FLOOR_REPEATS` times (its spread, 10th to 90th percentile: absolute, in seconds, and
relative to its median).
`judge_cpu` marks a paired CPU ratio ``below_floor`` when its trials' median absolute difference
is under the absolute floor or its 95 % interval lies within the relative band
``[1 / (1 + r), 1 + r]``; such a comparison is never called significant, whatever its p-value.
Deterministic measures (node counts) need no floor: prefer them where a problem has them.
"""

from __future__ import annotations

import functools
import time

import numpy as np

# Timings of the fixed work, and how long each lasts (about): a search's order of magnitude.
FLOOR_REPEATS = 15
WORK_ITEMS = 20_000
# Reads of the timer to find its step (at most this many, or `RESOLUTION_SECONDS` of CPU).
RESOLUTION_READS = 200_000
RESOLUTION_SECONDS = 0.02


def timer_resolution() -> float:
    """The process timer's step in seconds: the larger of what the clock reports and the smallest
    positive difference between consecutive reads seen in a tight loop."""
    said = time.get_clock_info("process_time").resolution
    seen = float("inf")
    t0 = last = time.process_time()
    for _ in range(RESOLUTION_READS):
        now = time.process_time()
        if now != last:
            seen = min(seen, now - last)
            last = now
        if now - t0 > RESOLUTION_SECONDS:
            break
    return float(max(said, seen if seen != float("inf") else said))


def _work() -> int:
    total = 0
    for k in range(WORK_ITEMS):
        total += k * k % 7
    return total


@functools.lru_cache(maxsize=1)
def cpu_noise_floor(repeats: int = FLOOR_REPEATS) -> dict:
    """``{"timer_resolution", "noise_seconds", "noise_relative", "abs_seconds", "relative",
    "repeats", "work_seconds", "method", "text"}``: the timer's step; the spread (10th to 90th
    percentile) of
    `repeats` timings of one fixed piece of work, in seconds and as a share of their median; the
    floors `judge_cpu` uses (absolute: the larger of the step and the spread; relative: the
    spread's share). Measured once per process (about 50 ms)."""
    resolution = timer_resolution()
    samples = []
    for _ in range(repeats):
        c0 = time.process_time()
        _work()
        samples.append(time.process_time() - c0)
    a = np.asarray(samples)
    median = float(np.median(a))
    lo, hi = np.percentile(a, [10, 90])
    spread = float(hi - lo)
    relative = spread / median if median > 0 else 1.0
    floor = max(resolution, spread)
    return {"timer_resolution": resolution, "noise_seconds": spread, "noise_relative": relative,
            "abs_seconds": floor, "relative": relative, "repeats": int(repeats), "work_seconds": median,
            "method": f"timer step read in a tight loop; spread (10th to 90th percentile) of {repeats} timings "
                      f"of a fixed {median * 1e3:.2g} ms piece of work",
            "text": f"{floor * 1e3:.3g} ms or {relative:.1%} (timer step {resolution * 1e6:.3g} us, spread of "
                    f"{repeats} timings of a {median * 1e3:.2g} ms work)"}


def judge_cpu(paired: dict, this, base, floor: dict | None) -> dict:
    """`paired` (`fastsnake.study.stats.paired_ratio` of CPU-seconds `this` / `base`, per trial,
    nan where missing) with ``median_abs_difference`` (seconds, over the trials both have),
    ``below_floor`` (the difference is within `floor`, `cpu_noise_floor`'s: never significant)
    and ``floor`` (its text)."""
    a, b = np.asarray(this, dtype=float), np.asarray(base, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    diff = float(np.median(np.abs(a[ok] - b[ok]))) if ok.any() else None
    out = dict(paired, median_abs_difference=diff)
    if floor is None:
        out.update(below_floor=None, floor=None)
        return out
    ci, rel = paired.get("ratio_ci95"), floor["relative"]
    within = ci is not None and ci[0] >= 1 / (1 + rel) and ci[1] <= 1 + rel
    out.update(below_floor=bool(diff is None or diff < floor["abs_seconds"] or within), floor=floor["text"])
    return out


def significant(r: dict, alpha: float = 0.05) -> bool:
    """A paired ratio is significant when its Holm-adjusted p is below `alpha`, its ratio is not 1
    and (CPU-seconds) it is not within the noise floor (``below_floor``)."""
    p = r.get("p_holm")
    return bool(p is not None and p < alpha and r.get("ratio") not in (None, 1.0) and not r.get("below_floor"))
