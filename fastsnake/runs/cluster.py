"""Work on a dask.distributed cluster (optional extra: ``pip install 'fastsnake[dist]'``).

`parse_cluster` reads ``local``, ``local:N`` or a scheduler address; `connect` (the one place a
dask Client is made, for Snake sweeps and for studies alike) starts a LocalCluster of N worker
processes or connects to a running scheduler, giving up after `CONNECT_SECONDS` with one line.
`Cluster.stream` submits tasks (at most `IN_FLIGHT` at a time: memory bounded whatever their
number) and yields their results as they complete, in any order, and None every `POLL_SECONDS`
without one (so that the caller can look at its stop flag). A worker lost mid-task makes the
scheduler run the task again elsewhere (``retries``); a worker that leaves is said on stderr; with
no worker left for `NO_WORKERS_SECONDS` the stream stops with an error (what finished is kept by
the caller). dask is imported only here, and only when a cluster is asked for.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import time

from fastsnake.errors import InputError

_LOCAL = re.compile(r"^local(?::(\d+))?$")
_ADDRESS = re.compile(r"^(tcp|tls|ucx|inproc)://\S+$")
# How long a cluster may have no worker at all before the run stops (resumable), and how often the
# client looks.
NO_WORKERS_SECONDS = 20.0
POLL_SECONDS = 2.0
# How long connecting to a scheduler address may take before the run is refused.
CONNECT_SECONDS = 5.0
# Tasks submitted to the cluster at a time (more are submitted as these finish).
IN_FLIGHT = 1024


def parse_cluster(text: str, error=InputError):
    """('local', N or None) or ('address', 'tcp://…'); `error` for anything else."""
    match = _LOCAL.match(text)
    if match:
        n = int(match.group(1)) if match.group(1) else None
        if n is not None and n < 1:
            raise error(f"cluster={text!r}: needs at least 1 worker")
        return "local", n
    if _ADDRESS.match(text):
        return "address", text
    raise error(f"cluster={text!r} is not local, local:N or a scheduler address like tcp://HOST:PORT")


def import_distributed(error=InputError):
    try:
        import distributed
    except ImportError:
        raise error("a cluster run needs dask.distributed: pip install 'fastsnake[dist]'") from None
    return distributed


def connect(text: str, threads_per_worker: int = 1, *, error=InputError, timeout: float = CONNECT_SECONDS):
    """(client, the LocalCluster it owns or None) for `text` (`parse_cluster`): ``local:N`` starts N
    worker processes of one thread each on this machine (``local``: cores / `threads_per_worker`);
    an address connects to its scheduler within `timeout` seconds, else `error` in one line.

    Every dask Client of fastsnake is made here: what each worker needs before its first task
    (e.g. the client's compiled kernels) is set up on the client this returns."""
    kind, value = parse_cluster(text, error)
    distributed = import_distributed(error)
    if kind == "local":
        workers = value or max(1, (os.cpu_count() or 2) // threads_per_worker)
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=logging.CRITICAL)
        try:
            return distributed.Client(cluster), cluster
        except BaseException:
            with contextlib.suppress(Exception):
                cluster.close()
            raise
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # dask's own retry lines are no news: ours is the one line
    try:
        return distributed.Client(value, timeout=f"{timeout}s"), None
    except (OSError, TimeoutError) as exc:
        reason = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise error(f"cluster={value!r}: cannot reach the scheduler within {timeout:.0f} s ({reason})") from None
    finally:
        quiet.setLevel(level)


def ship_to_workers(client, kernels) -> dict | None:
    """Give the workers this machine's compiled `kernels` (`fastsnake warm` parts: `ship_kernels`) before
    their first task and say so in one line on stderr; a failure to ship is said too and is no error
    (the workers then compile, as they would without it)."""
    try:
        from fastsnake.warm.ship import ship_kernels

        shipped = ship_kernels(client, list(kernels))
    except Exception as exc:  # noqa: BLE001 - shipping saves compile time; the run goes on without it
        sys.stderr.write(f"cluster: the workers compile their own kernels (shipping them failed: {exc})\n")
        return None
    if shipped["kernels"]:
        refused = [w for w in shipped["workers"].values() if w and w.get("status") in ("refused", "failed")]
        line = (f"cluster: shipped {shipped['kernels']} compiled kernel(s), {shipped['bytes'] / 1e6:.1f} MB, to "
                f"{len(shipped['workers'])} worker(s)")
        if refused:
            line += f"; {len(refused)} refused them and compile their own: {refused[0]['error']}"
        sys.stderr.write(line + "\n")
    return shipped


class Cluster:
    """A dask client (and the LocalCluster it owns, if any); use as a context manager. `kernels`: the
    `fastsnake warm` parts whose compiled kernels the workers of a cluster at an address get from this
    machine's cache as they connect (`ship_to_workers`; ``local:N`` workers share this machine's cache)."""

    def __init__(self, text: str, threads_per_worker: int = 1, *, error=InputError, timeout: float = CONNECT_SECONDS,
                 kernels=()):
        self.error = error
        self.threads = threads_per_worker
        self.client, self.cluster = connect(text, threads_per_worker, error=error, timeout=timeout)
        self.shipped = ship_to_workers(self.client, kernels) if kernels and self.cluster is None else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        # After an error the cluster is torn down mid-flight; dask then logs its own shutdown
        # noise (e.g. "IOLoop is closed" tracebacks), which is no news to the user.
        if exc[0] is not None:
            logging.getLogger("distributed").setLevel(logging.CRITICAL)
        with contextlib.suppress(Exception):
            self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()
        return False

    def workers(self) -> int:
        # Asked of the scheduler each time (scheduler_info() may answer from a cache).
        return len(self.client.nthreads())

    def stream(self, fn, tasks, *, prefix: str = "fastsnake", what: str = "run", poll: float | None = None,
               alone: float | None = None):
        """Run ``fn(*args)`` for each ``(tag, args)`` of `tasks` on the cluster; yield each result as
        it completes (any order), and None every `poll` seconds without one (default `POLL_SECONDS`;
        `alone`: the seconds with no worker before it stops, default `NO_WORKERS_SECONDS`). `tasks`
        is read lazily."""
        import distributed

        poll = POLL_SECONDS if poll is None else poll
        alone = NO_WORKERS_SECONDS if alone is None else alone

        todo = iter(tasks)
        futures: set = set()
        pending, alone_since = set(), None
        seen = set(self.client.nthreads())

        def submit_more():
            while len(pending) < IN_FLIGHT:
                task = next(todo, None)
                if task is None:
                    return
                tag, args = task
                future = self.client.submit(fn, *args, key=f"{prefix}-{tag}-{id(self)}", pure=False, retries=3)
                futures.add(future)
                pending.add(future)

        try:
            submit_more()
            while pending:
                try:
                    done, pending = distributed.wait(pending, timeout=poll, return_when="FIRST_COMPLETED")
                except (TimeoutError, distributed.TimeoutError):
                    done = set()
                fetched = False
                for future in done:
                    result = self._result(future, what, poll)
                    if result is None:  # its result was on a worker that left: computed again
                        pending.add(future)
                    else:
                        fetched = True
                        futures.discard(future)
                        yield result
                submit_more()
                if not fetched:
                    yield None  # nothing came: the caller may look at its stop flag
                now = set(self.client.nthreads())
                for gone in sorted(seen - now):
                    sys.stderr.write(f"fastsnake: warning: worker {gone} left the cluster; the scheduler "
                                     "runs its unfinished work again elsewhere\n")
                seen = now
                if fetched or now:
                    alone_since = None
                elif alone_since is None:
                    alone_since = time.monotonic()
                elif time.monotonic() - alone_since >= alone:
                    raise self.error(f"the cluster has had no worker for {alone:.0f} s; stopped "
                                     f"(the finished chunks are kept: resume the {what} when workers are back)")
        finally:
            with contextlib.suppress(Exception):  # a client already closed has nothing to cancel
                self.client.cancel(list(futures))

    def _result(self, future, what: str, poll: float):
        """The value a finished future holds, or None when it cannot be fetched now."""
        import distributed

        try:
            return future.result(timeout=poll)
        except (TimeoutError, distributed.TimeoutError):
            return None
        except InputError:
            raise
        except Exception as exc:  # a task that failed on every worker it was given (KilledWorker, ...)
            first_line = str(exc).splitlines()[0] if str(exc) else ""
            raise self.error(f"a chunk failed on the cluster ({type(exc).__name__}: {first_line}); "
                             f"the finished chunks are kept: resume the {what}") from None


def probe(text: str, error=InputError, timeout: float = CONNECT_SECONDS) -> None:
    """For a scheduler address, check that something listens there within `timeout` seconds (before any
    work: an unreachable scheduler is one line at once, not after the tables are built); `local`
    needs no probe. Only the syntax is checked for addresses other than tcp://HOST:PORT."""
    import socket
    from urllib.parse import urlsplit

    kind, value = parse_cluster(text, error)
    if kind != "address" or not value.startswith("tcp://"):
        return
    try:
        parts = urlsplit(value)
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or not port:
        raise error(f"cluster={value!r}: give the scheduler as tcp://HOST:PORT")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise error(f"cluster={value!r}: cannot reach the scheduler ({reason})") from None
