"""The text of a user's Manhattan heuristic, for tests that write users' modules of their own (an entry
point's package, a module another process imports): bench/user_manhattan.py's functions, the one copy
the benchmarks run too, loaded by its path. ``manhattan_source(name, decorator=, result=, with_update=)``
is that file's `source`; `user_module` starts a module with it."""

import importlib.util
from pathlib import Path

_FILE = Path(__file__).resolve().parents[1] / "bench" / "user_manhattan.py"
_spec = importlib.util.spec_from_file_location("bench_user_manhattan", _FILE)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

manhattan_source = _module.source


def user_module(doc: str | None, name: str = "evaluate", *, with_update: bool = False) -> str:
    """The start of a user's heuristic module: its docstring `doc` (None: none), the import of ``njit``, and
    Manhattan as `name` (with `update` after it when asked), each ``@njit``; a test's own functions follow."""
    head = f'\n"""{doc}"""\n' if doc is not None else "\n"
    return head + "from numba import njit\n\n\n" + manhattan_source(name, with_update=with_update)
