"""`ship_kernels(client)`: a dask worker plugin installs the client's compiled kernels on every worker.

This module imports dask.distributed at its top: only a cluster run imports it (nothing else of
fastsnake needs dask). The plugin holds one kernel bundle (`bundle.write_bundle`); the
scheduler hands it to every worker, those connected now (`register_plugin` waits for their set-up,
so their first task loads instead of compiling) and those that join later. Each worker imports it
into its own numba cache (`bundle.import_bundle`, off the worker's event loop) and keeps what
happened, which `ship_kernels` collects; a worker that refuses the bundle (another CPU, other versions)
logs one line and compiles as it would have without it. A worker that shares the client's cache
folder on the client's machine (a `local:N` cluster) has the kernels already and skips the import.
"""

from __future__ import annotations

import asyncio
import io
import logging

from distributed import WorkerPlugin

from fastsnake.warm import bundle as B

PLUGIN_NAME = "fastsnake-kernels"
_results: dict[str, dict] = {}  # plugin name -> what the import did in this worker process
_log = logging.getLogger("fastsnake")


class KernelBundlePlugin(WorkerPlugin):
    """Install kernel bundle `data` (bytes) into each worker's numba cache as the worker starts."""

    idempotent = False

    def __init__(self, data: bytes, origin: tuple[str, str], name: str = PLUGIN_NAME):
        self.data = data
        self.origin = origin  # (host name, cache folder) of the client that made it
        self.name = name

    async def setup(self, worker):
        await asyncio.get_running_loop().run_in_executor(None, self.install)

    def install(self) -> dict:
        """Import the bundle here (never raises: what happened is kept for `ship_kernels` and logged)."""
        from fastsnake._numba_cache import cache_root
        from fastsnake.files import host_name

        try:
            if (host_name(), str(cache_root())) == tuple(self.origin):
                result = {"status": "shared", "kernels": 0}
            else:
                result = {"status": "installed", **B.import_bundle(self.data, mark_parts=False)}
        except B.BundleError as exc:
            result = {"status": "refused", "error": str(exc)}
            _log.warning("fastsnake: this worker compiles its own kernels: %s", exc)
        except Exception as exc:  # noqa: BLE001 - a failed import must never fail the worker
            result = {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}
            _log.warning("fastsnake: this worker compiles its own kernels: %s", result["error"])
        _results[self.name] = result
        return result


def worker_result(name: str = PLUGIN_NAME) -> dict | None:
    """What the plugin's import did in this worker process (run on the workers by `ship_kernels`)."""
    return _results.get(name)


def ship_kernels(client, parts=None, *, root=None) -> dict:
    """Give every worker of dask `client` (those there now and those joining later) the kernels of this
    machine's cache (`parts`, as ``fastsnake warm`` names them, or all) before its first task: the
    plugin imports them into the worker's own cache. Workers sharing this machine's cache skip it; a
    worker that refuses the bundle (another CPU, version) compiles as before, and says why. Returns
    ``{"kernels", "bytes", "workers": {address: what its import did}}`` (kernels 0: nothing compiled
    here to ship, no plugin registered)."""
    from pathlib import Path

    from fastsnake._numba_cache import cache_root
    from fastsnake.files import host_name

    root = cache_root() if root is None else Path(root).resolve()
    buffer = io.BytesIO()
    try:
        made = B.write_bundle(buffer, parts=parts, root=root)
    except B.BundleError:  # nothing compiled here yet: the workers compile, as without a bundle
        return {"kernels": 0, "bytes": 0, "workers": {}}
    data = buffer.getvalue()
    client.register_plugin(KernelBundlePlugin(data, (host_name(), str(root))), name=PLUGIN_NAME)
    workers = client.run(worker_result, PLUGIN_NAME)
    return {"kernels": made["kernels"], "bytes": len(data), "workers": workers}
