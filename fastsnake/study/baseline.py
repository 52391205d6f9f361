"""A study against a saved baseline: the same trials, algorithm by algorithm, measure by measure.

A baseline is a study's rows file (`fastsnake.study.rows`). Today's run and the baseline pair trial
by trial on a key (a puzzle's instance id); the trials both hold must be described alike
(`same_trials`: the same identity, e.g. set, board, start and goal), else `BaselineMismatch` (bad
input) names the first difference. `compare_rows` decides with `fastsnake.study.gate` (the one gate
logic, Snake's too) whether every algorithm of the run was compared on the same conditions and
shared trials; a partial comparison is refused unless accepted. For each algorithm both ran and
each measure (nodes, CPU-seconds), `paired_ratio` gives the geometric mean of today / baseline with
its 95 % interval and Wilcoxon's p; Holm adjusts the p-values across every check. A check is worse
when its interval lies wholly above 1 + tolerance and its adjusted p is below `ALPHA`:
significantly more than the baseline, by more than the tolerance. A comparison that paired nothing
is refused (`BaselineMismatch`), never passed.

**The one baseline rule** (every problem: Snake's compare, puzzle and tour studies; the docs'
benchmarks page, "The baseline rule"). A baseline is a claim about the past. It is refused (exit 2)
only for what no change of the compared algorithm can explain: a checksum that does not match;
rows inconsistent with themselves (a summary, a count, a flag that disagrees with the rows) or with
the instance (an optimal length that differs from another optimal search's or the published one,
a tour said impossible where today's search finds one, an outcome the game's rules forbid:
`refuse`); other instances, boards or conditions (`gate`). An algorithm whose behaviour changed
(its code, or what its fingerprint cannot see: parameters in the environment or a file) is compared
and judged (worse: exit 4; else 0), with a line saying that its play or search changed since the
baseline was saved (`changed_line`). No message advises re-saving a baseline.
"""

from __future__ import annotations

import math

from fastsnake.errors import InputError, in_cli_words
from fastsnake.study.stats import holm, p_of, paired_ratio

ALPHA = 0.05
# How much more a measure may need before it counts as worse: deterministic counts (nodes) none,
# CPU-seconds 10 % (timing noise between runs on one machine).
# None: reported, not judged. CPU-seconds move with the machine's load between two runs, so a run judges
# them only when asked (`slower`); node counts are the same on every machine and are judged exactly.
DEFAULT_TOLERANCE = {"nodes": 0.0, "cpu": None}


class BaselineMismatch(InputError):
    """The baseline does not describe today's trials (or no trial pairs); the message says which."""


# How many of a refused baseline's contradictions its message names (the count is whole).
SHOWN_PROBLEMS = 3


def refuse(path, problems, error=BaselineMismatch) -> None:
    """The baseline rule's refusal: raise `error` naming the baseline `path` and the first of
    `problems` (what no change of the compared algorithm can explain: rows that contradict
    themselves or the instance, one line each) when there are any. The message states what the
    file claims and what contradicts it; it never advises re-saving the baseline (a run worse than
    its baseline must not be waved through by a new one)."""
    problems = [p for p in problems if p]
    if not problems:
        return
    shown = "; ".join(problems[:SHOWN_PROBLEMS])
    more = f" (and {len(problems) - SHOWN_PROBLEMS:,} more)" if len(problems) > SHOWN_PROBLEMS else ""
    raise error(f"baseline {str(path)!r} cannot be used: {shown}{more}")


def changed_line(label: str, what: str, evidence: str, *, unseen: bool = False) -> str:
    """The line the baseline rule prints for an algorithm whose behaviour changed since the
    baseline was saved (`what`: ``"play"``, ``"search"``; `evidence`: which trials differ).
    `unseen`: its code fingerprint is the one the baseline recorded, so what changed is outside
    the code it covers (parameters in the environment or a file)."""
    why = (": its code fingerprint is the baseline's, so something the fingerprint cannot see changed "
           "(parameters in the environment or a file)" if unseen else "")
    return f"{label}: its {what} changed since the baseline was saved ({evidence}){why}; judged as it is now"


def changed_trials(run_by: dict, base_by: dict, fields) -> list:
    """The trial ids both hold whose `fields` differ (deterministic results: equal code, equal
    values; or `fields(today_row, base_row)`, true where they differ), in the run's order."""
    differ = fields if callable(fields) else (lambda r, b: any(r.get(f) != b.get(f) for f in fields))
    return [t for t, r in run_by.items() if t in base_by and differ(r, base_by[t])]


def same_trials(today: dict, base: dict, what: str = "instance") -> None:
    """`today` and `base` map a trial key to its identity (a dict or tuple); raise
    `BaselineMismatch` when the baseline holds no trial, shares none with today, or describes a
    shared key differently (naming the first). Trials on one side only are the gate's matter
    (`compare_rows`: a partial comparison is refused unless accepted)."""
    if not base:
        raise BaselineMismatch("the baseline holds no trials: nothing to compare")
    shared = [k for k in today if k in base]
    if not shared:
        raise BaselineMismatch(f"the {what}s of this run are not in the baseline (none of {len(today):,} here; "
                               f"{len(base):,} there, e.g. {next(iter(base))!r}): run the baseline's {what}s")
    for key in shared:
        ident, theirs = today[key], base[key]
        if theirs != ident:
            diff = [f"{k} {theirs.get(k)!r} there, {v!r} here" for k, v in ident.items()
                    if theirs.get(k) != v] if isinstance(ident, dict) else [f"{theirs!r} there, {ident!r} here"]
            raise BaselineMismatch(f"{what} {key!r} differs from the baseline's: " + "; ".join(diff))


def gate(run_ids: dict, base_ids: dict, *, conditions=(), run_conditions=None, base_conditions=None,
         allow_partial: bool = False, words=("algorithm", "instance")):
    """The gate's pairings (`fastsnake.study.gate.pair_runs`) of a run's algorithms (``run_ids``:
    label -> the ids of its trials, any hashable) with a baseline's (the same shape), on the same
    `conditions` (``run_conditions`` / ``base_conditions``: label -> {condition: value}); raises
    `BaselineMismatch` with `gate_problem`'s line when the gate must refuse (a partial comparison
    unless `allow_partial`, or nothing comparable at all). Usable before a run (the algorithms and
    trials it will play) and after it (`compare_rows`)."""
    from fastsnake.study.gate import gate_problem, pair_runs, refusal

    numbering: dict = {}
    for ids in (*run_ids.values(), *base_ids.values()):
        for t in ids:
            numbering.setdefault(t, len(numbering))
    run_cond = run_conditions or {k: {} for k in run_ids}
    base_cond = base_conditions or {k: {} for k in base_ids}
    pairings = pair_runs(run_cond, base_cond, conditions, {k: [numbering[t] for t in v] for k, v in run_ids.items()},
                         {k: [numbering[t] for t in v] for k, v in base_ids.items()}, noun=words[1])
    problem = gate_problem(pairings, allow_partial=allow_partial, words=words)
    if problem is not None:
        raise refusal(BaselineMismatch, f"baseline: {problem}")
    return pairings


def compare_rows(today: list[dict], base: list[dict], *, key, trial, measures, conditions=("options",),
                 allow_partial: bool = False, words=("algorithm", "instance"), slower: float | None = None,
                 same=(), what: str = "search", stopped=None, require_all: bool = False) -> dict:
    """Today's rows against a baseline's, with the one gate logic (`fastsnake.study.gate`): every
    algorithm of today (``key(row)``, a label) must be in the baseline on the same `conditions`
    (row fields, e.g. the options) and every trial of today (``trial(row)``) among the baseline's,
    else `BaselineMismatch` naming what was not compared, unless `allow_partial` (even then at
    least one algorithm must pair). Each compared algorithm's `measures(label)` (``[(name,
    value(row))]``: nan where a trial did not finish) are then judged by `check` on the trials both
    ran (CPU-seconds judged only with a share `slower`, worse beyond it; else reported).

    The baseline rule (module docstring): an algorithm whose deterministic results `same` (row
    fields: equal code, equal values) differ on a shared trial is judged all the same, with
    `changed_line` in ``changed``. A row `stopped(row)` (a search stopped at ``--stop-at`` times
    the baseline's nodes) makes its algorithm worse outright. The baseline's trials and
    algorithms this run did not run are counted (``not_run``); with `require_all` any is a
    `BaselineMismatch`, unless the run is worse anyway (its remaining trials were not needed).

    Returns `check`'s verdict plus ``coverage`` (`fastsnake.study.gate.coverage`), ``unmatched``
    (one line per algorithm or trials left out), ``changed``, ``stopped`` (label -> count),
    ``not_run`` and ``headline`` (how many were compared)."""
    from fastsnake.study.gate import coverage

    def group(rows):
        cond, ids, by = {}, {}, {}
        for r in rows:
            k = key(r)
            cond.setdefault(k, {c: r.get(c) for c in conditions})
            ids.setdefault(k, []).append(trial(r))
            by.setdefault(k, {})[trial(r)] = r
        return cond, ids, by

    run_cond, run_ids, run_by = group(today)
    base_cond, base_ids, base_by = group(base)
    pairings = gate(run_ids, base_ids, conditions=conditions, run_conditions=run_cond, base_conditions=base_cond,
                    allow_partial=allow_partial, words=words)
    mine, theirs, changed, stops = {}, {}, [], {}
    for p in pairings:
        if not p.compared:
            continue
        order = list(dict.fromkeys(run_ids[p.key]))
        for name, value in measures(p.key):
            mine[(p.key, name)] = [value(run_by[p.key][t]) for t in order]
            theirs[(p.key, name)] = [value(base_by[p.key][t]) if t in base_by[p.key] else math.nan for t in order]
        differ = changed_trials(run_by[p.key], base_by[p.key], same) if same else []
        if differ:
            shared = sum(t in base_by[p.key] for t in order)
            changed.append(changed_line(p.label, what, f"{len(differ):,} of {shared:,} {words[1]}s differ, "
                                                       f"e.g. {differ[0]}"))
        n_stopped = sum(bool(stopped(r)) for r in run_by[p.key].values()) if stopped is not None else 0
        if n_stopped:
            stops[p.label] = n_stopped
    verdict = check(mine, theirs, None if slower is None else {"cpu": float(slower)})
    for label, n in stops.items():
        verdict["worse"].append(f"{label} stopped past its node limit from the baseline on {n:,} {words[1]}"
                                f"{'s' if n != 1 else ''} (--stop-at)")
    cov = coverage(pairings)
    run_trials = {t for ids in run_ids.values() for t in ids}
    base_trials = list(dict.fromkeys(t for ids in base_ids.values() for t in ids))
    missing = [t for t in base_trials if t not in run_trials]
    absent = [k for k in base_ids if k not in run_ids]
    not_run = {f"{words[1]}s": len(missing), f"{words[1]}s_total": len(base_trials), f"{words[0]}s": absent}
    verdict.update(coverage=cov, changed=changed, stopped=stops, not_run=not_run)
    verdict["unmatched"] = ([f"{p.label} ({', '.join(p.reasons)})" for p in pairings if not p.compared]
                            + [f"{p.run_count - p.shared:,} of the {p.run_count:,} {words[1]}s of {p.label} "
                               "(not in the baseline)" for p in pairings if p.partial])
    unchecked = (f"; {len(missing):,} of the baseline's {len(base_trials):,} {words[1]}s not run"
                 + (f" (e.g. {missing[0]})" if missing else "")) if missing else ""
    unchecked += f"; the baseline's {', '.join(map(str, absent))} not run" if absent else ""
    verdict["headline"] = (f"compared {cov['keys']} of {cov['keys_total']} {words[0]}s on "
                           f"{cov['instances']:,} of {cov['instances_total']:,} {words[1]} runs" + unchecked
                           + (f" ({', '.join(verdict['not_judged'])} reported, not judged: no share given for them)"
                              if verdict["not_judged"] else ""))
    if require_all and (missing or absent) and not verdict["worse"]:
        raise require_all_refusal(f"baseline: only part of it was checked{unchecked}")
    return verdict


def require_all_problem(run_trials, base_trials, run_keys=(), base_keys=(), words=("algorithm", "instance")):
    """Before a run with ``--require-all``: the line naming the baseline's trials (and algorithms)
    the run will not run, or None."""
    run_trials, run_keys = set(run_trials), set(run_keys)
    missing = [t for t in dict.fromkeys(base_trials) if t not in run_trials]
    absent = [k for k in dict.fromkeys(base_keys) if run_keys and k not in run_keys]
    if not missing and not absent:
        return None
    parts = ([f"{len(missing):,} of the baseline's {len(set(base_trials)):,} {words[1]}s (e.g. {missing[0]})"]
             if missing else []) + ([f"its {words[0]}s {', '.join(map(str, absent))}"] if absent else [])
    return f"baseline: this run would not run {' and '.join(parts)}"


def require_all_refusal(problem: str) -> BaselineMismatch:
    """`BaselineMismatch` carrying a ``require_all`` `problem`, in the library's and the CLI's words."""
    return in_cli_words(BaselineMismatch(problem + " (require_all)"), problem + " (--require-all)")


def check(today: dict, base: dict, tolerance: dict | None = None, floor: dict | None = None) -> dict:
    """The verdict of today against the baseline. `today` and `base` map (algorithm, measure) to
    a list of per-trial values in the same trial order (nan where a trial did not finish); a
    measure's tolerance is looked up by its name's first word (`DEFAULT_TOLERANCE`). A judged
    CPU-seconds check within the machine's noise `floor` (`fastsnake.study.noise`, measured when
    not given) is never worse (``below_floor``).

    Returns ``{"checks": [...], "worse": [names], "compared": n}``; each check has ``algorithm``,
    ``measure``, the `paired_ratio` fields, ``p_holm``, ``tolerance`` and ``worse``."""
    from fastsnake.study.noise import cpu_noise_floor, judge_cpu

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
        checks[-1]["judged"] = checks[-1]["tolerance"] is not None
        if measure.startswith("cpu") and checks[-1]["judged"]:
            floor = floor if floor is not None else cpu_noise_floor()
            checks[-1] = judge_cpu(checks[-1], today[key], base[key], floor)
    if not checks:
        raise BaselineMismatch("no algorithm of this run is in the baseline: nothing to compare "
                               f"(here: {sorted({a for a, _ in today})}, there: {sorted({a for a, _ in base})})")
    judged = [c for c in checks if c["judged"]]
    for c in checks:
        c["p_holm"], c["worse"] = None, False
    for c, adjusted in zip(judged, holm([p_of(c) for c in judged]), strict=True):
        c["p_holm"] = adjusted
        ci = c["ratio_ci95"]
        c["worse"] = bool(ci is not None and ci[0] > 1 + c["tolerance"] and adjusted is not None
                          and adjusted < ALPHA and not math.isnan(ci[0]) and not c.get("below_floor"))
    worse = [f"{c['algorithm']} {c['measure']} x{c['ratio']:.3g} [{c['ratio_ci95'][0]:.3g}, "
             f"{c['ratio_ci95'][1]:.3g}]" for c in checks if c["worse"]]
    not_judged = sorted({c["measure"] for c in checks if not c["judged"]})
    return {"checks": checks, "worse": worse, "compared": sum(c["n"] for c in checks), "not_judged": not_judged}
