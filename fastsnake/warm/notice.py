"""Never silent while compiling: a line on stderr when numba starts compiling a kernel family.

numba broadcasts a ``numba:compile`` event only when a dispatcher misses both its in-memory
overloads and the on-disk cache, i.e. exactly when it is about to compile. `compile_notice`
listens for it for the length of a command: the first compile of each kernel family
(`fastsnake.warm.family`: a policy, the puzzle solvers, the tours, the envs) prints one line
naming the policy or verb it is for, never a module, with its cost as measured (`family.cost`: this
machine's last compile of the family, else the published range and the machine it was measured on)
and the wall time that means at the machine's load now, and where the cache lives; a terminal also
gets the elapsed seconds ticking; a warm run prints nothing. Each family's compile CPU and wall
seconds are kept beside the cache (`family.MEASURED_FILE`), so the next notice quotes this machine. Within the block,
one process compiles a family at a time (`family.guard_compiles`): a second one waits, says so, and
loads what the first compiled.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from contextlib import contextmanager

from fastsnake.warm import family as F
from fastsnake.warm import store

_TICK_SECONDS = 1.0

# What the command about to run expects to compile: (words, family key), set by `expect`.
_expected: tuple[str, str] | None = None


def expect(what: str, key: str) -> None:
    """Name what the next compiles are for, e.g. ``expect("policy strongest's kernels",
    "policy:strongest")``: the notice then says so, and estimates by `key`, instead of naming the
    Snake engine's helpers numba often compiles first."""
    global _expected
    _expected = (what, key)


def expect_nothing() -> None:
    global _expected
    _expected = None


def typical_seconds(key: str) -> float | None:
    """The compile estimate of family (or warm part) `key` in CPU seconds (`family.cpu_seconds`)."""
    return F.cpu_seconds(_family_key(key))


def describe(module: str, verb: str | None = None) -> str:
    """What a module's kernels are, in words: a policy's, a part's, or (not ours) the verb's."""
    policy_prefix = "fastsnake.snake.policies."
    if module.startswith(policy_prefix) and module != policy_prefix + "kernels":
        return F.words_of(F.POLICY_PREFIX + module[len(policy_prefix):].replace("_", "-"))
    for prefix, key in F.MODULE_FAMILIES:
        if module == prefix or module.startswith(prefix + "."):
            return F.words_of(key)
    return f"the kernels fastsnake {verb} needs" if verb else f"the numba code of {module}"


def cost(keys) -> str:
    """What compiling families or warm parts `keys` costs, measured (`family.cost`)."""
    return F.cost([_family_key(key) for key in keys])


def _family_key(key: str) -> str:
    part = "puzzle" if key == "puzzle-large" else key
    return F.canonical(part) if part.startswith(F.POLICY_PREFIX) else part


def about(seconds: float | None) -> str:
    """An estimate in CPU seconds, with the wall time it means at the load now (`family.about`)."""
    return F.about(seconds)


class CompileWatch:
    """A ``numba:compile`` listener: a line on the first compile of each family, a ticker on a
    terminal, the compile wall seconds (``seconds``, each outermost compile's start to its end) and
    the compile CPU seconds per family (``cpu_by_family``, the compiling thread's)."""

    def __init__(self, stream=None, tick: bool | None = None, verb: str | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.tick = self.stream.isatty() if tick is None else tick
        self.verb = verb
        self.compiles = 0  # outermost compiles seen
        self.seconds = 0.0
        self.cpu_by_family: dict[str, float] = {}
        self.wall_by_family: dict[str, float] = {}
        self.key: str | None = None  # the family of the first compile
        self._announced: set[str] = set()
        self._family: F.Family | None = None  # of the outermost compile running now
        self._depth = 0
        self._started = 0.0
        self._cpu_started = 0.0
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

    def family(self, dispatcher) -> F.Family:
        """The family a compile is for: the kernel's own; a Snake engine helper (or code of no family)
        counts for what the command expects (`expect`); else the verb's."""
        py_func = getattr(dispatcher, "py_func", None)
        found = F.family_of(py_func) if py_func is not None else None
        if _expected is not None and (found is None or found.key == "snake"):
            what, key = _expected
            return F.Family(F.canonical(key), what)
        if found is not None:
            if self.verb and not found.key.startswith(F.POLICY_PREFIX):
                return F.Family(found.key, f"{found.words} (fastsnake {self.verb})", found.variant)
            return found
        module = getattr(py_func, "__module__", None) or "?"
        return F.Family("other", describe(module, self.verb))

    def on_start(self, event) -> None:
        dispatcher = (event.data or {}).get("dispatcher")
        with self._lock:
            self._depth += 1
            if self._depth > 1:
                return
            self._started = time.perf_counter()
            self._cpu_started = time.thread_time()
            self.compiles += 1
        family = self._family = self.family(dispatcher)
        if self.key is None:
            self.key = family.key
        if family.key not in self._announced:
            self._announced.add(family.key)
            variant = f" {family.variant}" if family.variant else ""
            self._say(f"fastsnake: compiling {family.words}{variant} once ({cost([family.key])}); "
                      f"later runs load them from the cache in {store.cache_root()} (fastsnake warm compiles "
                      f"ahead of time)\n")
            if len(self._announced) == 1:
                store.prune_stale()
        elif family.variant:
            # Announced already (a helper compiled first): the variant is why this compile happens.
            self._say(f"fastsnake: compiling {family.words} {family.variant}\n")
        if self.tick:
            self._stop_tick.clear()
            self._ticker = threading.Thread(target=self._tick_loop, daemon=True)
            self._ticker.start()

    def on_end(self, event) -> None:
        with self._lock:
            self._depth = max(0, self._depth - 1)
            if self._depth:
                return
            wall = time.perf_counter() - self._started
            self.seconds += wall
            family = self._family
        if family is not None:
            cpu = time.thread_time() - self._cpu_started
            self.cpu_by_family[family.key] = self.cpu_by_family.get(family.key, 0.0) + cpu
            self.wall_by_family[family.key] = self.wall_by_family.get(family.key, 0.0) + wall
        failed = bool(getattr(event, "exc_details", None)) and event.exc_details[0] is not None
        if failed:  # no save will release the family's lock
            F.release()
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
        """Keep each family's compile CPU and wall seconds as its next announced cost (`family.record`)."""
        F.record({key: cpu for key, cpu in self.cpu_by_family.items() if key != "other"}, self.wall_by_family)


@contextmanager
def compile_notice(stream=None, tick: bool | None = None, verb: str | None = None):
    """Within the block, the first numba compile of each kernel family prints one line on `stream`
    (default stderr), and a process compiles a family only when no other process is compiling it
    (`family.guard_compiles`); yields the `CompileWatch` (``.compiles``, ``.seconds``,
    ``.cpu_by_family``). `verb` names what compiles when no family does. FASTSNAKE_QUIET_COMPILE=1
    silences the default stream."""
    from numba.core import event

    event.Listener.register(CompileWatch)  # numba checks isinstance(listener, Listener)
    quiet = stream is None and bool(os.environ.get("FASTSNAKE_QUIET_COMPILE"))
    watch = CompileWatch(stream=io.StringIO() if quiet else stream, tick=False if quiet else tick, verb=verb)
    event.register("numba:compile", watch)
    outer = F.guard_compiles(watch._say)
    try:
        yield watch
    finally:
        F.guard_compiles(outer)
        if outer is None:
            F.release()
        expect_nothing()
        event.unregister("numba:compile", watch)
        watch._stop_ticker()
        watch.record()
