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

# Rough cold compile seconds on a 2-core machine (bench/bench_cold_start.py), by the module of
# the kernel numba starts with; the longest prefix wins. Used until this machine measured its own.
TYPICAL_SECONDS = {
    "fastsnake.snake": 20,
    "fastsnake.snake.policies.grove": 90,
    "fastsnake.snake.policies.cell": 35,
    "fastsnake.snake.policies.dhcr": 40,
    "fastsnake.puzzle": 20,
    "fastsnake.tour": 6,
    "fastsnake.envs": 8,
}
# Compiles shorter than this leave no estimate behind: a stray helper compiled in a warm run
# must not teach the next cold run that it takes a second.
_RECORD_AT_LEAST = 2.0
_TICK_SECONDS = 1.0


def typical_seconds(module: str) -> float | None:
    recorded = store.read_json(store.TIMES_FILE).get(module)
    if isinstance(recorded, (int, float)):
        return float(recorded)
    best = _longest_prefix(module, TYPICAL_SECONDS)
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


def _about(seconds: float | None) -> str:
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
        self.first_module: str | None = None
        self._depth = 0
        self._started = 0.0
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._stop_tick = threading.Event()

    # numba's Listener protocol (duck-typed so that importing this module does not import numba)
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
            func = getattr(dispatcher, "py_func", None)
            module = getattr(func, "__module__", "?")
            self.first_module = module
            self._say(f"fastsnake: compiling {describe(module)}, "
                      f"{_about(typical_seconds(module))} once; later runs load them from the cache in "
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
        """Keep this compile's seconds as the estimate for the module it started with."""
        if self.first_module is None or self.seconds < _RECORD_AT_LEAST:
            return
        times = store.read_json(store.TIMES_FILE)
        times[self.first_module] = round(self.seconds, 1)
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
        event.unregister("numba:compile", watch)
        watch._stop_ticker()
        watch.record()
