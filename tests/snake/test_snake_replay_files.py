"""Replay files read in bounded memory (issue 37, item 5): member names, declared sizes, shapes and
dtypes are checked before anything is inflated, unknown members are refused, and no member
inflates past what a game on its declared board can hold.

The bombs (`npz_bombs`) inflate to 64 MiB here (the reader must stay far below that); the
fault-injection script builds 1 GiB ones (bench/fault_injection.py, class `inflate`).
"""

import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from npz_bombs import BOMB_KINDS, MIB, Member, npy_bytes, npy_header, replay_bomb, replay_fields, write_npz

import fastsnake
from fastsnake.snake.replay import ReplayError, load_replay

GOLDEN = Path(__file__).resolve().parents[1] / "viewer" / "golden" / "greedy10.npz"
INFLATED = 64 * MIB
# What reading a refused bomb may cost: the zip directory and one .npy header, nothing near a member.
PEAK_LIMIT = 4 * MIB
REFUSALS = {"moves-declared": "more than a 10x10 game holds", "moves-lying": "more than a 10x10 game holds",
            "moves-hidden": "CRC", "extra-member": "'junk.npy' is not a field", "huge-shape": "(1000000000000,)"}


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bombs")
    paths = {}
    for kind in BOMB_KINDS:
        paths[kind] = folder / f"{kind}.npz"
        replay_bomb(GOLDEN, paths[kind], kind, INFLATED)
    return paths


def _peak(fn):
    """(what fn raised, the peak of memory Python and numpy allocated meanwhile)."""
    tracemalloc.start()
    try:
        fn()
        raised = None
    except Exception as exc:  # noqa: BLE001 - the test looks at what was raised
        raised = exc
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return raised, peak


@pytest.mark.parametrize("kind", BOMB_KINDS)
def test_a_replay_that_inflates_is_refused_in_bounded_memory(bombs, kind):
    assert bombs[kind].stat().st_size < INFLATED // 500  # a real bomb: ~1000:1
    raised, peak = _peak(lambda: load_replay(bombs[kind]))
    assert isinstance(raised, ReplayError), raised
    assert REFUSALS[kind] in str(raised) and str(bombs[kind]) in str(raised)
    assert peak < PEAK_LIMIT, f"{peak / MIB:.1f} MiB to refuse a {kind} bomb"


@pytest.mark.parametrize("argv", [["replay", "--check"], ["view", "--export"], ["report", "--out"]],
                         ids=["replay-check", "view-export", "report"])
@pytest.mark.parametrize("kind", ["extra-member", "huge-shape"])
def test_every_reader_of_replays_refuses_a_bomb_in_one_line(bombs, tmp_path, capsys, argv, kind):
    """A 1 GiB extra member was accepted ("valid", exit 0); shape (10**12,) was MemoryError, exit 1."""
    from fastsnake.cli import main

    verb, flag = argv
    out = str(tmp_path / ("x.gif" if verb == "view" else "x.html"))
    args = [verb, flag, str(bombs[kind])] if verb == "replay" else [verb, str(bombs[kind]), flag, out]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("fastsnake: error: ") and REFUSALS[kind] in err, err
    assert not list(tmp_path.iterdir())


def test_the_library_refuses_a_bomb_with_a_replay_error(bombs):
    with pytest.raises(ReplayError, match="not a field"):
        fastsnake.load_game(bombs["extra-member"])


def test_a_replay_with_a_huge_move_cap_still_reads(tmp_path):
    """The cap on `moves` comes from the file's own move cap: a game allowed 2**62 moves is read whole."""
    game = fastsnake.play("greedy", 8, seed=3, max_moves=2**62)
    path = tmp_path / "g.npz"
    game.save(path)
    again = fastsnake.load_game(path)
    assert again.summary == game.summary and len(again.moves) == len(game.moves) > 0


def test_moves_beyond_the_files_own_move_cap_are_refused_unread(tmp_path):
    members = replay_fields(GOLDEN)
    moves = np.load(GOLDEN)["moves"]
    members["max_moves"] = Member(npy_bytes(np.int64(len(moves) - 1)))
    path = tmp_path / "capped.npz"
    write_npz(path, members)
    with pytest.raises(ReplayError, match="more than a 10x10 game holds"):
        load_replay(path)


def test_members_are_checked_for_type_before_they_are_read(tmp_path):
    members = replay_fields(GOLDEN)
    members["moves"] = Member(npy_header((10,), "<f8") + bytes(80))
    path = tmp_path / "float.npz"
    write_npz(path, members)
    with pytest.raises(ReplayError, match="'moves' has type <f8"):
        load_replay(path)


def test_a_text_field_longer_than_a_format_allows_is_refused(tmp_path):
    members = replay_fields(GOLDEN)
    members["policy"] = Member(npy_header((), f"<U{MIB}"), 4 * MIB)  # a million characters
    path = tmp_path / "long.npz"
    write_npz(path, members)
    raised, peak = _peak(lambda: load_replay(path))
    assert isinstance(raised, ReplayError) and "'policy'" in str(raised)
    assert peak < PEAK_LIMIT


def test_the_archive_reader_stops_at_its_cap(tmp_path):
    """NpzArchive itself: a member whose data goes on past its header is refused after at most one piece."""
    from fastsnake.files import NotAnArchive, NpzArchive

    path = tmp_path / "more.npz"
    write_npz(path, {"a": Member(npy_header((8,)) + bytes(8), 16 * MIB)})
    with NpzArchive(path, known=("a",)) as archive:
        raised, peak = _peak(lambda: archive.read("a", "u", max_items=64 * MIB))
    assert isinstance(raised, NotAnArchive) and "holds" in str(raised)
    assert peak < PEAK_LIMIT


@pytest.mark.parametrize("fmt, key", [("fastsnake-tour/1", "path"), ("fastsnake-reach/1", "cells")])
def test_tour_and_reach_files_are_read_in_bounded_memory(tmp_path, fmt, key):
    from fastsnake.tour.io import SaveFileError, load_reach, load_tour

    header = {"format": fmt, "rows": 5, "cols": 5, "start": 0, "jumps": [[1, 2]], "found": True, "n": 1}
    meta = npy_bytes(np.array(__import__("json").dumps(header)))
    load = load_tour if key == "path" else load_reach
    big = tmp_path / "big.npz"
    write_npz(big, {"meta": Member(meta), key: Member(npy_header((INFLATED // 8,), "<i8"), INFLATED)})
    extra = tmp_path / "extra.npz"
    write_npz(extra, {"meta": Member(meta), key: Member(npy_bytes(np.arange(25))),
                      "junk": Member(npy_header((INFLATED,)), INFLATED)})
    for path, reason in ((big, "more than such a file holds"), (extra, "'junk.npy' is not a field")):
        raised, peak = _peak(lambda path=path: load(path))
        assert isinstance(raised, SaveFileError) and reason in str(raised), raised
        assert peak < PEAK_LIMIT


# -- replay --from: the re-played game must be the game its row describes (issue 37, item 7) -----

def _crafted_sweep(folder, field, change):
    """A sweep file whose row of game 3 says something else in `field` (rewritten with its own footer,
    so nothing but the row's value differs)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / f"crafted-{field}.parquet"
    fastsnake.sweep("cycle", 4, 8, seed=2, out=path, threads=1)
    table = pq.read_table(path)
    values = table.column(field).to_pylist()
    values[3] = change(values[3])
    column = pa.array(values, type=table.schema.field(field).type)
    table = table.set_column(table.schema.get_field_index(field), field, column)
    pq.write_table(table, path, write_page_checksum=True)
    return path


# Each change keeps the row a possible game (the checked reader refuses impossible values before any
# replay: test_snake_store.py), so only the replay can tell that the row is not this game's.
ROW_CHANGES = {"moves": lambda v: v - 1, "outcome": lambda v: "died" if v == "won" else "won",
               "apples": lambda v: v - 1, "length": lambda v: v - 1}  # (a row's seed: read_sweep checks it)


@pytest.mark.parametrize("field", list(ROW_CHANGES))
def test_replay_from_refuses_a_row_its_game_contradicts(tmp_path, capsys, field):
    """A row saying -70 moves gave "won after 47 moves" and wrote the replay, exit 0."""
    from fastsnake.cli import main

    path = _crafted_sweep(tmp_path, field, ROW_CHANGES[field])
    out = tmp_path / "g.npz"
    code = main(["replay", "--from", str(path), "--pick", "3", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("fastsnake: error: "), err
    # The replay refuses the contradiction ("row says moves ..."), or the checked reader refuses a row
    # that is no possible game (apples and length are tied: length = start length + apples).
    assert (f"row says {field} " in err or f"has a {field}" in err or "length that is not" in err) \
        and "game 3" in err, err
    assert not out.exists()
    if field in ("moves", "outcome"):  # a possible row: the file is sound, the other rows replay
        assert main(["replay", "--from", str(path), "--pick", "2", "--out", str(out)]) == 0
        with pytest.raises(ReplayError, match=f"row says {field} "):
            fastsnake.replay_game(path, 3)
    else:  # no possible game: the checked reader refuses the file before any replay
        with pytest.raises(ValueError, match="game 3 has a length that is not"):
            fastsnake.replay_game(path, 3)

