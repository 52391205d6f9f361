"""What a puzzle study's page shows (`fastsnake report` of `puzzle compare --out`'s rows file).

Per instance, the nodes generated and the CPU-seconds of every heuristic (log scale, instances in
order of the first heuristic's nodes); the ratios of each pair (geometric mean with its 95 %
interval); the statistics tables of `fastsnake puzzle compare`; and the picked solutions, listed
by instance, heuristic, length, optimal and nodes, each replayed from the moves the study kept
(``moves``, letters U D L R). A solution of a heuristic found inadmissible reads "not optimal",
with the reason, in the table and the player.
"""

from __future__ import annotations

import json

from fastsnake.viewer.study_plots import Parts, per_trial_plot, ratio_plot

# The picked solutions' table: (header, key of the page's game entry).
COLUMNS = [["#", "index"], ["instance", "game"], ["heuristic", "heuristic"], ["length", "moves"],
           ["optimal", "optimal_text"], ["nodes", "nodes"], ["picked as", "why"]]


def inadmissible_marks(meta: dict, rows: list[dict]) -> list[str]:
    """One line per heuristic with solved rows marked non-optimal that the study's admissibility
    record (the footer's ``admissibility``) found inadmissible, saying what was seen; nothing for a
    heuristic it recorded nothing against (a file that says so is damaged: `study_report.study_problems`)."""
    seen = meta.get("admissibility") or {}
    marks = []
    for name in dict.fromkeys(r["heuristic"] for r in rows):
        solved = [r for r in rows if r["heuristic"] == name and r["status"] == "solved"]
        e = seen.get(name) if isinstance(seen.get(name), dict) else {}
        # a finding the study's own search recorded, never one guessed from the flags
        if not solved or all(r["optimal"] for r in solved) or e.get("admissible") is not False:
            continue
        why = []
        if e.get("sample_violations"):
            v = e["violations"][0]
            why.append(f"{e['sample_violations']:,} of {e['samples']:,} sampled states above their true distance "
                       f"(e.g. h {v['h']}, distance {v['distance']})")
        if e.get("longer_path_count"):
            f = e["longer_paths"][0]
            why.append(f"{e['longer_path_count']:,} paths longer than the optimum (e.g. instance {f['instance_id']}: "
                       f"{f['length']} moves, optimum {f['optimal_length']})")
        marks.append(f"{name} is not admissible" + (f": {'; '.join(why)}" if why else "")
                     + f"; its {len(solved):,} solutions are marked non-optimal (optimal=false)")
    return marks


def parts(meta: dict, rows: list[dict]) -> Parts:
    """The puzzle study's plots, tables, notes and marks, and how its solutions are picked."""
    from fastsnake.puzzle import study as PS

    heuristics = list(dict.fromkeys(r["heuristic"] for r in rows))
    instances = {}
    for r in rows:
        instances.setdefault(r["instance_id"], PS.Instance(
            r["instance_set"], r["instance_id"], r["rows"], r["cols"], tuple(int(t) for t in r["start"].split()),
            tuple(int(t) for t in r["goal"].split()), r["published_length"]))
    built = {(r["heuristic"], r["rows"], r["cols"], r["goal"]): (r["table_cpu_seconds"], None) for r in rows}
    study = PS.Study(heuristics, list(instances.values()), rows=rows, run_id=str(meta.get("run_id")),
                     options=meta.get("options") or {}, table_cpu_seconds=built)
    summary = PS.summarize(study)  # each heuristic against the first, as `puzzle compare` prints it
    solved = [r for r in rows if r["status"] == "solved"]
    first = {r["instance_id"]: r["nodes_generated"] for r in solved if r["heuristic"] == heuristics[0]}
    order = sorted(instances, key=lambda i: (first.get(i) is None, first.get(i) or 0, str(i)))

    def series(measure):
        return {h: {r["instance_id"]: r[measure] for r in solved if r["heuristic"] == h} for h in heuristics}

    by = f"{heuristics[0]}'s nodes generated"
    plots = [("nodes-per-instance", "Nodes generated per instance", per_trial_plot(
                 "nodes-per-instance", "Nodes generated per instance", "nodes generated",
                 series("nodes_generated"), order, "instance", by)),
             ("cpu-per-instance", "CPU-seconds per instance", per_trial_plot(
                 "cpu-per-instance", "CPU-seconds per search, per instance", "CPU-seconds",
                 series("cpu_seconds"), order, "instance", by))]
    entries = []
    for pair in summary["pairs"]:
        for m in PS.RATIO_MEASURES:
            p = pair[m]
            entries.append({"label": f"{pair['heuristic']} / {pair['baseline']}, {m.replace('_', ' ')}",
                            "ratio": p["ratio"], "ci": p["ratio_ci95"], "n": p["n"]})
    if entries:
        plots.append(("ratios", "Ratios", ratio_plot(
            "ratios", "Per-instance ratios: geometric mean and 95 % interval, on the instances both solved",
            entries)))
    board = f"{rows[0]['rows']}x{rows[0]['cols']}"
    notes = [f"{len(instances):,} instances of {rows[0]['instance_set']} ({board}), heuristics "
             f"{', '.join(heuristics)}; CPU-seconds per search, tables built apart; intervals are 95 %"]
    threaded = [r for r in rows if (r.get("threads") or 1) > 1]
    if threaded:  # the tail of a run on workers (`fastsnake.runs.spare_cores`)
        notes.append(f"{len(threaded):,} search{'es' if len(threaded) > 1 else ''} ran on several threads (up to "
                     f"{max(r['threads'] for r in threaded)}: the study's tail, on its idle workers' cores); "
                     "CPU-seconds are every thread's, nodes and moves those of one thread")
    marks = inadmissible_marks(meta, rows)
    how = dict(PS.PICKABLE, trial="instance_id", noun="instance")
    return Parts(plots, PS.study_tables(summary), notes + marks, how, trials=summary["instances"],
                 algorithms=list(summary["heuristics"]), marks=marks)


def _optimal_text(row: dict, meta: dict) -> str:
    """"yes", or why not: the heuristic the study found inadmissible."""
    if row["optimal"]:
        return "yes"
    seen = (meta.get("admissibility") or {}).get(row["heuristic"])
    if seen is not None and not seen.get("admissible", True):
        return f"no: {row['heuristic']} is not admissible"
    return "no"


def entry(row: dict, why: str, problems: list[str], meta: dict) -> dict:
    """The player's entry of one picked row, replayed from its kept moves (no search): a problem line
    when they do not take the start to the goal in the row's length."""
    from fastsnake.puzzle.board import PuzzleInputError, apply_moves

    start = [int(t) for t in row["start"].split()]
    goal = [int(t) for t in row["goal"].split()]
    where = f"{row['instance_set']} {row['instance_id']} with {row['heuristic']}/{row['algorithm']}"
    out = {"kind": "puzzle", "rows": row["rows"], "cols": row["cols"], "moves": row["length"],
           "optimal": bool(row["optimal"]), "optimal_text": _optimal_text(row, meta), "outcome": "solved",
           "why": [why], "policy": f"{row['heuristic']}/{row['algorithm']}", "heuristic": row["heuristic"],
           "game": str(row["instance_id"]), "instance": str(row["instance_id"]), "nodes": row["nodes_generated"],
           "instance_set": row["instance_set"]}
    moves = row.get("moves")
    if moves is None:
        options = json.loads(row.get("options") or "{}")
        kept = ("the study kept no moves for this solution (it keeps those its picks can choose)" if "moves" in row
                else "this rows file keeps no moves (written before studies kept them)")
        out["note"] = (f"{kept}; "
                       f"`fastsnake puzzle solve --size {row['rows']}x{row['cols']} --start '{row['start']}' "
                       f"--goal '{row['goal']}' --heuristic {row['heuristic']} --algorithm {row['algorithm']}` "
                       "finds it" + (f" (options {options})" if options else ""))
        return out
    try:
        end = [int(t) for t in apply_moves(start, moves, row["rows"], row["cols"])]
    except PuzzleInputError as exc:
        end, said = None, str(exc)
    else:
        said = None
    if end != goal or len(moves) != row["length"]:
        problems.append(f"{where}: its kept moves ({len(moves)}) "
                        + (f"do not replay: {said}" if said else "do not take the start to the goal"
                           if end != goal else f"are not the row's length {row['length']}")
                        + " (the row or the code changed)")
        out["note"] = "its kept moves do not replay to the goal"
        return out
    out["data"] = {"rows": row["rows"], "cols": row["cols"], "start": start, "goal": goal, "moves": moves}
    return out
