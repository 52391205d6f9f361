"""What benchmarkers expect beside the means: repeated timing runs, robust aggregates, rank tests,
every pair with a multiple-comparison correction, and saved baselines with a regression verdict.

- `robust_summary`: median and interquartile mean (IQM) of the moves, each with its bootstrap
  95 % interval; `wilcoxon_p`: the Wilcoxon signed-rank test of paired differences (the
  statistics themselves, and `repeat_summary` and `holm`, are `fastsnake.study.stats`');
- `save_baseline` / `find_baseline` / `check_baseline`: a compare's summary and per-game outcomes
  kept under a name, and today's games paired with them on the same seeds.

scipy and pyarrow are imported inside the functions that need them.
"""

from __future__ import annotations

import json
import os
import re

import numpy as np

from fastsnake.errors import InputError, in_cli_words
from fastsnake.snake.intervals import PairedAccumulator
from fastsnake.study.stats import (  # noqa: F401  (the names stay here for code written against them)
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    holm,
    repeat_summary,
    robust,
    wilcoxon,
)

# At most this many games (the first ones) enter a robust bootstrap: a resample of 10^6 games 2,000
# times would take minutes; the count used is in the result (``games``).
ROBUST_GAMES = 200_000
# Where `save_baseline` keeps baselines: $FASTSNAKE_BASELINES, else .fastsnake/baselines in the
# current folder (beside the project being benchmarked, as criterion's target/criterion).
BASELINES_ENV = "FASTSNAKE_BASELINES"
BASELINE_FORMAT = "fastsnake-baseline/2"
# The format before checksums: refused with a line saying to re-save (docs/benchmarks.md).
OLD_BASELINE_FORMATS = ("fastsnake-baseline/1",)
BASELINE_META_KEY = b"fastsnake.baseline"
# The columns of a baseline file and their Arrow types, in the order the checksum reads them.
BASELINE_COLUMNS = (("policy", "string"), ("rows", "int16"), ("cols", "int16"), ("game", "int64"),
                    ("outcome", "int8"), ("moves", "int64"), ("apples", "int32"))
# Games of each compared policy re-played from their seeds before a baseline saved by the same code
# is trusted (a few play-kernel calls, milliseconds each once compiled).
BASELINE_REPLAY_GAMES = 3
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# A result and a saved baseline pair only when these agree (the same games on the same rules).
SAME_GAMES = ("rows", "cols", "start_length", "tail_rule", "max_moves", "seed", "options")
# What a saved summary must hold, and of what type, for a baseline to be read at all.
SUMMARY_FIELDS = {"policy": str, "rows": int, "cols": int, "start_length": int, "tail_rule": str,
                  "max_moves": int, "seed": int, "games": int}


class BaselineError(InputError):
    """A baseline that cannot be used: damaged, malformed, forged, or not comparable with the run."""


def robust_summary(moves) -> dict:
    """Median and interquartile mean (the mean of the middle half, rliable's IQM) of the moves per
    game, each with its percentile bootstrap 95 % interval (`fastsnake.study.stats.robust`), over
    the first `ROBUST_GAMES` games."""
    r = robust(np.asarray(moves, dtype=np.float64)[:ROBUST_GAMES])
    out = {"games": r.pop("n")} | {f"moves_{k}": v for k, v in r.items() if k != "method"}
    return out | ({"method": r["method"]} if "method" in r else {})


def wilcoxon_p(differences) -> float | None:
    """Two-sided p of the Wilcoxon signed-rank test that paired `differences` centre on zero
    (`fastsnake.study.stats.wilcoxon`); None when no difference is non-zero."""
    d = np.asarray(differences, dtype=np.float64)
    return wilcoxon(d) if np.any(d != 0) else None


def load_warning() -> str | None:
    """A sentence when the machine's 1-minute load exceeds its cores (timings then measure the queue)."""
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        return None
    cores = os.cpu_count() or 1
    if load > cores:
        return (f"the machine's load ({load:.1f}) exceeds its {cores} cores: speeds measured now are "
                "slowed by other work (the games themselves are unaffected)")
    return None


# -- baselines ---------------------------------------------------------------------------------

def baselines_dir() -> str:
    return os.environ.get(BASELINES_ENV) or os.path.join(".fastsnake", "baselines")


def baseline_path(name: str) -> str:
    """Where baseline `name` is kept (``<baselines>/<name>.parquet``); the name is checked."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise InputError(f"baseline name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-', starting with a "
                         f"letter or digit")
    return os.path.join(baselines_dir(), f"{name}.parquet")


def save_baseline(results, name: str) -> str:
    """Keep `results` (one compare) as baseline `name`: every game's outcome, moves and apples by
    policy and board, each summary (with a fingerprint of the code that played it) in the footer,
    and a BLAKE2b checksum over both. Returns the file written (atomically)."""
    import pyarrow as pa

    from fastsnake.snake.sweep import write_table_atomically

    path = baseline_path(name)
    tables, summaries = [], []
    for r in results:
        run, s = r._raw, r.summary
        if run is None or len(run.outcome) != s["games"]:
            raise InputError(f"baseline {name!r}: the games of {s['policy']} were not kept in memory")
        n = len(run.outcome)
        tables.append(pa.table({
            "policy": pa.array([s["policy"]] * n, pa.string()),
            "rows": pa.array(np.full(n, s["rows"], np.int16)), "cols": pa.array(np.full(n, s["cols"], np.int16)),
            "game": pa.array(run.first_game + np.arange(n, dtype=np.int64)),
            "outcome": pa.array(np.asarray(run.outcome, np.int8)), "moves": pa.array(np.asarray(run.moves, np.int64)),
            "apples": pa.array(np.asarray(run.apples, np.int32))}))
        kept = {k: v for k, v in s.items() if k not in ("paired", "pairs", "baseline_check")}
        kept["code"] = code_fingerprint(s["policy"])
        summaries.append(json.loads(json.dumps(kept, default=_jsonable)))
    table = pa.concat_tables(tables)
    from fastsnake import __version__

    meta = {"format": BASELINE_FORMAT, "name": name, "fastsnake_version": __version__, "summaries": summaries}
    meta["checksum"] = baseline_checksum(meta, table)
    table = table.replace_schema_metadata({BASELINE_META_KEY: json.dumps(meta).encode()})
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    write_table_atomically(table, path)
    return path


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


def baseline_checksum(meta: dict, table) -> str:
    """``"blake2b:<hex>"`` over a canonical serialisation of a baseline: its metadata but the
    checksum (JSON, sorted keys), then each column of `BASELINE_COLUMNS` in order as
    little-endian values (the policy names NUL-separated UTF-8): `fastsnake.study.checksum`."""
    from fastsnake.study.checksum import table_checksum

    return table_checksum(meta, table, BASELINE_COLUMNS)


def code_fingerprint(policy_name: str) -> str | None:
    """A BLAKE2b fingerprint of the code that plays `policy_name`'s games: fastsnake's version, the
    sources of every fastsnake module the policy's code can reach (its import reach, as the kernel
    cache keys it: `fastsnake._numba_cache`) and, for a user's policy, the files of its functions.
    Equal fingerprints mean the same seed must give the same game; None when a source cannot be
    read (a function typed into a REPL): the games then cannot be re-played as evidence."""
    import hashlib
    import inspect

    from fastsnake import __version__
    from fastsnake._numba_cache import import_reach, module_of, sources_hash
    from fastsnake.snake.policies import get_policy

    try:
        policy = get_policy(policy_name)
    except (InputError, KeyError, OSError):
        return None
    functions = [policy.make_params]
    user = getattr(getattr(policy.make_params, "__self__", None), "policy", None)
    if user is not None:
        functions += [getattr(user, role, None) for role in ("decide", "alloc", "start_cycle")]
    ours, theirs = {"fastsnake.snake.engine", "fastsnake.snake.rng"}, set()
    for fn in functions:
        if fn is None:
            continue
        try:
            source = inspect.getsourcefile(inspect.unwrap(getattr(fn, "py_func", fn)))
        except TypeError:
            return None
        if not source:  # defined where no file holds it (a REPL): its changes could not be seen
            return None
        name = module_of(source)
        (ours.add(name) if name else theirs.add(source))
    digest = hashlib.blake2b(f"{__version__} {policy.name} {policy.origin}".encode(), digest_size=16)
    digest.update(sources_hash(import_reach(frozenset(ours))).encode())
    for name in sorted(theirs):
        try:
            with open(name, "rb") as fh:
                digest.update(name.encode() + b"\0" + fh.read())
        except OSError:
            return None
    return "blake2b:" + digest.hexdigest()


def find_baseline(name_or_file: str) -> str:
    """The file of a saved baseline: a path to one, or a name saved with `save_baseline`."""
    text = os.fspath(name_or_file)
    if os.path.isfile(text):
        return text
    path = baseline_path(text) if _NAME.match(text) and not text.endswith(".parquet") else text
    if not os.path.isfile(path):
        folder = baselines_dir()
        saved = sorted(f[:-8] for f in os.listdir(folder) if f.endswith(".parquet")) if os.path.isdir(folder) else []
        known = "saved: " + ", ".join(saved) if saved else "none saved yet: compare ... --save-baseline NAME"
        raise InputError(f"no baseline {text!r}: neither a file nor a name saved in {folder!r} ({known})")
    return path


def _meta_problem(meta) -> str | None:
    """What is wrong with a baseline's metadata (its structure and types), or None."""
    if not isinstance(meta, dict):
        return f"its metadata is a JSON {type(meta).__name__}, not an object"
    summaries = meta.get("summaries")
    if not isinstance(summaries, list) or not summaries:
        return f"'summaries' is {str(summaries)[:40]!r}, not a list of the saved policies' summaries"
    for k, s in enumerate(summaries):
        if not isinstance(s, dict):
            return f"summary {k} is a JSON {type(s).__name__}, not an object"
        for name, kind in SUMMARY_FIELDS.items():
            value = s.get(name)
            if name not in s:
                return f"summary {k} lacks {name!r}"
            if not isinstance(value, kind) or isinstance(value, bool):
                article = "an" if kind is int else "a"
                return f"summary {k}: {name!r} is {str(value)[:40]!r}, not {article} {kind.__name__}"
        if not isinstance(s.get("options", {}), dict):
            return f"summary {k}: 'options' is not an object"
    keys = [(s["policy"], s["rows"], s["cols"]) for s in summaries]
    if len(set(keys)) != len(keys):
        return "two summaries name the same policy and board"
    if not isinstance(meta.get("checksum"), str):
        return "it has no checksum"
    return None


def read_baseline(path: str):
    """(meta, table) of a baseline file, checked: its format, metadata, columns and checksum, and
    that its rows are the games its summaries count. `BaselineError` (one line) otherwise; a file
    of the format before checksums (``fastsnake-baseline/1``) is refused with a word to re-save it."""
    import pyarrow.parquet as pq

    from fastsnake.snake.store.sweepfile import readable_problem

    problem = readable_problem(path) if os.path.exists(path) else None  # a FIFO, a giant footer: unread
    if problem:
        raise InputError(f"baseline {path!r} {problem}")
    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as exc:
        raise BaselineError(f"baseline {path!r} is not a readable Parquet file: {str(exc)[:200]}") from None
    raw = (table.schema.metadata or {}).get(BASELINE_META_KEY)
    try:
        meta = json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        meta = None
    fmt = meta.get("format") if isinstance(meta, dict) else None
    if fmt in OLD_BASELINE_FORMATS:
        said = (f"baseline {path!r} was saved by an older fastsnake (format {fmt}, without a checksum): "
                f"re-save it from the code it stands for")
        exc = in_cli_words(BaselineError(said + " (compare(..., save_baseline=NAME))"),
                           said + " (fastsnake compare ... --save-baseline NAME)")
        raise exc
    from fastsnake.versions import newer_note, warn_if_newer

    version = meta.get("fastsnake_version") if isinstance(meta, dict) else None
    if fmt != BASELINE_FORMAT:
        if fmt is not None and newer_note(version):
            raise BaselineError(f"baseline {path!r} has format {str(fmt)[:40]!r}, not {BASELINE_FORMAT!r}"
                                + newer_note(version))
        raise BaselineError(f"{path!r} is not a fastsnake baseline (compare(..., save_baseline=NAME) writes one)")
    problem = _meta_problem(meta)
    if problem is None:
        names = table.column_names
        for name, kind in BASELINE_COLUMNS:
            if name not in names:
                problem = f"it lacks the column {name!r}"
                break
            if str(table.schema.field(name).type) != kind:
                problem = f"its column {name!r} is {table.schema.field(name).type}, not {kind}"
                break
            if table.column(name).null_count:
                problem = f"its column {name!r} has empty (null) values"
                break
    if problem is None and baseline_checksum(meta, table) != meta["checksum"]:
        problem = "its checksum does not match its rows and metadata (the file was changed after it was saved)"
    if problem is None:
        problem = _rows_problem(meta, table)
    if problem is not None:
        raise BaselineError(f"baseline {path!r} cannot be used: {problem}")
    warn_if_newer(f"baseline {path!r}", version)
    return meta, table


def _values_problem(summary: dict, games, outcome, moves, apples) -> str | None:
    """The first row value no game of `summary`'s conditions can have, worded, or None: a value out
    of range, or an outcome the game's rules forbid (a win without the board filled, a loss with it
    filled, a game stuck before the move cap, more apples than moves)."""
    from fastsnake.snake.engine import OUTCOME_NAMES, STUCK, WON

    cells = summary["rows"] * summary["cols"]
    for what, values, lo, hi in (("game", games, 0, 2**63 - 1), ("outcome", outcome, 1, len(OUTCOME_NAMES) - 1),
                                 ("moves", moves, 0, summary["max_moves"]), ("apples", apples, 0, cells)):
        bad = np.flatnonzero((values < lo) | (values > hi))
        if bad.size:
            k = int(bad[0])
            return f"{what} {int(values[k])} (game {int(games[k])}) is outside {lo}..{hi}"
    full = cells - summary["start_length"]
    won = outcome == WON
    for said, bad in ((f"won without eating the {full} apples that fill the board", won & (apples != full)),
                      (f"lost after eating the {full} apples that fill the board", ~won & (apples >= full)),
                      (f"stuck before the move cap {summary['max_moves']}",
                       (outcome == STUCK) & (moves != summary["max_moves"])),
                      ("ate more apples than it made moves", apples > moves)):
        where = np.flatnonzero(bad)
        if where.size:
            k = int(where[0])
            return (f"game {int(games[k])} {said} ({OUTCOME_NAMES[int(outcome[k])]}, {int(moves[k])} moves, "
                    f"{int(apples[k])} apples): the game's rules forbid it")
    return None


def _summary_problem(summary: dict, outcome, moves) -> str | None:
    """Whether a policy's rows are the games its saved summary counts: its wins, deaths, stuck games
    and total moves (each written from the same games), or the first that differs, worded."""
    from fastsnake.snake.engine import DIED, STUCK, WON

    counted = (("wins", int(np.sum(outcome == WON))), ("deaths", int(np.sum(outcome == DIED))),
               ("stuck", int(np.sum(outcome == STUCK))), ("total_moves", int(np.sum(moves, dtype=np.int64))))
    for name, held in counted:
        said = summary.get(name)
        if isinstance(said, int) and not isinstance(said, bool) and said != held:
            return f"its rows hold {held:,} {name.replace('_', ' ')} where its summary counts {said:,}"
    return None


def _rows_problem(meta: dict, table) -> str | None:
    """Whether the rows are the games the summaries count: one row per game, no game twice."""
    import pyarrow.compute as pc

    summaries = {(s["policy"], s["rows"], s["cols"]): s for s in meta["summaries"]}
    counts = {key: s["games"] for key, s in summaries.items()}
    keys = table.select(["policy", "rows", "cols"]).group_by(["policy", "rows", "cols"]).aggregate([])
    held = {}
    for key in zip(*(keys.column(c).to_pylist() for c in ("policy", "rows", "cols")), strict=True):
        mask = pc.and_(pc.and_(pc.equal(table.column("policy"), key[0]), pc.equal(table.column("rows"), key[1])),
                       pc.equal(table.column("cols"), key[2]))
        games = table.column("game").filter(mask).to_numpy()
        held[key] = len(games)
        if len(np.unique(games)) != len(games):
            return f"{key[0]} {key[1]}x{key[2]} has a game twice"
        s = summaries.get(key)
        if s is not None and len(games):
            outcome, moves, apples = (table.column(c).filter(mask).to_numpy() for c in ("outcome", "moves", "apples"))
            problem = _values_problem(s, games, outcome, moves, apples)
            if problem is None and len(games) == s["games"]:
                problem = _summary_problem(s, outcome, moves)
            if problem:
                return f"{key[0]} {key[1]}x{key[2]}: {problem}"
    for key, n in counts.items():
        if held.get(key, 0) != n:
            return (f"it holds {held.get(key, 0):,} rows of {key[0]} {key[1]}x{key[2]} where its summary counts "
                    f"{n:,} games")
    extra = [k for k in held if k not in counts]
    if extra:
        return f"it holds rows of {extra[0][0]} {extra[0][1]}x{extra[0][2]}, which no summary describes"
    return None


def _label(key) -> str:
    return f"{key[0]} {key[1]}x{key[2]}"


def _column(table, name, mask=None):
    column = table.column(name)
    return (column if mask is None else column.filter(mask)).to_numpy()


def _trust_problem(base: dict, games, outcome, moves, apples, today: dict, sample: int) -> tuple[str | None, list]:
    """Whether a baseline's games of one policy and board are the games its seeds give, when the
    code that saved them is the code of today (equal `code_fingerprint`s): every game both runs
    played must be the same, and `sample` games of the baseline (drawn from its checksum, so an
    altered file draws others) are re-played from their seeds. (the first contradiction, worded
    with its game, or None; the games re-played). Nothing is re-played when the code changed:
    today's games may then differ by design."""
    from fastsnake.snake.board import GameConfig
    from fastsnake.snake.engine import OUTCOME_NAMES
    from fastsnake.snake.policies import recorded_options
    from fastsnake.snake.replay import play_game, row_mismatch

    where = f"{base['policy']} {base['rows']}x{base['cols']}"
    common, ib, it = np.intersect1d(games, today["game"], assume_unique=True, return_indices=True)
    for field, theirs, ours in (("outcome", outcome, today["outcome"]), ("moves", moves, today["moves"]),
                                ("apples", apples, today["apples"])):
        differ = np.flatnonzero(theirs[ib] != ours[it])
        if differ.size:
            k = differ[0]
            said = OUTCOME_NAMES[int(theirs[ib][k])] if field == "outcome" else int(theirs[ib][k])
            now = OUTCOME_NAMES[int(ours[it][k])] if field == "outcome" else int(ours[it][k])
            return (f"{where}, game {int(common[k])}: the baseline says {field} {said!r}, the same code plays "
                    f"{now!r} from its seed", [])
    rng = np.random.default_rng(int(base["_draw"], 16))
    picks = np.sort(rng.choice(len(games), size=min(sample, len(games)), replace=False))
    config = GameConfig(base["rows"], base["cols"], base["start_length"], base["tail_rule"], base["max_moves"])
    options = recorded_options(base["policy"], base.get("options"))
    replayed = []
    for k in picks:
        game = int(games[k])
        replay, _ = play_game(base["policy"], config, base["seed"], game, options)
        row = {"outcome": OUTCOME_NAMES[int(outcome[k])] if 0 <= int(outcome[k]) < len(OUTCOME_NAMES) else
               int(outcome[k]), "moves": int(moves[k]), "apples": int(apples[k])}
        problem = row_mismatch(row, replay, base["seed"])
        if problem:
            return f"{where}, game {game}: {problem}", replayed
        replayed.append(game)
    return None, replayed


def check_baseline(results, name_or_file: str, *, slower: float = 0.10, allow_partial: bool = False,
                   replay_games: int = BASELINE_REPLAY_GAMES, require_all: bool = False) -> dict:
    """Today's `results` (one compare) against a saved baseline, game by game on the same seeds.

    The baseline is checked first (`read_baseline`: format, metadata, columns, checksum); then every
    policy of the run must pair with the baseline's on the same conditions (`SAME_GAMES`) and
    games (`fastsnake.study.gate`), else `BaselineError` names what differs, unless
    `allow_partial` (at least one policy must still pair). The baseline rule
    (`fastsnake.study.baseline`): a file whose rows contradict themselves (its summaries' counts)
    or the game's rules is refused (`read_baseline`); a policy whose play changed is compared and
    judged. Where the baseline was saved by the same code (`code_fingerprint`), the games both
    played are compared and `replay_games` of the baseline's games per policy are re-played from
    their seeds: a contradiction means its play changed where the fingerprint cannot see
    (parameters in the environment or a file), a line in ``changed``; where the code changed,
    games that differ are a line there too.

    A policy is **worse** when, at 95 %: its win rate is lower (Newcombe's paired interval below
    zero), or its moves over the games both won are more (the paired t interval above zero), or —
    when both runs were timed with ``--repeat`` — its median games per CPU-second is more than
    `slower` (a share) below the baseline's. Returns ``{"baseline", "file", "slower", "policies":
    [...], "worse": [one line per finding], "unmatched": [...], "coverage": {...}, "replayed":
    {...}, "not_replayed": [...], "changed": [...], "not_run": {"games", "games_total", "policies"}}``
    (the baseline's games and policies this run did not play: with `require_all`, any is a
    `BaselineError`, unless a policy is worse anyway); each result's summary gains ``baseline_check``.
    """
    from fastsnake.study.baseline import changed_line
    from fastsnake.study.gate import coverage, gate_problem, pair_runs, refusal

    if isinstance(slower, bool) or not isinstance(slower, (int, float)) or not 0 <= slower < 1:
        raise InputError(f"slower={slower!r} must be a share between 0 and 1 (0.10: 10 % slower)")
    if isinstance(replay_games, bool) or not isinstance(replay_games, int) or replay_games < 0:
        raise InputError(f"replay_games={replay_games!r} must be a count of at least 0")
    path = find_baseline(name_or_file)
    meta, table = read_baseline(path)
    saved = {(s["policy"], s["rows"], s["cols"]): s for s in meta["summaries"]}
    policy = np.asarray(table.column("policy").to_pylist(), dtype=object)
    rows_col, cols_col = _column(table, "rows"), _column(table, "cols")
    games, outcome = _column(table, "game"), _column(table, "outcome")
    moves, apples = _column(table, "moves"), _column(table, "apples")
    picks = {key: (policy == key[0]) & (rows_col == key[1]) & (cols_col == key[2]) for key in saved}
    run = {(r.summary["policy"], r.summary["rows"], r.summary["cols"]): r for r in results}
    ids = {k: r._raw.first_game + np.arange(len(r._raw.outcome), dtype=np.int64) for k, r in run.items()}
    pairings = pair_runs({k: r.summary for k, r in run.items()}, saved, SAME_GAMES, ids,
                         {k: games[m] for k, m in picks.items()}, label=_label, noun="game")
    problem = gate_problem(pairings, allow_partial=allow_partial, words=("policy", "game"))
    name = meta.get("name") if isinstance(meta.get("name"), str) else os.path.basename(path)
    if problem is not None:
        raise refusal(BaselineError, f"baseline {name!r}: {problem}")
    out = {"baseline": name, "file": path, "slower": slower, "policies": [], "worse": [],
           "unmatched": [f"{p.label} ({', '.join(p.reasons)})" for p in pairings if not p.compared]
           + [f"{p.run_count - p.shared:,} of the {p.run_count:,} games of {p.label} (not in the baseline)"
              for p in pairings if p.partial],
           "coverage": coverage(pairings), "replayed": {}, "not_replayed": [], "changed": [],
           "not_run": {"games": 0, "games_total": int(len(games)),
                       "policies": [_label(k) for k in saved if k not in run]}}
    out["not_run"]["games"] += sum(int(picks[k].sum()) for k in saved if k not in run)
    for pairing in pairings:
        r = run[pairing.key]
        s, raw = r.summary, r._raw
        if not pairing.compared:
            s["baseline_check"] = None
            continue
        base, pick = saved[pairing.key], picks[pairing.key]
        today = {"game": raw.first_game + np.arange(len(raw.outcome), dtype=np.int64),
                 "outcome": np.asarray(raw.outcome), "moves": np.asarray(raw.moves), "apples": np.asarray(raw.apples)}
        code = code_fingerprint(s["policy"])
        common, it, ib = np.intersect1d(today["game"], games[pick], return_indices=True)
        if code is not None and base.get("code") == code:
            found, replayed = _trust_problem(dict(base, _draw=meta["checksum"][-16:]), games[pick], outcome[pick],
                                             moves[pick], apples[pick], today, replay_games)
            if found:  # the file is whole and consistent: the play changed where the fingerprint cannot see
                out["changed"].append(changed_line(pairing.label, "play", found, unseen=True))
            else:
                out["replayed"][pairing.label] = replayed
        else:
            out["not_replayed"].append(pairing.label)
            n = int(np.sum((outcome[pick][ib] != today["outcome"][it]) | (moves[pick][ib] != today["moves"][it])))
            if n:
                out["changed"].append(changed_line(pairing.label, "play", f"{n:,} of {len(common):,} games differ; "
                                                                          "its code changed"))
        acc = PairedAccumulator()
        acc.add(outcome[pick][ib], moves[pick][ib], today["outcome"][it], today["moves"][it],
                apples[pick][ib], today["apples"][it])
        from fastsnake.snake.precision import OUTCOME_BY_CODE

        paired = acc.as_dict(f"baseline {name}", OUTCOME_BY_CODE)
        found = []
        ci = paired["win_rate_diff_ci95"]
        if ci is not None and ci[1] < 0:
            found.append(f"win rate {100 * paired['win_rate_diff']:+.2f} points [{100 * ci[0]:+.2f}, "
                         f"{100 * ci[1]:+.2f}]")
        ci = paired["moves_diff_ci95"]
        if ci is not None and ci[0] > 0:
            found.append(f"{paired['moves_diff_mean']:+,.1f} moves [{ci[0]:+,.1f}, {ci[1]:+,.1f}] over "
                         f"{paired['games']:,} games both won")
        speed = None
        now, then = ((x.get("repeats") if isinstance(x.get("repeats"), dict) else {}).get("median") for x in (s, base))
        if isinstance(now, (int, float)) and isinstance(then, (int, float)) and now > 0 and then > 0:
            speed = now / then
            if speed < 1 - slower:
                found.append(f"median speed {speed:.2f} x the baseline's (more than {slower:.0%} slower)")
        out["not_run"]["games"] += int(len(games[pick]) - len(common))
        check = {"policy": s["policy"], "rows": s["rows"], "cols": s["cols"], "games": int(len(common)),
                 "paired": paired, "speed_ratio": speed, "speed_judged": speed is not None, "worse": found,
                 "replayed": out["replayed"].get(pairing.label)}
        s["baseline_check"] = check
        out["policies"].append(check)
        out["worse"] += [f"{pairing.label}: {f}" for f in found]
    left = out["not_run"]
    if require_all and (left["games"] or left["policies"]) and not out["worse"]:
        from fastsnake.study.baseline import require_all_refusal

        said = (f"baseline {name!r}: only part of it was checked: {left['games']:,} of its {left['games_total']:,} "
                "games not played" + (f" (its {', '.join(left['policies'])} not run)" if left["policies"] else ""))
        raise require_all_refusal(said)
    return out
