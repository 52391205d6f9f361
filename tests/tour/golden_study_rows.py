"""Write (or print) `golden/study_rows.json`: the rows (and the summary's success rates and nodes) of
`STUDIES`, small tour studies, as `fastsnake tour compare` writes them: the reference that
`test_tour_study.py` holds `run_study` to on 1 and 2 workers (issue 61 moved every trial's work into
the workers: the rows must stay those of the code before it, every column but the measured ones).

Run from a checkout whose rows are the reference: ``python tests/tour/golden_study_rows.py --write``
(it records the commit; with ``PYTHONPATH=DIR`` on a copy of another commit's ``fastsnake/`` in DIR,
say ``--commit C``). Searches run with no time limit (a node limit where one is asked), so the rows
are the same on any machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden" / "study_rows.json"
# Columns a run measures or stamps: not part of the reference.
MEASURED = ("cpu_seconds", "run_id", "fastsnake_version")
# (pieces, sizes, closed, methods, seeds, max_nodes)
STUDIES = [
    (["knight"], [(3, 4), (5, 5), (6, 6)], False, "search,construct", (0, 1), None),
    (["knight"], [(6, 6), (5, 6)], True, "search,construct", (0, 1), None),
    (["1,3", "1,2;0,1"], [(6, 6)], False, "search", (0,), 2000),
    (["knight"], [(6, 6)], True, "search", (0, 1), 40),  # some searches stop at the node limit
]


def study_rows(study, workers: int = 1) -> dict:
    """One study of `STUDIES` run on `workers` processes: its rows file's rows (the measured columns
    left out) and, per arm and board, the summary's counts, success rate and nodes."""
    from fastsnake.tour import study as TS

    pieces, sizes, closed, methods, seeds, max_nodes = study
    trials = TS.trials(sizes, pieces, closed)
    run = TS.run_study(trials, TS.check_methods(methods, list(seeds)), time_limit=None, max_nodes=max_nodes,
                       workers=workers)
    rows = [{k: v for k, v in r.items() if k not in MEASURED} for r in TS.rows_table(run.rows).to_pylist()]
    summary = TS.summarize(run, noise_floor={"abs_seconds": 0.0, "relative": 0.0, "text": "none"})
    kept = ("method", "board", "piece", "trials", "applicable", "impossible", "possible", "found", "success_rate",
            "success_rate_ci95", "nodes")
    return {"rows": rows, "methods": [{k: m[k] for k in kept} for m in summary["methods"]],
            "impossible": summary["impossible"]}


def answers(workers: int = 1) -> list:
    return [{"study": json.loads(json.dumps(study)), **study_rows(study, workers)} for study in STUDIES]


if __name__ == "__main__":
    import fastsnake

    # the commit of the code that made the rows (`--commit C` when it is a copy outside a checkout)
    commit = (sys.argv[sys.argv.index("--commit") + 1] if "--commit" in sys.argv else
              subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(fastsnake.__file__).parent).stdout.strip())
    doc = {"made_by": "python tests/tour/golden_study_rows.py --write", "commit": commit}
    parts = []
    for entry in answers():
        rows = ",\n".join(json.dumps(r, separators=(",", ":")) for r in entry.pop("rows"))
        parts.append(json.dumps(entry, separators=(",", ":"))[:-1] + ',"rows":[\n' + rows + "\n]}")
    text = json.dumps(doc)[:-1] + ', "studies": [\n' + ",\n".join(parts) + "\n]}\n"  # one row a line
    if "--write" in sys.argv:
        GOLDEN.write_text(text)
    else:
        sys.stdout.write(text)
