"""A study against a saved baseline: the same trials, algorithm by algorithm, measure by measure.

A baseline is a study's rows file (`fastsnake.study.rows`). Today's run and the baseline pair
trial by trial on a key (a puzzle's instance id); they must describe the same trials (`same_trials`:
the same keys with the same identity, e.g. set, board, start and goal), else `BaselineMismatch`
(bad input) names the first difference. For each algorithm both ran and each measure (nodes,
CPU-seconds), `paired_ratio` gives the geometric mean of today / baseline with its 95 % interval
and Wilcoxon's p; Holm adjusts the p-values across every check. A check is worse when its
interval lies wholly above 1 + tolerance and its adjusted p is below `ALPHA`: significantly more
than the baseline, by more than the tolerance. A comparison that paired nothing is refused
(`BaselineMismatch`), never passed.
"""

from __future__ import annotations

import math

from fastsnake.errors import InputError
from fastsnake.study.stats import holm, p_of, paired_ratio

ALPHA = 0.05
# How much more a measure may need before it counts as worse: deterministic counts (nodes) none,
# CPU-seconds 10 % (timing noise between runs on one machine).
DEFAULT_TOLERANCE = {"nodes": 0.0, "cpu": 0.10}


class BaselineMismatch(InputError):
    """The baseline does not describe today's trials (or no trial pairs); the message says which."""


def same_trials(today: dict, base: dict, what: str = "instance") -> None:
    """`today` and `base` map a trial key to its identity (a dict or tuple); raise
    `BaselineMismatch` naming the first key that is missing on one side or described differently."""
    if not base:
        raise BaselineMismatch("the baseline holds no trials: nothing to compare")
    missing = [k for k in today if k not in base]
    if missing:
        raise BaselineMismatch(f"{what} {missing[0]!r} is not in the baseline "
                               f"({len(missing)} of {len(today)} missing): run the baseline's {what}s")
    extra = [k for k in base if k not in today]
    if extra:
        raise BaselineMismatch(f"the baseline has {what} {extra[0]!r}, which this run lacks "
                               f"({len(extra)} more there): run the baseline's {what}s")
    for key, ident in today.items():
        if base[key] != ident:
            theirs = base[key]
            diff = [f"{k} {theirs.get(k)!r} there, {v!r} here" for k, v in ident.items()
                    if theirs.get(k) != v] if isinstance(ident, dict) else [f"{theirs!r} there, {ident!r} here"]
            raise BaselineMismatch(f"{what} {key!r} differs from the baseline's: " + "; ".join(diff))


def check(today: dict, base: dict, tolerance: dict | None = None) -> dict:
    """The verdict of today against the baseline. `today` and `base` map (algorithm, measure) to
    a list of per-trial values in the same trial order (nan where a trial did not finish); a
    measure's tolerance is looked up by its name's first word (`DEFAULT_TOLERANCE`).

    Returns ``{"checks": [...], "worse": [names], "compared": n}``; each check has ``algorithm``,
    ``measure``, the `paired_ratio` fields, ``p_holm``, ``tolerance`` and ``worse``."""
    tol = dict(DEFAULT_TOLERANCE, **(tolerance or {}))
    checks = []
    for key in today:
        if key not in base:
            continue
        algorithm, measure = key
        paired = paired_ratio(today[key], base[key])
        if paired["n"] == 0:
            raise BaselineMismatch(f"{algorithm} {measure}: no trial finished both here and in the baseline: "
                                   "nothing to compare")
        checks.append({"algorithm": algorithm, "measure": measure, **paired,
                       "tolerance": tol.get(measure.split("_")[0], 0.0)})
    if not checks:
        raise BaselineMismatch("no algorithm of this run is in the baseline: nothing to compare "
                               f"(here: {sorted({a for a, _ in today})}, there: {sorted({a for a, _ in base})})")
    for c, adjusted in zip(checks, holm([p_of(c) for c in checks]), strict=True):
        c["p_holm"] = adjusted
        ci = c["ratio_ci95"]
        c["worse"] = bool(ci is not None and ci[0] > 1 + c["tolerance"] and adjusted is not None
                          and adjusted < ALPHA and not math.isnan(ci[0]))
    worse = [f"{c['algorithm']} {c['measure']} x{c['ratio']:.3g} [{c['ratio_ci95'][0]:.3g}, "
             f"{c['ratio_ci95'][1]:.3g}]" for c in checks if c["worse"]]
    return {"checks": checks, "worse": worse, "compared": sum(c["n"] for c in checks)}
