"""Single games and the replay file format `fastsnake-replay/1`.

A replay is an ``.npz`` archive readable with ``numpy.load(allow_pickle=False)``:

===========  =======  ==========================================================
field        dtype    meaning
===========  =======  ==========================================================
format       str      ``"fastsnake-replay/1"``
rows, cols   int      board size
policy       str      policy name (with options, e.g. ``cycle``)
seed, game   uint64   base seed and game index (the game's seed is derived)
tail_rule    str      ``follow`` or ``blocked``
max_moves    int64    move cap of the game
body         int32    start body, tail first, head last
moves        uint8    the moves: 0 up, 1 right, 2 down, 3 left
apples       int32    the apple at the start and after each apple eaten
outcome      str      ``won``, ``died`` or ``stuck``
cycle        int32    ``order[cell]`` of the policy's cycle (absent when none)
===========  =======  ==========================================================

`load_replay` checks every field and re-plays the moves under the rules; a file
that is unreadable, foreign or inconsistent raises `ReplayError` naming why.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from fastsnake.errors import InputError, in_cli_words
from fastsnake.files import NotAnArchive, NpzArchive, RefusedMember, loads_json, shown_value, written_atomically
from fastsnake.sizes import parse_size
from fastsnake.snake.board import MAX_MOVE_CAP, TAIL_RULES, GameConfig
from fastsnake.snake.cancel import call_kernel, compile_first
from fastsnake.snake.engine import BROKEN, OUTCOME_NAMES, RUNNING, trace_moves
from fastsnake.snake.policies import recorded_options, resolved_name
from fastsnake.snake.rng import GAME_INDEX_LIMIT, game_seed
from fastsnake.snake.store.reader import open_sweep
from fastsnake.snake.store.versions import warn_if_newer_files
from fastsnake.snake.sweep import check_seed, prepare

REPLAY_FORMAT = "fastsnake-replay/1"
OUTCOMES = ("won", "died", "stuck")


class ReplayError(InputError):
    """A replay file that cannot be read or does not follow the rules."""


@dataclass
class Replay:
    rows: int
    cols: int
    policy: str
    seed: int
    game: int
    tail_rule: str
    max_moves: int
    body: np.ndarray
    moves: np.ndarray
    apples: np.ndarray
    outcome: str
    cycle: np.ndarray | None = None
    options: dict | None = None

    @property
    def config(self) -> GameConfig:
        return GameConfig(self.rows, self.cols, len(self.body), self.tail_rule, self.max_moves)

    def summary(self) -> dict:
        eaten = len(self.apples) - (0 if self.outcome == "won" else 1)
        length = len(self.body) + eaten
        return {
            "policy": self.policy,
            "rows": self.rows,
            "cols": self.cols,
            "seed": self.seed,
            "game": self.game,
            "outcome": self.outcome,
            "moves": int(len(self.moves)),
            "apples": int(length - len(self.body)),
            "length": int(length),
        }


def play_game(policy_name: str, config: GameConfig, seed: int = 0, game: int = 0, options: dict | None = None):
    """Play game `game` of base seed `seed`: the very game a sweep with that seed played.

    Returns (Replay, seconds); `seconds` is the game's run alone: the kernel is compiled (or loaded
    from the cache) first, and that time is `play_game.last_compile_seconds` (`compile_game`).
    """
    replay, seconds, _ = compile_and_play(policy_name, config, seed, game, options)
    return replay, seconds


def compile_and_play(policy_name: str, config: GameConfig, seed: int = 0, game: int = 0, options: dict | None = None):
    """`play_game`, with the compile apart: (Replay, seconds playing, seconds compiling or loading
    the kernel; 0.0 when it was ready)."""
    check_seed(seed)
    if not 0 <= game < GAME_INDEX_LIMIT:
        raise ReplayError(f"game index {shown_value(game)} must be at least 0 and below 2**63 (game indices are int64)")
    policy, resolved, params, cfg, nbr = prepare(policy_name, config, options)
    game_seed_value = np.uint64(game_seed(np.uint64(seed), np.uint64(game)))
    compile_seconds = compile_first(policy.play_kernel, cfg, nbr, params, game_seed_value)
    t0 = time.perf_counter()
    outcome, body0, moves, apples, cycle = call_kernel(policy.play_kernel, cfg, nbr, params, game_seed_value)
    seconds = time.perf_counter() - t0
    replay = Replay(
        rows=config.rows,
        cols=config.cols,
        policy=policy.name,
        seed=int(seed),
        game=int(game),
        tail_rule=config.tail_rule,
        max_moves=config.move_cap,
        body=body0,
        moves=moves,
        apples=apples,
        outcome=OUTCOME_NAMES[outcome],
        cycle=cycle if len(cycle) else None,
        options=resolved,
    )
    return replay, seconds, compile_seconds


def save_replay(replay: Replay, path) -> None:
    fields = {
        "format": np.array(REPLAY_FORMAT),
        "rows": np.int64(replay.rows),
        "cols": np.int64(replay.cols),
        "policy": np.array(replay.policy),
        "options": np.array(json.dumps(replay.options or {})),
        "seed": np.uint64(replay.seed),
        "game": np.uint64(replay.game),
        "tail_rule": np.array(replay.tail_rule),
        "max_moves": np.int64(replay.max_moves),
        "body": np.asarray(replay.body, dtype=np.int32),
        "moves": np.asarray(replay.moves, dtype=np.uint8),
        "apples": np.asarray(replay.apples, dtype=np.int32),
        "outcome": np.array(replay.outcome),
    }
    if replay.cycle is not None:
        fields["cycle"] = np.asarray(replay.cycle, dtype=np.int32)
    try:
        with written_atomically(path) as tmp, open(tmp, "wb") as fh:
            np.savez_compressed(fh, **fields)
    except OSError as exc:
        raise ReplayError(f"cannot write replay {str(path)!r}: {exc.strerror or exc}") from None


def _scalar(data, key, path, kind):
    value = data[key]
    if value.shape != ():
        raise ReplayError(f"replay {path!r}: field {key!r} must be a scalar")
    if kind == "str":
        if value.dtype.kind != "U":
            raise ReplayError(f"replay {path!r}: field {key!r} must be a string")
        return str(value)
    if value.dtype.kind not in "iu":
        raise ReplayError(f"replay {path!r}: field {key!r} must be an integer")
    return int(value)


def _vector(data, key, path, kinds, lo, hi):
    value = data[key]
    if value.ndim != 1 or value.dtype.kind not in kinds:
        raise ReplayError(f"replay {path!r}: field {key!r} must be a 1-D integer array")
    if value.size and (value.min() < lo or value.max() >= hi):
        raise ReplayError(f"replay {path!r}: field {key!r} has values outside {lo}..{hi - 1}")
    return value


# The fields of the format: any other member of a replay file is refused unread.
SCALAR_FIELDS = ("format", "rows", "cols", "policy", "options", "seed", "game", "tail_rule", "max_moves", "outcome")
ARRAY_FIELDS = ("body", "moves", "apples", "cycle")


def _array_caps(rows: int, cols: int, max_moves: int) -> dict:
    """The most items each array field of a game on a rows x cols board can hold: a body and the
    cycle have at most one item a cell, the apples one more than the cells (the start's apple and
    one after each eaten), the moves no more than the game's move cap."""
    cells = rows * cols
    return {"body": cells, "cycle": cells, "apples": cells + 1, "moves": max_moves}


def _read_fields(name: str) -> dict:
    """The fields of replay file `name`, read in bounded memory: unknown members refused, every
    array checked against what a game on the declared board can hold before it is inflated."""
    try:
        with NpzArchive(name, known=SCALAR_FIELDS + ARRAY_FIELDS) as archive:
            if "format" not in archive:
                raise ReplayError(f"{name!r} is not a fastsnake replay (no 'format' field)")
            data = {key: archive.read(key, "iuU", max_items=1) for key in SCALAR_FIELDS if key in archive}
            fmt = _scalar(data, "format", name, "str")
            if fmt != REPLAY_FORMAT:
                raise ReplayError(f"{name!r} has format {fmt!r}; this version reads {REPLAY_FORMAT!r}")
            rows = _scalar(data, "rows", name, "int") if "rows" in data else 0
            cols = _scalar(data, "cols", name, "int") if "cols" in data else 0
            if not (2 <= rows <= 256 and 2 <= cols <= 256):
                raise ReplayError(f"replay {name!r}: board {rows}x{cols} is outside 2..256")
            max_moves = (_scalar(data, "max_moves", name, "int") if "max_moves" in data
                         else GameConfig(rows, cols, 1).move_cap)
            for key, cap in _array_caps(rows, cols, min(max(max_moves, 0), MAX_MOVE_CAP)).items():
                if key in archive:
                    data[key] = archive.read(key, "iu", max_items=cap, holder=f"a {rows}x{cols} game")
            return data
    except FileNotFoundError:
        raise ReplayError(f"replay {name!r} does not exist") from None
    except RefusedMember as exc:
        raise ReplayError(f"replay {name!r} is refused: {exc}") from None
    except NotAnArchive as exc:
        raise ReplayError(f"cannot read replay {name!r}: not an .npz archive ({exc})") from None
    except MemoryError:
        raise ReplayError(f"cannot read replay {name!r}: its arrays do not fit in memory") from None


def load_replay(path, *, verify: bool = True) -> Replay:
    """Read and validate a replay; with `verify`, re-play it under the rules."""
    name = str(path)
    data = _read_fields(name)
    required = ("rows", "cols", "policy", "seed", "game", "tail_rule", "body", "moves", "apples", "outcome")
    missing = [k for k in required if k not in data]
    if missing:
        raise ReplayError(f"replay {name!r} lacks field(s) {', '.join(missing)}")
    rows, cols = _scalar(data, "rows", name, "int"), _scalar(data, "cols", name, "int")
    tail_rule = _scalar(data, "tail_rule", name, "str")
    if tail_rule not in TAIL_RULES:
        raise ReplayError(f"replay {name!r}: tail_rule {tail_rule!r} is not one of {', '.join(TAIL_RULES)}")
    n = rows * cols
    body = _vector(data, "body", name, "iu", 0, n)
    if len(body) < 1 or len(set(body.tolist())) != len(body):
        raise ReplayError(f"replay {name!r}: start body must be 1 or more distinct cells")
    moves = _vector(data, "moves", name, "iu", 0, 4)
    apples = _vector(data, "apples", name, "iu", 0, n)
    outcome = _scalar(data, "outcome", name, "str")
    if outcome not in OUTCOMES:
        raise ReplayError(f"replay {name!r}: outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    max_moves = _scalar(data, "max_moves", name, "int") if "max_moves" in data else n * n
    cycle = None
    if "cycle" in data:
        cycle = _vector(data, "cycle", name, "iu", 0, n).astype(np.int32)
        if len(cycle) != n or len(np.unique(cycle)) != n:
            raise ReplayError(f"replay {name!r}: cycle must give each of the {n} cells a distinct position")
    options = {}
    if "options" in data:
        try:
            options = loads_json(_scalar(data, "options", name, "str"))
        except ValueError:
            raise ReplayError(f"replay {name!r}: options are not valid JSON") from None
    try:
        config = GameConfig(rows, cols, len(body), tail_rule, max_moves)
    except InputError as exc:
        raise ReplayError(f"replay {name!r}: {exc}") from None
    replay = Replay(
        rows=rows,
        cols=cols,
        policy=_scalar(data, "policy", name, "str"),
        seed=_scalar(data, "seed", name, "int"),
        game=_scalar(data, "game", name, "int"),
        tail_rule=tail_rule,
        max_moves=config.move_cap,
        body=body.astype(np.int32),
        moves=moves.astype(np.uint8),
        apples=apples.astype(np.int32),
        outcome=outcome,
        cycle=cycle,
        options=recorded_options(_scalar(data, "policy", name, "str"), options),
    )
    if verify:
        problem = replay_problem(replay)
        if problem:
            raise ReplayError(f"replay {name!r} breaks the rules: {problem}")
    return replay


def _first_difference(name: str, ours: np.ndarray, theirs: np.ndarray, what: str) -> str | None:
    ours, theirs = np.asarray(ours, np.int64), np.asarray(theirs, np.int64)
    if len(ours) == len(theirs) and np.array_equal(ours, theirs):
        return None
    same = min(len(ours), len(theirs))
    differ = np.flatnonzero(ours[:same] != theirs[:same])
    if differ.size:
        k = int(differ[0])
        return (f"field {name!r}: {what} {k} is {int(theirs[k])} in the file, {int(ours[k])} in the game re-played "
                f"from its seed")
    return f"field {name!r}: the file has {len(theirs):,} {what}s, the game re-played from its seed {len(ours):,}"


def game_mismatch(replay: Replay) -> str | None:
    """Whether `replay` is the game its policy plays from its seed on its board: its policy re-plays
    game `game` of base seed `seed` (options as recorded) and every field is compared, the first that
    differs named (a changed board size, seed or game index shows as a start body or apples that
    the seed does not give; a moved apple as that apple; a changed move as that move). None when
    they agree. The policy must be available (a model only from a file the user named)."""
    played, _, _ = compile_and_play(replay.policy, replay.config, replay.seed, replay.game, replay.options)
    for name, ours, theirs, what in (("body", played.body, replay.body, "start body cell"),
                                     ("apples", played.apples, replay.apples, "apple"),
                                     ("moves", played.moves, replay.moves, "move")):
        problem = _first_difference(name, ours, theirs, what)
        if problem:
            return problem
    if played.outcome != replay.outcome:
        return f"field 'outcome': the file says {replay.outcome!r}, the game re-played from its seed {played.outcome!r}"
    if (played.cycle is None) != (replay.cycle is None):
        has = "has" if replay.cycle is not None else "lacks"
        return f"field 'cycle': the file {has} one, the policy's game {'does not' if has == 'has' else 'does'}"
    if played.cycle is not None:
        return _first_difference("cycle", played.cycle, replay.cycle, "cycle position")
    return None


def trace(replay: Replay):
    """Per-move (heads, lengths, apples) of a replay, and its outcome code, via the engine."""
    cfg, nbr = replay.config.arrays()
    outcome, count, rec = trace_moves(cfg, nbr, replay.body, replay.moves, replay.apples, np.uint64(0))
    return outcome, count, rec


def replay_problem(replay: Replay) -> str | None:
    """Why the replay is inconsistent with the rules, or None."""
    body = replay.body
    cols = replay.cols
    for a, b in pairwise(body):
        (ra, ca), (rb, cb) = divmod(int(a), cols), divmod(int(b), cols)
        if abs(ra - rb) + abs(ca - cb) != 1:
            return f"start body cells {a} and {b} are not adjacent"
    n = replay.rows * replay.cols
    if len(replay.apples) == 0 and len(body) < n:
        return "no apple listed"
    outcome, count, _ = trace(replay)
    if outcome == BROKEN:
        return f"apple list puts an apple on the snake or runs out (move {count})"
    if count != len(replay.moves):
        return f"the game ends after move {count} but {len(replay.moves)} moves are listed"
    if outcome == RUNNING:
        return f"the game is still running after its {count} moves"
    if OUTCOME_NAMES[outcome] != replay.outcome:
        return f"the moves end in {OUTCOME_NAMES[outcome]!r}, the file says {replay.outcome!r}"
    return None


def pick_game(path, pick: str, policy: str | None = None, size=None) -> tuple[dict, int]:
    """(sweep parameters, game index) chosen from a sweep file by died|longest|shortest|INDEX."""
    params, table, position = _pick(path, pick, policy, size)
    return params, int(table.column("game")[position].as_py())


def _compare_run(path, reader, table, policy: str | None, size):
    """(parameters, rows) of one run of a compare file: the policy (as asked, or the one that played)
    and board named, or the only one; ReplayError listing the runs when that does not choose one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    runs = reader.file.sections
    board = None if size is None else parse_size(size)
    chosen = [s for s in runs if (policy is None or policy in (s["policy"], resolved_name(s["policy"])))
              and (board is None or (s["rows"], s["cols"]) == tuple(board))]
    listed = ", ".join(f"{s['policy']} {s['rows']}x{s['cols']}" for s in runs)
    if len(chosen) != 1:
        what = "several runs" if chosen else "no run"
        said = f"compare file {str(path)!r} holds {what} of that policy and board ({listed}): name one with "
        exc = in_cli_words(ReplayError(said + "policy= and, with several boards, size="),
                           said + "--policy and, with several boards, --size")
        raise exc
    run = chosen[0]
    asked = table.column("policy_asked").cast(pa.string())
    mask = pc.and_(pc.and_(pc.equal(asked, run["policy"]), pc.equal(table.column("rows"), run["rows"])),
                   pc.equal(table.column("cols"), run["cols"]))
    return {k: v for k, v in run.items() if k != "run"}, table.filter(mask)


def _pick(path, pick: str, policy: str | None = None, size=None):
    """(sweep parameters, its table, the position of the row chosen by died|longest|shortest|INDEX);
    from a compare file, of the run of `policy` (and `size`, "RxC", with several boards)."""
    reader = open_sweep(path)
    params, table = reader.parameters, reader.read()
    if reader.kind == "file" and reader.file.sections is not None:
        params, table = _compare_run(path, reader, table, policy, size)
    elif policy is not None and policy not in (params["policy"], resolved_name(params["policy"])):
        raise ReplayError(f"sweep {str(path)!r} holds games of {params['policy']}, not {policy}")
    games = table.column("game").to_numpy()
    moves = table.column("moves").to_numpy()
    outcomes = np.asarray(table.column("outcome").cast("string").to_pylist())
    if len(games) == 0:
        raise ReplayError(f"sweep file {str(path)!r} has no games")
    if pick == "died":
        died = np.flatnonzero(outcomes == "died")
        if len(died) == 0:
            raise ReplayError(f"sweep file {str(path)!r} has no game that died")
        return params, table, int(died[0])
    if pick == "longest":
        return params, table, int(np.argmax(moves))
    if pick == "shortest":
        return params, table, int(np.argmin(moves))
    try:
        index = int(pick)
    except ValueError:
        raise ReplayError(f"pick={pick!r} is not 'died', 'longest', 'shortest' or a game index") from None
    found = np.flatnonzero(games == index) if -2**63 <= index < 2**63 else []
    if len(found) == 0:
        raise ReplayError(f"game {index} is not in sweep file {str(path)!r}")
    return params, table, int(found[0])


# What a sweep row records of its game, compared with the game re-played from its seed.
ROW_FIELDS = ("seed", "outcome", "moves", "apples", "length")


def row_mismatch(row: dict, replay: Replay, seed: int) -> str | None:
    """The first field of a sweep's row that the re-played game contradicts, worded, or None."""
    played = dict(replay.summary(), seed=int(game_seed(np.uint64(seed), np.uint64(replay.game))))
    for field in ROW_FIELDS:
        if field in row and row[field] != played[field]:
            return f"its row says {field} {row[field]!r}, the game re-played from its seed has {played[field]!r}"
    return None


def replay_from_sweep(path, pick: str, policy: str | None = None, size=None):
    """Re-create a game of a sweep or compare file (of `policy` and `size` there) from its seed (no
    moves are stored in sweeps); a game that does not end as its row says (outcome, moves, apples,
    length, seed) is refused, naming the field. A file of a newer fastsnake is a `NewerVersionWarning`."""
    warn_if_newer_files(path)
    params, table, position = _pick(path, pick, policy, size)
    row = {field: table.column(field)[position].as_py() for field in ("game", *ROW_FIELDS)
           if field in table.column_names}
    replay, seconds, problem = replay_row(path, params, row)
    if problem:
        raise ReplayError(f"sweep file {str(path)!r}, game {int(row['game'])}: {problem} (the file is damaged, "
                          f"or was written by another fastsnake version)")
    return replay, seconds


def replay_row(path, params: dict, row: dict):
    """(Replay, seconds, problem) of a sweep's row (``game`` and the `ROW_FIELDS` it has; outcome as
    its word) re-played from its seed under the run's `params`: `problem` is None when the game ends
    as the row says, else the first field that differs, worded. What `replay --from` and `verify`'s
    re-play sample share; ReplayError for parameters no game can be played with."""
    index = int(row["game"])
    try:
        config = GameConfig(
            int(params["rows"]), int(params["cols"]), int(params["start_length"]),
            str(params["tail_rule"]), int(params["max_moves"]),
        )
        replay, seconds = play_game(str(params["policy"]), config, int(params["seed"]), index,
                                    recorded_options(str(params["policy"]), params.get("options")))
    except (KeyError, TypeError, ValueError, OverflowError) as exc:  # e.g. a seed of 2**70
        if isinstance(exc, InputError):
            raise
        raise ReplayError(f"sweep file {str(path)!r} has incomplete or impossible parameters ({exc})") from None
    return replay, seconds, row_mismatch(row, replay, int(params["seed"]))
