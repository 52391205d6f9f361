"""What a tour study's page shows (`fastsnake report` of `tour compare --out`'s rows file).

The nodes and CPU-seconds per trial of every method (log scale, trials in order of the first
method's nodes), the CPU-second ratios of each method against the first, the success and pairs
tables of `fastsnake tour compare`, and the picked tours, listed by board, piece, start, method
and found, each replayed from the jumps the study kept (``moves``).
"""

from __future__ import annotations

from fastsnake.viewer.study_plots import Parts, per_trial_plot, ratio_plot

# The picked tours' table: (header, key of the page's game entry).
COLUMNS = [["#", "index"], ["board", "board"], ["piece", "piece"], ["start", "start_name"], ["method", "policy"],
           ["found", "found_text"], ["nodes", "nodes"], ["picked as", "why"]]


class _TrialView:
    """A trial as `fastsnake.tour.study.summarize` reads it: its id."""

    def __init__(self, trial_id: str):
        self.id = trial_id


def parts(meta: dict, rows: list[dict]) -> Parts:
    """The tour study's plots, tables and notes, and how its tours are picked."""
    from fastsnake.tour import study as TS

    arms = list(dict.fromkeys((r["method"], r["seed"]) for r in rows))
    trials = list(dict.fromkeys(r["trial_id"] for r in rows))
    study = TS.TourStudy(arms, trials=[_TrialView(t) for t in trials], rows=rows, run_id=str(meta.get("run_id")),
                         options=meta.get("options") or {})
    summary = TS.summarize(study)
    names = [TS.label(m, s) for m, s in arms]
    found = [r for r in rows if r["found"]]
    first = {r["trial_id"]: r["nodes"] for r in found if TS.label(r["method"], r["seed"]) == names[0]}
    order = sorted(trials, key=lambda t: (first.get(t) is None, first.get(t) or 0, str(t)))

    def series(measure):
        return {n: {r["trial_id"]: r[measure] for r in found if TS.label(r["method"], r["seed"]) == n}
                for n in names}

    by = f"{names[0]}'s nodes"
    plots = [("nodes-per-trial", "Nodes per trial", per_trial_plot(
                 "nodes-per-trial", "Nodes per trial (searches)", "nodes", series("nodes"), order, "trial", by)),
             ("cpu-per-trial", "CPU-seconds per trial", per_trial_plot(
                 "cpu-per-trial", "CPU-seconds per trial", "CPU-seconds", series("cpu_seconds"), order, "trial",
                 by))]
    entries = [{"label": f"{p['method']} / {p['baseline']}, CPU-seconds", "ratio": p["cpu_seconds"]["ratio"],
                "ci": p["cpu_seconds"]["ratio_ci95"], "n": p["cpu_seconds"]["n"]} for p in summary["pairs"]]
    if entries:
        plots.append(("ratios", "Ratios", ratio_plot(
            "ratios", "CPU-seconds ratios: geometric mean and 95 % interval, on the trials both found", entries)))
    notes = [f"{len(trials):,} trials, methods {', '.join(names)}; intervals are 95 %"]
    how = dict(TS.PICKABLE, trial="trial_id", noun="trial")
    return Parts(plots, TS.study_tables(summary), notes, how, trials=len(trials),
                 algorithms=list(dict.fromkeys(m["method"] for m in summary["methods"])))


def entry(row: dict, why: str, problems: list[str], meta: dict) -> dict:
    """The player's entry of one picked tour, replayed from its kept jumps (no search): a problem line
    when they are not a tour of the board from the row's start."""
    from fastsnake import webpage
    from fastsnake.tour import study as TS
    from fastsnake.tour.pieces import TourInputError, parse_piece, square_name

    rows, cols = row["rows"], row["cols"]
    cells = rows * cols
    method = TS.label(row["method"], row["seed"])  # the registry says which methods take a seed
    out = {"kind": "tour", "rows": rows, "cols": cols, "piece": row["piece"], "closed": bool(row["closed"]),
           "start": int(row["start"]), "start_name": square_name(int(row["start"]), rows, cols),
           "board": f"{rows}x{cols}", "found": bool(row["found"]), "found_text": "yes" if row["found"] else "no",
           "outcome": "found" if row["found"] else "no tour", "why": [why], "policy": method, "method": method,
           "game": str(row["trial_id"]), "nodes": row["nodes"], "squares": 0, "moves": 0,
           "cell_bytes": webpage.cell_bytes(cells)}
    moves = row.get("moves")
    if moves is None:
        kept = ("the study kept no jumps for this tour (it keeps those its picks can choose)" if "moves" in row
                else "this rows file keeps no tours (written before studies kept them)")
        out["note"] = (f"{kept}; "
                       f"`fastsnake tour --piece {row['piece']} --size {rows}x{cols} --start {out['start_name']} "
                       f"--method {row['method']} --seed {row['seed']}" + (" --closed" if row["closed"] else "")
                       + "` finds it")
        return out
    where = f"trial {row['trial_id']} with {method}"
    try:
        path = TS.tour_path(moves, int(row["start"]), parse_piece(row["piece"]), rows, cols)
    except TourInputError as exc:
        path, said = None, str(exc)
    else:
        said = None if len(set(path)) == len(path) == cells else f"{len(set(path)):,} of {cells:,} squares visited"
    if said is not None:
        problems.append(f"{where}: its kept jumps are not a tour: {said} (the row or the code changed)")
        out["note"] = "its kept jumps are not a tour"
        return out
    out.update(squares=len(path), moves=len(path) - 1, data={"path": webpage.pack_cells(path, cells)})
    return out
