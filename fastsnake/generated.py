"""Generated modules in numba's cache folder: how users' functions get cached kernels of their own.

numba caches a kernel only when its callees are globals, not arguments, and a cached kernel that
takes a user's function as an argument records every function it saw (loading it imports their
modules, gone ones too). So for a user's function importable by name we write a small module that
imports it as a global, and numba caches that module's kernels like our own: users' Snake policies
(`fastsnake.snake.policies.user_cache`) and users' puzzle heuristics (`fastsnake.puzzle.user_kernels`)
each have a `GeneratedModules`, which does what they share:

- the module's name carries a hash of its target (`GeneratedModules.name`: the user's functions)
  and one of its text, of the user's sources and of the sources our kernels reach
  (`fastsnake._numba_cache.sources_hash`), so an edit to either starts afresh;
- the module is written whole (a temporary file, then ``os.replace``), or touched when it is there,
  and of one target the newest `versions_kept` are kept (`GeneratedModules.prune`), so a folder grows
  with the number of targets, not with the number of edits;
- a cache locator files each module's machine code in a folder of its own next to it,
  ``NAME`` + `CACHE_SUFFIX`, so pruning a version removes its source and its cache together; its
  stamp is the module's name (a hash), which, unlike numba's mtime stamp, survives the touch;
- the module is imported under its name (numba's cache refers to it by name); a read-only cache
  folder gives None, and the caller compiles once per process instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import shutil
import sys
from pathlib import Path
from typing import NamedTuple

CACHE_SUFFIX = ".nbcache"  # numba's files for generated module NAME live in FOLDER/NAME.nbcache/


class _Where(NamedTuple):
    # Its repr is part of a Snake policy's cache key (`user_cache.cached_kernels`): keep its name.
    module: str
    name: str


def importable(fn):
    """(module name, attribute) under which `fn` (a numba dispatcher) is importable by another
    process, or None (defined in ``__main__``, in a closure, or under no name of its module)."""
    py = getattr(fn, "py_func", None)
    module = getattr(py, "__module__", None)
    if not module or module == "__main__" or not all(part.isidentifier() for part in module.split(".")):
        return None  # e.g. runpy's "<run_path>": not a name another process can import
    loaded = sys.modules.get(module)
    if loaded is None:
        return None
    name = getattr(py, "__qualname__", "")
    if "." not in name and "<" not in name and getattr(loaded, name, None) is fn:
        return _Where(module, name)
    # e.g. `first_free = njit(first_free_py)`: the dispatcher under another name
    for attribute, value in sorted(vars(loaded).items()):
        if value is fn and attribute.isidentifier():
            return _Where(module, attribute)
    return None


def importable_pair(fn, other):
    """(`importable` of `fn`, of `other` or None when `other` is None), or None when either of the
    two functions given is not importable."""
    where = importable(fn)
    other_where = importable(other) if other is not None else None
    if where is None or (other is not None and other_where is None):
        return None
    return where, other_where


def importable_sources(fn, other, *, distinct: bool):
    """(`importable` of `fn`, of `other` or None, the sources of their modules: `fn`'s then `other`'s,
    or with `distinct` each module once in name order), or None when either function given is not
    importable or a module's source cannot be read."""
    pair = importable_pair(fn, other)
    if pair is None:
        return None
    modules = [w.module for w in pair if w is not None]
    try:
        sources = [inspect.getsource(sys.modules[m]) for m in (sorted(set(modules)) if distinct else modules)]
    except (OSError, TypeError):
        return None
    return (*pair, sources)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class GeneratedModules:
    """The generated modules ``PREFIX<target key>_<digest>.py`` of one kind, in the folder `folder` of
    numba's cache root, their machine code filed by a locator class named `locator_name`."""

    def __init__(self, folder: str, prefix: str, locator_name: str, versions_kept: int):
        self.folder_name = folder
        self.prefix = prefix
        self.locator_name = locator_name
        self.versions_kept = versions_kept

    def folder(self) -> Path:
        from fastsnake._numba_cache import cache_root

        return cache_root() / self.folder_name

    def name(self, target: str, text: str, roots: frozenset[str], sources) -> tuple[str, str]:
        """(module name, target key): the key a hash of `target`, the name adding one of the module's
        `text`, of the sources the fastsnake modules `roots` reach and of the user's `sources`."""
        from fastsnake._numba_cache import import_reach, sources_hash

        target_key = hashlib.blake2b(target.encode(), digest_size=6).hexdigest()
        digest = hashlib.blake2b(digest_size=8)
        ours = sources_hash(import_reach(roots))  # what the template inlines
        for part in (text, ours, *sources):
            digest.update(part.encode())
        return f"{self.prefix}{target_key}_{digest.hexdigest()}", target_key

    def locator_class(self):
        """A numba cache locator filing each generated module's machine code in a folder of its own,
        so that pruning a version removes its source and its cache together."""
        from fastsnake._numba_cache import locator_base

        folder, prefix = self.folder_name, self.prefix

        class GeneratedModuleCacheLocator(locator_base()):
            @classmethod
            def serves(cls, py_file: Path) -> bool:
                return py_file.name.startswith(prefix) and py_file.parent.name == folder

            def cache_path(self, py_file: Path) -> Path:
                return py_file.with_name(py_file.stem + CACHE_SUFFIX)

            def get_source_stamp(self):
                # The module's name is a hash of its text and of what it imports: a stamp that, unlike
                # numba's mtime one, survives the touch that marks a version as recently used.
                return Path(self._py_file).stem

        GeneratedModuleCacheLocator.__name__ = GeneratedModuleCacheLocator.__qualname__ = self.locator_name
        return GeneratedModuleCacheLocator

    def install_locator(self) -> None:
        from numba.core import caching

        locators = caching.CacheImpl._locator_classes
        if not any(k.__name__ == self.locator_name for k in locators):
            locators.insert(0, self.locator_class())

    def prune(self, folder: Path, target_key: str, keep: str) -> None:
        """Remove all but the newest `versions_kept` versions of one target (`keep` always stays)."""
        versions = sorted(folder.glob(f"{self.prefix}{target_key}_*.py"), key=_mtime, reverse=True)
        stale = [p for p in versions if p.stem != keep][self.versions_kept - 1:]
        for path in stale:
            try:
                path.unlink()
            except OSError:
                pass
            shutil.rmtree(path.with_name(path.stem + CACHE_SUFFIX), ignore_errors=True)

    def load(self, name: str, text: str, target_key: str):
        """The module `name` (of target `target_key`) with the source `text`, written whole or touched,
        its target's old versions pruned, imported under its name; None when the folder cannot be
        written or the module not imported (the caller then compiles once per process)."""
        self.install_locator()
        folder = self.folder()
        path = folder / f"{name}.py"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                tmp = folder / f".{name}.{os.getpid()}.tmp"
                tmp.write_text(text)
                os.replace(tmp, path)
            else:
                os.utime(path)  # in use: the newest versions are kept
            self.prune(folder, target_key, name)
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # numba's cache refers to the module by name
            spec.loader.exec_module(module)
        except (OSError, ImportError):
            sys.modules.pop(name, None)
            return None  # a read-only cache folder: compile per process instead
        return module
