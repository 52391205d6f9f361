"""`Crew`: threads that step slices of a vector env's games, handed each step in microseconds.

A step of 4,096 envs takes about 150 us on one core, so a hand-over through a thread pool (a
lock, a condition, waking a sleeping thread, the GIL: 50-120 us on a VM) ate most of what a second
thread gained. A crew's workers instead wait for the next step inside a nogil kernel (`serve`),
spinning on a generation counter in a shared int64 array (`ctrl`, slots ``C_*``); the calling
thread publishes a step by writing the addresses of the step's arrays and then the next
generation, steps its own slice, and spins until every worker has written that generation back.
A worker that saw no step for `WORKER_SPINS` spins goes to sleep on a `threading.Event`, so an
env left alone costs no CPU; the next step wakes it (the slow path, as before).

Sleeping is decided without a lock, as in Dekker's algorithm: a worker clears its awake flag and
then reads the generation once more; the caller writes the generation and then reads the awake
flags. Both with sequentially consistent atomics (`atomics.py`), so at least one of the two sees
the other's write: a step is never left unserved (at worst a worker is woken for nothing).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np
from numba import njit

from fastsnake.envs import kernels as K
from fastsnake.envs.atomics import address_of, array_at, atomic_load, atomic_store, cpu_yield, spin_pause

# Slots of a crew's control array: the generation published, stop, the addresses and sizes of the
# step's arrays, the generation whose slice the caller finished, then per worker k its slice (C_LO + k,
# C_HI + k), the generation it finished (C_DONE + k) and whether it is spinning (C_AWAKE + k).
C_GEN, C_STOP, C_ACTIONS, C_REWARD, C_TERMINATED, C_TRUNCATED, C_INFO, C_GRIDS, C_GRID_ROWS, C_OWN = range(10)
C_WORKERS = 10


@njit(cache=True, inline="always")
def control_slots(workers):
    """The first slot of each per-worker run in the control array: (C_LO, C_HI, C_DONE, C_AWAKE); worker
    k's are these plus k. The one home of the layout, for the kernels and for Python."""
    return C_WORKERS, C_WORKERS + workers, C_WORKERS + 2 * workers, C_WORKERS + 3 * workers


def new_control(workers: int) -> np.ndarray:
    return np.zeros(C_WORKERS + 4 * workers, np.int64)


# How long a thread waits by spinning (`backoff`): the first PAUSE_SPINS turns with the CPU's pause
# (tens of nanoseconds each), every later one gives the core away (`cpu_yield`, a system call, from
# under a microsecond when nothing else wants the core): on a busy machine the thread waited for may
# need that very core. A worker waits WORKER_SPINS turns for the next step, then sleeps; the caller
# waits CALLER_SPINS turns for the workers before it looks at them from Python (a worker that
# died, Ctrl-C) and waits again. Evidence for the figures: docs/performance.md, "The vector env's step".
PAUSE_SPINS = 256
WORKER_SPINS = 512
CALLER_SPINS = 4096


@njit(cache=True, inline="always")
def backoff(turn):
    """Wait a little on the `turn`-th turn of a spin: a pause, or after PAUSE_SPINS turns a yield."""
    if turn < PAUSE_SPINS:
        spin_pause()
    else:
        cpu_yield()

# Where a step is (`publish_and_step`, `step_own_and_wait`, `wait_done`).
STEPPED = 0  # every slice is stepped
WAKE = 1  # published; some worker sleeps: wake it, then `step_own_and_wait`
WAITING = 2  # gave up spinning before the workers finished: look at them, then `wait_done` again
REFUSED = 3  # not published: `kernels.check_step` found a reason not to step


@njit(cache=True, inline="always")
def _publish(ctrl, workers, actions, out):
    """Write the addresses of the step's arrays, then the next generation; True if a worker sleeps."""
    reward, terminated, truncated, info, grids = out
    ctrl[C_ACTIONS] = address_of(actions)
    ctrl[C_REWARD] = address_of(reward)
    ctrl[C_TERMINATED] = address_of(terminated)
    ctrl[C_TRUNCATED] = address_of(truncated)
    ctrl[C_INFO] = address_of(info)
    ctrl[C_GRIDS] = address_of(grids)
    ctrl[C_GRID_ROWS] = grids.shape[0]
    gen = ctrl[C_GEN] + 1
    atomic_store(ctrl, C_GEN, gen)  # after the addresses: a worker that sees gen sees them
    awake = control_slots(workers)[3]
    sleeping = False
    for k in range(workers):
        if atomic_load(ctrl, awake + k) == 0:
            sleeping = True
    return sleeping


@njit(cache=True, nogil=True)
def wait_done(ctrl, workers, spins):
    """Spin until every worker finished the generation published; STEPPED, or WAITING after `spins`."""
    gen = ctrl[C_GEN]
    done = control_slots(workers)[2]
    for turn in range(spins):
        finished = True
        for k in range(workers):
            if atomic_load(ctrl, done + k) != gen:
                finished = False
        if finished:
            return STEPPED
        backoff(turn)
    return WAITING


@njit(cache=True, nogil=True)
def step_own_and_wait(ctrl, workers, cfg, nbr, path, batch, actions, out, lo, hi, spins):
    """Step the caller's slice lo..hi (and say so in C_OWN), then `wait_done`."""
    K.step_range(cfg, nbr, path, batch, actions, out, lo, hi)
    ctrl[C_OWN] = ctrl[C_GEN]
    return wait_done(ctrl, workers, spins)


@njit(cache=True, nogil=True)
def publish_and_step(ctrl, workers, cfg, nbr, path, batch, actions, out, lo, hi, spins):
    """One step of every env, the caller's slice lo..hi here and the others by the spinning workers:
    (`kernels.check_step`'s verdict, where the step is: STEPPED, WAKE, WAITING, or REFUSED when the
    verdict is not ALL_VALID; then nothing moves)."""
    verdict = K.check_step(batch, actions)
    if verdict != K.ALL_VALID:
        return verdict, REFUSED
    if _publish(ctrl, workers, actions, out):
        return verdict, WAKE
    return verdict, step_own_and_wait(ctrl, workers, cfg, nbr, path, batch, actions, out, lo, hi, spins)


@njit(cache=True, nogil=True)
def serve(ctrl, workers, k, cfg, nbr, path, batch, cells, spins):
    """Worker k's loop: step its slice of every generation published, until `spins` spins pass
    without one (then it returns to sleep) or the crew stops."""
    lo, hi, done, awake = control_slots(workers)
    lo_slot, hi_slot, done_slot, awake_slot = lo + k, hi + k, done + k, awake + k
    n = batch[K.B_PENDING].shape[0]
    like_i64, like_f64, like_u8 = np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.uint8)
    atomic_store(ctrl, awake_slot, 1)
    seen = atomic_load(ctrl, done_slot)
    idle = 0
    while atomic_load(ctrl, C_STOP) == 0:
        gen = atomic_load(ctrl, C_GEN)
        if gen != seen:
            actions = array_at(ctrl[C_ACTIONS], n, like_i64)
            out = (array_at(ctrl[C_REWARD], n, like_f64), array_at(ctrl[C_TERMINATED], n, like_u8),
                   array_at(ctrl[C_TRUNCATED], n, like_u8), array_at(ctrl[C_INFO], (len(K.INFO_FIELDS), n), like_i64),
                   array_at(ctrl[C_GRIDS], (ctrl[C_GRID_ROWS], cells), like_u8))
            K.step_range(cfg, nbr, path, batch, actions, out, ctrl[lo_slot], ctrl[hi_slot])
            atomic_store(ctrl, done_slot, gen)
            seen, idle = gen, 0
        elif idle < spins:
            backoff(idle)
            idle += 1
        else:
            # To sleep: say so, then look once more (the caller writes the generation, then reads this flag).
            atomic_store(ctrl, awake_slot, 0)
            if atomic_load(ctrl, C_GEN) == seen:
                return
            atomic_store(ctrl, awake_slot, 1)
            idle = 0


class Crew:
    """Worker threads for slices 1.. of `slices` (the caller steps slice 0) of the games in
    `batch` on the board `cfg`, `nbr`, `path`. `step` steps all of them; `close` stops them (also
    when the crew is garbage)."""

    def __init__(self, slices, cfg, nbr, path, batch, cells: int):
        self.workers = len(slices) - 1
        self.own = slices[0]
        self.ctrl = new_control(self.workers)
        lo, hi, _, _ = control_slots(self.workers)
        for k, (first, end) in enumerate(slices[1:]):
            self.ctrl[lo + k], self.ctrl[hi + k] = first, end
        self.board = (cfg, nbr, path, batch)
        self.wakes = [threading.Event() for _ in range(self.workers)]
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=_work, args=(self.ctrl, self.workers, k, self.board, cells,
                                                             self.wakes[k], self.errors),
                                         name=f"fastsnake-env-{k + 1}", daemon=True)
                        for k in range(self.workers)]
        for thread in self.threads:
            thread.start()
        self._finalizer = weakref.finalize(self, _stop, self.ctrl, self.wakes, self.threads)

    def step(self, actions, out) -> int:
        """`kernels.check_step`'s verdict: ALL_VALID when every env stepped, else nothing moved.

        A step published is finished by every thread even when interrupted (Ctrl-C): the exception
        comes after every env has moved and no worker writes into the step's arrays any more, so the
        games stay in step with one another and no memory is written after it is freed."""
        cfg, nbr, path, batch = self.board
        lo, hi = self.own
        try:
            verdict, where = publish_and_step(self.ctrl, self.workers, cfg, nbr, path, batch, actions, out, lo, hi,
                                              CALLER_SPINS)
            if where == REFUSED:
                return verdict
            if where == WAKE:
                self._wake_sleepers()
                where = step_own_and_wait(self.ctrl, self.workers, cfg, nbr, path, batch, actions, out, lo, hi,
                                          CALLER_SPINS)
            while where == WAITING:
                self._check_workers()
                self._wake_sleepers()
                where = wait_done(self.ctrl, self.workers, CALLER_SPINS)
        except BaseException:
            self._finish(actions, out)
            raise
        return K.ALL_VALID

    def _finish(self, actions, out) -> None:
        """After an interrupt: step the caller's slice of the generation published if it has not been,
        and wait for the workers, whatever further interrupts come meanwhile."""
        cfg, nbr, path, batch = self.board
        while True:
            try:
                if self.ctrl[C_OWN] != self.ctrl[C_GEN]:
                    step_own_and_wait(self.ctrl, self.workers, cfg, nbr, path, batch, actions, out, *self.own, 0)
                while wait_done(self.ctrl, self.workers, CALLER_SPINS) == WAITING and self._working():
                    self._wake_sleepers()
                return
            except BaseException:  # a second Ctrl-C: the workers may still be writing
                continue

    def _wake_sleepers(self) -> None:
        _, _, done, awake = control_slots(self.workers)
        gen = self.ctrl[C_GEN]
        for k in range(self.workers):
            if self.ctrl[awake + k] == 0 and self.ctrl[done + k] != gen:
                self.wakes[k].set()

    def _working(self) -> bool:
        return not self.errors and all(thread.is_alive() for thread in self.threads)

    def _check_workers(self) -> None:
        if self.errors:
            raise RuntimeError(f"an env worker thread failed: {self.errors[0]!r}") from self.errors[0]
        for thread in self.threads:
            if not thread.is_alive():
                # A forked child has only the thread that forked: make the env in the child instead.
                raise RuntimeError(f"env worker thread {thread.name} is not running (was the process forked "
                                   f"after the env was made?)")

    def close(self) -> None:
        self._finalizer()


def _work(ctrl, workers, k, board, cells, wake, errors) -> None:
    """A worker thread: serve steps, sleep when there are none, until the crew stops."""
    cfg, nbr, path, batch = board
    try:
        while atomic_load(ctrl, C_STOP) == 0:
            serve(ctrl, workers, k, cfg, nbr, path, batch, cells, WORKER_SPINS)
            wake.wait()
            wake.clear()
    except BaseException as exc:  # reported to the caller by `Crew.step`
        errors.append(exc)


def _stop(ctrl, wakes, threads) -> None:
    atomic_store(ctrl, C_STOP, 1)
    for wake in wakes:
        wake.set()
    for thread in threads:
        if thread is not threading.current_thread():
            thread.join()
