"""The regression gate's decision, whatever the problem: which algorithms of a run were compared
with their saved baseline, and why the others were not.

A run and a baseline each hold, per *key* (an algorithm on an instance set, e.g. a Snake policy on
a board, or a puzzle solver on a board size), the *conditions* its results depend on (seeds,
rules, options, caps) and the ids of its instances (game indices, puzzle ids). A key is compared
only when the baseline has it, every condition agrees and every instance of the run is in the
baseline; `pair_runs` says which, `gate_problem` turns the pairings into the one line a gate
refuses with (or None). Snake's `check_baseline` uses both; puzzle and tour studies can too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# How much of a value a reason quotes (a baseline is a file a user may have edited).
SHOWN_CHARS = 60


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."


@dataclass(frozen=True)
class Pairing:
    """One key of the run against the baseline: ``reasons`` why it cannot be compared at all
    (empty when it can), the instance counts of the run, the baseline and both (``shared``);
    ``partial`` when only some of the run's instances are in the baseline."""

    key: tuple
    label: str
    run_count: int
    baseline_count: int
    shared: int
    reasons: tuple[str, ...] = field(default=())

    @property
    def compared(self) -> bool:
        return not self.reasons

    @property
    def partial(self) -> bool:
        return self.compared and self.shared < self.run_count


def pair_runs(run: dict, baseline: dict, conditions, run_ids: dict, baseline_ids: dict, *, label=str,
              noun: str = "instance") -> list[Pairing]:
    """The pairing of every key of `run` (``{key: {condition: value}}``) with `baseline` (the same
    shape): not comparable when the key is not in the baseline, a condition of `conditions`
    differs (both values named) or no instance is in common (``run_ids[key]`` and
    ``baseline_ids[key]``, arrays of integer ids); partial when only some of the run's instances
    are in the baseline. `label(key)` words a key, `noun` an instance, in the reasons."""
    held = ", ".join(label(k) for k in list(baseline)[:4]) + (", ..." if len(baseline) > 4 else "")
    out = []
    for key, mine in run.items():
        ids = np.unique(np.asarray(run_ids.get(key, ()), dtype=np.int64))
        theirs = baseline.get(key)
        if theirs is None:
            out.append(Pairing(key, label(key), len(ids), 0, 0, (f"not in the baseline (it holds {held})",)))
            continue
        saved = np.unique(np.asarray(baseline_ids.get(key, ()), dtype=np.int64))
        shared = int(np.intersect1d(ids, saved, assume_unique=True).size)
        reasons = [f"{name} differs (run {_shown(mine.get(name))}, baseline {_shown(theirs.get(name))})"
                   for name in conditions if mine.get(name) != theirs.get(name)]
        if not reasons and shared == 0:
            reasons.append(f"no {noun} in common (run {len(ids):,}, baseline {len(saved):,})")
        out.append(Pairing(key, label(key), len(ids), len(saved), shared, tuple(reasons)))
    return out


def coverage(pairings: list[Pairing]) -> dict:
    """How much of the run was compared: ``{"keys", "keys_total", "instances", "instances_total"}``."""
    return {"keys": sum(p.compared for p in pairings), "keys_total": len(pairings),
            "instances": sum(p.shared for p in pairings if p.compared),
            "instances_total": sum(p.run_count for p in pairings)}


def gate_problem(pairings: list[Pairing], *, allow_partial: bool = False,
                 words=("algorithm", "instance")) -> str | None:
    """Why the gate must refuse (one line), or None: a key not compared or compared on only some
    of its instances (unless `allow_partial`), or nothing compared at all (even with it: a gate
    that compared nothing has nothing to say). `words` names a key and an instance ("policy",
    "game")."""
    missed = [f"{p.label}: {', '.join(p.reasons)}" for p in pairings if not p.compared]
    missed += [f"{p.label}: only {p.shared:,} of the run's {p.run_count:,} {words[1]}s are in the baseline"
               for p in pairings if p.partial]
    if not missed:
        return None
    what = "; ".join(missed)
    if coverage(pairings)["keys"] == 0:
        return f"no {words[0]} of the run could be compared with the baseline ({what})"
    if allow_partial:
        return None
    return f"the run is not wholly in the baseline ({what}); a partial comparison must be accepted explicitly"


def refusal(error, problem: str):
    """`error` (an exception class) carrying `problem` (`gate_problem`'s line), worded for the
    library (``allow_partial=True``) and for the command line (``--allow-partial``) when a partial
    comparison could be accepted."""
    from fastsnake.errors import in_cli_words

    partial = "explicitly" in problem
    return in_cli_words(error(problem + (" (allow_partial=True)" if partial else "")),
                        problem + (" (--allow-partial)" if partial else ""))
