"""Where numba keeps our compiled kernels: a folder keyed by a hash of the code a kernel can reach.

numba invalidates a cached kernel only when *its own* file changes, but our kernels inline code
from other modules (every policy inlines the engine), so an edit to the engine would leave stale
machine code behind. We register a cache locator that files each kernel under
``<root>/<module>-<hash>/<file stem>/``, where ``<module>`` names the module that defines it and
the hash (BLAKE2b) covers the paths and the *code* of exactly the modules its code can reach (each
module's syntax tree without its docstrings and positions, `code_digest`: a comment or a docstring
edited, or lines moved, change no key, and recompile nothing):

- **Import reach.** The defining module and, transitively, every ``fastsnake`` module it imports
  (`import_reach`: each module's ``import`` and ``from ... import`` statements read with `ast`,
  those inside functions too; relative imports resolved; ``from pkg import name`` is sub-module
  ``pkg.name`` if there is one, else the package's ``__init__``, which defines it). A parent package's
  ``__init__`` is not followed unless a module imports from it: a kernel uses only what its
  modules name. Numba, numpy and the standard library are not hashed (numba keeps its own version
  in each index; see docs/design.md "What invalidates it").
- **Functions that reach a kernel other than by an import.** A kernel's globals may hold
  functions of modules it does not import: `kernels.specialise` makes each policy's kernels as
  copies of one template in ``policies/kernels.py`` whose globals are that policy's parts (so
  ``kernels.py`` alone reaches none of ``phc.py``). The key therefore also covers the import reach
  of the module of every ``fastsnake`` function (or numba dispatcher) that the kernel's code names
  among its globals or closure cells when it is defined (`kernel_modules`), and of the modules
  `EXTRA_DEPENDS` declares for its defining module (the one place for any other such route).
  A cached kernel never takes a function as an *argument* from Python (the index would key on it
  without our hash): the users' generic kernels (`policies.user`) are uncached for that reason and
  their cached ones are generated modules with the functions as globals (`policies.user_cache`).

numba's own index checks a stamp of the kernel's source file (its mtime and size) and a file name
with the kernel's line number; our locator stamps the folder's code hash instead and names a kernel by
its code (`code_shape`), so those follow the code too.

So a code edit to ``policies/phc.py`` recompiles phc's kernels (and those of any module importing it)
but a ``cycle`` sweep loads from the cache, while an edit to ``snake/engine.py`` recompiles every
policy and the envs. Each folder holds `MANIFEST`, the modules its hash covers, so that
`folder_is_current` tells a stale folder (an edit, an upgrade, another checkout) from a current one
without importing anything. `part_fingerprint` (a hash of a whole sub-package, coarser) is not a
cache key: it stamps sweep folders with the Snake code that wrote them and keys `fastsnake warm`'s marks.

The root is NUMBA_CACHE_DIR when set, else ``~/.cache/fastsnake/numba``.

**The optimisation level.** numba's own index keys a kernel by its signature, bytecode and target
CPU, not by LLVM's optimisation level (``NUMBA_OPT``), so a kernel compiled at a lower level (the
test suite compiles at 1: tests/conftest.py) would load into a run at the default level. Kernels
compiled at a level other than numba's default (3) are filed one folder further down,
``.../<file stem>/opt<level>/`` (`opt_level_folder`), by every locator built on `locator_base`: the
default level's paths are unchanged, and pruning a folder prunes every level's kernels in it.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import sys
import threading
from functools import lru_cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_PACKAGE = "fastsnake"
# Sub-packages whose sources `part_fingerprint` adds to every part's (the shared search helpers),
# and parts whose fingerprint adds another part's (the envs step the Snake engine).
_SHARED_PARTS = ("search",)
_PART_DEPENDS = {"envs": ("snake",)}
# Modules (dotted, under fastsnake) whose kernels depend on modules they neither import nor hold
# as functions in their globals: declare them here, the one place (none today; see the docstring).
EXTRA_DEPENDS: dict[str, tuple[str, ...]] = {}
# The file in each fingerprint folder naming the modules its hash covers, one a line.
MANIFEST = "sources.txt"
FINGERPRINT_FOLDER = re.compile(r"^(?P<label>[a-z_][a-z0-9_.]*)-[0-9a-f]{16}$")


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fastsnake" / "numba"


def cache_root() -> Path:
    return Path(os.environ.get("NUMBA_CACHE_DIR") or default_cache_root()).resolve()


@lru_cache(maxsize=None)
def part_fingerprint(part: str) -> str:
    """``<part>-<hash>`` of every source of a sub-package (`part`; '' the top-level modules) with the
    top-level modules, `_SHARED_PARTS` and `_PART_DEPENDS`: the code stamp of sweep folders and the
    key of warm marks, coarser than a kernel's cache key (`kernel_modules`)."""
    digest = hashlib.blake2b(digest_size=8)
    files = list(_PACKAGE_DIR.glob("*.py"))
    for name in {part, *_SHARED_PARTS, *_PART_DEPENDS.get(part, ())} - {""}:
        files.extend((_PACKAGE_DIR / name).rglob("*.py"))
    for path in sorted(set(files)):
        digest.update(str(path.relative_to(_PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return f"{part or 'top'}-{digest.hexdigest()}"


# --- a kernel's cache key: the modules it can reach ----------------------------------------------


def module_of(py_file: Path) -> str | None:
    """The dotted name of a source file of the package (``fastsnake.snake.engine``), else None."""
    try:
        rel = Path(py_file).resolve().relative_to(_PACKAGE_DIR)
    except ValueError:
        return None
    parts = [_PACKAGE, *rel.with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_path(name: str) -> Path | None:
    """The source file of module `name` under the package (a package's ``__init__.py``), else None."""
    parts = name.split(".")
    if parts[0] != _PACKAGE or not all(p.isidentifier() for p in parts):
        return None
    base = _PACKAGE_DIR.joinpath(*parts[1:])
    if len(parts) > 1 and base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return base / "__init__.py" if (base / "__init__.py").is_file() else None


@lru_cache(maxsize=None)
def imports_of(name: str) -> frozenset[str]:
    """The package's modules that module `name` imports, anywhere in its source (functions too)."""
    path = module_path(name)
    if path is None:
        return frozenset()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for level, module, names in import_statements(path.read_bytes(), str(path)):
        if level is None:  # import a, b.c
            found.update(names)
            continue
        if level:
            anchor = package.split(".")[: len(package.split(".")) - level + 1]
            base = ".".join(anchor + ([module] if module else []))
        else:
            base = module or ""
        subs = {f"{base}.{alias}" for alias in names} - {f"{base}.*"}
        found.update(n for n in subs if module_path(n) is not None)  # sub-modules imported by name
        if len(subs) != len(names) or any(module_path(n) is None for n in subs):
            found.add(base)  # a name the package's __init__ defines
    return frozenset(n for n in found if module_path(n) is not None)


# The import statements of each source, by a hash of its bytes, kept at the cache root: reading them
# with `ast` is about 5 ms a module, and a command defines kernels reaching ~20 modules before its
# first kernel runs (``python bench/bench_startup.py``: part of a warm sweep's whole-process CPU).
IMPORTS_MEMO = "import-statements.json"
MEMO_ENTRIES = 4096
_memo_lock = threading.Lock()
_memo: dict | None = None
_memo_added: dict = {}


# Keyword arguments whose values are a declaration's bookkeeping, read by people and notices, never by a
# kernel: a policy's measured compile cost (``compile_cpu_range=``) and its summary text (``summary=``,
# ``doc=``). `code_digest` leaves their values out when they are literals (numbers, strings, tuples of
# them, joined with ``+``, and the module's ``__doc__``), so measuring a policy again or rewording its
# summary recompiles nothing; a value computed from anything else stays in the key. A name added here
# must never reach a kernel's code.
BOOKKEEPING_KEYWORDS = frozenset({"compile_cpu_range", "summary", "doc"})
# The memo's prefix of `code_digest` entries; a new reading of the code (as the bookkeeping keywords
# were) takes a new one, so no process reads a digest another reading made.
_CODE_MEMO = "code2:"


def code_digest(data: bytes, filename: str = "<source>") -> str:
    """A hash of a source's code: its syntax tree without docstrings, dumped without positions (comments
    are not in the tree), and without the values of `BOOKKEEPING_KEYWORDS` in any call. Equal for two
    sources that differ only in comments, docstrings, blank lines, layout or bookkeeping values; kept in
    the memo beside the import statements (a parse is about 5 ms)."""
    key = _CODE_MEMO + hashlib.blake2b(data, digest_size=16).hexdigest()
    global _memo
    with _memo_lock:
        if _memo is None:
            _memo = _read_memo()
        hit = _memo.get(key)
    if isinstance(hit, str):
        return hit
    tree = ast.parse(data, filename=filename)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in BOOKKEEPING_KEYWORDS and _bookkeeping_literal(keyword.value):
                    keyword.value = ast.Constant(None)
    digest = hashlib.blake2b(ast.dump(tree, annotate_fields=False, include_attributes=False).encode(),
                             digest_size=16).hexdigest()
    _remember(key, digest)
    return digest


def _bookkeeping_literal(node) -> bool:
    """Whether `node` is a literal a declaration's bookkeeping may hold (see `BOOKKEEPING_KEYWORDS`)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_bookkeeping_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _bookkeeping_literal(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _bookkeeping_literal(node.left) and _bookkeeping_literal(node.right)
    return isinstance(node, ast.Name) and node.id == "__doc__"


def code_shape(py_func) -> str:
    """A hash of a function's compiled code without its line numbers or its docstring (numba files a
    kernel under its line number, which any edit above it moves): our kernels' cache file names."""
    code = py_func.__code__
    consts = code.co_consts
    if consts and py_func.__doc__ is not None and consts[0] == py_func.__doc__:
        consts = consts[1:]
    digest = hashlib.blake2b(digest_size=8)
    stack = [(code, consts)]
    while stack:
        co, values = stack.pop()
        digest.update(co.co_code)
        digest.update(repr((co.co_names, co.co_varnames, co.co_freevars, co.co_cellvars)).encode())
        for value in values:
            if hasattr(value, "co_code"):
                stack.append((value, value.co_consts))
            else:
                digest.update(repr((type(value).__name__, value)).encode())
    return digest.hexdigest()


def _remember(key: str, value) -> None:
    with _memo_lock:
        _memo[key] = _memo_added[key] = value
        if len(_memo_added) == 1:
            import atexit

            atexit.register(_write_memo)


def import_statements(data: bytes, filename: str = "<source>") -> tuple:
    """``(level, module, names)`` of each import statement of a source, anywhere in it: level None for
    ``import a, b.c`` (names the modules), else ``from <level dots><module> import <names>``."""
    global _memo
    key = hashlib.blake2b(data, digest_size=16).hexdigest()
    with _memo_lock:
        if _memo is None:
            _memo = _read_memo()
        hit = _memo.get(key)
    if hit is not None:
        return tuple((level, module, tuple(names)) for level, module, names in hit)
    found = []
    for node in ast.walk(ast.parse(data, filename=filename)):
        if isinstance(node, ast.Import):
            found.append((None, None, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module, tuple(alias.name for alias in node.names)))
    _remember(key, [list(f[:2]) + [list(f[2])] for f in found])
    return tuple(found)


def _read_memo() -> dict:
    import json

    try:
        data = json.loads((cache_root() / IMPORTS_MEMO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    ok = isinstance(data, dict) and all(
        isinstance(v, str) if k.startswith(("code:", _CODE_MEMO)) else isinstance(v, list) and all(
            isinstance(s, list) and len(s) == 3 for s in v) for k, v in data.items())
    return data if ok else {}


def _write_memo() -> None:
    """Add this process's new entries to the memo file (whole or absent: a temporary file renamed)."""
    import json

    with _memo_lock:
        if not _memo_added:
            return
        merged = {**_read_memo(), **_memo_added}
        _memo_added.clear()
    merged = dict(list(merged.items())[-MEMO_ENTRIES:])  # the newest: edits leave old hashes behind
    path = cache_root() / IMPORTS_MEMO
    tmp = path.with_name(f".{IMPORTS_MEMO}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(merged, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:  # a read-only cache: the next process reads the sources again
        tmp.unlink(missing_ok=True)


@lru_cache(maxsize=None)
def import_reach(roots: frozenset[str]) -> frozenset[str]:
    """`roots` and every module of the package they import, transitively."""
    seen, todo = set(), [r for r in roots if module_path(r) is not None]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(imports_of(name) - seen)
    return frozenset(seen)


@lru_cache(maxsize=None)
def _module_digest(name: str) -> bytes:
    path = module_path(name)
    digest = hashlib.blake2b(name.encode() + b"\0", digest_size=16)
    if path is None:
        digest.update(b"-")
    else:
        digest.update(str(path.relative_to(_PACKAGE_DIR)).encode() + b"\0")
        digest.update(code_digest(path.read_bytes(), str(path)).encode())
    return digest.digest()


def module_digest(name: str) -> str:
    """The hash (hex) of module `name`'s name, path and code that `sources_hash` combines: what a kernel
    bundle records of each source its kernels were compiled from (`fastsnake.warm.bundle`)."""
    return _module_digest(name).hex()


@lru_cache(maxsize=None)
def sources_hash(modules: frozenset[str]) -> str:
    """BLAKE2b (16 hex digits) of the names, paths and code (`code_digest`) of `modules` (a missing one
    hashes as absent)."""
    digest = hashlib.blake2b(digest_size=8)
    for name in sorted(modules):
        digest.update(_module_digest(name))
    return digest.hexdigest()


def package_modules(part: str) -> frozenset[str]:
    """Every module of sub-package `part` (``fastsnake.<part>`` and below)."""
    return frozenset(module_of(p) for p in (_PACKAGE_DIR / part).rglob("*.py"))


def _named_functions(code, values: dict) -> set[str]:
    """Modules of the package's functions and dispatchers that `code` (and code nested in it) names
    among `values` (a kernel's globals); tuples and lists of them count too."""
    found, stack = set(), [code]
    while stack:
        co = stack.pop()
        stack.extend(c for c in co.co_consts if hasattr(c, "co_names"))
        for name in co.co_names:
            found |= _function_modules(values.get(name))
    return found


def _function_modules(value, depth: int = 0) -> set[str]:
    if isinstance(value, (tuple, list)) and depth < 3:
        return set().union(*(_function_modules(v, depth + 1) for v in value)) if value else set()
    py = getattr(value, "py_func", value)
    module = getattr(py, "__module__", None) if callable(value) else None
    return {module} if isinstance(module, str) and module.startswith(_PACKAGE + ".") else set()


def kernel_modules(py_func, py_file) -> frozenset[str]:
    """The modules a kernel's cache key covers: the import reach of its defining module, of the
    modules of the package's functions its code names among its globals and closure cells, and of
    `EXTRA_DEPENDS` (see the comment above)."""
    home = module_of(Path(py_file))
    roots = {home} if home else set()
    code = py_func.__code__
    roots |= _named_functions(code, getattr(py_func, "__globals__", {}))
    for cell in py_func.__closure__ or ():
        try:
            roots |= _function_modules(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    for name in list(roots):
        roots.update(EXTRA_DEPENDS.get(name, ()))
    return import_reach(frozenset(roots))


def fingerprint_folder(label: str, modules: frozenset[str]) -> str:
    """The folder name a kernel of module `label` whose key covers `modules` is filed under."""
    return f"{label.removeprefix(_PACKAGE + '.') or 'top'}-{sources_hash(modules)}"


def write_manifest(folder: Path, modules: frozenset[str]) -> None:
    """Name the modules a fingerprint folder's hash covers in it (once; a read-only cache skips it)."""
    path = folder / MANIFEST
    if path.exists():
        return
    tmp = folder / f".{MANIFEST}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text("".join(f"{m}\n" for m in sorted(modules)), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def folder_modules(folder: Path) -> frozenset[str] | None:
    """The modules a fingerprint folder's manifest names, or None without one."""
    try:
        return frozenset((folder / MANIFEST).read_text(encoding="utf-8").split())
    except (OSError, UnicodeDecodeError):
        return None


def folder_is_current(folder: Path) -> bool:
    """Whether a fingerprint folder's hash is that of the installed sources of the modules its
    manifest names (a folder without one was written by an older fastsnake: stale)."""
    match = FINGERPRINT_FOLDER.match(folder.name)
    modules = folder_modules(folder)
    return bool(match and modules) and folder.name.endswith("-" + sources_hash(modules))


def opt_level_folder() -> str | None:
    """The sub-folder for kernels compiled at numba's optimisation level now (``NUMBA_OPT``, read by
    numba's config), or None at numba's default level 3 (see the module's docstring)."""
    from numba.core import config

    opt = config.OPT
    if getattr(opt, "is_opt_max", False):
        return "optmax"
    return None if int(opt) == 3 else f"opt{int(opt)}"


@lru_cache(maxsize=None)
def locator_base():
    """The one class built on numba's private cache-locator API (`caching._CacheLocator` and
    `_SourceFileBackedLocatorMixin`; pyproject.toml caps numba at the versions tested with it):
    a locator for kernels defined in a source file, filed under the folder `cache_path(py_file)`
    of a subclass (its sub-folder `opt_level_folder()` at a non-default optimisation level), for the
    files its `serves(py_file)` accepts. Ours (below) and the generated modules' of users' policies
    and heuristics (`fastsnake.generated`) subclass it."""
    from numba.core import caching

    class CacheLocatorBase(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._py_func = py_func
            self._lineno = py_func.__code__.co_firstlineno
            path, opt = self.cache_path(Path(py_file)), opt_level_folder()
            self._cache_path = str(path / opt if opt else path)

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


@lru_cache(maxsize=None)
def fastsnake_locator():
    """The cache locator of our kernels (see the module's docstring), registered by `configure_numba_cache`."""

    class FastsnakeCacheLocator(locator_base()):
        @classmethod
        def serves(cls, py_file: Path) -> bool:
            return module_of(py_file) is not None

        def cache_path(self, py_file: Path) -> Path:
            self._modules = kernel_modules(self._py_func, py_file)
            self._folder = cache_root() / fingerprint_folder(module_of(py_file), self._modules)
            return self._folder / py_file.stem

        def ensure_cache_path(self):
            super().ensure_cache_path()
            write_manifest(self._folder, self._modules)

        def get_source_stamp(self):
            # numba's stamp is the file's mtime and size: a comment edit would make the index stale.
            # The folder's hash is that of the code the kernel can reach.
            return "code-" + sources_hash(self._modules)

        def get_disambiguator(self):
            # numba's is the line number, which an edit above the kernel moves; the code is what counts.
            return code_shape(self._py_func)

    return FastsnakeCacheLocator


def configure_numba_cache() -> None:
    from numba.core import caching

    FastsnakeCacheLocator = fastsnake_locator()
    locators = caching.CacheImpl._locator_classes
    if not any(k.__name__ == FastsnakeCacheLocator.__name__ for k in locators):
        locators.insert(0, FastsnakeCacheLocator)
    defer_blas_probe()
    from fastsnake._numba_inline import share_block_copies  # here: `import fastsnake` stays without it

    share_block_copies()


# --- start-up work numba does that our processes need not pay for ---------------------------------
# numba's ``numba.np.arraymath`` asks, as it is imported, whether BLAS is there, by importing
# ``scipy.linalg.cython_blas`` (`numba.np.linalg.ensure_blas`); numba imports ``arraymath`` the first
# time any process of ours loads or compiles a kernel. That import is about 0.3 CPU-s of a warm
# 1,000-game sweep's whole-process 1.1 (``python bench/bench_startup.py``, ``-X importtime``:
# ``scipy.linalg`` under ``numba.np.arraymath``), paid by every command that runs a kernel, though no
# kernel of ours does linear algebra.
#
# The answer is known before asking: scipy is one of our dependencies (pyproject.toml), so the probe
# would say yes. `defer_blas_probe` imports ``arraymath`` with the probe answered yes and then puts
# numba's real ``ensure_blas`` back, so a kernel that does use BLAS (a user's ``np.dot``) imports and
# checks scipy when it is compiled, exactly as before. Without scipy installed, nothing is changed.


def defer_blas_probe() -> bool:
    """Import numba's ``arraymath`` without its eager scipy import (see the comment above);
    True when the probe was deferred, False when ``arraymath`` was already imported or scipy is absent."""
    if "numba.np.arraymath" in sys.modules:
        return False
    from importlib.util import find_spec

    if find_spec("scipy") is None:
        return False
    import numba  # noqa: F401  (numba's own import order first)
    from numba.np import linalg

    real = linalg.ensure_blas
    linalg.ensure_blas = _blas_is_there
    try:
        from numba.np import arraymath
    finally:
        linalg.ensure_blas = real
    arraymath.ensure_blas = real  # arraymath bound the name as it was imported
    return True


def _blas_is_there() -> None:
    """numba's ``ensure_blas`` for the one probe at ``arraymath``'s import: scipy is installed."""


# Modules that define no kernel and never import numba: importing them leaves numba unloaded, so
# the `fastsnake` command's launcher (`fastsnake.__main__`) sets up its signal handling before
# numba's import (most of a start-up: a signal then used to print a KeyboardInterrupt traceback).
NUMBA_FREE_MODULES = frozenset(
    {"fastsnake.__main__", "fastsnake.signals", "fastsnake.errors", "fastsnake._numba_cache",
     "fastsnake.files", "fastsnake.sizes", "fastsnake.renamed", "fastsnake.published"}
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
