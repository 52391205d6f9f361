"""Snake: the engine, its policies, sweeps and replays. The public face is `fastsnake.snake.api`,
re-exported at the top level (``fastsnake.sweep`` ...)."""

_API = ("Game", "Policy", "SweepResult", "compare", "load_game", "play", "policies", "register_policy",
        "replay_game", "resume_sweep", "sweep", "plot_results", "compare_runs", "compare_table", "write_compare",
        "compare_lines", "compare_rows", "scaling", "plot_scaling", "board_sizes",
        "timing_free", "board", "summary_rows", "report_sweeps")

__all__ = list(_API)


def __getattr__(name):
    # Lazy, so that importing fastsnake.snake.engine (e.g. from a dask worker) pays for nothing else.
    if name in _API:
        from fastsnake.snake import api

        return getattr(api, name)
    raise AttributeError(f"module 'fastsnake.snake' has no attribute {name!r}")
