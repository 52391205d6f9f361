"""Studies: algorithms run on shared instances or seeds -> rows -> statistics -> files ->
baselines -> tables. Problem-agnostic: nothing here names a Snake, puzzle or tour column; the
problems' studies (`fastsnake.puzzle.study`, `fastsnake.tour.study`, Snake's compare) are its users.

- `fastsnake.study.quantiles`: normal and t quantiles in plain Python (no scipy at start-up);
- `fastsnake.study.intervals`: t, Wilson, Newcombe and ratio intervals, the scaling fit;
- `fastsnake.study.stats`: `describe`, `median_ci95`, `paired_ratio` (geometric mean ratio with
  interval, Wilcoxon), `holm`, `p_fields`, `robust` (median and IQM with bootstrap intervals),
  `repeat_summary` (a speed over repeated runs);
- `fastsnake.study.precision`: round sizes for precision on demand;
- `fastsnake.study.rows`: rows files (Parquet, whole or absent, run id and version), and run
  folders (``--out DIR``, `fastsnake.runs`) read as one: `read_study`;
- `fastsnake.study.baseline`: today against a saved rows file (same trials, worse or not);
- `fastsnake.study.noise`: the CPU noise floor (timer step, run-to-run spread) below which a
  difference of CPU-seconds is never called significant;
- `fastsnake.study.gate`: whether a baseline check compared what it claims (every algorithm on the
  same conditions and shared trials, or a partial comparison accepted explicitly);
- `fastsnake.study.tables`: the one exporter: tables as CSV data (``mean``, ``ci_low``,
  ``ci_high``; ``p`` and ``p_bound``), text, Markdown, LaTeX.
"""

from fastsnake.study.intervals import CONFIDENCE, mean_ci95, wilson_ci95
from fastsnake.study.rows import check_out, new_run_id, read_rows, read_study, study_kind, write_rows
from fastsnake.study.stats import describe, holm, median_ci95, p_fields, paired_ratio
from fastsnake.study.tables import FORMATS, Table, csv_stem, render, to_csv, write_csv

__all__ = ["CONFIDENCE", "FORMATS", "Table", "check_out", "csv_stem", "describe", "holm", "mean_ci95",
           "median_ci95", "new_run_id", "p_fields", "paired_ratio", "read_rows", "read_study", "render",
           "study_kind", "to_csv", "wilson_ci95", "write_csv", "write_rows"]
