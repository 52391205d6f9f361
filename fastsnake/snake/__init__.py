"""Snake: the engine, its policies, sweeps and replays. The public face is `fastsnake.snake.api`,
re-exported at the top level (``fastsnake.sweep`` ...)."""

_API = ("Game", "Policy", "SweepResult", "compare", "load_game", "check_game", "play", "policies", "register_policy",
        "replay_game", "resume_sweep", "sweep", "plot_results", "compare_runs", "compare_table", "write_compare",
        "scaling", "plot_scaling", "board_sizes", "timing_free", "board", "report_sweeps", "GameSettings", "read_sweep",
        "verify_sweep")
# The words and tables of the CLI and the report: `fastsnake.snake.present`.
_PRESENT = ("compare_lines", "compare_rows", "summary_rows", "paired_rows", "robust_rows", "render_table",
            "paired_sentences", "describe_sweep", "TABLE_FORMATS", "baseline_rows", "baseline_lines")

# The same tables as data (numbers as numbers; ``--format csv``): `fastsnake.snake.tables`.
_TABLES = ("data_tables", "summary_table", "paired_table", "robust_table", "baseline_table", "table_header",
           "render_csv", "table_file", "DATA_TABLES")

# Repeated timing, robust aggregates, all pairs and saved baselines: `fastsnake.snake.benchmark`.
_BENCHMARK = ("save_baseline", "find_baseline", "read_baseline", "check_baseline", "baseline_path", "load_warning",
              "holm", "repeat_summary", "robust_summary")

# Input checks run before anything compiles: `fastsnake.snake.inputs`.
_INPUTS = ("check_game_input",)

__all__ = list(_API + _PRESENT + _TABLES + _BENCHMARK + _INPUTS)


def __getattr__(name):
    # Lazy, so that importing fastsnake.snake.engine (e.g. from a dask worker) pays for nothing else.
    if name in _API:
        from fastsnake.snake import api

        return getattr(api, name)
    if name in _PRESENT:
        from fastsnake.snake import present

        return getattr(present, name)
    if name in _TABLES:
        from fastsnake.snake import tables

        return getattr(tables, name)
    if name in _BENCHMARK:
        from fastsnake.snake import benchmark

        return getattr(benchmark, name)
    if name in _INPUTS:
        from fastsnake.snake import inputs

        return getattr(inputs, name)
    raise AttributeError(f"module 'fastsnake.snake' has no attribute {name!r}")
