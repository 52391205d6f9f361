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
