"""Sweep chunks on a dask.distributed cluster (optional extra: ``pip install 'fastsnake[dist]'``).

Each chunk is one task, `fastsnake.snake.dataset.compute_chunk`, which runs the
same numba sweep kernel as a local run with the game indices of that chunk, so
the rows are identical to a local run. Results come back per chunk and are
written by the client; a worker lost mid-chunk makes the scheduler re-run the
task elsewhere (``retries``), and a chunk is only counted once it is on disk. With
no worker left for `NO_WORKERS_SECONDS` the run stops with a SweepError (the folder
stays resumable) rather than waiting for ever. Connecting, submitting and the
handling of lost workers are the runner's (`fastsnake.runs.cluster`), shared with studies.
"""

from __future__ import annotations

from fastsnake.runs import cluster as runs_cluster
from fastsnake.snake.dataset import compute_chunk
from fastsnake.snake.sweep import SweepError

# How long a cluster may have no worker at all before the sweep stops (resumable), and how
# often the client looks.
NO_WORKERS_SECONDS = 20.0
POLL_SECONDS = 2.0
# How long connecting to a scheduler address may take.
CONNECT_SECONDS = 20.0


def parse_cluster(text: str):
    """('local', N or None) or ('address', 'tcp://…'); SweepError for anything else."""
    return runs_cluster.parse_cluster(text, SweepError)


class ClusterRunner(runs_cluster.Cluster):
    """A dask client (and the LocalCluster it owns, if any); use as a context manager."""

    def __init__(self, text: str, threads_per_worker: int = 1, kernels=()):
        super().__init__(text, threads_per_worker, error=SweepError, timeout=CONNECT_SECONDS, kernels=kernels)

    def chunk_source(self, spec_json: dict):
        """A `chunk_source` for `run_dataset_sweep`: chunks as they complete, in any order, and
        None every `POLL_SECONDS` without one (so that a signal is answered while none comes)."""

        def source(indices):
            # lazily: a sweep may have billions of chunks (`ChunkRuns`)
            tasks = ((f"chunk-{index}", (spec_json, index, self.threads)) for index in indices)
            yield from self.stream(compute_chunk, tasks, prefix="fastsnake", what="sweep", poll=POLL_SECONDS,
                                   alone=NO_WORKERS_SECONDS)

        return source
