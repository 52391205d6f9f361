"""Sweep chunks on a dask.distributed cluster (optional extra: ``pip install 'fastsnake[dist]'``).

Each chunk is one task, `fastsnake.snake.dataset.compute_chunk`, which runs the
same numba sweep kernel as a local run with the game indices of that chunk, so
the rows are identical to a local run. Results come back per chunk and are
written by the client; a worker lost mid-chunk makes the scheduler re-run the
task elsewhere (``retries``), and a chunk is only counted once it is on disk.
"""

from __future__ import annotations

import logging
import re

from fastsnake.snake.dataset import compute_chunk
from fastsnake.snake.sweep import SweepError

_LOCAL = re.compile(r"^local(?::(\d+))?$")


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
                dashboard_address=None, silence_logs=logging.ERROR,
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
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        return False

    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def chunk_source(self, spec_json: dict):
        """A `chunk_source` for `run_dataset_sweep`: chunks as they complete, in any order."""
        from distributed import as_completed

        def source(indices):
            futures = [
                self.client.submit(compute_chunk, spec_json, index, self.threads,
                                   key=f"fastsnake-chunk-{index}-{id(self)}",
                                   pure=False, retries=3)
                for index in indices
            ]
            try:
                for future in as_completed(futures):
                    yield future.result()
            finally:
                for future in futures:
                    future.cancel()

        return source
