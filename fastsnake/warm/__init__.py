"""Compiled kernels ahead of time, and a word while compiling.

- `compile_notice`: within the block, numba's first compile prints one line on stderr (what,
  roughly how long, where the cache lives); the CLI runs every verb inside it.
- `warm`: compile what a user names (policies, the puzzle, tour and env kernels) in parallel
  processes, so the first real call loads instead of compiling (``fastsnake warm``).
- `clear_stale`: remove cache folders of other sources than the installed ones.
- `tier`: a small first call runs interpreted while its kernels compile in the background.
- `export_bundle`, `import_bundle`: the compiled kernels of this machine's cache in one file, installed
  on another machine after checks (``fastsnake warm --export`` / ``--import``; `fastsnake.warm.bundle`);
  `ship_kernels(client)` gives a dask cluster's workers the client's kernels (`fastsnake.warm.ship`).
"""

from fastsnake.warm.notice import compile_notice, expect
from fastsnake.warm.parts import WarmError
from fastsnake.warm.store import cache_root, clear_stale, stale_folders
from fastsnake.warm.tier import (
    NeedsCompiled,
    compiled_instead,
    first_call,
    interpreted_run,
    puzzle_job,
    snake_job,
    tour_job,
)

__all__ = ["compile_notice", "expect", "warm", "resolve_parts", "WarmError", "cache_root", "clear_stale",
           "stale_folders", "first_call", "compiled_instead", "NeedsCompiled",
           "interpreted_run", "snake_job", "puzzle_job", "tour_job", "export_bundle", "import_bundle",
           "ship_kernels", "BundleError", "check_bundle_target"]
_BUNDLE = ("export_bundle", "import_bundle", "ship_kernels", "BundleError", "check_bundle_target")


def __getattr__(name):
    # `warm` and `resolve_parts` import the process pool (multiprocessing, concurrent.futures): only
    # `fastsnake warm` and the background compile need them, not every command's start-up.
    if name in ("warm", "resolve_parts"):
        from fastsnake.warm import ahead

        return getattr(ahead, name)
    if name == "ship_kernels":  # dask: only a cluster run
        from fastsnake.warm import ship

        return ship.ship_kernels
    if name in _BUNDLE:  # zipfile, pickle: only the commands that read or write bundles
        from fastsnake.warm import bundle

        return getattr(bundle, name)
    raise AttributeError(f"module 'fastsnake.warm' has no attribute {name!r}")
