"""Fault injection over many rounds: does any fault lose finished games or get damaged data accepted?

Each round picks a fault at random and a target (a single sweep file or a sweep folder):

* signal: a real `fastsnake sweep` process is sent SIGINT, SIGTERM or SIGKILL at a random moment
  (during start-up, compilation, a chunk or the final rename), over an earlier complete file;
* bitflip: one random bit of a finished file, chunk or manifest is flipped (or the file is cut
  short at a random length), then it is read, verified and (folders) resumed;
* fulldisk: a real sweep process runs under a random file size limit (RLIMIT_FSIZE, as `ulimit -f`);
* writers: two sweep processes write the same target at once;
* inflate: a replay `.npz` that inflates to 1 GiB (a `moves` that declares or holds 1 GiB, one
  whose zip headers hide it, an extra 1 GiB member, a shape of 10**12) given to `replay --check`,
  `view --export`, `report` and `load_game`: refused in one line (exit 2) with a small peak;
* crafted_npz: one field of a real replay replaced by a crafted value (negative, huge, another
  type or shape, NaN, text for a number, JSON nested 100,000 deep): refused (exit 2), or read as
  the very same game (a board on which the same moves are legal too, as a label, by `replay --check`);
* crafted_sweep: a sweep file whose footer (seed -1, 2**70 or NaN, options "x", parameters that
  are a list) or one row (moves -70, a length of 2**31-1, negative apples) was rewritten, given to
  `verify`, `report` and `replay --from`: refused in one line (exit 2), never "complete"/exit 0;
* startup_signal: SIGINT or SIGTERM at a random moment after the CLI's handlers are in place
  (it says so on FASTSNAKE_READY_FD): exit 130/143 in one line, never a traceback;
* foreign_chunk: a chunk of another sweep with the same seed and chunk size (another policy,
  board, rules or options) copied into an interrupted folder: `verify`, `sweep --resume`, `report`
  and `replay --from` must all refuse it (exit 2);
* damaged_folder: a chunk copied to a new number, another policy's chunk over one of ours, two
  folders' manifests swapped, given to every reader (verify, --resume, report, replay --from):
  all refuse (exit 2);
* manifest_loss: a folder's manifest deleted, truncated or zeroed: `verify` refuses until
  `fastsnake verify --repair DIR`, after which `sweep --resume` finishes it equal to a clean run;
* planted_payload (issue 46): a `.pt` and an SB3 `.zip` with a marker-writing payload, their sweep
  file, folder and replay given to `replay --from`, `replay --check`, `report`, `verify` and
  `sweep --resume`, with or without `--model`: the marker never appears; without `--model` no model
  a file names is loaded (exit 2, naming `--model`); skipped without torch;
* huge_games: a sweep folder of 10**9 .. 10**18 games (or the resume of its manifest) under a 2 GiB
  address-space limit: refused up front in one line, no folder made;
* altered_replay: the golden replay with rows, cols, seed, game, an apple, a body cell, a move or
  the outcome altered: `replay --check` refuses it (exit 2).
* seed_contradiction (issue 55): one row of a small sweep file rewritten to contradict its seed
  (`faults.contradict_row`: "won" for a game that died, moves or apples +-k, another outcome) with
  every checksum and hash redone, given to `verify --replay N`, `report --replay N` (N: every game
  of the file) and `replay --from` that game: each must refuse it (exit 2, one line);
* fifo_input, giant_row_group, giant_footer, escape_text (issue 55): a FIFO named like a sweep file
  or replay given to verify, report, replay --from, replay --check and view (one line, exit 2, at
  once: it used to block forever); one game repeated 10⁵..10⁶ times in one row group (exit 2 within
  READER_RSS_LIMIT); 0.1..20 MB of options in the footer or the options column (one short line);
  a policy or file name with terminal escapes (none printed raw: "silent" if one is);
* hostile_puzzle_tour (issue 63): a case of `tests/hostile_inputs.py` (over 100: FIFOs, devices, 100 MB
  files and lines, deep JSON, forged baselines, huge counts and pieces, bad instance CSVs, users'
  heuristics that never return, given SIGINT, SIGTERM or --time-limit) given to its puzzle or tour
  command: its exit code (2, 3, 4, 130 or 143), one line, within 5 s and 500 MB;
* mixed_version (issue 46): a folder started by the previous release (878e551's chunk and manifest
  formats, made as `tests/snake/test_snake_mixed_folder.py` makes them) and interrupted after some of
  its chunks, resumed by this version (at times stopped by SIGINT, SIGTERM or SIGKILL at a random
  moment once the CLI's handlers are in place, and resumed again), read at each step through
  `read_sweep`, `verify`, `replay --from` and, once finished, DuckDB's and polars' plain globs and
  pandas: every read equals a clean run's rows (the old run id kept, no NULL identity), every
  replay the clean run's game.
* tampered_baseline (issue 55): a saved `compare --save-baseline` of cycle and greedy tampered as
  `faults.BASELINE_TAMPERS` has it (moves +-100, outcomes set to died, games renumbered, rows cut,
  another seed, move cap, options or tail rule) or with random rows' moves or outcomes changed,
  re-signed as a forger would or not, given to `compare --baseline-from`: refused in one line
  (exit 2); a pass (exit 0) or a made-up regression (exit 4) counts as silent.

foreign_chunk, damaged_folder and manifest_loss test the sweep store of issue 37 (chunk identity,
one checked reader, `verify --repair`); on a branch without it they fail, as they should.

A round counts as **lost** when games an earlier run had finished are gone or changed (a complete
file replaced by a part, a folder that cannot be resumed to the uninterrupted rows) or when a
command failed in a way it must not (a traceback, exit 1, a peak of memory past the limit), and as
**silent** when damaged or foreign data was read back (or verified) as good. Run:

    python bench/fault_injection.py --rounds 1000 [--seed 1] [--json] [--classes inflate,crafted_npz]

Not part of any test suite (it takes minutes). Counts are printed per class.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "snake"))
sys.path.insert(0, str(REPO / "tests"))
os.environ.setdefault("NUMBA_CACHE_DIR", str(REPO / ".cache" / "numba"))

import numpy as np  # noqa: E402
from faults import CONTRADICTIONS, contradict_row, flip_bit, truncate  # noqa: E402
from npz_bombs import BOMB_KINDS, Member, npy_bytes, npy_header, replay_bomb, replay_fields, write_npz  # noqa: E402

import fastsnake  # noqa: E402
from fastsnake.errors import InputError  # noqa: E402
from fastsnake.snake.dataset import read_sweep  # noqa: E402

COLUMNS = ("game", "seed", "outcome", "moves", "apples", "length")
# Small sweeps: one is long enough to be interrupted part-way (tens of chunks), short enough to
# finish within a round when it is not.
POLICY, SIZE, GAMES, CHUNK = "cycle", 6, 6000, 200
GOLDEN_REPLAY = REPO / "tests" / "viewer" / "golden" / "greedy10.npz"
GIB = 1 << 30
# A refused bomb may cost the reading process this much at most (its start-up included: numpy,
# numba and pyarrow take ~150 MB before any file is read).
BOMB_RSS_LIMIT = 400 << 20
# The reader's own peak resident memory, reported by a small process that starts it: measured from
# here (os.wait4 on a direct child), a child that Python starts with vfork carries this process's
# peak into its ru_maxrss (about 460 MB once the trial's sweeps and bombs are made), whatever it reads.
PEAK_LAUNCHER = ("import os, subprocess, sys\n"
                 "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
                 "_, status, usage = os.wait4(child.pid, 0)\n"
                 "print(usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status))\n")
# A reader given a FIFO (or any input) must have ended by then: a hang is lost (issue 55).
READER_SECONDS = 120
# A reader's peak resident memory on issue 55's hostile files (start-up included, ~200 MB).
READER_RSS_LIMIT = 600 << 20
# Runs a reader with a time limit, then prints its peak RSS and exit code, then its stdout.
READER_LAUNCHER = ("import os, resource, subprocess, sys\n"
                   "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
                   "try:\n"
                   "    out, err = child.communicate(timeout=float(os.environ['READER_SECONDS']))\n"
                   "except subprocess.TimeoutExpired:\n"
                   "    child.kill()\n"
                   "    out, err = child.communicate()\n"
                   "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
                   "sys.stderr.write(err.decode(errors='replace'))\n"
                   "sys.stdout.write(f'{peak} {child.returncode}\\n' + out.decode(errors='replace'))\n")
# A huge sweep that runs (it fits on the disk) must end this soon after SIGINT (a chunk boundary or
# the kernel's poll; generous: the machine is shared).
HUGE_ANSWER_SECONDS = 5.0
# The small sweep of the store's classes: issue 37's example (4 chunks of 100, seed 5).
STORE_POLICY, STORE_SIZE, STORE_GAMES, STORE_CHUNK, STORE_SEED = "cycle", 6, 400, 100, 5
# The mixed-version folder's sweep (issue 46, item 2): 10 chunks of 100.
MIXED_POLICY, MIXED_SIZE, MIXED_GAMES, MIXED_CHUNK, MIXED_SEED = "greedy", 6, 1000, 100, 9
# Sweeps with the same seed and chunk size whose chunks are foreign to it, one a field of its identity.
FOREIGN = {
    "policy": dict(policy="greedy"),
    "board": dict(size=8),
    "rules": dict(tail="blocked"),
    "start": dict(start_length=4),
    "cap": dict(max_moves=500),
    "options": dict(cycle="random"),
}


def cli(args) -> tuple[int, str, str]:
    """`fastsnake ARGS` in this process: (exit code, stdout, stderr)."""
    from fastsnake.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def one_line_refusal(code: int, err: str) -> str | None:
    """Why (code, stderr) is not a one-line refusal of bad input (exit 2), or None."""
    lines = err.strip().splitlines()
    if code == 2 and lines and lines[-1].startswith("fastsnake: error: ") and "Traceback" not in err \
            and "internal error" not in err:
        return None
    return f"exit {code}: {lines[-1][:200] if lines else ''}"


def rows(table) -> dict:
    return {c: table.column(c).to_pylist() for c in COLUMNS}


class Trial:
    def __init__(self, work: Path, rng: random.Random):
        self.work, self.rng = work, rng
        self.reference = {seed: rows(fastsnake.sweep(POLICY, SIZE, GAMES, seed).table) for seed in (1, 2)}
        self.good_file = work / "good.parquet"
        fastsnake.sweep(POLICY, SIZE, GAMES, 1, out=self.good_file)
        self.good_folder = work / "good"
        fastsnake.sweep(POLICY, SIZE, GAMES, 1, out=self.good_folder, chunk_size=CHUNK)
        self.peaks: dict[str, list[int]] = {}
        self.hostile_site: str | None = None  # the users' heuristics of tests/hostile_inputs.py, installed once

    # -- helpers ------------------------------------------------------------------------------
    def command(self, out: Path, seed: int = 1) -> list[str]:
        cmd = [sys.executable, "-m", "fastsnake", "sweep", "--policy", POLICY, "--size", str(SIZE), "--games",
               str(GAMES), "--seed", str(seed), "--threads", "1", "--out", str(out), "--json"]
        return cmd + (["--chunk-size", str(CHUNK)] if not str(out).endswith(".parquet") else [])

    def fresh(self, kind: str) -> Path:
        """A round's target: a copy of the complete file, or a new folder name."""
        folder = Path(tempfile.mkdtemp(dir=self.work))
        if kind == "file":
            target = folder / "big.parquet"
            shutil.copyfile(self.good_file, target)
        else:
            target = folder / "ds"
        return target

    def matches(self, target: Path, seed: int = 1, prefix: bool = False) -> bool:
        """Does `target` read back as the reference rows (or a prefix of them)?"""
        got = rows(read_sweep(target)[1])
        want = self.reference[seed]
        if prefix:
            n = len(got["game"])
            return all(got[c] == want[c][:n] for c in COLUMNS)
        return got == want

    def resume_to_reference(self, target: Path) -> str | None:
        """Finish a folder (in this process) and compare; None if it equals the reference, else why."""
        if not (target / "_manifest.json").exists():
            return None  # never started: nothing was finished, nothing can be lost
        seed = json.loads((target / "_manifest.json").read_text())["sweep"]["seed"]  # two writers: either
        try:
            fastsnake.resume_sweep(target, threads=1)
        except InputError as exc:
            return f"resume refused: {exc}"
        return None if self.matches(target, seed) else "resumed rows differ"

    # -- faults -------------------------------------------------------------------------------
    def signal(self) -> str | None:
        kind = self.rng.choice(["file", "folder"])
        target = self.fresh(kind)
        sig = self.rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
        proc = subprocess.Popen(self.command(target), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(self.rng.uniform(0.0, 3.0))
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=600)
        if kind == "file":
            before = self.good_file.read_bytes()
            if proc.returncode == 0:  # finished before the signal: a new complete file of the same games
                return None if self.matches(target) else "complete run wrote other rows"
            # Killed after its rename, a run leaves its own complete file (same games; the row groups
            # may differ): only a file that is not whole is a loss.
            if target.read_bytes() != before and not self.matches(target):
                return f"{signal.Signals(sig).name} (exit {proc.returncode}) left other rows in the complete file"
            partial = target.with_name("big.partial.parquet")
            if partial.exists() and not self.matches(partial, prefix=True):
                return "partial file holds other rows"
            return None
        return self.resume_to_reference(target)

    def bitflip(self) -> str | None:
        """One random bit (or a cut) in a finished file, chunk or manifest: refused, or harmless."""
        kind = self.rng.choice(["file", "folder"])
        folder = Path(tempfile.mkdtemp(dir=self.work))
        if kind == "file":
            target = folder / "big.parquet"
            shutil.copyfile(self.good_file, target)
            victim = target
        else:
            target = folder / "ds"
            shutil.copytree(self.good_folder, target)
            names = sorted(p.name for p in target.iterdir() if p.name != "_writer.lock")
            victim = target / self.rng.choice(names)
        size = victim.stat().st_size
        if self.rng.random() < 0.2:
            truncate(victim, self.rng.randrange(size))
        else:
            flip_bit(victim, self.rng.randrange(size), self.rng.randrange(8))
        try:
            ok = self.matches(target)
        except InputError:
            ok = None  # refused: the damage was seen
        if ok is False:
            return "damaged data read back as good"
        try:
            report = fastsnake.verify_sweep(target)
            if report["complete"] and ok is None:
                return "verify calls a file complete that reading refuses"
        except InputError:
            pass
        if kind == "folder" and ok is False:
            return "damaged folder read back"
        return None

    def fulldisk(self) -> str | None:
        kind = self.rng.choice(["file", "folder"])
        target = self.fresh(kind)
        limit = self.rng.choice([1, 2, 4, 8, 16, 32, 64, 128]) * 1024

        def limit_size():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

        proc = subprocess.run(self.command(target), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              preexec_fn=limit_size, timeout=600)
        if proc.returncode not in (0, 1, 2):
            return f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"
        if "Traceback" in proc.stderr or "internal error" in proc.stderr:
            return f"not one line: {proc.stderr.strip().splitlines()[-1:]}"
        if kind == "file":
            if proc.returncode == 0 or target.read_bytes() != self.good_file.read_bytes():
                return None if self.matches(target) else "the file holds other rows"
            return None
        return self.resume_to_reference(target)

    def writers(self) -> str | None:
        kind = self.rng.choice(["file", "folder"])
        target = self.fresh(kind)
        seeds = (1, self.rng.choice([1, 2]))
        procs = [subprocess.Popen(self.command(target, seed), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True) for seed in seeds]
        results = [p.communicate(timeout=600) for p in procs]
        codes = [p.returncode for p in procs]
        if any(c not in (0, 2) for c in codes) or any("Traceback" in err for _, err in results):
            return f"writers ended {codes}: {[err.strip().splitlines()[-1:] for _, err in results]}"
        if kind == "file":
            if self.matches(target, seeds[0]) or self.matches(target, seeds[1]):
                return None
            return "the file is neither writer's whole result"
        return self.resume_to_reference(target)

    # -- issue 37: inflating archives, crafted values, start-up signals --------------------------
    def bomb(self, kind: str) -> Path:
        """A 1 GiB bomb of `kind` (npz_bombs.BOMB_KINDS), built once (about a second each)."""
        path = self.work / f"bomb-{kind}.npz"
        if not path.exists():
            replay_bomb(GOLDEN_REPLAY, path, kind, GIB)
        return path

    def inflate(self) -> str | None:
        kind = self.rng.choice(BOMB_KINDS)
        path = self.bomb(kind)
        reader = self.rng.choice(["replay", "view", "report", "load_game"])
        out = Path(tempfile.mkdtemp(dir=self.work))
        command = {
            "replay": ["-m", "fastsnake", "replay", "--check", path],
            "view": ["-m", "fastsnake", "view", path, "--export", out / "v.gif"],
            "report": ["-m", "fastsnake", "report", path, "--out", out / "r.html"],
            "load_game": ["-c", "import fastsnake, sys\ntry:\n    fastsnake.load_game(sys.argv[1])\n"
                                "except fastsnake.InputError as e:\n    sys.exit(f'fastsnake: error: {e}')", path],
        }[reader]
        proc = subprocess.run([sys.executable, "-c", PEAK_LAUNCHER, sys.executable, *map(str, command)],
                              capture_output=True, text=True, timeout=600)
        err = proc.stderr
        rss, code = (int(word) for word in proc.stdout.split())
        code = 2 if reader == "load_game" and code == 1 and err.startswith("fastsnake: error: ") else code
        self.peaks.setdefault(f"{kind}/{reader}", []).append(rss)
        if code == 0:
            return f"{kind} bomb accepted by {reader}: read back as good"
        problem = one_line_refusal(code, err)
        if problem:
            return f"{kind} bomb, {reader}: {problem}"
        if rss > BOMB_RSS_LIMIT:
            return f"{kind} bomb, {reader}: refused after a peak of {rss >> 20} MiB"
        return None

    def crafted_npz(self) -> str | None:
        from fastsnake.snake.replay import ReplayError, load_replay

        members = replay_fields(GOLDEN_REPLAY)
        golden = load_replay(GOLDEN_REPLAY)
        field = self.rng.choice(sorted(members))
        deep = "[" * 100_000 + "]" * 100_000
        value = self.rng.choice([
            np.int64(-1), np.int64(-(2**63)), np.uint64(2**64 - 1), np.float64("nan"), np.array("x"),
            np.array(deep), np.arange(3), np.zeros((2, 2), np.int32), np.array([], np.int32),
            np.array(["a", "b"]), np.int32(10**9), np.uint8(255), np.array(True),
        ])
        members[field] = Member(npy_bytes(value))
        if self.rng.random() < 0.3:  # or a header that lies about the shape
            members[field] = Member(npy_header((10**12,), "<i4") + bytes(16))
        path = Path(tempfile.mkdtemp(dir=self.work)) / "crafted.npz"
        write_npz(path, members)
        try:
            replay = load_replay(path)
        except ReplayError:
            return None
        except Exception as exc:  # noqa: BLE001 - not one line of bad input
            return f"{field}={value!r:.40}: {type(exc).__name__}: {exc}"[:300]
        # A label (seed, game, policy, options) changed to another valid value names another game that
        # only re-playing the policy could tell apart; what is damage is a game that differs in play.
        same_play = all(np.array_equal(getattr(replay, a), getattr(golden, a)) for a in ("body", "moves", "apples"))
        if same_play and replay.outcome == golden.outcome and (replay.rows, replay.cols) != (golden.rows, golden.cols):
            # The same moves, a legal game on another board too (rows 255: the snake never reached the
            # bottom wall): as with a label, only re-playing the policy from the seed tells it apart,
            # which `replay --check` does (the 1,000-round run of seed 461 found this, round 982).
            try:
                fastsnake.check_game(path)
            except InputError:
                return None
            return f"{field}={value!r:.40}: replay --check read back as good: another board"
        if not same_play or (replay.rows, replay.cols, replay.outcome) != (golden.rows, golden.cols, golden.outcome):
            return f"{field}={value!r:.40} read back as good: another game"
        return None

    def crafted_sweep(self) -> str | None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        folder = Path(tempfile.mkdtemp(dir=self.work))
        path = folder / "s.parquet"
        shutil.copyfile(self.small_file(), path)
        table = pq.read_table(path)
        meta = dict(table.schema.metadata or {})
        target = self.rng.choice(["footer", "row"])
        if target == "footer":
            key = b"fastsnake"  # the parameters (fastsnake.snake.sweep.PARQUET_META_KEY)
            params = json.loads(meta[key])
            crafted = self.rng.choice([("seed", -1), ("seed", 2**70), ("seed", float("nan")), ("options", "x"),
                                       ("rows", -3), ("max_moves", 0), (None, [1, 2, 3])])
            if crafted[0] is None:
                params = crafted[1]
            else:
                params[crafted[0]] = crafted[1]
            meta[key] = json.dumps(params).encode()
            meta[b"fastsnake_sha256"] = hashlib.sha256(meta[key]).hexdigest().encode()  # crafted, not damaged
            what = f"footer {crafted}"
        else:
            column = self.rng.choice(["moves", "length", "apples"])
            values = table.column(column).to_pylist()
            k = self.rng.randrange(len(values))
            values[k] = {"moves": -70, "length": 2**31 - 1, "apples": -5}[column]
            table = table.set_column(table.schema.get_field_index(column), column,
                                     pa.array(values, type=table.schema.field(column).type))
            what = f"row {k} {column}={values[k]}"
        pq.write_table(table.replace_schema_metadata(meta), path, write_page_checksum=True)
        reader = self.rng.choice(["verify", "report", "replay"])
        args = {"verify": ["verify", path], "report": ["report", path, "--out", folder / "r.html", "--sample", "0"],
                "replay": ["replay", "--from", path, "--pick", str(k) if target == "row" else "0",
                           "--out", folder / "g.npz"]}[reader]
        code, _, err = cli(args)
        if code == 0:
            return f"{what}: {reader} read back as good (exit 0)"
        problem = one_line_refusal(code, err)
        return f"{what}, {reader}: {problem}" if problem else None

    def startup_signal(self) -> str | None:
        sig = self.rng.choice([signal.SIGINT, signal.SIGTERM])
        target = Path(tempfile.mkdtemp(dir=self.work)) / "s.parquet"
        read_fd, write_fd = os.pipe()
        env = dict(os.environ, FASTSNAKE_READY_FD=f"{write_fd}:{os.fstat(write_fd).st_ino}")
        proc = subprocess.Popen(self.command(target), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env=env, pass_fds=(write_fd,))
        os.close(write_fd)
        with os.fdopen(read_fd) as events:
            ready, _, _ = select.select([events], [], [], 600)
            line = events.readline() if ready else ""
        if line.strip() != "cli":
            proc.kill()
            return f"no 'cli' announcement (got {line!r})"
        time.sleep(self.rng.uniform(0.0, 1.5))  # a random moment of the start-up: loading verbs, parsing, compiling
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=600)
        if proc.returncode == 0:
            return None  # finished first
        if proc.returncode != {signal.SIGINT: 130, signal.SIGTERM: 143}[sig] or "Traceback" in err:
            return f"{signal.Signals(sig).name} at start-up: exit {proc.returncode}: {err.strip().splitlines()[-1:]}"
        return None

    # -- issue 37: the store (chunk identity, one checked reader, verify --repair) ----------------
    def small_file(self) -> Path:
        path = self.work / "small.parquet"
        if not path.exists():
            fastsnake.sweep(STORE_POLICY, STORE_SIZE, STORE_GAMES, STORE_SEED, out=path, threads=1)
        return path

    def store_sweep(self, out: Path, interrupt_after: int | None = None, **change) -> Path:
        """The store's small sweep (with `change` to its identity) as a folder, stopped after
        `interrupt_after` chunks when given (as Ctrl-C would)."""
        def stop(done, total):
            if interrupt_after is not None and done >= interrupt_after:
                raise KeyboardInterrupt

        args = dict(policy=STORE_POLICY, size=STORE_SIZE)
        options = {k: v for k, v in change.items() if k not in ("policy", "size", "tail", "start_length", "max_moves")}
        args.update({k: v for k, v in change.items() if k in ("policy", "size")})
        rules = {k: v for k, v in change.items() if k in ("tail", "start_length", "max_moves")}
        fastsnake.sweep(args["policy"], args["size"], STORE_GAMES, STORE_SEED, out=out, chunk_size=STORE_CHUNK,
                        threads=1, progress=stop, **rules, **options)
        return out

    def store_base(self) -> dict:
        if not hasattr(self, "_store"):
            base = self.work / "store"
            base.mkdir()
            self._store = {"complete": self.store_sweep(base / "complete"),
                           "interrupted": self.store_sweep(base / "interrupted", interrupt_after=2),
                           "other": self.store_sweep(base / "other", policy="greedy")}
            for name, change in FOREIGN.items():
                self._store[f"foreign-{name}"] = self.store_sweep(base / f"foreign-{name}", **change)
            self._store["rows"] = rows(read_sweep(self._store["complete"])[1])
        return self._store

    def copy(self, name: str) -> Path:
        target = Path(tempfile.mkdtemp(dir=self.work)) / name
        shutil.copytree(self.store_base()[name], target, ignore=shutil.ignore_patterns("_writer.lock"))
        return target

    def every_reader_refuses(self, folder: Path, what: str) -> str | None:
        """verify, sweep --resume, report and replay --from on `folder`: each must refuse (exit 2, one line)."""
        out = folder.parent
        for args in (["verify", folder], ["sweep", "--resume", folder, "--threads", "1"],
                     ["report", folder, "--out", out / "r.html", "--sample", "0", "--worst", "0", "--best", "0",
                      "--died", "0", "--random", "0"],
                     ["replay", "--from", folder, "--pick", "250", "--out", out / "g.npz"]):
            code, _, err = cli(args)
            if code == 0:
                return f"{what}: {args[0]} {args[1]} read back as good (exit 0)"
            problem = one_line_refusal(code, err)
            if problem:
                return f"{what}: {args[0]}: {problem}"
        return None

    def foreign_chunk(self) -> str | None:
        kind = self.rng.choice(sorted(FOREIGN))
        folder = self.copy("interrupted")
        chunk = self.rng.choice(["chunk-00000002.parquet", "chunk-00000003.parquet"])
        shutil.copyfile(self.store_base()[f"foreign-{kind}"] / chunk, folder / chunk)
        return self.every_reader_refuses(folder, f"another {kind}'s {chunk}")

    def damaged_folder(self) -> str | None:
        kind = self.rng.choice(["renumbered", "other-policy-over-ours", "manifests-swapped"])
        folder = self.copy("complete")
        if kind == "renumbered":  # a chunk copied to a number past the end
            shutil.copyfile(folder / "chunk-00000001.parquet", folder / "chunk-00000004.parquet")
        elif kind == "other-policy-over-ours":
            shutil.copyfile(self.store_base()["other"] / "chunk-00000001.parquet", folder / "chunk-00000001.parquet")
        else:
            other = self.copy("other")
            manifest = "_manifest.json"
            mine = (folder / manifest).read_bytes()
            (folder / manifest).write_bytes((other / manifest).read_bytes())
            (other / manifest).write_bytes(mine)
        return self.every_reader_refuses(folder, kind)

    def manifest_loss(self) -> str | None:
        source = self.rng.choice(["complete", "interrupted"])
        folder = self.copy(source)
        manifest = folder / "_manifest.json"
        how = self.rng.choice(["deleted", "truncated", "zeroed"])
        if how == "deleted":
            manifest.unlink()
        elif how == "truncated":
            truncate(manifest, self.rng.randrange(manifest.stat().st_size))
        else:
            manifest.write_bytes(bytes(manifest.stat().st_size))
        code, _, err = cli(["verify", folder])
        if code == 0:
            return f"manifest {how}: verify read back as good (exit 0)"
        code, _, err = cli(["verify", "--repair", folder])
        if code != 0:
            return f"manifest {how}: verify --repair failed: {one_line_refusal(code, err)}"
        code, _, err = cli(["sweep", "--resume", folder, "--threads", "1"])
        if code != 0:
            return f"manifest {how}: --resume after the repair failed: {one_line_refusal(code, err)}"
        if rows(read_sweep(folder)[1]) != self.store_base()["rows"]:
            return f"manifest {how}: the repaired and resumed folder holds other rows"
        return None

    # -- issue 46: planted payloads, huge --games, altered replays ---------------------------------
    def payload_models(self) -> dict | None:
        """{"pt": path, "zip": path} of a tiny model with a planted marker-writing payload, each with a
        sweep file and a sweep folder of it (made once); None without torch and SB3."""
        if hasattr(self, "_payloads"):
            return self._payloads
        self._payloads = None
        try:
            import torch  # noqa: F401
            from sb3_contrib import MaskablePPO  # noqa: F401
        except ImportError:
            return None
        sys.path.insert(0, str(REPO / "tests" / "envs"))
        from test_model_safety import planted_pt, planted_zip

        made = {}
        for kind, plant in (("pt", planted_pt), ("zip", planted_zip)):
            folder = self.work / f"payload-{kind}"
            folder.mkdir()
            marker = folder / "MARKER"
            model = Path(plant(folder, marker))
            fastsnake.sweep(f"model:{model}", 5, 20, seed=3, threads=1, out=folder / "s.parquet")
            fastsnake.sweep(f"model:{model}", 5, 20, seed=3, threads=1, out=folder / "dir", chunk_size=10)
            fastsnake.replay_game(folder / "s.parquet", "longest", models=[model]).save(folder / "g.npz")
            made[kind] = {"model": model, "marker": marker, "file": folder / "s.parquet", "dir": folder / "dir",
                          "replay": folder / "g.npz"}
        self._payloads = made
        return made

    def planted_payload(self) -> str | None:
        models = self.payload_models()
        if models is None:
            return None  # nothing to plant without torch: not a round of this class
        kind = self.rng.choice(sorted(models))
        m = models[kind]
        named = self.rng.random() < 0.5
        out = Path(tempfile.mkdtemp(dir=self.work))
        folder = out / "dir"
        shutil.copytree(m["dir"], folder)
        chunks = sorted(folder.glob("chunk-*.parquet"))
        chunks[self.rng.randrange(len(chunks))].unlink()
        verb = self.rng.choice(["replay-from", "replay-check", "report-file", "report-dir", "verify", "resume"])
        argv = {"replay-from": ["replay", "--from", m["file"], "--pick", "longest", "--out", out / "g.npz"],
                "replay-check": ["replay", "--check", m["replay"]],
                "report-file": ["report", m["file"], "--out", out / "r.html"],
                "report-dir": ["report", m["dir"], "--out", out / "r.html"],
                "verify": ["verify", folder],
                "resume": ["sweep", "--resume", folder, "--threads", "1"]}[verb]
        if named and verb != "verify":
            argv += ["--model", m["model"]]
        code, _, err = cli(argv)
        if m["marker"].exists():
            m["marker"].unlink()
            return f"payload ran: {kind}, {verb}{' with --model' if named else ''} (exit {code})"
        if verb == "verify":
            return None if code in (0, 2) else f"{kind}, verify: exit {code}: {err.strip()[:200]}"
        if named:
            return None if code == 0 else f"{kind}, {verb} --model: exit {code}: {err.strip()[:200]}"
        if code == 0:
            return f"{kind}, {verb}: a model the file names was loaded (exit 0): read back as good"
        if "loads no model a file names" not in err:
            return f"{kind}, {verb}: refused without naming --model: {err.strip()[:200]}"
        return None

    def huge_games(self) -> str | None:
        """A sweep folder of 10**9 .. 10**18 games (or the resume of its manifest) under a 2 GiB
        address-space limit: refused up front in one line with no folder made when even 4 bytes a
        game cannot fit on this disk; else it runs, and SIGINT a few seconds in ends it (exit 130)
        within `HUGE_ANSWER_SECONDS`, never a MemoryError."""
        from fastsnake.snake.store.folder import MIN_BYTES_PER_CHUNK, MIN_BYTES_PER_GAME

        games = self.rng.choice([10**9, 10**10, 10**12, 10**15, 10**18 - 1])
        chunk = self.rng.choice([None, 10, 1000, 50_000])
        out = Path(tempfile.mkdtemp(dir=self.work)) / "huge"
        fits = (games * MIN_BYTES_PER_GAME + -(-games // (chunk or 50_000)) * MIN_BYTES_PER_CHUNK
                <= shutil.disk_usage(out.parent).free)
        resume = self.rng.random() < 0.3
        if resume:
            from fastsnake.snake.store import SweepDataset, SweepSpec

            SweepDataset.open(out, SweepSpec("cycle", 4, 4, 3, "follow", 256, 0, games, 0, {}, chunk or 50_000))
            argv = ["sweep", "--resume", out]
        else:
            argv = ["sweep", "--policy", "cycle", "--size", "4", "--games", games, "--out", out]
            argv += ["--chunk-size", chunk] if chunk else []
        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

        proc = subprocess.Popen([sys.executable, "-m", "fastsnake", *map(str, argv)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, preexec_fn=limited)
        what = f"{games:.0e} games, chunk {chunk}{', resumed' if resume else ''}"
        if fits:
            time.sleep(self.rng.uniform(2.0, 8.0))
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
        try:
            _, err = proc.communicate(timeout=120 if fits else 600)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return f"{what}: still running {'after SIGINT' if fits else 'after 600 s'}"
        if fits:
            answer = time.monotonic() - sent
            # 130: stopped by the signal; 2: refused after its first chunk, from the bytes it took
            # ("needs about"), before the signal came.
            done = proc.returncode == 130 or (proc.returncode == 2 and "needs about" in err)
            if done and "MemoryError" not in err and answer <= HUGE_ANSWER_SECONDS:
                return None
            return f"{what}: exit {proc.returncode} {answer:.1f} s after SIGINT: {err.strip()[-200:]}"
        if proc.returncode == 2 and "need at least" in err and (resume or not out.exists()):
            return None
        return f"{what}: exit {proc.returncode}: {err.strip()[-200:]}"

    def altered_replay(self) -> str | None:
        """The golden replay with one field altered (rows, cols, seed, game, an apple, a body cell, a
        move, the outcome): `replay --check` must refuse it (exit 2), naming a field."""
        with np.load(GOLDEN_REPLAY, allow_pickle=False) as data:
            fields = {k: data[k] for k in data.files}
        field = self.rng.choice(["rows", "cols", "seed", "game", "apples", "body", "moves", "outcome"])
        if field in ("rows", "cols"):
            fields[field] = np.int64(self.rng.choice([v for v in range(3, 257) if v != int(fields[field])]))
        elif field in ("seed", "game"):
            fields[field] = np.uint64(int(fields[field]) + self.rng.randrange(1, 2**32))
        elif field == "outcome":
            fields[field] = np.array(self.rng.choice(["won", "stuck"]))
        else:
            values = fields[field].copy()
            k = self.rng.randrange(len(values))
            top = 4 if field == "moves" else 100
            values[k] = (int(values[k]) + self.rng.randrange(1, top)) % top
            fields[field] = values
        path = Path(tempfile.mkdtemp(dir=self.work)) / "altered.npz"
        np.savez_compressed(path, **fields)
        code, _, err = cli(["replay", "--check", path])
        if code == 0:
            return f"{field} altered: replay --check read back as good"
        return one_line_refusal(code, err) and f"{field} altered: {one_line_refusal(code, err)}"


    # -- issue 55: rows that contradict their seeds ----------------------------------------------
    def seed_contradiction(self) -> str | None:
        folder = Path(tempfile.mkdtemp(dir=self.work))
        path = folder / "s.parquet"
        shutil.copyfile(self.small_file(), path)
        game, kind = self.rng.randrange(STORE_GAMES), self.rng.choice(CONTRADICTIONS)
        try:
            what = contradict_row(path, game, kind, k=self.rng.randrange(1, 50))
        except ValueError:
            return None  # nothing to change there (a won game made to win)
        reader = self.rng.choice(["verify", "report", "replay"])
        every = ["--replay", str(STORE_GAMES), "--replay-seed", str(self.rng.randrange(2**32))]
        args = {"verify": ["verify", path, *every],
                "report": ["report", path, "--out", folder / "r.html", "--sample", "0", *every],
                "replay": ["replay", "--from", path, "--pick", str(game), "--out", folder / "g.npz"]}[reader]
        code, _, err = cli(args)
        if code == 0:
            return f"{what}: {reader} read back as good (exit 0)"
        problem = one_line_refusal(code, err)
        return f"{what}, {reader}: {problem}" if problem else None

    # -- issue 46: a folder of two versions ------------------------------------------------------
    def mixed_base(self) -> dict:
        """The clean run of the mixed-version sweep (a folder), its rows and its replays (made once)."""
        if not hasattr(self, "_mixed"):
            clean = self.work / "mixed-clean"
            fastsnake.sweep(MIXED_POLICY, MIXED_SIZE, MIXED_GAMES, MIXED_SEED, out=clean, chunk_size=MIXED_CHUNK,
                            threads=1)
            table = read_sweep(clean)[1]
            self._mixed = {"clean": clean, "table": table.drop_columns(["run_id", "fastsnake_version"]),
                           "replays": {}}
        return self._mixed

    def clean_replay(self, game: int):
        base = self.mixed_base()
        if game not in base["replays"]:
            base["replays"][game] = fastsnake.replay_game(base["clean"], pick=game).replay
        return base["replays"][game]

    def read_mixed(self, folder: Path, final: bool, run_id: str | None, step: str) -> tuple[str | None, str | None]:
        """(problem, run id): `folder` read every way, compared with the clean run's rows of the
        chunks present (all of them when `final`)."""
        import pyarrow.compute as pc

        from fastsnake.snake.replay import load_replay
        from fastsnake.snake.store.sweepfile import IDENTITY_COLUMNS, schema_names

        base = self.mixed_base()
        present = sorted(int(p.stem.split("-")[1]) for p in folder.glob("chunk-*.parquet"))
        games = [g for i in present for g in range(i * MIXED_CHUNK, (i + 1) * MIXED_CHUNK)]
        if not present:  # nothing finished: the readers say so, and verify finds nothing wrong
            try:
                read_sweep(folder)
                return f"{step}: read_sweep of a folder with no chunk gave a table: read back as good", run_id
            except InputError:
                pass
            code, _, err = cli(["verify", folder])
            return (f"{step}: verify of an empty folder: exit {code}: {err.strip()[-200:]}" if code else None), run_id
        table = read_sweep(folder)[1]
        if tuple(table.column_names) != schema_names():
            return f"{step}: read_sweep gives columns {table.column_names}", run_id
        if any(table.column(n).null_count for n in IDENTITY_COLUMNS):
            return f"{step}: read_sweep gives NULL identity columns", run_id
        ids = table.column("run_id").unique().to_pylist()
        if len(ids) != 1 or (run_id is not None and ids[0] != run_id):
            return f"{step}: run ids {ids}, not the old one {run_id}: read back as good", run_id
        want = base["table"].take(games) if games else base["table"].slice(0, 0)
        if table.drop_columns(["run_id", "fastsnake_version"]).to_pydict() != want.to_pydict():
            return f"{step}: read_sweep rows differ from the clean run's: read back as good", ids[0]
        code, out, err = cli(["verify", folder, "--json"])
        if code != 0:
            return f"{step}: verify exit {code}: {err.strip()[-200:]}", ids[0]
        report = json.loads(out)
        if report["complete"] != (len(present) == MIXED_GAMES // MIXED_CHUNK) or report["rows"] != len(games):
            return f"{step}: verify says complete={report['complete']}, {report['rows']} rows", ids[0]
        if games:
            game = self.rng.choice(games)
            npz = folder.parent / f"g{game}.npz"
            code, _, err = cli(["replay", "--from", folder, "--pick", game, "--out", npz])
            if code != 0:
                return f"{step}: replay --from exit {code}: {err.strip()[-200:]}", ids[0]
            got, clean = load_replay(npz), self.clean_replay(game)
            if got.game != game or not all(np.array_equal(getattr(got, a), getattr(clean, a))
                                           for a in ("moves", "apples", "body")):
                return f"{step}: replay --from game {game} is another game: read back as good", ids[0]
        if final:
            import duckdb
            import polars as pl

            glob = str(folder / "*.parquet")
            moves = pc.sum(base["table"].column("moves")).as_py()
            n = MIXED_GAMES
            try:
                got = duckdb.sql(f"SELECT count(*), count(policy), count(DISTINCT run_id), sum(moves) "
                                 f"FROM '{glob}'").fetchall()
            except duckdb.Error as exc:
                return f"{step}: DuckDB's plain glob fails: {str(exc)[:200]}", ids[0]
            if got != [(n, n, 1, moves)]:
                return f"{step}: DuckDB's plain glob reads {got}, not {[(n, n, 1, moves)]}: read back as good", ids[0]
            try:
                frame = pl.read_parquet(glob).sort("game")
            except Exception as exc:  # noqa: BLE001 - any failure of a plain reader is the finding
                return f"{step}: polars' plain glob fails: {type(exc).__name__}: {str(exc)[:200]}", ids[0]
            if frame.drop(["run_id", "fastsnake_version"]).to_arrow().to_pydict() != base["table"].to_pydict():
                return f"{step}: polars' plain glob rows differ from the clean run's: read back as good", ids[0]
            if frame["run_id"].n_unique() != 1 or frame["policy"].null_count():
                return f"{step}: polars' plain glob: {frame['run_id'].n_unique()} run ids, NULL policies", ids[0]
            import pandas as pd

            try:  # docs/data-tools.md reads a folder with pandas too (it once dropped the newer columns)
                every = pd.read_parquet(folder).sort_values("game")
            except Exception as exc:  # noqa: BLE001 - any failure of a plain reader is the finding
                return f"{step}: pandas' read of the folder fails: {type(exc).__name__}: {str(exc)[:200]}", ids[0]
            if (tuple(every.columns) != schema_names() or every["game"].tolist() != list(range(n))
                    or every["moves"].tolist() != base["table"].column("moves").to_pylist()
                    or every["policy"].isna().any() or every["run_id"].nunique() != 1):
                return f"{step}: pandas reads other columns or rows: read back as good", ids[0]
        return None, ids[0]

    def mixed_version(self) -> str | None:
        """A folder of the previous release's format, interrupted, resumed by this version (at times
        stopped by a signal and resumed again), read every way at each step against a clean run."""
        from test_snake_mixed_folder import _as_previous_release

        base = self.mixed_base()
        n = MIXED_GAMES // MIXED_CHUNK
        folder = Path(tempfile.mkdtemp(dir=self.work)) / "A"
        shutil.copytree(base["clean"], folder, ignore=shutil.ignore_patterns("_writer.lock"))
        if self.rng.random() < 0.7:  # the old release stopped after its first chunks
            keep = set(range(self.rng.randrange(n + 1)))
        else:  # or with any of them (threads finish chunks out of order)
            keep = {i for i in range(n) if self.rng.random() < 0.5}
        _as_previous_release(folder, keep)
        what = f"old chunks {sorted(keep)}"
        problem, run_id = self.read_mixed(folder, final=False, run_id=None, step="old folder")
        if problem:
            return f"{what}: {problem}"
        if self.rng.random() < 0.5:  # a resume by this version stopped at a random moment
            sig = self.rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
            # Signalled at a random moment once the CLI's handlers are in place (it says so on
            # FASTSNAKE_READY_FD): scanning, upgrading, playing or writing the chunks.
            read_fd, write_fd = os.pipe()
            env = dict(os.environ, FASTSNAKE_READY_FD=f"{write_fd}:{os.fstat(write_fd).st_ino}")
            proc = subprocess.Popen([sys.executable, "-m", "fastsnake", "sweep", "--resume", str(folder),
                                     "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                    env=env, pass_fds=(write_fd,))
            os.close(write_fd)
            with os.fdopen(read_fd) as events:
                ready, _, _ = select.select([events], [], [], 600)
                line = events.readline() if ready else ""
            time.sleep(self.rng.uniform(0.0, 3.0))
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=600)
            what += f", resume stopped by {signal.Signals(sig).name}"
            if line.strip() != "cli":
                return f"{what}: no 'cli' announcement (got {line!r})"
            if proc.returncode not in (0, 130, 143, -signal.SIGKILL) or "Traceback" in err:
                return f"{what}: exit {proc.returncode}: {err.strip()[-200:]}"
            problem, run_id = self.read_mixed(folder, final=False, run_id=run_id, step="interrupted resume")
            if problem:
                return f"{what}: {problem}"
        code, _, err = cli(["sweep", "--resume", folder, "--threads", "1"])
        if code != 0:
            return f"{what}: sweep --resume exit {code}: {err.strip()[-200:]}"
        problem, _ = self.read_mixed(folder, final=True, run_id=run_id, step="resumed")
        return f"{what}: {problem}" if problem else None

    # -- issue 55: tampered baselines ----------------------------------------------------------------
    def tampered_baseline(self) -> str | None:
        """A saved baseline tampered (and re-signed, or not) given to `compare --baseline-from`."""
        import numpy as np
        from faults import BASELINE_TAMPERS, _column_set, _edit_baseline, tamper_baseline

        from fastsnake.snake import api, benchmark

        base = self.work / "baseline-v1.parquet"
        if not base.exists():
            results = api.compare_runs(["cycle", "greedy"], 6, 120)
            os.environ[benchmark.BASELINES_ENV] = str(self.work / "baselines")
            shutil.copyfile(benchmark.save_baseline(results, "v1"), base)
        out = Path(tempfile.mkdtemp(dir=self.work)) / "tampered.parquet"
        resign = self.rng.random() < 0.7
        kind = self.rng.choice([*sorted(BASELINE_TAMPERS), "random_rows"])
        if kind == "random_rows":
            pick = self.rng.random()
            column = self.rng.choice(["moves", "outcome"])
            delta = self.rng.choice([-100, -7, -1, 1, 7, 100])

            def change(table, column=column, pick=pick, delta=delta):
                values = table.column(column).to_numpy().copy()
                mask = np.random.default_rng(self.rng.randrange(2**32)).random(len(values)) < pick
                mask[self.rng.randrange(len(values))] = True  # at least one row
                values[mask] = (values[mask] + delta) if column == "moves" else np.where(values[mask] == 1, 2, 1)
                return _column_set(table, column, values)
            kind = f"random_rows({column}, {pick:.2f}, {delta})"
            _edit_baseline(base, out, change_table=change, resign=resign)
        else:
            tamper_baseline(base, out, kind, resign=resign)
        what = f"{kind}{' re-signed' if resign else ''}"
        code, _, err = cli(["compare", "--size", "6", "--games", "120", "--policies", "cycle,greedy",
                            "--baseline-from", out])
        if code in (0, 4):
            return f"{what}: exit {code}: a tampered baseline read back as good"
        problem = one_line_refusal(code, err)
        return f"{what}: {problem}" if problem else None
    # -- issue 55: inputs that could hang or blow up a reader, text that could forge output ---------
    def _readers(self, path: Path) -> dict:
        out = Path(tempfile.mkdtemp(dir=self.work))
        return {"verify": ["verify", path], "report": ["report", path, "--out", out / "r.html", "--sample", "0"],
                "replay": ["replay", "--from", path, "--pick", "0", "--out", out / "g.npz"],
                "check": ["replay", "--check", path], "view": ["view", path, "--export", out / "v.gif"]}

    def _measured(self, args, key: str) -> tuple[int, str, str, int]:
        """`fastsnake ARGS` in a fresh process: (exit code, stdout, stderr, peak RSS); a hang past
        READER_SECONDS is killed and reported as exit -9."""
        command = [sys.executable, "-c", READER_LAUNCHER, sys.executable, "-m", "fastsnake", *map(str, args)]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, READER_SECONDS=str(READER_SECONDS)))
        head, _, out = proc.stdout.partition("\n")
        rss, code = (int(word) for word in head.split())
        self.peaks.setdefault(key, []).append(rss)
        return code, out, proc.stderr, rss

    def fifo_input(self) -> str | None:
        """A FIFO named like a sweep file, folder chunk or replay, given to a reader: one line, exit 2,
        at once (before: blocked forever, deaf to SIGINT and SIGTERM)."""
        folder = Path(tempfile.mkdtemp(dir=self.work))
        path = folder / self.rng.choice(["s.parquet", "g.npz", "t.json"])
        os.mkfifo(path)
        reader = self.rng.choice(list(self._readers(path)))
        code, _, err, _ = self._measured(self._readers(path)[reader], f"fifo/{reader}")
        if code == -9:
            return f"FIFO {path.name}, {reader}: still blocked after {READER_SECONDS} s (killed)"
        problem = one_line_refusal(code, err)
        return f"FIFO {path.name}, {reader}: {problem}" if problem else None

    def giant_row_group(self) -> str | None:
        """One game repeated 10⁵..10⁶ times in one row group (a few hundred kB): verify reads it in
        bounded memory and calls it damaged (exit 2), every other reader refuses it in one line."""
        from faults import repeated_game_file

        rows = self.rng.choice([10**5, 5 * 10**5, 10**6])
        path = repeated_game_file(Path(tempfile.mkdtemp(dir=self.work)) / "rep.parquet", rows, rows)
        reader = self.rng.choice(["verify", "report", "replay"])
        code, _, err, rss = self._measured(self._readers(path)[reader], f"rowgroup/{reader}")
        if code == 0:
            return f"one game repeated {rows:,} times, {reader}: read back as good (exit 0)"
        problem = one_line_refusal(code, err)
        if problem:
            return f"one game repeated {rows:,} times, {reader}: {problem}"
        if rss > READER_RSS_LIMIT:
            return f"one game repeated {rows:,} times, {reader}: a peak of {rss >> 20} MiB"
        return None

    def giant_footer(self) -> str | None:
        """Options of 0.1..20 MB in the footer or the options column: refused in one short line (the
        old line quoted them whole; the column cost an ArrowMemoryError, exit 1)."""
        from faults import sweep_file

        size = self.rng.choice([100_000, 2_000_000, 20_000_000])
        where = self.rng.choice(["footer", "column"])
        path = Path(tempfile.mkdtemp(dir=self.work)) / "big.parquet"
        text = "a" * size
        if where == "footer":
            sweep_file(path, 10, options={"x": text})
        else:
            sweep_file(path, 2000, column_text={"options": '{"x":"' + text + '"}'})
        reader = self.rng.choice(["verify", "report", "replay"])
        code, out, err, rss = self._measured(self._readers(path)[reader], f"footer/{reader}")
        what = f"{size:,} bytes of options in the {where}, {reader}"
        if code == 0:
            return f"{what}: read back as good (exit 0)"
        problem = one_line_refusal(code, err)
        if problem:
            return f"{what}: {problem}"
        if len(err) + len(out) > 2 * 2000 + 200:
            return f"{what}: {len(err):,} bytes on stderr, {len(out):,} on stdout for a one-line refusal"
        if rss > READER_RSS_LIMIT:
            return f"{what}: a peak of {rss >> 20} MiB"
        return None

    def escape_text(self) -> str | None:
        """A policy name (or file name) holding terminal escapes, given to verify and report: nothing
        of it reaches stdout or stderr raw (a raw ESC or BEL would set the title, clear the screen)."""
        from faults import EVIL_NAME, sweep_file

        folder = Path(tempfile.mkdtemp(dir=self.work))
        target = self.rng.choice(["policy", "file name"])
        name = "s.parquet" if target == "policy" else "s\x1b]0;PWNED\x07.parquet"
        path = sweep_file(folder / name, 50, **({"policy": EVIL_NAME} if target == "policy" else {}))
        if self.rng.random() < 0.5:  # damaged too, so that the problem lines print the name
            flip_bit(path, self.rng.randrange(4, os.path.getsize(path) // 2))
        reader = self.rng.choice(["verify", "report"])
        code, out, err = cli(self._readers(path)[reader])
        raw = [c for c in ("\x1b", "\x07", "\u202e") if c in out or c in err]
        if raw:
            return f"escapes in the {target}, {reader}: {', '.join(map(repr, raw))} printed raw: read back as text"
        if code not in (0, 2):
            return f"escapes in the {target}, {reader}: exit {code}: {err.strip()[-200:]}"
        return None


    # -- issue 63: hostile puzzle and tour inputs ---------------------------------------------------------
    def hostile_puzzle_tour(self) -> str | None:
        """One case of `tests/hostile_inputs.py` (a FIFO, a device, a 100 MB file or line, deep JSON, a
        forged baseline, a huge count or piece, a user's heuristic that never returns given SIGINT, SIGTERM
        or a time limit) given to its puzzle or tour command in a fresh process: exit 2, 3, 4, 130 or 143
        (the case's), one line, never a traceback nor exit 1, within `hostile_inputs.SECONDS` (after the
        signal, or past the time limit) and `hostile_inputs.PEAK_BYTES` of resident memory."""
        import hostile_inputs as H

        case = self.rng.choice(H.CASES)
        if case.heuristics and self.hostile_site is None:
            self.hostile_site = H.warm_heuristics(Path(tempfile.mkdtemp(dir=self.work, prefix="heuristics-")))
        folder = Path(tempfile.mkdtemp(dir=self.work))
        got = H.run_case(case, folder, self.hostile_site if case.heuristics else None)
        self.peaks.setdefault(f"hostile/{case.name.split(':')[0]}", []).append(got["peak"])
        lines = got["err"].strip().splitlines()
        if got["code"] not in case.codes:
            return f"{case.name}: exit {got['code']}: {lines[-1][:200] if lines else ''}"
        if "Traceback" in got["err"] or "internal error" in got["err"]:
            return f"{case.name}: {lines[-1][:200] if lines else 'a traceback'}"
        if got["peak"] > H.PEAK_BYTES:
            return f"{case.name}: peak resident memory {got['peak'] >> 20} MiB, past {H.PEAK_BYTES >> 20} MiB"
        took = got["after_signal"] if case.signal is not None else got["cpu"] - H.time_limit_of(got["argv"])
        if took > H.SECONDS:
            return f"{case.name}: ended after {took:.1f} s, past {H.SECONDS:.0f} s"
        return None

WEIGHTS = {"bitflip": 6, "signal": 2, "fulldisk": 1, "writers": 1, "inflate": 1, "crafted_npz": 3,
           "crafted_sweep": 3, "startup_signal": 1, "foreign_chunk": 3, "damaged_folder": 2, "manifest_loss": 2,
           "planted_payload": 3, "huge_games": 1, "altered_replay": 3, "mixed_version": 3, "tampered_baseline": 3,
           "seed_contradiction": 3, "fifo_input": 2, "giant_row_group": 1, "giant_footer": 1, "escape_text": 2,
           "hostile_puzzle_tour": 3}


def is_silent(problem: str) -> bool:
    return "read back" in problem or "verify calls" in problem


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long, whatever --rounds says")
    parser.add_argument("--classes", default=",".join(WEIGHTS),
                        help=f"comma-separated fault classes to draw from (default: all of {', '.join(WEIGHTS)})")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    chosen = [c.strip() for c in args.classes.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in WEIGHTS]
    if unknown:
        parser.error(f"unknown fault class(es): {', '.join(unknown)}")
    weights = {c: WEIGHTS[c] for c in chosen}
    work = Path(tempfile.mkdtemp(prefix="fastsnake-faults-"))
    started = time.time()
    rounds, lost, silent, failures = Counter(), Counter(), Counter(), []
    try:
        trial = Trial(work, rng)
        for k in range(args.rounds):
            if args.minutes is not None and time.time() - started > args.minutes * 60:
                break
            fault = rng.choices(list(weights), list(weights.values()))[0]
            rounds[fault] += 1
            try:
                problem = getattr(trial, fault)()
            except Exception as exc:  # noqa: BLE001 - a crash of the harness or the code is a finding too
                problem = f"crash: {type(exc).__name__}: {exc}"[:300]
            if problem:
                (silent if is_silent(problem) else lost)[fault] += 1
                failures.append({"round": k, "fault": fault, "problem": problem})
                sys.stderr.write(f"round {k} {fault}: {problem}\n")
            if k % 50 == 0:
                sys.stderr.write(f"progress: {k + 1} rounds, {len(failures)} failed, {time.time() - started:.0f} s\n")
            for leftover in work.iterdir():
                if leftover.is_dir() and leftover.name.startswith("tmp"):
                    shutil.rmtree(leftover, ignore_errors=True)
        peaks = {key: max(values) >> 20 for key, values in sorted(trial.peaks.items())}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    by_class = {c: {"rounds": rounds[c], "lost": lost[c], "silent": silent[c]} for c in weights if rounds[c]}
    report = {"rounds": sum(rounds.values()), "by_class": by_class, "failed_rounds": len(failures),
              "lost": sum(lost.values()), "silent": sum(silent.values()), "bomb_peak_rss_mib": peaks,
              "failures": failures[:50], "seconds": round(time.time() - started, 1)}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['rounds']} rounds in {report['seconds']} s: {report['failed_rounds']} failed "
              f"({report['lost']} lost, {report['silent']} silently changed)")
        print(f"{'class':16} {'rounds':>7} {'lost':>6} {'silent':>7}")
        for c, counts in by_class.items():
            print(f"{c:16} {counts['rounds']:7} {counts['lost']:6} {counts['silent']:7}")
        if peaks:
            print("peak resident memory refusing 1 GiB bombs (MiB, kind/reader): "
                  + ", ".join(f"{k} {v}" for k, v in peaks.items()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
