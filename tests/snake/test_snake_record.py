"""The game record declared once (`fastsnake.snake.record`): every reader and writer derives from it.

A column added to the declaration alone (in a scratch declaration, `record.declared`) reaches a
sweep file, its summary, a folder's chunk statistics and `compare`; a file written before it
existed reads the column as null and its mean as None, never as zeros.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from numba import njit
from numba.core.errors import TypingError

import fastsnake
from fastsnake.envs import kernels as K
from fastsnake.snake import engine, present, record
from fastsnake.snake import report as report_module
from fastsnake.snake.record import Column
from fastsnake.snake.stats import SummaryAccumulator
from fastsnake.snake.store import read_sweep
from fastsnake.snake.store.sweepfile import RECORD_COLUMNS, record_types

# A scratch column: its name is no real column's and its slot the next free one, so this file keeps
# working when a real column (say "extra") is added to GAME_RECORD.
EXTRA = Column("extra", "int32", record.width(), "mean", optional=True, title="extra", doc="a test column")


def with_extra():
    return record.declared(record.columns() + (EXTRA,))


# The record's first columns, in the order every release has written them; a column added later goes
# after them (the next free slot), so these assertions need no edit when one is declared.
FIRST_COLUMNS = ("game", "seed", "outcome", "moves", "apples", "length")


def test_the_kernel_slots_are_the_declarations():
    assert [c.name for c in record.kernel_columns()][:4] == ["outcome", "moves", "apples", "length"]
    assert (engine.ROW_OUTCOME, engine.ROW_MOVES, engine.ROW_APPLES, engine.ROW_LENGTH) == tuple(
        record.slot(n) for n in ("outcome", "moves", "apples", "length")) == (0, 1, 2, 3)
    assert [c.slot for c in record.kernel_columns()] == list(range(record.width()))
    assert RECORD_COLUMNS == record.names() and record.names()[:6] == FIRST_COLUMNS
    assert all(record.column(n).optional for n in record.names()[6:])  # older files lack them


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
        # The checks and readers of every file: verify, the public reader, the report's data.
        assert fastsnake.verify_sweep(path)["ok"] and fastsnake.verify_sweep(folder)["complete"]
        assert fastsnake.read_sweep(folder).column("extra").to_pylist() == [0] * 60
        assert fastsnake.read_sweep(tmp_path / "c.parquet").column("extra").null_count == 0
        assert report_module.record_arrays(read_sweep(path)[1])["extra"].tolist() == [0] * 60
        page = fastsnake.report(str(path), str(tmp_path / "r.html"))
        assert page["games"] == 60
    assert "extra" not in present.summary_rows([result.summary])[0]
    assert "extra" not in report_module.record_arrays(read_sweep(path)[1])


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


def test_the_state_is_the_rules_fields_then_the_records_counters():
    # Every kernel column is a `State` field of its name; the engine's first, in their order.
    assert engine.STATE_FIELDS[: len(engine.ENGINE_FIELDS)] == engine.ENGINE_FIELDS
    assert engine.State._fields == engine.STATE_FIELDS
    counters = engine.STATE_FIELDS[len(engine.ENGINE_FIELDS):]
    assert counters == tuple(c.name for c in record.GAME_RECORD
                             if c.slot is not None and c.name not in engine.ENGINE_FIELDS)
    assert [engine.STATE_FIELDS[f] for f in engine.ROW_FIELDS] == [c.name for c in record.kernel_columns()]


def _distinct_state():
    return engine.State(*(100 + 7 * j for j in range(len(engine.STATE_FIELDS))))


def test_the_row_writers_copy_each_column_from_its_state_field():
    """`write_row` (the kernels' one row writer, compiled and in Python) and `write_rows` (the envs')
    put field `name` of the game's State in the column `name`, for every kernel column."""
    st = _distinct_state()
    want = [getattr(st, c.name) for c in record.kernel_columns()]
    for write in (engine.write_row, engine.write_row.py_func):
        out = np.full((3, record.width()), -1, np.int64)
        write(out, 1, st)
        assert out[1].tolist() == want and (out[[0, 2]] == -1).all()
    out = np.full((4, record.width()), -1, np.int64)
    states = np.array([st, st._replace(moves=5)], np.int64)
    engine.write_rows(out, np.array([3, 0]), states)
    assert out[3].tolist() == want and out[0, record.slot("moves")] == 5 and (out[[1, 2]] == -1).all()
    with with_extra():  # rows wider than the compiled record: its columns only
        out = np.full((1, record.width()), -1, np.int64)
        engine.write_row(out, 0, st)
        assert out[0].tolist() == want + [-1]


def test_env_state_load_and_store_copy_every_state_field():
    """`load_state` / `store_state` copy the whole `State`, field by field in `State._fields` order
    (`S_*` name the columns): a field added to `State` needs no edit there."""
    assert [getattr(K, f"S_{name.upper()}") for name in engine.ENGINE_FIELDS] == list(range(len(engine.ENGINE_FIELDS)))
    assert K.S_SIZE == len(engine.State._fields)
    st = _distinct_state()
    batch = K.new_batch(2, 16)
    K.store_state(batch, 1, st)
    assert batch[K.B_STATE][1].tolist() == list(st) and not batch[K.B_STATE][0].any()
    assert K.load_state(batch, 1) == st


def test_a_counter_starts_at_zero_and_every_move_carries_it():
    """`make_state`'s `was`: a move's new state keeps the counters of the state it starts from."""
    moved = engine.make_state.py_func(1, 2, 3, 4, 5, 6, 7, 8, 9, 0, _distinct_state())
    fresh = engine.make_state.py_func(1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
    n = len(engine.ENGINE_FIELDS)
    assert tuple(moved[:n]) == tuple(fresh[:n]) == (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
    assert tuple(moved[n:]) == tuple(_distinct_state()[n:]) and not any(fresh[n:])


def test_counted_refuses_a_name_that_is_no_counter():
    @njit
    def set_moves(st):
        return engine.counted(st, "moves", 1)  # a field of the rules, not a counter of the record

    with pytest.raises(TypingError, match="counters"):
        set_moves(_distinct_state())


# The recipe of CONTRIBUTING.md, "Adding a per-game column", done on a scratch copy of the
# package: a column the rules do not keep (turns: moves in another direction than the one before) is
# its declaration in record.py and one kernel line in engine.py's rules loop, nothing else. The scratch
# column has a name no real column has and the next free slot, declared last in `GAME_RECORD`, so the
# test keeps working when a real column (a real "turns", say) is declared.
SCRATCH = "scratch_turns"
TURNS_KERNEL_LINE = (
    "        moves = st.moves + 1\n        target = nbr[ix(st.head * 4 + move)]\n",
    "        neck = body[ix(st.head_i - 1 if st.head_i > 0 else n - 1)]\n"
    f"        st = counted(st, \"{SCRATCH}\", st.{SCRATCH} + (st.length > 1 and nbr[ix(neck * 4 + move)] != st.head))\n"
    "        moves = st.moves + 1\n        target = nbr[ix(st.head * 4 + move)]\n",
)


def _declare_last(text: str, line: str) -> str:
    """record.py's `text` with `line` added as the last column of `GAME_RECORD`."""
    start = text.index("GAME_RECORD: tuple[Column, ...] = (\n")
    end = text.index("\n)\n", start)
    return text[: end + 1] + line + text[end + 1:]


TURNS_SCRIPT = """
import json, sys
import numpy as np
import pyarrow.parquet as pq
import fastsnake
from fastsnake.snake import present

NAME = sys.argv[2]

def turns(game):  # the naive count, from the recorded moves and the start body's direction
    step = {-game.cols: 0, 1: 1, game.cols: 2, -1: 3}
    before, count = step[int(game.body[-1]) - int(game.body[-2])], 0
    for move in game.moves.tolist():
        count += move != before
        before = move
    return count

def python_greedy(state, ws):  # a plain-Python policy: its rows come from _sweep_python
    for move in range(4):
        cell = state.neighbours[state.head, move]
        if cell >= 0 and not state.occupied[cell]:
            return move
    return 0

out = sys.argv[1]
result = fastsnake.sweep("greedy", 6, 12, seed=3, out=out + "/s.parquet")
rows = pq.read_table(out + "/s.parquet").to_pydict()
want = [turns(fastsnake.play("greedy", 6, seed=3, game=k)) for k in range(12)]
mine = fastsnake.sweep(python_greedy, 6, 4, seed=3)
table = fastsnake.compare(["greedy", "cycle"], 6, 6, seed=3)
header, _ = present.compare_rows([result.summary])
print(json.dumps({"package": fastsnake.__file__, "file": rows[NAME], "want": want,
                  "mean": result.summary[NAME + "_mean"],
                  "python": mine.table.column(NAME).to_pylist(),
                  "python_want": [turns(fastsnake.play(python_greedy, 6, seed=3, game=k)) for k in range(4)],
                  "compare": table.column(NAME + "_mean").to_pylist(), "header": header}))
"""

# The quick tests a new column must pass unedited, run again on the scratch copy: the record's (its
# declaration reaching files, folders, compare, verify, the reader, the report; the kernel slots; the
# state and the row writers), the mixed folders' (an old release's chunks lacking the column) and the
# docs' (the pages' column lists, written from the declaration when the site is built).
QUICK_TESTS = ("test_snake_record.py", "test_snake_mixed_folder.py", "../test_docs_declared.py")
NOT_QUICK = "not test_a_counted_column_is_its_declaration_and_one_kernel_line"
QUICK_SCRIPT = """
import sys
import fastsnake, pytest
assert fastsnake.__file__.startswith(sys.argv[1]), fastsnake.__file__  # the scratch copy is the one tested
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-m", "not slow", "-k", sys.argv[2], *sys.argv[3:]]))
"""


@pytest.mark.slow  # compiles greedy's and cycle's kernels cold in a subprocess (about two minutes)
def test_a_counted_column_is_its_declaration_and_one_kernel_line(tmp_path):
    """A new per-game column the rules do not keep: the declaration (record.py) and the kernel line
    that fills it (engine.py) reach a sweep file, its summary, `compare` and the plain-Python
    policies' rows, with values the naive count of each replayed game confirms; the quick tests of
    the record and of mixed folders pass on that package without an edit."""
    assert SCRATCH not in record.names()
    package = Path(fastsnake.__file__).resolve().parent
    root = tmp_path / "src"
    shutil.copytree(package, root / "fastsnake", ignore=shutil.ignore_patterns("__pycache__"))
    declaration = (f'    Column("{SCRATCH}", "int32", {record.width()}, "mean", optional=True, title="scratch turns",'
                   ' doc="moves that change direction"),\n')
    path = root / "fastsnake" / "snake" / "record.py"
    path.write_text(_declare_last(path.read_text(), declaration))
    path = root / "fastsnake" / "snake" / "engine.py"
    old, new = TURNS_KERNEL_LINE
    assert path.read_text().count(old) == 1
    path.write_text(path.read_text().replace(old, new))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_DISABLE_JIT")}
    env.update(PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(TURNS_SCRIPT), str(tmp_path), SCRATCH], env=env,
                          cwd=root, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(got["package"]).is_relative_to(root)  # the scratch copy, not this checkout
    assert got["file"] == got["want"] and sum(got["want"]) > 0
    assert got["mean"] == pytest.approx(np.mean(got["want"]))
    assert got["python"] == got["python_want"] and sum(got["python"]) > 0
    assert len(got["compare"]) == 2 and all(m > 0 for m in got["compare"])
    assert "scratch turns" in got["header"]
    here = Path(__file__).resolve().parent
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(QUICK_SCRIPT), str(root), NOT_QUICK,
                           *(str(here / name) for name in QUICK_TESTS)], env=env, cwd=root,
                          capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout
