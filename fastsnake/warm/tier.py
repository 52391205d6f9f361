"""The interpreted tier: a small first call answers at once while its kernels compile in the background.

Compiling a policy's kernels takes 10 s to 2 min; playing one game of it with numba's JIT off
takes well under a second (the kernels are plain Python that numba would compile, and run the
same arithmetic: the same seed gives the same game). So when a command needs kernels that are not
compiled for the installed sources yet (`fastsnake warm` marks a part compiled, see `parts`) and
its work is small (`Job.work` <= `Job.limit`, limits below, measured in docs/performance.md),
the CLI

1. starts one detached background warm (`fastsnake.warm.background`) of the parts the command
   needs (one at a time: a lock; it outlives the command; its log is `LOG_FILE` in the cache root),
2. says so in one line on stderr,
3. replaces itself (exec: same pid, stdout, stderr, exit status and signals) with the same
   command under ``NUMBA_DISABLE_JIT=1``, importing the same fastsnake.

Large jobs compile as before. ``FASTSNAKE_TIER=compiled`` turns the tier off, ``interpreted``
forces it for any size. An interpreted run that cannot finish within a limit that counts
seconds (a tour search's time limit) raises `NeedsCompiled`, and the CLI runs the command
compiled instead, so the tier never changes an answer.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from fastsnake.errors import FastsnakeError, InputError
from fastsnake.warm import parts as P
from fastsnake.warm import store

TIER_ENV = "FASTSNAKE_TIER"
TIERS = ("auto", "compiled", "interpreted")
# Set in the interpreted run (beside NUMBA_DISABLE_JIT) so that it never tiers again.
CHILD_ENV = "FASTSNAKE_INTERPRETED_RUN"
LOG_FILE = "background-warm.log"
LOCK_FILE = "background-warm.lock"

# Work limits of the interpreted tier, each about 5 s of interpreted work on a busy 2-core machine
# (measured in docs/performance.md, "The interpreted tier"). Snake work is games x cells^2: one
# strongest game on 20x20 (160,000) plays in 2 s interpreted, on 24x24 (331,776) in 9 s.
SNAKE_WORK_LIMIT = 2 ** 18
# Sliding puzzles: A*/IDA* interpreted solve any 3x3 instance in under 0.5 s (a hard 4x4 takes
# 48 s); `reduce` solves a 10x10 in 0.4 s. BFS enumerates a 3x3's 181,440 states: 6 s, never tiered.
PUZZLE_SEARCH_CELLS_LIMIT = 9
PUZZLE_REDUCE_CELLS_LIMIT = 100
# Leaper tours up to 8x8 (a search there visits at most tens of thousands of nodes, 2 s
# interpreted); counting every tour up to 5x5 (0.5 s).
TOUR_CELLS_LIMIT = 64
TOUR_COUNT_CELLS_LIMIT = 25
# `reach`: cells x jumps (100x100, 30 jumps: 0.05 s).
REACH_WORK_LIMIT = 4_000_000


class NeedsCompiled(FastsnakeError):
    """An interpreted run stopped at a limit counted in seconds: the compiled run decides instead."""


@dataclass
class Job:
    """What a command needs compiled (`parts`, see `fastsnake.warm.parts`) and how big it is."""

    what: str  # in words, for the stderr line: "policy strongest", "the puzzle solvers"
    parts: list[str] = field(default_factory=list)
    work: float = 0.0
    limit: float = 0.0


def requested_tier(env=None) -> str:
    env = os.environ if env is None else env
    tier = (env.get(TIER_ENV) or "auto").strip().lower()
    if tier not in TIERS:
        raise InputError(f"{TIER_ENV}={env.get(TIER_ENV)!r} is not one of {', '.join(TIERS)}")
    return tier


def interpreted_run(env=None) -> bool:
    """Whether this process is an interpreted-tier run (numba's JIT off)."""
    env = os.environ if env is None else env
    return bool(env.get(CHILD_ENV)) and bool(env.get("NUMBA_DISABLE_JIT"))


def missing_parts(parts) -> list[str]:
    marks = store.read_json(P.MARKS_FILE)
    return [part for part in parts if not _compiled(part, marks)]


def _compiled(part: str, marks: dict) -> bool:
    if P.is_marked(part, marks):
        return True
    # `fastsnake warm --all` marks one part per kernel: an alias (strongest) shares its policy's (cell).
    canonical = P.canonical_part(part)
    return canonical != part and P.is_marked(canonical, marks)


def choose(job: Job | None, env=None) -> list[str] | None:
    """The parts to compile in the background when `job` should run interpreted, else None."""
    env = os.environ if env is None else env
    if job is None or not job.parts or env.get("NUMBA_DISABLE_JIT") or env.get(CHILD_ENV):
        return None
    tier = requested_tier(env)
    if tier == "compiled" or (tier == "auto" and job.work > job.limit) or os.name != "posix":
        return None
    missing = missing_parts(job.parts)
    if not missing and tier == "auto":
        return None
    if not _writable(store.cache_root()):
        return None  # nothing could ever be marked compiled: every run would be interpreted
    return missing


def _writable(root) -> bool:
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK)


def background_busy() -> bool:
    """Whether a background warm holds the lock now."""
    import fcntl

    path = store.cache_root() / LOCK_FILE
    try:
        with open(path, "a") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(fh, fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def start_background_warm(parts) -> bool:
    """Start `fastsnake.warm.background.main(PARTS)` in a detached Python process (own session: a
    Ctrl-C or the end of the command does not stop it; output to `LOG_FILE`). It compiles `parts` now, or, when
    another background compile runs (then this returns False), queues them for that one."""
    root = store.cache_root()
    busy = background_busy()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", CHILD_ENV)}
    env.setdefault("NUMBA_CACHE_DIR", str(root))
    try:
        root.mkdir(parents=True, exist_ok=True)
        with open(root / LOG_FILE, "ab") as log:
            subprocess.Popen(_python("from fastsnake.warm.background import main; sys.exit(main(sys.argv[1:]))",
                                     parts), stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                             start_new_session=True, close_fds=True)
    except OSError:
        return False
    return not busy


def announce(job: Job, parts, started: bool, stream=None) -> None:
    from fastsnake.warm.notice import cost

    stream = sys.stderr if stream is None else stream
    if os.environ.get("FASTSNAKE_QUIET_COMPILE"):
        return
    root = store.cache_root()
    if not parts:
        line = f"fastsnake: running {job.what} interpreted ({TIER_ENV}=interpreted)"
    else:
        when = "in the background" if started else "in the background after the compile running now"
        line = (f"fastsnake: the kernels of {job.what} are not compiled yet: they compile {when} "
                f"({cost(parts)}; log {root / LOG_FILE}); this run is interpreted, "
                f"same results ({TIER_ENV}=compiled to compile first)")
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):  # a closed stderr must not fail the command
        pass


def exec_interpreted(argv) -> None:
    """Become ``python -m fastsnake ARGV`` with numba's JIT off (never returns)."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", **{CHILD_ENV: "1"})
    _exec(argv, env)


def exec_compiled(argv) -> None:
    """Become the same command on the compiled tier (never returns)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", CHILD_ENV)}
    env[TIER_ENV] = "compiled"
    _exec(argv, env)


def _exec(argv, env) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, _python("from fastsnake.__main__ import run; run()", argv), env)


def _python(code: str, argv) -> list[str]:
    """``python -c CODE ARGV`` importing this very fastsnake: ``-m`` would put the working directory
    first on sys.path, and a checkout there (another version) would run instead of this one."""
    package_parent = str(Path(__file__).resolve().parents[2])
    return [sys.executable, "-c", f"import sys; sys.path[0] = {package_parent!r}; {code}", *argv]


def snake_job(policies, size, games: int = 1, max_moves: int | None = None) -> Job | None:
    """A play, sweep or compare of built-in `policies` on `size` (None for a user policy: its
    kernels are the user's, their interpreted arithmetic is not ours to vouch for). A game is
    counted as cells^2 moves (the default move cap), or `max_moves` when that is more."""
    from fastsnake.sizes import parse_size
    from fastsnake.snake.policies import OWN_DISTRIBUTION, get_policy

    rows, cols = parse_size(size)
    names = list(dict.fromkeys(policies))
    if not names or any(get_policy(name).origin != OWN_DISTRIBUTION for name in names):
        return None
    what = f"policy {names[0]}" if len(names) == 1 else "policies " + ", ".join(names)
    per_game = max((rows * cols) ** 2, max_moves or 0)
    return Job(what, [P.POLICY_PREFIX + name for name in names], len(names) * games * per_game, SNAKE_WORK_LIMIT)


def puzzle_job(rows: int, cols: int, algorithm: str) -> Job | None:
    if algorithm == "bfs":
        return None
    limit = PUZZLE_REDUCE_CELLS_LIMIT if algorithm == "reduce" else PUZZLE_SEARCH_CELLS_LIMIT
    return Job("the puzzle solvers", ["puzzle"], rows * cols, limit)


def tour_job(rows: int, cols: int, count: bool = False, jumps: int | None = None) -> Job:
    if jumps is not None:
        return Job("the leaper tours", ["tour"], rows * cols * max(jumps, 1), REACH_WORK_LIMIT)
    return Job("the leaper tours", ["tour"], rows * cols, TOUR_COUNT_CELLS_LIMIT if count else TOUR_CELLS_LIMIT)


def first_call(job: Job | None, argv) -> None:
    """Return when `job` runs here (compiled, or already interpreted); else start the background
    compile, say so, and become the interpreted run (never returns)."""
    parts = choose(job)
    if parts is None:
        return
    started = bool(parts) and start_background_warm(parts)
    announce(job, parts, started)
    exec_interpreted(argv)


def compiled_instead(argv, why: str) -> None:
    """From an interpreted run that gave up (`NeedsCompiled`): run the command compiled."""
    if not os.environ.get("FASTSNAKE_QUIET_COMPILE"):
        sys.stderr.write(f"fastsnake: {why}; running it compiled instead\n")
    exec_compiled(argv)
