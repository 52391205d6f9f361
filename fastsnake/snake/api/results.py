"""What a sweep returns: `SweepResult`, its rows and summary."""

from __future__ import annotations

from dataclasses import dataclass, field

from fastsnake.snake.api.inputs import flat_summary, to_pandas_table
from fastsnake.snake.store import read_sweep

# What one game costs in memory when its row is kept: the kernel row (4 x int64) and its Arrow
# columns (game, seed, moves int64; apples, length int32; outcome index int32; identity columns
# policy and tail_rule indices int32, rows and cols int16, start_length int32).
BYTES_PER_KEPT_GAME = 32 + 8 * 3 + 4 * 3 + 4 * 3 + 2 * 2


@dataclass
class SweepResult:
    """The outcome of `sweep`: per-game rows (`table`) and the exact statistics (`summary`).

    ``summary`` holds the keys ``fastsnake sweep --json`` prints. ``table`` is a
    ``pyarrow.Table`` with one row a game, its columns those `fastsnake.snake.record` declares
    (``game, seed, outcome, ...``); for a sweep written to a folder it is read from the folder on first use.
    """

    summary: dict
    _table: object = None
    folder: str | None = None
    _raw: object = field(default=None, repr=False)  # the engine's arrays, for plots
    file: str | None = None  # the Parquet file the rows were streamed to

    @property
    def interrupted(self) -> bool:
        return bool(self.summary.get("interrupted"))

    @property
    def table(self):
        """The per-game rows (None for a sweep run with ``rows=False``)."""
        if self._table is None and (self.folder or self.file) is not None:
            self._table = read_sweep(self.folder or self.file)[1]
        return self._table

    def to_pandas(self):
        """The per-game rows as a pandas DataFrame (needs pandas)."""
        return to_pandas_table(self.table)

    def summary_frame(self):
        """The summary as a one-row pandas DataFrame (needs pandas)."""
        import pyarrow as pa

        return to_pandas_table(pa.Table.from_pylist([flat_summary(self.summary)]))

    def plot(self, path) -> None:
        """Moves histogram (and apples vs moves of games that died) as a PNG (needs matplotlib)."""
        from fastsnake.snake.api.report import plot_results

        plot_results([self], path)

    def report(self, path, **picks) -> dict:
        """Write the browser report of this sweep to `path` (one self-contained HTML file).

        `picks` are those of `fastsnake.report` (``worst``, ``best``, ``died``, ``random``,
        ``picks``, ``sample``, ``title``). Returns what `fastsnake.report` returns.
        """
        from fastsnake.snake.api.report import report_sweeps

        return report_sweeps([self], path, **picks)

    def __repr__(self):
        s = self.summary
        return (f"SweepResult({s['policy']!r} on {s['rows']}x{s['cols']}: {s['games']:,} games, "
                f"win rate {s['win_rate']:.2%}, mean moves {s['moves_mean']:.1f})")

