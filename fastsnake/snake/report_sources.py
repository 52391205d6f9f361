"""The Snake report's inputs: sweep files, compare files, sweep folders and `SweepResult`s, each read
as one or more `SweepSource`s (one policy's games, their rules, their rows batch by batch, through
the store's checked reader), for `fastsnake.snake.report` to summarise.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field

from fastsnake import __version__, machine
from fastsnake.errors import InputError
from fastsnake.snake.board import GameConfig
from fastsnake.snake.store import open_sweep, sweepfile
from fastsnake.snake.sweep import PARQUET_META_KEY, READ_OPTIONS, RUN_META_KEY

# Rows read at once from a sweep file or chunk: the report's memory is bounded by a few batches.
BATCH_ROWS = 1 << 18
COMPARE_META_KEY = sweepfile.COMPARE_META_KEY


class ReportError(InputError):
    """A report input that cannot be read, or a request that cannot be met."""


@dataclass
class SweepSource:
    """One policy's games: where they come from, the rules they were played under, how to read them."""

    label: str
    params: dict  # policy, rows, cols, start_length, tail_rule, max_moves, seed, options (a sweep's parameters)
    batches: object  # () -> iterator of pyarrow tables with columns game, seed, outcome, moves, apples, length
    run: dict = field(default_factory=dict)  # timing and machine of the run, where recorded
    notes: list = field(default_factory=list)

    @property
    def policy(self) -> str:
        return str(self.params["policy"])

    @property
    def config(self) -> GameConfig:
        p = self.params
        return GameConfig(int(p["rows"]), int(p["cols"]), int(p["start_length"]), str(p["tail_rule"]),
                          int(p["max_moves"]))


# -- reading sources --------------------------------------------------------------------------

def _parquet_sources(path: str) -> list[SweepSource]:
    import pyarrow.parquet as pq

    try:
        problem = sweepfile.readable_problem(path)  # a FIFO, a giant footer or column: refused unread
    except FileNotFoundError:
        raise ReportError(f"{path!r} does not exist") from None
    if problem:
        raise ReportError(f"{path!r} {problem}")
    try:
        pf = pq.ParquetFile(path, **READ_OPTIONS)
        meta = pf.metadata.metadata or {}
    except FileNotFoundError:
        raise ReportError(f"{path!r} does not exist") from None
    except (OSError, ValueError):
        raise ReportError(f"{path!r} is not a readable Parquet file (cut short, or another format)") from None
    raw = meta.get(PARQUET_META_KEY)
    names = pf.schema_arrow.names
    if raw is None or not {"game", "moves", "outcome"} <= set(names):
        raise ReportError(f"{path!r} is not a fastsnake sweep or compare file (no sweep parameters)")
    try:
        params = json.loads(raw)
        run = json.loads(meta[RUN_META_KEY]) if RUN_META_KEY in meta else {}
        compared = json.loads(meta[COMPARE_META_KEY]) if COMPARE_META_KEY in meta else None
    except ValueError:
        raise ReportError(f"{path!r}: its sweep parameters are not valid JSON") from None
    label = os.path.basename(path)
    if COMPARE_META_KEY not in meta and ("policy" not in names or "tail_rule" in names):
        return [_folder_source(path)]  # one sweep (its identity columns are no compare file's policy column)

    # A compare of several boards holds rows and cols columns: one section per policy and board (the
    # policy as asked: `policy` holds the one that played, grove for strongest).
    name = "policy_asked" if "policy_asked" in names else "policy"
    keys = [name, "rows", "cols"] if {name, "rows", "cols"} <= set(names) else [name]

    def read(key=None):
        def batches():
            import pyarrow as pa
            import pyarrow.compute as pc

            try:
                for batch in pq.ParquetFile(path, **READ_OPTIONS).iter_batches(batch_size=BATCH_ROWS):
                    table = pa.Table.from_batches([batch])
                    for column, value in zip(keys, key or (), strict=False):
                        values = table.column(column)
                        if pa.types.is_dictionary(values.type):
                            values = values.cast(pa.string())
                        table = table.filter(pc.equal(values, value))
                    yield table
            except (OSError, ValueError) as exc:  # a page checksum that fails, a page cut short
                raise ReportError(f"{path!r} is damaged ({str(exc).splitlines()[0][:120]}); "
                                  "'fastsnake verify' checks it") from None
        return batches

    if "policy" not in names:
        return [SweepSource(label, params, read(), run)]
    # A compare file: one section per policy (and board), in the order the file lists them.
    import pyarrow as pa
    import pyarrow.compute as pc

    policies, boards = [], set()
    for batch in pq.ParquetFile(path, **READ_OPTIONS).iter_batches(batch_size=BATCH_ROWS, columns=keys):
        table = pa.Table.from_batches([batch])
        for asked in pc.unique(table.column(name)).to_pylist():
            if asked not in policies:
                policies.append(asked)
        if len(keys) == 3:
            seen = table.set_column(0, name, table.column(name).cast(pa.string())).group_by(keys).aggregate([])
            boards |= set(zip(*(seen.column(k).to_pylist() for k in keys), strict=True))
    found = ([(p,) for p in policies] if len(keys) == 1 else
             sorted(boards, key=lambda k: (policies.index(k[0]), k[1] * k[2], k[1])))
    entries = compared or []
    sources = []
    for key in found:
        name = key[0]
        board = {"rows": key[1], "cols": key[2]} if len(key) == 3 else {}
        entry = next((e for e in entries if e["parameters"]["policy"] == name
                      and all(e["parameters"].get(k) == v for k, v in board.items())), None)
        own = dict(params, policy=name, options=params.get("options") if name == params.get("policy") else {}, **board)
        notes = []
        if entry is not None:
            own = entry["parameters"]
        elif name != params.get("policy") or any(params.get(k) != v for k, v in board.items()):
            notes.append(f"{label}: the file does not record {name}'s run on its board; its games are re-played "
                         "with the file's first parameters")
        where = f"{name} {key[1]}x{key[2]}" if len(key) == 3 and len({k[1:] for k in found}) > 1 else name
        own_label = label if len(found) == 1 else f"{label} [{where}]"
        sources.append(SweepSource(own_label, own, read(key), (entry or {}).get("run", {}), notes))
    return sources


def _folder_source(path: str) -> SweepSource:
    """A sweep folder (or file) read through the store's checked reader: a damaged chunk stops the
    report with the one line `verify` and `--resume` give."""
    try:
        reader = open_sweep(path)
    except InputError as exc:
        raise ReportError(str(exc)) from None
    if reader.kind == "folder" and not reader.chunks:
        raise ReportError(f"sweep folder {path!r} has no finished chunk yet")

    def batches():
        try:
            yield from reader.batches(BATCH_ROWS)
        except InputError as exc:
            raise ReportError(str(exc)) from None

    label = os.path.basename(os.path.normpath(path))
    return SweepSource(label, dict(reader.parameters), batches, dict(reader.run), list(reader.notes))


def result_source(result) -> SweepSource:
    """A `SweepResult` of `fastsnake.sweep` (rows in memory, in a file or in a folder) as a source."""
    if result.folder is not None:
        source = _folder_source(result.folder)
    elif result.file is not None:
        source = _parquet_sources(result.file)[0]
    else:
        table = result.table
        if table is None:
            raise ReportError("a report needs the sweep's rows: sweep with rows=True (the default) or an out file")
        s = result.summary
        params = {k: s[k] for k in ("policy", "rows", "cols", "start_length", "tail_rule", "max_moves", "seed",
                                    "options")}
        source = SweepSource(s["policy"], params, lambda: iter([table]))
    source.run = dict(source.run or {}, **_run_info(result.summary))
    return source


def _run_info(summary: dict) -> dict:
    keys = ("seconds", "cpu_seconds", "games_per_second", "games_per_cpu_second", "threads", "compile_seconds")
    return {k: summary[k] for k in keys if summary.get(k) is not None}


def run_record(summary: dict) -> dict:
    """What a sweep file records about its run (timing, machine, version, date) for reports."""
    return dict(_run_info(summary), machine=machine.describe(), fastsnake=__version__,
                date=time.strftime("%Y-%m-%d %H:%M:%S %z"))


def open_sources(path) -> list[SweepSource]:
    """The sources of one report input: a sweep file, a compare file or a sweep folder."""
    name = str(path)
    if not os.path.exists(name):
        raise ReportError(f"{name!r} does not exist")
    if os.path.isdir(name):
        files = sorted(f for f in os.listdir(name) if f.startswith("compare-") and f.endswith(".parquet"))
        if files and not os.path.exists(os.path.join(name, "_manifest.json")):  # `compare --out DIR`
            return [s for f in files for s in _parquet_sources(os.path.join(name, f))]
        return [_folder_source(name)]
    return _parquet_sources(name)


def load_inputs(inputs, problems: list) -> list[SweepSource]:
    """Step 1 of a report: the sources of its inputs (paths and `SweepResult`s), in order.

    The one place the report reads sweeps: an input that cannot be read is one line in
    `problems`; raises ReportError when none can be.
    """
    sources = []
    for item in inputs:
        try:
            is_result = hasattr(item, "summary") and not isinstance(item, (str, os.PathLike))
            sources += [result_source(item)] if is_result else open_sources(item)
        except InputError as exc:
            problems.append(str(exc))
    if not sources:
        raise ReportError("; ".join(problems) or "a report needs at least one input")
    return sources
