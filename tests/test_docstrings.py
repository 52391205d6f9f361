"""Every compiled kernel says what it does: each ``@njit`` (or ``@jit``) function of the package has a
docstring, read from the source with `ast` (no module is imported).

A kernel is read far more often than it is written, usually by someone who arrived from a profile
or a traceback; its one line is where they learn what its arguments are and why it exists.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "fastsnake"
JIT_DECORATORS = {"njit", "jit"}


def _decorator_name(node) -> str:
    """``njit`` for ``@njit``, ``@njit(...)``, ``@numba.njit`` and ``@numba.njit(...)``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def jitted_functions(source: str):
    """(name, line, has a docstring) of every function in `source` with a jit decorator."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any(_decorator_name(d) in JIT_DECORATORS
                                                     for d in node.decorator_list):
            yield node.name, node.lineno, ast.get_docstring(node) is not None


def test_the_scan_finds_kernels_with_and_without_docstrings():
    source = '''
@njit(cache=True)
def a():
    """Documented."""

@numba.njit
def b():
    return 1

def c():
    return 2
'''
    assert list(jitted_functions(source)) == [("a", 3, True), ("b", 7, False)]


def test_every_kernel_has_a_docstring():
    found, missing = 0, []
    for path in sorted(ROOT.rglob("*.py")):
        for name, line, documented in jitted_functions(path.read_text(encoding="utf-8")):
            found += 1
            if not documented:
                missing.append(f"{path.relative_to(ROOT.parent)}:{line} {name}")
    assert found > 200  # the scan sees the package's kernels
    assert not missing, f"{len(missing)} njit functions without a docstring: {missing}"
