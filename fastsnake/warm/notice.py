"""Never silent while compiling: one line on stderr when numba starts compiling a kernel.

numba broadcasts a ``numba:compile`` event only when a dispatcher misses both its in-memory
overloads and the on-disk cache, i.e. exactly when it is about to compile. `compile_notice`
listens for it for the length of a command: the first event prints one line (what is being
compiled, roughly how long it takes, where the cache lives), a terminal also gets the elapsed
seconds ticking on the next line, and a warm run prints nothing. The seconds a compile took
are kept beside the cache, so the next estimate (after an upgrade, say) is this machine's own.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from contextlib import contextmanager

from fastsnake.warm import store

# Rough cold compile seconds on a busy 2-core machine (bench/bench_cold_start.py, a policy's first
# `play`), by what a command said it expects (`expect`: "policy:NAME") or else by the module of the
# first kernel numba compiles (the longest prefix wins). Used until this machine measured its own.
TYPICAL_SECONDS = {
    "policy:cycle": 20, "policy:greedy": 15, "policy:greedy-dynamic": 25, "policy:phc": 35,
    "policy:phc-faithful": 35, "policy:dhcr": 45, "policy:snake-ai": 25, "policy:snake-ai-safe": 60,
    "policy:thesis-shortcut": 40, "policy:thesis-shortcut-faithful": 65, "policy:cell": 40,
    "policy:grove": 70, "policy:strongest": 70,
    "fastsnake.snake": 25,
    "fastsnake.puzzle": 12,
    "fastsnake.puzzle.reduce": 35,
    "fastsnake.tour": 10,
    "fastsnake.envs": 14,
}
# Compiles shorter than this leave no estimate behind: a stray helper compiled in a warm run
# must not teach the next cold run that it takes a second.
_RECORD_AT_LEAST = 2.0
_TICK_SECONDS = 1.0


# What the command about to run expects to compile: (words, estimate key), set by `expect`.
_expected: tuple[str, str] | None = None


def expect(what: str, key: str) -> None:
    """Name what the next compiles are for, e.g. ``expect("policy strongest's kernels",
    "policy:strongest")``: the notice then says so, and estimates by `key`, instead of naming the
    first kernel numba happens to compile (often a small helper of the engine)."""
    global _expected
    _expected = (what, key)


def expect_nothing() -> None:
    global _expected
    _expected = None


def typical_seconds(key: str) -> float | None:
    recorded = store.read_json(store.TIMES_FILE).get(key)
    if isinstance(recorded, (int, float)):
        return float(recorded)
    if key in TYPICAL_SECONDS:
        return float(TYPICAL_SECONDS[key])
    best = _longest_prefix(key, TYPICAL_SECONDS)
    return None if best is None else float(TYPICAL_SECONDS[best])


# What a module's kernels are called in the notice, by the longest matching prefix.
_KERNELS_OF = {
    "fastsnake.snake": "the Snake engine kernels",
    "fastsnake.puzzle": "the sliding-puzzle kernels",
    "fastsnake.search": "the shared search kernels",
    "fastsnake.tour": "the leaper-tour kernels",
    "fastsnake.envs": "the Gymnasium env kernels",
}


def _longest_prefix(module: str, table: dict) -> str | None:
    return max((p for p in table if module == p or module.startswith(p + ".")), key=len, default=None)


def describe(module: str) -> str:
    """What is being compiled, in words: a policy's kernels, a part's, or a user module's."""
    policy_prefix = "fastsnake.snake.policies."
    if module.startswith(policy_prefix):
        return f"the kernels of policy module {module[len(policy_prefix):]}"
    prefix = _longest_prefix(module, _KERNELS_OF)
    return _KERNELS_OF[prefix] if prefix else f"the numba code of {module}"


def about(seconds: float | None) -> str:
    if seconds is None:
        return "up to a few minutes"
    if seconds < 90:
        return f"about {max(5, round(seconds / 5) * 5):.0f} s"
    return f"about {seconds / 60:.1f} min"


class CompileWatch:
    """A ``numba:compile`` listener: the notice on the first compile, a ticker on a terminal,
    and the compile seconds (``seconds``), counted from each outermost compile's start to its end."""

    def __init__(self, stream=None, tick: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.tick = self.stream.isatty() if tick is None else tick
        self.compiles = 0  # outermost compiles seen
        self.seconds = 0.0
        self.key: str | None = None  # what the estimate of this compile is kept under
        self._depth = 0
        self._started = 0.0
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._stop_tick = threading.Event()

    # numba's Listener protocol; `compile_notice` registers the class as a virtual subclass of
    # numba's Listener, so that importing this module does not import numba.
    def notify(self, event) -> None:
        if event.is_start:
            self.on_start(event)
        else:
            self.on_end(event)

    def on_start(self, event) -> None:
        with self._lock:
            self._depth += 1
            if self._depth > 1:
                return
            self._started = time.perf_counter()
            self.compiles += 1
            first = self.compiles == 1
        if first:
            dispatcher = (event.data or {}).get("dispatcher")
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", "?")
            what, self.key = _expected if _expected is not None else (describe(module), module)
            self._say(f"fastsnake: compiling {what}, "
                      f"{about(typical_seconds(self.key))} once; later runs load them from the cache in "
                      f"{store.cache_root()} (fastsnake warm compiles ahead of time)\n")
            store.prune_stale()
        if self.tick:
            self._stop_tick.clear()
            self._ticker = threading.Thread(target=self._tick_loop, daemon=True)
            self._ticker.start()

    def on_end(self, event) -> None:
        with self._lock:
            self._depth = max(0, self._depth - 1)
            if self._depth:
                return
            self.seconds += time.perf_counter() - self._started
        self._stop_ticker()

    def _tick_loop(self) -> None:
        while not self._stop_tick.wait(_TICK_SECONDS):
            self._say(f"\r  compiling... {self.seconds + time.perf_counter() - self._started:.0f} s")

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._stop_tick.set()
            self._ticker.join()
            self._ticker = None
            self._say("\r\033[K")

    def _say(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed stderr must not fail the command
            pass

    def record(self) -> None:
        """Keep this compile's seconds as the next estimate for its key."""
        if self.key is None or self.seconds < _RECORD_AT_LEAST:
            return
        times = store.read_json(store.TIMES_FILE)
        times[self.key] = round(self.seconds, 1)
        store.write_json(store.TIMES_FILE, times)


@contextmanager
def compile_notice(stream=None, tick: bool | None = None):
    """Within the block, the first numba compile prints one line on `stream` (default stderr);
    yields the `CompileWatch` (``.compiles``, ``.seconds``). FASTSNAKE_QUIET_COMPILE=1 silences
    the default stream."""
    from numba.core import event

    event.Listener.register(CompileWatch)  # numba checks isinstance(listener, Listener)
    quiet = stream is None and bool(os.environ.get("FASTSNAKE_QUIET_COMPILE"))
    watch = CompileWatch(stream=io.StringIO() if quiet else stream, tick=False if quiet else tick)
    event.register("numba:compile", watch)
    try:
        yield watch
    finally:
        expect_nothing()
        event.unregister("numba:compile", watch)
        watch._stop_ticker()
        watch.record()
