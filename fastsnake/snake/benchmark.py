"""What benchmarkers expect beside the means: repeated timing runs, robust aggregates, rank tests,
every pair with a multiple-comparison correction, and saved baselines with a regression verdict.

- `repeat_summary`: min / median / max of a speed over repeated runs and the bootstrap 95 %
  interval of the median (never below zero);
- `robust_summary`: median and interquartile mean (IQM) of the moves, each with its bootstrap
  95 % interval;
- `wilcoxon_p`: the Wilcoxon signed-rank test of paired differences; `holm`: Holm's step-down
  adjustment of a family of p-values;
- `save_baseline` / `find_baseline` / `check_baseline`: a compare's summary and per-game outcomes
  kept under a name, and today's games paired with them on the same seeds.

scipy and pyarrow are imported inside the functions that need them.
"""

from __future__ import annotations

import json
import os
import re

import numpy as np

from fastsnake.errors import InputError
from fastsnake.snake.intervals import CONFIDENCE, PairedAccumulator

# Bootstrap resamples of the robust aggregates and of the median speed; a fixed generator seed, so
# that the same games give the same intervals.
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
# At most this many games (the first ones) enter a robust bootstrap: a resample of 10^6 games 2,000
# times would take minutes; the count used is in the result (``games``).
ROBUST_GAMES = 200_000
# Where `save_baseline` keeps baselines: $FASTSNAKE_BASELINES, else .fastsnake/baselines in the
# current folder (beside the project being benchmarked, as criterion's target/criterion).
BASELINES_ENV = "FASTSNAKE_BASELINES"
BASELINE_FORMAT = "fastsnake-baseline/1"
BASELINE_META_KEY = b"fastsnake.baseline"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# A result and a saved baseline pair only when these agree (the same games on the same rules).
SAME_GAMES = ("rows", "cols", "start_length", "tail_rule", "max_moves", "seed", "options")


def _bootstrap_ci(values: np.ndarray, statistic) -> list[float] | None:
    """The percentile bootstrap 95 % interval of `statistic` over `values` (None for fewer than two)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return None
    if np.all(values == values[0]):
        return [float(values[0]), float(values[0])]
    from scipy import stats

    res = stats.bootstrap((values,), statistic, confidence_level=CONFIDENCE, n_resamples=BOOTSTRAP_RESAMPLES,
                          method="percentile", vectorized=True, rng=np.random.default_rng(BOOTSTRAP_SEED))
    return [float(res.confidence_interval.low), float(res.confidence_interval.high)]


def _median(x, axis=-1):
    return np.median(x, axis=axis)


def _iqm(x, axis=-1):
    from scipy import stats

    return stats.trim_mean(x, 0.25, axis=axis)


def repeat_summary(rates, warmup: int = 0) -> dict:
    """A speed measured in repeated runs (games per CPU-second of each): ``{"runs", "warmup",
    "values", "min", "median", "max", "median_ci95"}``; the interval is the percentile bootstrap of
    the median across runs, clipped at zero (a speed is never negative)."""
    values = np.asarray(rates, dtype=np.float64)
    ci = _bootstrap_ci(values, _median)
    if ci is not None:
        ci = [max(ci[0], 0.0), max(ci[1], 0.0)]
    return {"runs": int(values.size), "warmup": int(warmup), "values": values.tolist(),
            "min": float(values.min()), "median": float(np.median(values)), "max": float(values.max()),
            "median_ci95": ci, "method": "percentile bootstrap of the median over runs"}


def robust_summary(moves) -> dict:
    """Median and interquartile mean (the mean of the middle half, rliable's IQM) of the moves per
    game, each with its percentile bootstrap 95 % interval, over the first `ROBUST_GAMES` games."""
    moves = np.asarray(moves, dtype=np.float64)[:ROBUST_GAMES]
    if moves.size == 0:
        return {"games": 0, "moves_median": None, "moves_median_ci95": None, "moves_iqm": None,
                "moves_iqm_ci95": None}
    return {"games": int(moves.size),
            "moves_median": float(np.median(moves)), "moves_median_ci95": _bootstrap_ci(moves, _median),
            "moves_iqm": float(_iqm(moves)), "moves_iqm_ci95": _bootstrap_ci(moves, _iqm),
            "method": f"percentile bootstrap, {BOOTSTRAP_RESAMPLES} resamples"}


def wilcoxon_p(differences) -> float | None:
    """Two-sided p of the Wilcoxon signed-rank test that paired `differences` centre on zero
    (``scipy.stats.wilcoxon``, zero differences dropped); None when no difference is non-zero."""
    d = np.asarray(differences, dtype=np.float64)
    if not np.any(d != 0):
        return None
    from scipy import stats

    return float(stats.wilcoxon(d, zero_method="wilcox").pvalue)


def holm(pvalues) -> list[float | None]:
    """Holm's step-down adjustment of a family of p-values (None entries are left out and stay
    None): the k-th smallest of m becomes max over j <= k of min(1, (m - j + 1) p_(j))."""
    known = [(p, i) for i, p in enumerate(pvalues) if p is not None]
    out: list[float | None] = [None] * len(pvalues)
    m = len(known)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(known)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


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
    policy and board, and each summary in the footer. Returns the file written (atomically)."""
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
        summaries.append({k: v for k, v in s.items() if k not in ("paired", "pairs", "baseline_check")})
    table = pa.concat_tables(tables)
    meta = {"format": BASELINE_FORMAT, "name": name, "summaries": summaries}
    table = table.replace_schema_metadata({BASELINE_META_KEY: json.dumps(meta, default=_jsonable).encode()})
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    write_table_atomically(table, path)
    return path


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


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


def read_baseline(path: str):
    """(meta, table) of a baseline file; InputError for a file that is not one."""
    import pyarrow.parquet as pq

    from fastsnake.snake.store.sweepfile import readable_problem

    problem = readable_problem(path) if os.path.exists(path) else None  # a FIFO, a giant footer: unread
    if problem:
        raise InputError(f"baseline {path!r} {problem}")
    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"baseline {path!r} is not a readable Parquet file: {exc}") from None
    raw = (table.schema.metadata or {}).get(BASELINE_META_KEY)
    try:
        meta = json.loads(raw) if raw else None
    except ValueError:
        meta = None
    if not meta or meta.get("format") != BASELINE_FORMAT:
        raise InputError(f"{path!r} is not a fastsnake baseline (compare(..., save_baseline=NAME) writes one)")
    return meta, table


def check_baseline(results, name_or_file: str, *, slower: float = 0.10) -> dict:
    """Today's `results` (one compare) against a saved baseline, game by game on the same seeds.

    A policy is **worse** when, at 95 %: its win rate is lower (Newcombe's paired interval below
    zero), or its moves over the games both won are more (the paired t interval above zero), or —
    when both runs were timed with ``--repeat`` — its median games per CPU-second is more than
    `slower` (a share) below the baseline's. Returns ``{"baseline", "file", "slower", "policies":
    [...], "worse": [one line per finding], "unmatched": [...]}``; each result's summary gains
    ``baseline_check``.
    """
    if isinstance(slower, bool) or not isinstance(slower, (int, float)) or not 0 <= slower < 1:
        raise InputError(f"slower={slower!r} must be a share between 0 and 1 (0.10: 10 % slower)")
    path = find_baseline(name_or_file)
    meta, table = read_baseline(path)
    saved = {(s["policy"], s["rows"], s["cols"]): s for s in meta["summaries"]}
    policy = np.asarray(table.column("policy").to_pylist(), dtype=object)
    rows_col, cols_col = table.column("rows").to_numpy(), table.column("cols").to_numpy()
    games, outcome = table.column("game").to_numpy(), table.column("outcome").to_numpy()
    moves, apples = table.column("moves").to_numpy(), table.column("apples").to_numpy()
    out = {"baseline": meta.get("name", os.path.basename(path)), "file": path, "slower": slower, "policies": [],
           "worse": [], "unmatched": []}
    for r in results:
        s, run = r.summary, r._raw
        key = (s["policy"], s["rows"], s["cols"])
        where = f"{s['policy']} {s['rows']}x{s['cols']}"
        base = saved.get(key)
        differ = None if base is None else next((k for k in SAME_GAMES if base.get(k) != s.get(k)), None)
        if base is None or differ is not None:
            out["unmatched"].append(where + (" (not in the baseline)" if base is None else f" ({differ} differs)"))
            s["baseline_check"] = None
            continue
        pick = (policy == s["policy"]) & (rows_col == s["rows"]) & (cols_col == s["cols"])
        today = run.first_game + np.arange(len(run.outcome), dtype=np.int64)
        common, it, ib = np.intersect1d(today, games[pick], return_indices=True)
        acc = PairedAccumulator()
        acc.add(outcome[pick][ib], moves[pick][ib], np.asarray(run.outcome)[it], np.asarray(run.moves)[it],
                apples[pick][ib], np.asarray(run.apples)[it])
        from fastsnake.snake.precision import OUTCOME_BY_CODE

        paired = acc.as_dict(f"baseline {out['baseline']}", OUTCOME_BY_CODE)
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
        now, then = (s.get("repeats") or {}).get("median"), (base.get("repeats") or {}).get("median")
        if now and then:
            speed = now / then
            if speed < 1 - slower:
                found.append(f"median speed {speed:.2f} x the baseline's (more than {slower:.0%} slower)")
        check = {"policy": s["policy"], "rows": s["rows"], "cols": s["cols"], "games": int(len(common)),
                 "paired": paired, "speed_ratio": speed, "speed_judged": speed is not None, "worse": found}
        s["baseline_check"] = check
        out["policies"].append(check)
        out["worse"] += [f"{where}: {f}" for f in found]
    return out
