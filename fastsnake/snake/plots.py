"""Figures of sweeps, as in the seed thesis (figs. 6.1-6.5): moves per game, score vs moves."""

from __future__ import annotations

import numpy as np

from fastsnake.errors import InputError
from fastsnake.files import written_atomically
from fastsnake.snake.engine import DIED


def plot_sweeps(results, path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'fastsnake[plot]'") from None
    lost_any = any((r.outcome == DIED).any() for r in results)
    fig, axes = plt.subplots(1, 2 if lost_any else 1, figsize=(12 if lost_any else 7, 4.5), squeeze=False)
    hist = axes[0][0]
    for r in results:
        hist.hist(r.moves, bins=50, alpha=0.6, label=f"{r.policy} (n={r.games:,})")
    cfg = results[0].config
    hist.set_title(f"Moves per game, {cfg.rows}x{cfg.cols}, start length {cfg.start_length}, tail {cfg.tail_rule}")
    hist.set_xlabel("moves")
    hist.set_ylabel("games")
    hist.legend()
    if lost_any:
        ax = axes[0][1]
        for r in results:
            lost = r.outcome == DIED
            if lost.any():
                ax.scatter(r.moves[lost], r.apples[lost], s=6, alpha=0.5, label=r.policy)
        ax.set_title("Games that died: apples eaten vs moves")
        ax.set_xlabel("moves")
        ax.set_ylabel("apples (score)")
        ax.legend()
    fig.tight_layout()
    try:
        with written_atomically(path) as tmp:  # a full disk leaves an earlier plot as it was
            fig.savefig(tmp, dpi=110, format="png")
    except OSError as exc:
        raise InputError(f"cannot write plot {str(path)!r}: {exc}") from None
    finally:
        plt.close(fig)


def table_view(table, policy: str, config):
    """A sweep's records (a pyarrow table) in the shape `plot_sweeps` reads."""
    from types import SimpleNamespace

    from fastsnake.snake.engine import OUTCOME_NAMES

    codes = {name: k for k, name in enumerate(OUTCOME_NAMES)}
    outcome = np.array([codes[o] for o in table.column("outcome").cast("string").to_pylist()], dtype=np.int8)
    moves = table.column("moves").to_numpy()
    return SimpleNamespace(policy=policy, games=len(moves), config=config, outcome=outcome,
                           moves=moves, apples=table.column("apples").to_numpy())


def plot_scaling(summaries: list[dict], path) -> None:
    """How each policy's cost grows with the board (one compare over several sizes): mean moves and
    games per CPU-second against cells on log-log axes, each point with its 95 % interval, and the
    fitted exponent (`scaling` entry of the summaries) in the legend."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'fastsnake[plot]'") from None
    by_policy: dict[str, list[dict]] = {}
    for s in summaries:
        by_policy.setdefault(s["policy"], []).append(s)
    fig, (moves_ax, speed_ax) = plt.subplots(1, 2, figsize=(12, 4.5))
    panels = ((moves_ax, "moves_mean", "moves_mean_ci95", "moves", "mean moves per game"),
              (speed_ax, "games_per_cpu_second", "games_per_cpu_second_ci95", "cpu", "games per CPU-second"))
    for ax, key, ci_key, fit_key, title in panels:
        for name, rows in by_policy.items():
            rows = [s for s in rows if s.get(key)]
            if not rows:
                continue
            cells = np.array([s["rows"] * s["cols"] for s in rows], dtype=float)
            values = np.array([s[key] for s in rows], dtype=float)
            lo = np.array([s[key] - s[ci_key][0] if s.get(ci_key) else 0.0 for s in rows])
            hi = np.array([s[ci_key][1] - s[key] if s.get(ci_key) else 0.0 for s in rows])
            fit = rows[0].get("scaling") or {}
            exponent = fit.get(f"{fit_key}_exponent")
            if exponent is not None and fit_key == "cpu":
                exponent = -exponent  # games per CPU-second is the inverse of the cost per game
            label = name if exponent is None else f"{name} (~ cells^{exponent:.2f})"
            ax.errorbar(cells, values, yerr=[np.minimum(lo, values * 0.999), hi], marker="o", capsize=3, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("cells (rows x cols)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    s0 = summaries[0]
    fig.suptitle(f"Scaling: start length {s0['start_length']}, tail {s0['tail_rule']}, seed {s0['seed']} "
                 f"(bars: 95 % intervals)")
    fig.tight_layout()
    try:
        with written_atomically(path) as tmp:
            fig.savefig(tmp, dpi=110, format="png")
    except OSError as exc:
        raise InputError(f"cannot write plot {str(path)!r}: {exc}") from None
    finally:
        plt.close(fig)
