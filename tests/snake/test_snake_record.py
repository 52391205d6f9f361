"""The game record declared once (`fastsnake.snake.record`): every reader and writer derives from it.

A column added to the declaration alone (in a scratch declaration, `record.declared`) reaches a
sweep file, its summary, a folder's chunk statistics and `compare`; a file written before it
existed reads the column as null and its mean as None, never as zeros.
"""

import ast
import inspect
import json

import numpy as np
import pyarrow.parquet as pq
import pytest

import fastsnake
from fastsnake.envs import kernels as K
from fastsnake.snake import engine, present, record
from fastsnake.snake.record import Column
from fastsnake.snake.stats import SummaryAccumulator
from fastsnake.snake.store import read_sweep
from fastsnake.snake.store.sweepfile import RECORD_COLUMNS, record_types

# A scratch column: its name is no real column's and its slot the next free one, so this file keeps
# working when a real column (say "extra") is added to GAME_RECORD.
EXTRA = Column("extra", "int32", record.width(), "mean", optional=True, title="extra", doc="a test column")


def with_extra():
    return record.declared(record.columns() + (EXTRA,))


def test_the_kernel_slots_are_the_declarations():
    assert [c.name for c in record.kernel_columns()] == ["outcome", "moves", "apples", "length"]
    assert (engine.ROW_OUTCOME, engine.ROW_MOVES, engine.ROW_APPLES, engine.ROW_LENGTH) == tuple(
        record.slot(n) for n in ("outcome", "moves", "apples", "length"))
    assert record.width() == 4
    assert RECORD_COLUMNS == record.names() == ("game", "seed", "outcome", "moves", "apples", "length")


def test_a_bad_declaration_is_refused():
    with pytest.raises(ValueError, match="slots"):
        with record.declared(record.columns() + (Column("x", "int32", 7, "mean"),)):
            pass
    with pytest.raises(ValueError, match="twice"):
        with record.declared(record.columns() + (Column("moves", "int32", 4, "mean"),)):
            pass


def test_a_declared_column_reaches_file_summary_folder_and_compare(tmp_path):
    with with_extra():
        assert "extra" in record_types()
        path = tmp_path / "s.parquet"
        result = fastsnake.sweep("cycle", 6, 60, seed=2, out=str(path))
        assert "extra" in pq.read_schema(path).names
        assert result.summary["extra_mean"] == 0.0  # no kernel line fills it: zeros, counted
        assert read_sweep(path)[1].column("extra").null_count == 0
        folder = tmp_path / "f"
        folded = fastsnake.sweep("cycle", 6, 60, seed=2, out=str(folder), chunk_size=25)
        assert folded.summary["extra_mean"] == 0.0
        table = fastsnake.compare(["cycle", "greedy"], 6, 30, out=str(tmp_path / "c.parquet"))
        assert table.column("extra_mean").to_pylist() == [0.0, 0.0]
        assert "extra" in pq.read_schema(tmp_path / "c.parquet").names
        header, _ = present.summary_rows([result.summary])
        assert "extra" in header
    assert "extra" not in present.summary_rows([result.summary])[0]


def test_a_file_without_an_optional_column_reads_it_as_absent(tmp_path):
    path = tmp_path / "old.parquet"
    fastsnake.sweep("cycle", 6, 40, seed=1, out=str(path))  # written before "extra" existed
    folder = tmp_path / "old"
    fastsnake.sweep("cycle", 6, 40, seed=1, out=str(folder), chunk_size=15)
    with with_extra():
        table = read_sweep(path)[1]
        assert table.column("extra").null_count == 40  # null, not zeros
        assert table.column_names.index("extra") == record.names().index("extra")
        assert read_sweep(folder)[1].column("extra").null_count == 40
        resumed = fastsnake.resume_sweep(str(folder))  # chunk statistics written without it
        assert resumed.summary["extra_mean"] is None and resumed.summary["apples_mean"] is not None
        report = fastsnake.report(str(path), str(tmp_path / "r.html"))
        assert report["games"] == 40


def test_the_accumulator_marks_a_missing_mean_absent_not_zero():
    with with_extra():
        acc = SummaryAccumulator()
        acc.add_columns({"outcome": [1, 2], "moves": [3, 4], "apples": [1, 1], "length": [4, 4], "extra": [2, 4]})
        assert acc.as_dict()["extra_mean"] == 3.0
        old = SummaryAccumulator()
        old.add_columns({"outcome": [1], "moves": [3], "apples": [1], "length": [4]})
        assert old.as_dict()["extra_mean"] is None
        acc.merge(old)
        assert acc.as_dict()["extra_mean"] is None and acc.as_dict()["apples_mean"] == 1.0
        back = SummaryAccumulator.from_json(json.loads(json.dumps(acc.to_json())))
        assert back.as_dict() == acc.as_dict()
        stored_before = {k: v for k, v in SummaryAccumulator().to_json().items() if not k.startswith("extra")}
        assert SummaryAccumulator.from_json(stored_before).absent == {"extra": 0}
    # Kernel rows as wide as the record (a real column added later widens them; the four here keep
    # their slots): add_rows and the positional add agree.
    rows = np.zeros((2, record.width()), np.int64)
    rows[:, :4] = [[1, 10, 2, 5], [2, 7, 1, 4]]
    acc = SummaryAccumulator()
    acc.add_rows(rows)
    positional = SummaryAccumulator()
    positional.add(*(rows[:, c.slot] for c in record.kernel_columns()))
    assert acc.as_dict() == positional.as_dict()
    assert acc.as_dict()["apples_mean"] == 1.5 and acc.as_dict()["length_mean"] == 4.5


def _state_slots(fn) -> list[str]:
    return [node.slice.id for node in ast.walk(ast.parse(inspect.getsource(fn.py_func)))
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id.startswith("S_")]


def test_env_state_load_and_store_follow_the_state_fields():
    """`load_state` / `store_state` name every field of `State` once, in order (`S_*` come from
    `State._fields`): a field added to `State` fails here until both copy it."""
    want = [f"S_{name.upper()}" for name in engine.State._fields]
    assert _state_slots(K.load_state) == want
    assert _state_slots(K.store_state) == want
    assert [getattr(K, s) for s in want] == list(range(len(want)))
