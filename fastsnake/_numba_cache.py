"""Where numba keeps our compiled kernels: a folder keyed by a hash of the sources they use.

numba invalidates a cached kernel only when *its own* file changes, but our
kernels inline code from other modules (every policy inlines the engine), so an
edit to the engine would leave stale machine code behind. We register a cache
locator that files each kernel of ``fastsnake/<part>/`` under a hash of every
source of that part plus the shared modules (``search/``, top-level files):
any edit that could change a kernel starts a fresh cache for its part only.

The root is NUMBA_CACHE_DIR when set, else ``~/.cache/fastsnake/numba``.
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import lru_cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
# Sub-packages every part may inline code from.
_SHARED_PARTS = ("search",)
# Parts whose kernels inline another part's code (the envs step the Snake engine's `run`).
_PART_DEPENDS = {"envs": ("snake",)}


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fastsnake" / "numba"


def cache_root() -> Path:
    return Path(os.environ.get("NUMBA_CACHE_DIR") or default_cache_root()).resolve()


def _part_of(py_file: Path) -> str | None:
    try:
        rel = py_file.resolve().relative_to(_PACKAGE_DIR)
    except ValueError:
        return None
    return rel.parts[0] if len(rel.parts) > 1 else ""


@lru_cache(maxsize=None)
def part_fingerprint(part: str) -> str:
    digest = hashlib.blake2b(digest_size=8)
    files = list(_PACKAGE_DIR.glob("*.py"))
    for name in {part, *_SHARED_PARTS, *_PART_DEPENDS.get(part, ())} - {""}:
        files.extend((_PACKAGE_DIR / name).rglob("*.py"))
    for path in sorted(set(files)):
        digest.update(str(path.relative_to(_PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return f"{part or 'top'}-{digest.hexdigest()}"


@lru_cache(maxsize=None)
def locator_base():
    """The one class built on numba's private cache-locator API (`caching._CacheLocator` and
    `_SourceFileBackedLocatorMixin`; pyproject.toml caps numba at the versions tested with it):
    a locator for kernels defined in a source file, filed under the folder `cache_path(py_file)`
    of a subclass, for the files its `serves(py_file)` accepts. Ours (below) and the user-policy
    kernels' (`fastsnake.snake.policies.user_cache`) subclass it."""
    from numba.core import caching

    class CacheLocatorBase(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(self.cache_path(Path(py_file)))

        @classmethod
        def serves(cls, py_file: Path) -> bool:
            raise NotImplementedError

        def cache_path(self, py_file: Path) -> Path:
            raise NotImplementedError

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            if not cls.serves(Path(py_file)):
                return None
            return super().from_function(py_func, py_file)

    return CacheLocatorBase


def configure_numba_cache() -> None:
    from numba.core import caching

    class FastsnakeCacheLocator(locator_base()):
        @classmethod
        def serves(cls, py_file: Path) -> bool:
            return _part_of(py_file) is not None

        def cache_path(self, py_file: Path) -> Path:
            return cache_root() / part_fingerprint(_part_of(py_file)) / py_file.stem

    locators = caching.CacheImpl._locator_classes
    if not any(k.__name__ == FastsnakeCacheLocator.__name__ for k in locators):
        locators.insert(0, FastsnakeCacheLocator)


# Modules that define no kernel and never import numba: importing them leaves numba unloaded, so
# the `fastsnake` command's launcher (`fastsnake.__main__`) sets up its signal handling before
# numba's import (most of a start-up: a signal then used to print a KeyboardInterrupt traceback).
NUMBA_FREE_MODULES = frozenset(
    {"fastsnake.__main__", "fastsnake.signals", "fastsnake.errors", "fastsnake._numba_cache",
     "fastsnake.files", "fastsnake.sizes", "fastsnake.renamed"}
)
# Packages none of whose modules defines a kernel (the CLI, the compile notices and warm-up): importing
# them does not configure numba's cache, so `fastsnake --help` never loads numba (0.3 CPU-s). Their
# commands import the kernel modules they run, which configure it then.
NUMBA_FREE_PACKAGES = ("fastsnake.cli", "fastsnake.warm")


def _numba_free(name: str) -> bool:
    return name in NUMBA_FREE_MODULES or any(name == p or name.startswith(p + ".") for p in NUMBA_FREE_PACKAGES)


class ConfigureBeforeKernels:
    """A finder on `sys.meta_path` that finds nothing: it configures numba's cache (above) when the
    first fastsnake module outside NUMBA_FREE_MODULES and NUMBA_FREE_PACKAGES is about to be
    imported, i.e. before any module of ours can define a cached kernel, and is a no-op from then on."""

    _lock = threading.RLock()
    _state = {"done": False, "busy": False}

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if cls._state["done"] or not name.startswith("fastsnake.") or _numba_free(name):
            return None
        with cls._lock:
            if not (cls._state["done"] or cls._state["busy"]):  # busy: numba's own import, re-entering
                cls._state["busy"] = True
                try:
                    configure_numba_cache()
                    cls._state["done"] = True
                finally:
                    cls._state["busy"] = False
        return None


def configure_numba_cache_on_first_use() -> None:
    """Configure numba's cache before the first kernel module of ours is imported, not now: ``import
    fastsnake`` (and the command's launcher) stay free of numba."""
    import sys

    if not any(finder is ConfigureBeforeKernels for finder in sys.meta_path):
        sys.meta_path.insert(0, ConfigureBeforeKernels)
