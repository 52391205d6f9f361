"""Sweep chunks on a dask.distributed cluster (optional extra: ``pip install 'fastsnake[dist]'``).

Each chunk is one task, `fastsnake.snake.dataset.compute_chunk`, which runs the
same numba sweep kernel as a local run with the game indices of that chunk, so
the rows are identical to a local run. Results come back per chunk and are
written by the client; a worker lost mid-chunk makes the scheduler re-run the
task elsewhere (``retries``), and a chunk is only counted once it is on disk. With
no worker left for `NO_WORKERS_SECONDS` the run stops with a SweepError (the folder
stays resumable) rather than waiting for ever.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time

from fastsnake.snake.dataset import compute_chunk
from fastsnake.snake.sweep import SweepError

_LOCAL = re.compile(r"^local(?::(\d+))?$")
# How long a cluster may have no worker at all before the sweep stops (resumable), and how
# often the client looks.
NO_WORKERS_SECONDS = 20.0
POLL_SECONDS = 2.0
# Chunks submitted to the cluster at a time (more are submitted as these finish): memory bounded
# whatever the number of chunks.
IN_FLIGHT = 1024


def parse_cluster(text: str):
    """('local', N or None) or ('address', 'tcp://…'); SweepError for anything else."""
    match = _LOCAL.match(text)
    if match:
        n = int(match.group(1)) if match.group(1) else None
        if n is not None and n < 1:
            raise SweepError(f"cluster={text!r}: needs at least 1 worker")
        return "local", n
    if re.match(r"^(tcp|tls|ucx|inproc)://\S+$", text):
        return "address", text
    raise SweepError(f"cluster={text!r} is not local, local:N or a scheduler address like tcp://HOST:PORT")


def _import_distributed():
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise SweepError("a cluster sweep needs dask.distributed: pip install 'fastsnake[dist]'") from None
    return distributed


class ClusterRunner:
    """A dask client (and the LocalCluster it owns, if any); use as a context manager."""

    def __init__(self, text: str, threads_per_worker: int = 1):
        kind, value = parse_cluster(text)
        distributed = _import_distributed()
        self.threads = threads_per_worker
        self.cluster = None
        if kind == "local":
            import os

            workers = value or max(1, (os.cpu_count() or 2) // threads_per_worker)
            self.cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.CRITICAL,
            )
            self.client = distributed.Client(self.cluster)
        else:
            try:
                self.client = distributed.Client(value, timeout="20s")
            except OSError as exc:
                raise SweepError(f"cluster={value!r}: cannot reach the scheduler ({exc})") from None

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

    def chunk_source(self, spec_json: dict):
        """A `chunk_source` for `run_dataset_sweep`: chunks as they complete, in any order, and
        None every `POLL_SECONDS` without one (so that a signal is answered while none comes)."""
        import distributed

        def source(indices):
            todo = iter(indices)  # lazily: a sweep may have billions of chunks (`ChunkRuns`)
            futures: set = set()
            pending, alone_since = set(), None

            def submit_more():
                while len(pending) < IN_FLIGHT:
                    index = next(todo, None)
                    if index is None:
                        return
                    future = self.client.submit(compute_chunk, spec_json, index, self.threads,
                                                key=f"fastsnake-chunk-{index}-{id(self)}", pure=False, retries=3)
                    futures.add(future)
                    pending.add(future)

            try:
                submit_more()
                while pending:
                    try:
                        done, pending = distributed.wait(pending, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
                    except (TimeoutError, distributed.TimeoutError):
                        done = set()
                    fetched = False
                    for future in done:
                        result = self._result(future)
                        if result is None:  # its result was on a worker that left: computed again
                            pending.add(future)
                        else:
                            fetched = True
                            futures.discard(future)
                            yield result
                    submit_more()
                    if not fetched:
                        yield None  # nothing came: the caller may look at its stop flag
                    if fetched:
                        alone_since = None
                    elif self.workers() > 0:
                        alone_since = None
                    elif alone_since is None:
                        alone_since = time.monotonic()
                    elif time.monotonic() - alone_since >= NO_WORKERS_SECONDS:
                        raise SweepError(f"the cluster has had no worker for {NO_WORKERS_SECONDS:.0f} s; stopped "
                                         "(the finished chunks are kept: resume the sweep when workers are back)")
            finally:
                with contextlib.suppress(Exception):  # a client already closed has nothing to cancel
                    self.client.cancel(list(futures))

        return source

    @staticmethod
    def _result(future):
        """The chunk a finished future holds, or None when it cannot be fetched now."""
        import distributed

        try:
            return future.result(timeout=POLL_SECONDS)
        except (TimeoutError, distributed.TimeoutError):
            return None
        except SweepError:
            raise
        except Exception as exc:  # a chunk that failed on every worker it was given (KilledWorker, ...)
            first_line = str(exc).splitlines()[0] if str(exc) else ""
            raise SweepError(f"a chunk failed on the cluster ({type(exc).__name__}: {first_line}); "
                             "the finished chunks are kept: resume the sweep") from None
