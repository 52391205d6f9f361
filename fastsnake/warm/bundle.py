"""Kernel bundles: the compiled kernels of one machine's cache in one file, installed on another.

`export_bundle` writes the kernels of this machine's numba cache (the folders of the parts asked, or
every current one) into one zip file with a manifest; `import_bundle` checks a bundle whole, then
installs its kernels into this machine's cache, so the first runs load instead of compiling
(``fastsnake warm --export FILE`` / ``--import FILE``); `fastsnake.warm.ship.ship_kernels(client)`
does it for the workers of a dask cluster (a worker plugin).

What makes a kernel found on another machine (`fastsnake._numba_cache`): our cache folders are named
by a hash of the *code* of the modules a kernel reaches (their paths relative to the package, not the
install's place), and numba's index of each kernel is stamped with that hash, not with the source
file's mtime; so a kernel copied into another install of the same sources is found as it is. numba
keys each compiled entry by its signature, the bytecode's hash and the target's "magic tuple" (LLVM
triple, CPU name, CPU features), and keeps its own version in the index. A bundle therefore carries,
and an import checks before it writes anything:

- the fastsnake, Python (implementation, version, ABI flags), numba and llvmlite versions: all equal;
- the magic tuple the kernels were compiled for: same triple, and every CPU feature the kernels may
  use present on this CPU. Kernels compiled for another CPU name with features this CPU has (an
  older model of the family, or ``NUMBA_CPU_NAME=generic``, whose kernels use the baseline features
  only) are filed under this machine's magic tuple, so numba finds them; any other bundle is refused;
- the code of every source module its folders' hashes cover (a hash per module): equal to this
  install's, each module named when it differs;
- every member's size and SHA-256 (a truncated or altered file), and that numba's indexes parse,
  are stamped with their folder's hash and name only data files the bundle holds.

Then each kernel's data file is installed whole (temporary name, fsync, rename), before the index
that names it, and an index already in the cache keeps its entries (a kernel this cache holds is not
replaced): a crash mid-import leaves whole files only, and at worst kernels that compile again.

A bundle is code: numba's indexes and data files are pickles, which loading runs. The checksums
catch damage, not an attacker who rewrites the manifest too: import bundles you made or trust, as
you would a wheel. Users' own policies and heuristics (`fastsnake.generated`) are not bundled.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import re
import sys
import time
import zipfile
from pathlib import Path

from fastsnake._numba_cache import (
    FINGERPRINT_FOLDER,
    MANIFEST,
    cache_root,
    folder_is_current,
    folder_modules,
    module_digest,
    module_path,
    sources_hash,
)
from fastsnake.errors import InputError
from fastsnake.files import NotRegularFile, file_in_the_way, open_regular, printable, written_atomically

__all__ = ["BundleError", "check_bundle_target", "export_bundle", "import_bundle", "read_manifest", "host_cpu",
           "cpu_problem"]

FORMAT = "fastsnake-kernel-bundle"
FORMAT_VERSION = 1
MANIFEST_MEMBER = "bundle.json"
KERNEL_PREFIX = "kernels/"
# Bounds on what an import reads: the manifest, one member, all members (a bundle of every part of
# this release is about 30 MB).
MAX_MANIFEST_BYTES = 16 << 20
MAX_MEMBER_BYTES = 1 << 30
MAX_TOTAL_BYTES = 16 << 30
_PIECE = 1 << 20
# A member's path under KERNEL_PREFIX: a fingerprint folder, then its manifest, or numba's index and
# data files of one source file (`<stem>/`, at a non-default optimisation level `<stem>/opt<n>/`).
_MEMBER = re.compile(
    r"^(?P<folder>[a-z_][a-z0-9_.]*-[0-9a-f]{16})/(?:" + re.escape(MANIFEST)
    + r"|(?P<dir>[A-Za-z0-9_]+(?:/opt(?:[0-3]|max))?)/(?P<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*\.(?P<kind>nbi|nbc)))$")
_INDEX_SUFFIX = ".nbi"
_SITE = Path(__file__).resolve().parents[2]  # the folder holding the package: sources are named from it


class BundleError(InputError):
    """A kernel bundle that cannot be written, or read and installed here: one line naming the file
    and the reason (another version, another CPU, other sources, a damaged file)."""


# --- what a kernel was compiled for -----------------------------------------------------------------


def environment() -> dict:
    """The versions a bundle's kernels depend on (all must be equal to import it); numpy for the record."""
    import llvmlite
    import numba
    import numpy

    from fastsnake import __version__

    return {"fastsnake": __version__, "python": python_tag(), "numba": numba.__version__,
            "llvmlite": llvmlite.__version__, "numpy": numpy.__version__}


def python_tag() -> str:
    """``CPython 3.11`` plus ABI flags: what numba's cache file names and pickles depend on."""
    impl = {"cpython": "CPython", "pypy": "PyPy"}.get(sys.implementation.name, sys.implementation.name)
    return f"{impl} {sys.version_info[0]}.{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"


_CHECKED = ("fastsnake", "python", "numba", "llvmlite")
_WORDS = {"fastsnake": "fastsnake", "python": "Python", "numba": "numba", "llvmlite": "llvmlite"}


def host_cpu() -> tuple[str, str, str]:
    """numba's magic tuple for this process: (LLVM triple, CPU name, CPU features), as numba keys the
    kernels it compiles and looks up here (``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` respected)."""
    from numba.core.registry import cpu_target

    triple, name, features = cpu_target.target_context.codegen().magic_tuple()
    return str(triple), str(name), str(features)


def _enabled(features: str) -> set[str]:
    return {f[1:] for f in features.split(",") if f.startswith("+")}


def cpu_problem(bundle_cpu, host) -> str | None:
    """Why kernels compiled for `bundle_cpu` (a magic tuple) cannot run under `host`'s, or None: another
    triple, or a CPU feature they may use that `host` lacks. The CPU name alone only tunes the code."""
    triple, name, features = bundle_cpu
    if triple != host[0]:
        return f"for {triple}, and this machine is {host[0]}"
    missing = sorted(_enabled(features) - _enabled(host[2]))
    if missing:
        shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
        return (f"for CPU {name}, whose features this CPU ({host[1]}) lacks: {shown}; export with "
                f"NUMBA_CPU_NAME=generic for a portable bundle")
    return None


# --- numba's index files ----------------------------------------------------------------------------


def parse_index(data: bytes):
    """(numba version, source stamp, overloads) of an index file's bytes (numba's format: the version
    pickled, then the pickled ``(stamp, {key: data file name})``). Unpickling runs the file's code."""
    stream = io.BytesIO(data)
    version = pickle.load(stream)
    stamp, overloads = pickle.loads(stream.read())
    return version, stamp, overloads


def index_bytes(stamp, overloads: dict) -> bytes:
    """An index file's bytes as numba writes them (`parse_index`'s inverse)."""
    import numba
    from numba.core.serialize import dumps

    stream = io.BytesIO()
    pickle.dump(numba.__version__, stream, protocol=-1)
    stream.write(dumps((stamp, overloads)))
    return stream.getvalue()


def _folder_stamp(folder: str) -> str:
    """The source stamp our locator gives every index of a fingerprint folder (`get_source_stamp`)."""
    return "code-" + folder.rsplit("-", 1)[1]


def _read_cached_index(path: Path, stamp: str, raw: bytes | None = None) -> dict:
    """The overloads of an index in the cache (its bytes `raw` when read already), or {} when absent, of
    another numba, stale or unreadable."""
    import numba

    try:
        version, found, overloads = parse_index(path.read_bytes() if raw is None else raw)
    except FileNotFoundError:
        return {}
    except Exception:  # noqa: BLE001 - a damaged index is numba's to overwrite; we start afresh
        return {}
    if version != numba.__version__ or found != stamp or not isinstance(overloads, dict):
        return {}
    return overloads


# --- export -----------------------------------------------------------------------------------------


def select_folders(root: Path, parts=None) -> list[Path]:
    """The current fingerprint folders of `root` holding kernels; with `parts` (``fastsnake warm``'s part
    names), those whose sources are all within some part's reach (`parts.part_modules`): a policy's
    template kernels, the searches and engine helpers it calls, never another policy's."""
    if not root.is_dir():
        return []
    reaches = None
    if parts is not None:
        from fastsnake.warm import parts as P

        reaches = []
        for part in parts:
            modules = P.part_modules(part)
            reaches.append(modules if modules is not None else frozenset())
    chosen = []
    for folder in sorted(root.iterdir()):
        if not (folder.is_dir() and FINGERPRINT_FOLDER.match(folder.name) and folder_is_current(folder)):
            continue
        if reaches is not None:
            modules = folder_modules(folder) or frozenset()
            if not any(modules <= reach for reach in reaches):
                continue
        if any(folder.rglob("*" + _INDEX_SUFFIX)):
            chosen.append(folder)
    return chosen


def check_bundle_target(path) -> None:
    """BundleError when a bundle cannot be written at `path`: a folder, or in a folder that does not exist."""
    target = os.fspath(path)
    shown = printable(repr(target))
    parent = os.path.dirname(os.path.abspath(target))
    if os.path.isdir(target):
        raise BundleError(f"cannot write bundle {shown}: it is a folder")
    blocker = file_in_the_way(target)
    if blocker is not None:
        raise BundleError(f"cannot write bundle {shown}: {printable(repr(blocker))} is a file, not a folder")
    if not os.path.isdir(parent):
        raise BundleError(f"cannot write bundle {shown}: folder {printable(repr(parent))} does not exist")


def export_bundle(path, *, parts=None, root=None) -> dict:
    """Write the kernels of this machine's cache for its CPU (`host_cpu`) into the bundle `path`, whole
    or not at all (temporary name, fsync, rename): the folders of `parts` (`select_folders`), or every
    current one. Returns ``{"path", "kernels", "files", "folders", "bytes", "cpu", "parts", "cache"}``;
    BundleError when the cache holds no such kernel or `path` cannot be written."""
    root = cache_root() if root is None else Path(root)
    check_bundle_target(path)
    target = os.fspath(path)
    shown = printable(repr(target))
    try:
        with written_atomically(target) as tmp, open(tmp, "wb") as fh:
            summary = write_bundle(fh, parts=parts, root=root)
    except OSError as exc:
        raise BundleError(f"cannot write bundle {shown}: {exc.strerror or exc}") from None
    summary["bytes"] = os.path.getsize(target)
    summary["path"] = target
    return summary


def write_bundle(fh, *, parts=None, root=None) -> dict:
    """Write a bundle into the binary file object `fh` (see `export_bundle`)."""
    root = cache_root() if root is None else Path(root)
    host = host_cpu()
    env = environment()
    files: dict[str, dict] = {}
    folders: dict[str, dict] = {}
    kernels = 0
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for folder in select_folders(root, parts):
            modules = sorted(folder_modules(folder) or ())
            stamp = _folder_stamp(folder.name)
            wrote = 0
            for index in sorted(folder.rglob("*" + _INDEX_SUFFIX)):
                rel_dir = index.parent.relative_to(folder).as_posix()
                raw = index.read_bytes()  # once: numba may save a new entry meanwhile
                overloads = _read_cached_index(index, stamp, raw)
                mine = {}
                for key, name in overloads.items():
                    data = index.parent / name
                    if _is_key(key) and tuple(key[1]) == host and isinstance(name, str) and data.is_file():
                        mine[key] = name
                if not mine:
                    continue
                for name in sorted(set(mine.values())):
                    rel = f"{folder.name}/{rel_dir}/{name}"
                    files[rel] = _add_file(zf, rel, (index.parent / name).read_bytes())
                data = index_bytes(stamp, mine) if len(mine) != len(overloads) else raw
                rel = f"{folder.name}/{rel_dir}/{index.name}"
                files[rel] = _add_file(zf, rel, data)
                kernels += len(mine)
                wrote += 1
            if wrote:
                rel = f"{folder.name}/{MANIFEST}"
                files[rel] = _add_file(zf, rel, "".join(f"{m}\n" for m in modules).encode())
                folders[folder.name] = {"modules": {m: module_digest(m) for m in modules}}
        if not kernels:
            what = "the parts asked" if parts else "any part"
            raise BundleError(f"the cache in {printable(repr(str(root)))} holds no compiled kernels of {what} for "
                              f"this CPU ({host[1]}): run fastsnake warm first")
        manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, **{k: env[k] for k in env},
                    "cpu": {"triple": host[0], "name": host[1], "features": host[2]},
                    "parts": None if parts is None else list(parts), "created": _now(), "folders": folders,
                    "files": files}
        zf.writestr(MANIFEST_MEMBER, json.dumps(manifest, indent=1, sort_keys=True))
    return {"kernels": kernels, "files": len(files), "folders": len(folders), "cpu": host[1],
            "parts": manifest["parts"], "cache": str(root)}


def _is_key(key) -> bool:
    """A numba index key: (signature, magic tuple of three strings, code hashes)."""
    return (isinstance(key, tuple) and len(key) == 3 and isinstance(key[1], tuple) and len(key[1]) == 3
            and all(isinstance(x, str) for x in key[1]))


def _add_file(zf: zipfile.ZipFile, rel: str, data: bytes) -> dict:
    zf.writestr(KERNEL_PREFIX + rel, data)
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# --- import -----------------------------------------------------------------------------------------


class _Bundle:
    """An open bundle: its zip directory and manifest, nothing else read yet."""

    def __init__(self, source):
        if isinstance(source, (bytes, bytearray, memoryview)):
            self.label = "shipped by the client"
            self.fh = io.BytesIO(bytes(source))
        else:
            self.label = printable(repr(os.fspath(source)))
            try:
                self.fh = open_regular(os.fspath(source))
            except FileNotFoundError:
                raise BundleError(f"bundle {self.label} does not exist") from None
            except NotRegularFile as exc:
                raise BundleError(f"bundle {self.label} {exc.reason}") from None
            except IsADirectoryError:
                raise BundleError(f"bundle {self.label} is a folder, not a file") from None
            except OSError as exc:
                raise BundleError(f"cannot read bundle {self.label}: {exc.strerror or exc}") from None
        try:
            self.zip = zipfile.ZipFile(self.fh)
        except Exception as exc:  # noqa: BLE001 - any failure to read the directory is one line
            self.fh.close()
            raise self.damaged(f"not a whole zip file ({_reason(exc)})") from None

    def close(self) -> None:
        self.zip.close()
        self.fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def damaged(self, why: str) -> BundleError:
        return BundleError(f"bundle {self.label} is damaged or no kernel bundle: {why}")

    def read_member(self, info: zipfile.ZipInfo, size: int, sha256: str | None = None) -> bytes:
        """A member's bytes, read in pieces, refused when it holds other than `size` bytes or, with
        `sha256`, other bytes than the manifest's."""
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise self.damaged(f"member {info.filename!r} uses a compression bundles never use")
        if info.file_size != size:
            raise self.damaged(f"member {info.filename!r} declares {info.file_size} bytes, its manifest {size}")
        digest, pieces, got = hashlib.sha256(), [], 0
        try:
            with self.zip.open(info) as stream:
                while True:
                    piece = stream.read(min(_PIECE, size - got + 1))
                    if not piece:
                        break
                    got += len(piece)
                    if got > size:
                        raise self.damaged(f"member {info.filename!r} holds more than its {size} bytes")
                    digest.update(piece)
                    pieces.append(piece)
        except BundleError:
            raise
        except Exception as exc:  # noqa: BLE001 - a bad CRC, a cut deflate stream, a bad header
            raise self.damaged(f"member {info.filename!r} cannot be read ({_reason(exc)})") from None
        if got != size:
            raise self.damaged(f"member {info.filename!r} is cut short")
        if sha256 is not None and digest.hexdigest() != sha256:
            raise self.damaged(f"member {info.filename!r} does not match its checksum (altered)")
        return b"".join(pieces)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def read_manifest(source) -> dict:
    """The manifest of bundle `source` (a path or the bundle's bytes), checked for shape only."""
    with _Bundle(source) as bundle:
        return _manifest(bundle)


def _manifest(bundle: _Bundle) -> dict:
    try:
        info = bundle.zip.getinfo(MANIFEST_MEMBER)
    except KeyError:
        raise bundle.damaged(f"it has no {MANIFEST_MEMBER}") from None
    if info.file_size > MAX_MANIFEST_BYTES:
        raise bundle.damaged(f"its manifest declares {info.file_size} bytes")
    try:
        manifest = json.loads(bundle.read_member(info, info.file_size).decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise bundle.damaged(f"its manifest is no JSON ({_reason(exc)})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise bundle.damaged("its manifest is not a fastsnake kernel bundle's")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BundleError(f"bundle {bundle.label} is of bundle format {manifest.get('format_version')!r}; this "
                          f"fastsnake reads format {FORMAT_VERSION}")
    problems = []
    for key in (*_CHECKED, "numpy"):
        if not isinstance(manifest.get(key), str):
            problems.append(key)
    cpu = manifest.get("cpu")
    if not (isinstance(cpu, dict) and all(isinstance(cpu.get(k), str) for k in ("triple", "name", "features"))):
        problems.append("cpu")
    files, folders = manifest.get("files"), manifest.get("folders")
    if not (isinstance(files, dict) and all(
            isinstance(v, dict) and isinstance(v.get("sha256"), str) and re.fullmatch(r"[0-9a-f]{64}", v["sha256"])
            and isinstance(v.get("size"), int) and not isinstance(v.get("size"), bool)
            and 0 <= v["size"] <= MAX_MEMBER_BYTES for v in files.values())):
        problems.append("files")
    if not (isinstance(folders, dict) and all(
            isinstance(v, dict) and isinstance(v.get("modules"), dict)
            and all(isinstance(m, str) and isinstance(d, str) for m, d in v["modules"].items())
            for v in folders.values())):
        problems.append("folders")
    parts = manifest.get("parts")
    if not (parts is None or (isinstance(parts, list) and all(isinstance(p, str) for p in parts))):
        problems.append("parts")
    if problems:
        raise bundle.damaged(f"its manifest's {', '.join(problems)} field(s) are malformed")
    return manifest


def import_bundle(source, *, root=None, mark_parts: bool = True) -> dict:
    """Check bundle `source` (a path, or its bytes) whole, then install its kernels into the cache at
    `root` (default: this process's), each file whole; BundleError, with nothing written, for a bundle of
    another fastsnake, Python, numba or llvmlite, of a CPU this one cannot run, of other sources than
    this install's, or damaged (see the module's docstring). Returns ``{"kernels", "present", "files",
    "folders", "cpu", "bundle_cpu", "retargeted", "parts", "cache"}``: kernels installed, kernels the
    cache held already, data and index files written."""
    root = cache_root() if root is None else Path(root)
    with _Bundle(source) as bundle:
        manifest = _manifest(bundle)
        _check_environment(bundle, manifest)
        host = host_cpu()
        bundle_cpu = (manifest["cpu"]["triple"], manifest["cpu"]["name"], manifest["cpu"]["features"])
        problem = cpu_problem(bundle_cpu, host)
        if problem is not None:
            raise BundleError(f"bundle {bundle.label} holds kernels {problem}")
        indexes = _check_members(bundle, manifest, bundle_cpu)
        _check_sources(bundle, manifest)
        result = _install(bundle, manifest, indexes, host, bundle_cpu, root)
    parts = manifest["parts"]
    if mark_parts and parts:
        _mark(parts)
    result.update(cpu=host[1], bundle_cpu=bundle_cpu[1], retargeted=bundle_cpu != host, parts=parts,
                  cache=str(root))
    return result


def _check_environment(bundle: _Bundle, manifest: dict) -> None:
    here = environment()
    for key in _CHECKED:
        if manifest[key] != here[key]:
            made = "holds kernels of" if key in ("fastsnake", "python") else "was compiled by"
            raise BundleError(f"bundle {bundle.label} {made} {_WORDS[key]} {printable(manifest[key], 40)}; this is "
                              f"{_WORDS[key]} {here[key]}: export it again with the same versions")


def _check_members(bundle: _Bundle, manifest: dict, bundle_cpu) -> dict:
    """Every member listed, of its size and checksum, named as a bundle names files, each index parsed
    and naming only its folder's stamp, the bundle's CPU and data files it holds. Returns
    ``{index rel path: (folder, dir, overloads)}``."""
    files, folders = manifest["files"], manifest["folders"]
    infos = {}
    for info in bundle.zip.infolist():
        name = info.filename
        if name == MANIFEST_MEMBER:
            continue
        rel = name[len(KERNEL_PREFIX):] if name.startswith(KERNEL_PREFIX) else None
        if rel is None or rel not in files:
            raise bundle.damaged(f"member {printable(repr(name), 120)} is not in its manifest")
        if rel in infos:
            raise bundle.damaged(f"member {printable(repr(name), 120)} appears twice")
        infos[rel] = info
    missing = sorted(set(files) - set(infos))
    if missing:
        raise bundle.damaged(f"member {KERNEL_PREFIX + missing[0]!r} of its manifest is missing"
                             + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    if sum(f["size"] for f in files.values()) > MAX_TOTAL_BYTES:
        raise bundle.damaged("its members add up to more than a bundle holds")
    indexes = {}
    for rel in sorted(files):
        match = _MEMBER.match(rel)
        if match is None:
            raise bundle.damaged(f"member {printable(repr(KERNEL_PREFIX + rel), 120)} is not a kernel file")
        if match["folder"] not in folders:
            raise bundle.damaged(f"folder {match['folder']!r} is not in its manifest")
        data = bundle.read_member(infos[rel], files[rel]["size"], files[rel]["sha256"])
        if match["kind"] == "nbi":
            indexes[rel] = (match["folder"], match["dir"], _bundle_index(bundle, rel, data, match, files, bundle_cpu))
        elif match["kind"] is None:  # the folder's manifest of sources
            listed = data.decode("utf-8", "replace").split()
            if sorted(listed) != sorted(folders[match["folder"]]["modules"]):
                raise bundle.damaged(f"{rel!r} names other sources than the manifest")
    for folder in folders:
        if not any(v[0] == folder for v in indexes.values()):
            raise bundle.damaged(f"folder {folder!r} holds no kernel")
    return indexes


def _bundle_index(bundle: _Bundle, rel: str, data: bytes, match, files: dict, bundle_cpu) -> dict:
    import numba

    try:
        version, stamp, overloads = parse_index(data)
    except Exception as exc:  # noqa: BLE001 - whatever unpickling an altered index raises
        raise bundle.damaged(f"index {rel!r} cannot be read ({_reason(exc)})") from None
    if version != numba.__version__:
        raise bundle.damaged(f"index {rel!r} was written by numba {printable(str(version), 40)}")
    if stamp != _folder_stamp(match["folder"]):
        raise bundle.damaged(f"index {rel!r} is stamped for other sources than its folder's")
    if not isinstance(overloads, dict) or not overloads:
        raise bundle.damaged(f"index {rel!r} holds no kernel")
    base = rel.rsplit("/", 1)[0]
    for key, name in overloads.items():
        if not _is_key(key) or tuple(key[1]) != tuple(bundle_cpu):
            raise bundle.damaged(f"index {rel!r} holds a kernel for another CPU than its manifest's")
        if not (isinstance(name, str) and name.endswith(".nbc") and f"{base}/{name}" in files):
            raise bundle.damaged(f"index {rel!r} names a data file the bundle does not hold")
    return overloads


def _check_sources(bundle: _Bundle, manifest: dict) -> None:
    """Every source module a folder's hash covers has this install's code; the folder's name is its hash."""
    differ, absent = set(), set()
    for folder, entry in manifest["folders"].items():
        modules = entry["modules"]
        for name, digest in modules.items():
            path = module_path(name)
            if path is None:
                absent.add(name)
            elif module_digest(name) != digest:
                differ.add(path.relative_to(_SITE).as_posix())
        if not (differ or absent) and not folder.endswith("-" + sources_hash(frozenset(modules))):
            raise bundle.damaged(f"folder {folder!r} is not named by the hash of its sources")
    if differ:
        first, *more = sorted(differ)
        raise BundleError(f"bundle {bundle.label} was compiled from another {first} than this install's"
                          + (f" (and {len(more)} more source(s))" if more else "")
                          + ": export it from the same sources")
    if absent:
        first, *more = sorted(absent)
        raise BundleError(f"bundle {bundle.label} was compiled from module {printable(first, 80)}, which this "
                          f"install does not have" + (f" (and {len(more)} more)" if more else ""))


def _install(bundle: _Bundle, manifest: dict, indexes: dict, host, bundle_cpu, root: Path) -> dict:
    """Install each index's kernels not in the cache yet: data files first, then the merged index."""
    files = manifest["files"]
    installed = present = written = 0
    touched = set()
    for rel, (folder, rel_dir, overloads) in sorted(indexes.items()):
        target_dir = root / folder / rel_dir
        index_path = root / folder / rel_dir / rel.rsplit("/", 1)[1]
        stamp = _folder_stamp(folder)
        cached = _read_cached_index(index_path, stamp)
        merged = dict(cached)
        used = set(cached.values())
        base = index_path.name[: -len(_INDEX_SUFFIX)]
        added = 0
        for key, name in overloads.items():
            new_key = (key[0], tuple(host), key[2]) if tuple(bundle_cpu) != tuple(host) else key
            if new_key in cached:
                present += 1
                continue
            data_rel = f"{folder}/{rel_dir}/{name}"
            data = bundle.read_member(bundle.zip.getinfo(KERNEL_PREFIX + data_rel), files[data_rel]["size"],
                                      files[data_rel]["sha256"])
            target_dir.mkdir(parents=True, exist_ok=True)
            chosen = _free_data_name(target_dir, base, used)
            _write_whole(target_dir / chosen, data)
            used.add(chosen)
            merged[new_key] = chosen
            added += 1
            written += 1
        if added:
            sources = root / folder / MANIFEST
            if not sources.exists():
                modules = sorted(manifest["folders"][folder]["modules"])
                _write_whole(sources, "".join(f"{m}\n" for m in modules).encode())
            _write_whole(index_path, index_bytes(stamp, merged))
            written += 1
            installed += added
            touched.add(folder)
    return {"kernels": installed, "present": present, "files": written, "folders": len(touched)}


def _free_data_name(folder: Path, base: str, used: set) -> str:
    """numba's name for a kernel's next data file (``<base>.<n>.nbc``) that neither the index nor the folder uses."""
    n = 1
    while f"{base}.{n}.nbc" in used or (folder / f"{base}.{n}.nbc").exists():
        n += 1
    return f"{base}.{n}.nbc"


def _write_whole(path: Path, data: bytes) -> None:
    with written_atomically(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


def _mark(parts) -> None:
    """Mark the bundle's parts as warm (`fastsnake warm` then skips them): their kernels are in the cache."""
    from fastsnake.warm import parts as P

    try:
        known = [p for p in parts if p.startswith(P.POLICY_PREFIX) or p in P.OTHER_PARTS]
        P.mark(known)
    except Exception:  # noqa: BLE001 - a mark saves a process start later; never fail an import for it
        pass
