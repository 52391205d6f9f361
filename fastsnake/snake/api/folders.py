"""Sweep folders: resuming one, and running a folder's missing chunks here or on a dask cluster."""

from __future__ import annotations

import sys

import numpy as np

from fastsnake.snake.api.inputs import check_path, progress_callback
from fastsnake.snake.api.results import SweepResult
from fastsnake.snake.policies import is_family_name, named_by_files, recorded_options
from fastsnake.snake.store import SweepDataset, check_folder_disk
from fastsnake.snake.sweep import (
    SweepError,
    check_threads,
    prepare,
    raise_if_terminated,
    run_dataset_sweep,
    summary_dict,
)


def resume_sweep(folder, *, threads=None, cluster=None, progress=False, models=()) -> SweepResult:
    """Finish the missing chunks of a sweep folder (what an interrupted ``sweep(out=folder)`` left).

    Parameters
    ----------
    folder : str or path
        A sweep folder written by `sweep` with a folder `out`.
    threads : int, optional
        Threads (default: all cores; with `cluster`, per worker, default 1).
    cluster : str, optional
        ``"local"``, ``"local:N"`` or a dask scheduler address.
    progress : bool or callable
        True draws a progress bar on stderr; a callable gets ``(done, total)`` chunks.
    models : sequence of paths
        Model files to play a ``model:PATH`` policy the folder names with (matched by the SHA-256
        it recorded): a model is never loaded from the path a folder names.

    Returns
    -------
    SweepResult
        The summary of every game in the folder; ``table`` reads the folder on first use.

    Raises
    ------
    InputError
        When the folder holds no sweep (no manifest) or cannot be written.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> folder = os.path.join(tempfile.mkdtemp(), "s")
    >>> _ = fastsnake.sweep("cycle", 6, 100, out=folder, chunk_size=40)
    >>> fastsnake.resume_sweep(folder).summary["games"]  # nothing missing: nothing played
    100
    """
    check_path(folder, "folder")
    with named_by_files(models):
        dataset = SweepDataset.open(folder)
        spec = dataset.spec
        recorded_options(spec.policy, spec.options)  # a model the folder names: matched with `models`
        if cluster and is_family_name(spec.policy):
            raise SweepError(f"{spec.policy!r} is a model: resume its folder on this machine, with the model "
                             f"file named, not on a cluster")
        return run_folder(dataset, threads, cluster, progress)


def _compile_sweep_kernel(spec, threads: int) -> float:
    """Compile (or load) a folder sweep's kernel before its clock starts: the seconds it took, kept
    apart from the sweep's ``seconds`` (`cancel.compile_first`; the rows' shape does not change the
    kernel's type, so an empty array stands for them)."""
    import numba

    from fastsnake.snake.cancel import compile_first

    numba.set_num_threads(threads)
    policy, _, params, cfg, nbr = prepare(spec.policy, spec.config, spec.options)
    return compile_first(policy.sweep_kernel, cfg, nbr, params, np.uint64(spec.seed), np.int64(0),
                         np.zeros((0, 0), np.int64), 1)


def run_folder(dataset, threads, cluster, progress) -> SweepResult:
    spec = dataset.spec
    bar = progress_callback(progress, spec.policy, "chunk")
    with dataset.writing():
        missing, before = dataset.scan()
        check_folder_disk(dataset.path, spec, missing)  # before compiling: refused at once
        compile_seconds = None  # a cluster's workers compile on their own machines
        if cluster:
            from fastsnake.snake.cluster import ClusterRunner

            threads = threads or 1
            with ClusterRunner(cluster, threads, kernels=[f"policy:{spec.policy}"]) as runner:
                sys.stderr.write(f"cluster: {runner.workers()} workers, {threads} thread(s) each\n")
                acc, seconds, cpu, stopped = run_dataset_sweep(
                    dataset, threads=threads, progress=bar, chunk_source=runner.chunk_source(spec.to_json()))
        else:
            threads = check_threads(threads)
            compile_seconds = _compile_sweep_kernel(spec, threads)
            acc, seconds, cpu, stopped = run_dataset_sweep(dataset, threads=threads, progress=bar)
    summary = summary_dict(acc, spec.policy, spec.config, spec.options, spec.seed, threads, seconds, cpu,
                           compile_seconds=compile_seconds,
                           before=before, games_requested=spec.games, interrupted=stopped is not None,
                           signal=stopped if stopped not in (None, True) else None,
                           folder=str(dataset.path), chunks=spec.n_chunks, chunk_size=spec.chunk_size,
                           cluster=cluster)
    result = SweepResult(summary=summary, folder=str(dataset.path))
    raise_if_terminated(summary, result)
    return result

