"""The tour-method registry: every way `find_tour` answers, ours and users', is found here by name.

Three ways in, one registry (as for Snake policies and puzzle heuristics):

- our methods: one module a method in this package (``search.py``, ``construct.py``), each declaring
  it in one statement, ``METHOD = TourMethod("name", summary=..., seeded=..., pieces=..., tours=...,
  boards=..., applies="applies", run="run")``: literal values only, its functions named by their
  attribute names, so `declared_methods` reads it from the source with `ast` without importing the
  module (listing the names imports neither numpy nor numba); the module is imported when its method
  is first used. A module added to this folder is found with no other edit and no install step;
- the entry-point group ``fastsnake.tour_methods`` (``name = "package.module:OBJECT"``, a `TourMethod`
  whose functions are given as functions), for other packages' methods: discovered once, loaded on
  first use. A name a built-in holds stays the built-in's: the entry point is ignored with one warning;
- `register_tour_method`, for a method defined in a running process.

A method's entry function ``run(task) -> Outcome`` answers one `TourTask` (the piece, board, start,
open or closed, seed, deadline and node limit); `find_tour` validates the input, checks where the
method applies (`applies_to`) and times it. ``auto`` is not a method: `find_tour` picks ``construct``
where it applies and the tour is closed or the board big, else ``search``.
"""

from __future__ import annotations

import ast
import os
import re
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from fastsnake import plugins
from fastsnake.tour.pieces import TourInputError

ENTRY_POINT_GROUP = "fastsnake.tour_methods"
OWN_DISTRIBUTION = "fastsnake"
# The name `find_tour` takes besides the registered ones: construction where it applies, else search.
AUTO = "auto"
PIECES = ("any", "knight")  # a method's `pieces`: every leaper, or the knight only
TOURS = ("both", "open", "closed")  # a method's `tours`

_lock = threading.RLock()
_loaded: dict[str, "TourMethod"] = {}  # name -> its declaration with its functions, once loaded
_registered: dict[str, "TourMethod"] = {}  # `register_tour_method`
_declared: dict[str, tuple[str, dict]] | None = None  # name -> (module, literal fields), read once
_entry_points: dict | None = None
_warned: set[str] = set()


class TourMethodError(TourInputError):
    """A bad tour-method declaration, or a name no method holds."""


class MethodInapplicable(TourInputError):
    """The method asked for does not apply to this piece, board or kind of tour (a study's ``inapplicable``)."""


@dataclass(frozen=True)
class TourMethod:
    """One tour method: its name, where it applies and its entry function.

    name: the ``--method`` / ``method=`` name. summary: one line, the idea and its source (the docs'
    table, ``fastsnake tour --help``). seeded: it takes a tie-break seed (a study runs it once per
    seed, labelled ``NAME seed=S``). pieces: ``"any"`` or ``"knight"``; tours: ``"both"``, ``"open"``
    or ``"closed"``; boards: where it applies, in words; applies: ``(piece, rows, cols, closed) ->
    bool``, the exact rule beyond `pieces` and `tours` (None: everywhere they allow). run:
    ``(TourTask) -> Outcome``. warm: ``() -> float | None`` loads its kernels before the clock starts (the
    seconds it returns, or those it took, are ``compile_seconds``). searches: its answers count search
    nodes (a baseline compares them).
    Our modules name their functions by attribute (``run="run"``); the registry binds them.
    """

    name: str
    summary: str = ""
    seeded: bool = False
    pieces: str = "any"
    tours: str = "both"
    boards: str = "any board"
    applies: Callable | str | None = None
    run: Callable | str = "run"
    warm: Callable | str | None = None
    searches: bool = False
    module: str | None = None  # the module that declared it (set by the registry)
    origin: str = OWN_DISTRIBUTION

    def bound(self, module) -> "TourMethod":
        """This declaration with its functions named by attribute taken from `module`."""
        values = {}
        for name in ("applies", "run", "warm"):
            value = getattr(self, name)
            if isinstance(value, str):
                if not callable(getattr(module, value, None)):
                    raise TourMethodError(f"tour method {self.name!r}: {name}={value!r} names no function of "
                                          f"{module.__name__}")
                values[name] = getattr(module, value)
        return replace(self, module=module.__name__, **values)


@dataclass
class TourTask:
    """What a method answers: a tour of `piece` on `rows` x `cols` from cell `start`, open or closed;
    `seed` the tie-break seed, `deadline` a `time.perf_counter()` value or None, `max_nodes` or None
    (`time_limit` is the limit the deadline came from, for messages)."""

    piece: Any
    rows: int
    cols: int
    start: int
    closed: bool
    seed: int = 0
    deadline: float | None = None
    max_nodes: int | None = None
    time_limit: float | None = None

    @property
    def cells(self) -> int:
        return self.rows * self.cols


@dataclass
class Outcome:
    """A method's answer: found, exists (True, False: proven impossible, None: a limit stopped it),
    path (cell indices) or None, reason (one line), how (the JSON's ``method``: the method's name or
    what answered, e.g. ``check``, ``exhaustive``), nodes and attempts; `limit` (``"time"`` or
    ``"nodes"``) and `limit_value` when a limit stopped it."""

    found: bool
    exists: bool | None
    path: Any
    reason: str
    how: str
    nodes: int = 0
    attempts: int = 0
    limit: str | None = None
    limit_value: float | None = None
    extra: dict = field(default_factory=dict)


def check_declaration(method: TourMethod, where: str) -> None:
    """TourMethodError, one line naming `where`, for a declaration whose fields are out of their sets."""
    name = method.name
    if not (isinstance(name, str) and name and name != AUTO and re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", name)):
        raise TourMethodError(f"{where}: tour method name {name!r} must be a lower-case word (letters, digits, "
                              f"'-', '_', '.'), not {AUTO!r}")
    if method.pieces not in PIECES or method.tours not in TOURS or not isinstance(method.seeded, bool):
        raise TourMethodError(f"{where}: tour method {name!r}: pieces must be one of {PIECES}, tours one of "
                              f"{TOURS}, seeded True or False")


# --------------------------------------------------------------- our modules' declarations

DECLARATION = "METHOD"
_DECLARED = re.compile(rf"^{DECLARATION}\s*=", re.M)
_DECLARATION_LINES = 64
_FIELDS = {f for f in TourMethod.__dataclass_fields__ if f not in ("module", "origin")}


def declared_methods(folder: str | None = None, package: str = __name__) -> list[tuple[str, str, dict]]:
    """``(name, module, fields)`` of each method the ``METHOD = TourMethod(...)`` statements of the modules
    in `folder` (default: this package's) declare, read from the source without importing anything.

    Raises TourMethodError, one line naming the module, for a declaration that is not one call of
    `TourMethod` with literal arguments (functions named by their attribute names)."""
    found = []
    folder = folder or os.path.dirname(__file__)
    for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
        stem = entry.name[:-3]
        if entry.name.endswith(".py") and stem.isidentifier() and not stem.startswith("_"):
            declared = _declared_in(entry.path, f"{package}.{stem}")
            if declared is not None:
                found.append(declared)
    return found


def _declared_in(path: str, module: str):
    found = plugins.find_declaration(path, _DECLARED, DECLARATION, f"tour method module {module}", TourMethodError,
                                     _DECLARATION_LINES)
    if found is None:
        return None
    statement, where = found
    call = getattr(statement, "value", None)
    fields = None
    if (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "TourMethod" and len(call.args) <= 1
            and all(k.arg in _FIELDS for k in call.keywords)):
        try:
            fields = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            if call.args:
                fields["name"] = ast.literal_eval(call.args[0])
        except (ValueError, TypeError, SyntaxError, RecursionError):
            fields = None
    if fields is None or not isinstance(fields.get("name"), str):
        raise TourMethodError(f"{where}: {DECLARATION} must be one call TourMethod(\"name\", field=literal, ...) "
                              f"with the functions named by attribute, e.g. run=\"run\"")
    check_declaration(TourMethod(**fields), where)
    return fields["name"], module, fields


def _declarations() -> dict[str, tuple[str, dict]]:
    global _declared
    with _lock:
        if _declared is None:
            table: dict = {}
            for name, module, fields in declared_methods():
                if name in table:
                    raise TourMethodError(f"tour method {name!r} is declared twice: {table[name][0]}, {module}")
                table[name] = (module, fields)
            _declared = table
        return _declared


# --------------------------------------------------------------- other packages' entry points

def _warn_once(message: str) -> None:
    plugins.warn_once(message, _warned, _lock)


def _discover() -> dict:
    """Other packages' entry points of `ENTRY_POINT_GROUP` (first one of a name wins); a built-in's name
    stays the built-in's, with one warning naming both."""
    global _entry_points
    with _lock:
        if _entry_points is None:
            _entry_points = plugins.discover(
                ENTRY_POINT_GROUP, own=OWN_DISTRIBUTION, builtins=_declarations(),
                on_builtin=lambda ep: _warn_once(
                    f"tour method {ep.name!r} of package {plugins.dist_name(ep)!r} ({ep.value}) is ignored: "
                    f"fastsnake's built-in method {ep.name!r} keeps that name"))
        return _entry_points


def rediscover() -> None:
    """Forget the discovered entry points (and the methods loaded from them), e.g. after an install."""
    global _entry_points
    with _lock:
        for name in list(_entry_points or ()):
            method = _loaded.get(name)
            if method is not None and method.origin != OWN_DISTRIBUTION:
                del _loaded[name]
        _entry_points = None


# --------------------------------------------------------------- the registry's face

def method_names() -> list[str]:
    """Every method name, without loading any: ours (in file order), registered ones, then entry points'."""
    with _lock:
        names = list(_declarations())
        names += [n for n in _registered if n not in names]
        return names + [n for n in _discover() if n not in names]


def builtin_names() -> list[str]:
    """Our methods' names (this package's modules), without loading any."""
    return list(_declarations())


def declared_fields(name: str) -> dict:
    """A built-in method's declared fields (no import): name, summary, seeded, pieces, tours, boards, ..."""
    module, fields = _declarations()[name]
    return {**{f: TourMethod.__dataclass_fields__[f].default for f in _FIELDS}, **fields, "module": module}


def register_tour_method(method: TourMethod, *, replace_existing: bool = False) -> TourMethod:
    """Register `method` (a `TourMethod` whose `run`, `applies`, `warm` are functions) in this process;
    `find_tour`, ``fastsnake tour --method`` and ``tour compare`` then take its name."""
    if not isinstance(method, TourMethod):
        raise TourMethodError(f"{method!r} is not a fastsnake.tour.methods.TourMethod")
    check_declaration(method, "register_tour_method")
    if not callable(method.run) or isinstance(method.run, str):
        raise TourMethodError(f"tour method {method.name!r}: run must be a function run(task) -> Outcome")
    with _lock:
        if not replace_existing and (method.name in _declarations() or method.name in _registered
                                     or method.name in _discover()):
            raise TourMethodError(f"tour method name {method.name!r} is taken; choose another or pass "
                                  "replace_existing=True")
        origin = method.origin if method.origin != OWN_DISTRIBUTION else "function"
        _registered[method.name] = _loaded[method.name] = replace(method, origin=origin)
    return _loaded[method.name]


def unregister_tour_method(name: str) -> None:
    """Forget a method registered in this process (built-in and installed ones stay)."""
    with _lock:
        if _registered.pop(name, None) is not None:
            _loaded.pop(name, None)


def get_method(name: str) -> TourMethod:
    """The method registered as `name`, its functions loaded (a built-in's module imported on first use)."""
    with _lock:
        if name in _loaded:
            return _loaded[name]
        if isinstance(name, str) and name in _declarations():
            import importlib

            module_name, _ = _declarations()[name]
            module = importlib.import_module(module_name)
            method = getattr(module, DECLARATION, None)
            if not isinstance(method, TourMethod) or method.name != name:
                raise TourMethodError(f"tour method {name!r}: {module_name}.{DECLARATION} is not its TourMethod")
            _loaded[name] = method.bound(module)
            return _loaded[name]
        ep = _discover().get(name) if isinstance(name, str) else None
        if ep is None:
            raise TourMethodError(f"method {name!r} is not one of {', '.join([AUTO, *method_names()])}")
        try:
            obj = ep.load()
        except Exception as exc:  # an outside package: any failure to import is its own
            raise TourMethodError(f"tour method {name!r}: entry point {ep.value!r} failed to import: "
                                  f"{type(exc).__name__}: {exc}".splitlines()[0]) from None
        if not isinstance(obj, TourMethod) or not callable(obj.run) or isinstance(obj.run, str):
            raise TourMethodError(f"tour method {name!r}: entry point {ep.value!r} is not a TourMethod with a "
                                  "run function")
        check_declaration(obj, f"entry point {ep.value}")
        _loaded[name] = replace(obj, name=name, origin=plugins.dist_name(ep), module=ep.value.partition(":")[0])
        return _loaded[name]


def applies_to(method: TourMethod, piece, rows: int, cols: int, closed: bool) -> bool:
    """Whether `method` answers tours of `piece` on `rows` x `cols`, open or closed (its declaration)."""
    if method.pieces == "knight" and not piece.is_knight:
        return False
    if method.tours != "both" and (method.tours == "closed") != bool(closed):
        return False
    return method.applies is None or bool(method.applies(piece, rows, cols, closed))


def inapplicable(method: TourMethod, piece, rows: int, cols: int, closed: bool) -> MethodInapplicable:
    """The one-line error of a method asked for where it does not apply."""
    pieces = "the knight" if method.pieces == "knight" else "any leaper"
    tours = "" if method.tours == "both" else f", {method.tours} tours only"
    return MethodInapplicable(
        f"no {method.name} for piece {piece.name!r} on {rows}x{cols} ({'closed' if closed else 'open'}): it covers "
        f"{pieces} on {method.boards}{tours}; use method='search'")
