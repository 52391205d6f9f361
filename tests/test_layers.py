"""The package's layers, read from the source with `ast` (no module is imported).

Rules (docs/design.md, "Layers"):

- no import cycle among fastsnake modules, counting imports made inside functions too
  (a lazy import still ties the two modules together; it only hides the cycle from
  the import system until the day someone moves it to the top);
- the problem packages fastsnake.snake, fastsnake.puzzle and fastsnake.tour never import
  one another, nor the CLI, the viewer or the Gymnasium environments;
- nothing outside fastsnake/cli imports fastsnake.cli (but ``fastsnake/__main__.py``,
  which is ``python -m fastsnake``, the CLI's own launcher);
- fastsnake/cli imports only the public API: the packages' ``__init__`` modules
  (``fastsnake``, ``fastsnake.snake``, ``fastsnake.puzzle``, ``fastsnake.tour``,
  ``fastsnake.envs``, ``fastsnake.viewer``), the shared top-level modules every layer may
  use (``fastsnake.errors``, ``fastsnake.sizes``, ``fastsnake.files``, ``fastsnake.reading``,
  ``fastsnake.signals``, ``fastsnake.renamed``), the study layer ``fastsnake.study``, the runner
  ``fastsnake.runs`` and its own modules.

An edge is the module an import statement names: ``from fastsnake.snake.sweep import
prepare`` is an edge to ``fastsnake.snake.sweep``, ``from fastsnake.snake import api`` one to
``fastsnake.snake.api`` (a submodule), ``from fastsnake import __version__`` one to
``fastsnake``. Not edges: the parent packages Python runs first (importing
``fastsnake.snake.sweep`` runs ``fastsnake/snake/__init__.py``; counting those would make
every lazy re-export in a package ``__init__`` a cycle), and names looked up at run time
through ``importlib.import_module`` or entry points (``fastsnake/__init__.py``'s lazy
table, the policy registry).
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "fastsnake"
PROBLEMS = ("fastsnake.snake", "fastsnake.puzzle", "fastsnake.tour")
FRONT_ENDS = ("fastsnake.cli", "fastsnake.viewer", "fastsnake.envs")
CLI_MAY_IMPORT = {
    "fastsnake",
    "fastsnake.snake",
    "fastsnake.puzzle",
    "fastsnake.tour",
    "fastsnake.envs",
    "fastsnake.viewer",
    "fastsnake.warm",
    "fastsnake.errors",
    "fastsnake.sizes",
    "fastsnake.files",
    "fastsnake.reading",
    "fastsnake.signals",
    "fastsnake.renamed",
    "fastsnake.study",
    "fastsnake.runs",
}
# Known cycles (each a set of modules that import one another), to be removed as they are broken;
# test_known_cycles_are_current keeps the list honest. Empty: a new cycle fails the test.
KNOWN_CYCLES: set[frozenset[str]] = set()
# Known violations, to be removed as the CLI is moved onto the public API: (CLI module, module it
# imports). Each entry must still occur (test_cli_allow_list_is_current), so the list only shrinks.
CLI_KNOWN_VIOLATIONS: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _imports(name: str):
    """(imported fastsnake module, line, lazy) for every import statement of module `name`."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"), str(MODULES[name]))
    lazy_lines = {
        node.lineno
        for fn in ast.walk(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(fn)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    }
    package = name if _is_package(name) else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # `from pkg import sub` names the submodule; `from mod import name` the module.
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source for a in node.names]
        else:
            continue
        for target in targets:
            if target == "fastsnake" or target.startswith("fastsnake."):
                while target not in MODULES:  # `import fastsnake.x.y` of a name we do not know: its package
                    target = target.rpartition(".")[0]
                yield target, node.lineno, node.lineno in lazy_lines


def _edges():
    return {(name, target, line, lazy) for name in MODULES for target, line, lazy in _imports(name)}


EDGES = _edges()


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _where(name: str, line: int) -> str:
    return f"{MODULES[name].relative_to(ROOT.parent)}:{line}"


def test_the_walk_sees_the_package():
    assert {"fastsnake", "fastsnake.snake.engine", "fastsnake.cli.snake", "fastsnake.puzzle.solver"} <= set(MODULES)
    assert any(lazy for *_, lazy in EDGES) and any(not lazy for *_, lazy in EDGES)
    assert ("fastsnake.snake.sweep", "fastsnake.snake.store.folder") in {(a, b) for a, b, *_ in EDGES}


# How sweeps are kept (fastsnake/snake/store/: the sweep file, the folder, the checked reader, verify)
# sits below everything that plays or shows games: it imports none of these, so a reader of the
# store needs no policy, kernel runner or page, and the runner hands it finished chunks.
STORE = "fastsnake.snake.store"
ABOVE_THE_STORE = ("fastsnake.snake.sweep", "fastsnake.snake.api", "fastsnake.snake.policies", "fastsnake.snake.cancel",
                   "fastsnake.snake.report", "fastsnake.snake.replay", "fastsnake.snake.cluster",
                   "fastsnake.snake.dataset", "fastsnake.snake.plots")


def test_the_store_plays_no_game():
    assert any(_in(a, STORE) for a, *_ in EDGES)
    bad = [f"{_where(a, line)} imports {b}" for a, b, line, _ in sorted(EDGES)
           if _in(a, STORE) and any(_in(b, above) for above in ABOVE_THE_STORE)]
    assert not bad, bad


def _cycles(edges):
    """Strongly connected components with more than one module, or a module importing itself (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_cycles():
    assert _cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert _cycles({("a", "a")}) == [["a"]]
    assert _cycles({("a", "b"), ("b", "c")}) == []


def test_no_import_cycle():
    cycles = [c for c in _cycles({(a, b) for a, b, *_ in EDGES}) if frozenset(c) not in KNOWN_CYCLES]
    detail = [
        [_where(a, line) + f" -> {b}" for a, b, line, _ in sorted(EDGES) if a in cycle and b in cycle]
        for cycle in cycles
    ]
    assert not cycles, f"import cycles: {detail}"


def test_known_cycles_are_current():
    """An entry of KNOWN_CYCLES that no longer occurs must go, so the list only shrinks."""
    stale = KNOWN_CYCLES - {frozenset(c) for c in _cycles({(a, b) for a, b, *_ in EDGES})}
    assert not stale, f"fixed, remove from KNOWN_CYCLES: {[sorted(c) for c in stale]}"


def test_problem_packages_stay_apart():
    bad = [
        f"{_where(a, line)} imports {b}"
        for a, b, line, _ in sorted(EDGES)
        for package in PROBLEMS
        if _in(a, package) and not _in(b, package) and any(_in(b, other) for other in PROBLEMS + FRONT_ENDS)
    ]
    assert not bad, bad


# The study layer (trials -> rows -> statistics -> files -> baselines -> tables) serves every
# problem: it imports none of them and no front end, so Snake, puzzles and tours share it as equals.
STUDY = "fastsnake.study"


def test_the_study_layer_knows_no_problem():
    assert any(_in(a, STUDY) for a, *_ in EDGES)
    bad = [f"{_where(a, line)} imports {b}" for a, b, line, _ in sorted(EDGES)
           if _in(a, STUDY) and any(_in(b, p) for p in PROBLEMS + FRONT_ENDS)]
    assert not bad, bad


def test_only_the_cli_imports_the_cli():
    bad = [
        f"{_where(a, line)} imports {b}"
        for a, b, line, _ in sorted(EDGES)
        if _in(b, "fastsnake.cli") and not _in(a, "fastsnake.cli") and a != "fastsnake.__main__"
    ]
    assert not bad, bad


def _cli_imports_off_the_api():
    return sorted(
        (a, b, line)
        for a, b, line, _ in EDGES
        if _in(a, "fastsnake.cli") and not _in(b, "fastsnake.cli") and b not in CLI_MAY_IMPORT
    )


def test_cli_imports_only_the_public_api():
    bad = [f"{_where(a, line)} imports {b}" for a, b, line in _cli_imports_off_the_api()
           if (a, b) not in CLI_KNOWN_VIOLATIONS]
    assert not bad, bad


def test_cli_allow_list_is_current():
    """An entry of CLI_KNOWN_VIOLATIONS that no longer occurs must go, so the list only shrinks."""
    stale = CLI_KNOWN_VIOLATIONS - {(a, b) for a, b, _ in _cli_imports_off_the_api()}
    assert not stale, f"fixed, remove from CLI_KNOWN_VIOLATIONS: {sorted(stale)}"


def test_shared_modules_know_no_problem():
    """fastsnake.search, fastsnake.study (what the problems' studies share, e.g. the regression gate)
    and the top-level helper modules import no problem package and no front end."""
    shared = [m for m in MODULES if _in(m, "fastsnake.search") or _in(m, "fastsnake.study") or _in(m, "fastsnake.runs")
              or (m.count(".") == 1 and not _is_package(m))]
    assert "fastsnake.errors" in shared and "fastsnake.__main__" in shared and "fastsnake.study.gate" in shared
    assert "fastsnake.runs.runner" in shared
    bad = [
        f"{_where(a, line)} imports {b}"
        for a, b, line, _ in sorted(EDGES)
        if a in shared and a != "fastsnake.__main__" and any(_in(b, p) for p in PROBLEMS + FRONT_ENDS)
    ]
    assert not bad, bad


# -- names (issue 19, item 4) -------------------------------------------------------------------------

# Names under which the engine, the policies and the search kernels hold their context tuples and
# small slot arrays: such a name is read through named slots (G_OCC, W_ORDER, R_HEAD, ...), never
# through a bare number.
CONTEXT_NAMES = {"g", "ws", "rec", "box", "buf", "ctx", "meta", "params", "best", "hc", "plan", "record", "rng"}
# Known bare-number reads, to be named: (module, name read).
KNOWN_BARE_SLOTS: set[tuple[str, str]] = set()


def _bare_slots():
    found = set()
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                    and type(node.slice.value) is int):
                continue
            inner = node.value
            if isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Name):
                inner = inner.value  # a slot of a slot: g[G_RNG][1], ws[W_PARAMS][2]
            if isinstance(inner, ast.Name) and inner.id in CONTEXT_NAMES:
                found.add((name, inner.id, node.lineno))
    return found


def test_context_slots_are_named():
    bad = sorted(f"{_where(m, line)}: {v}[...]" for m, v, line in _bare_slots() if (m, v) not in KNOWN_BARE_SLOTS)
    assert not bad, bad


def test_bare_slot_allow_list_is_current():
    stale = KNOWN_BARE_SLOTS - {(m, v) for m, v, _ in _bare_slots()}
    assert not stale, f"fixed, remove from KNOWN_BARE_SLOTS: {sorted(stale)}"


def test_no_seed_numbers_in_the_package():
    """Sources are cited by name (e.g. Merkulov, "Snake AI", 2025), not as the project's "seed 000"."""
    import re

    pattern = re.compile(r"\bseeds? ?0\d\d\b|\bseeds'", re.IGNORECASE)
    bad = [
        f"{_where(name, number)}: {line.strip()}"
        for name, path in MODULES.items()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not bad, bad


# Underscore names one module may take from another, each with its reason; everything else a module
# shares is public (no underscore). test_private_allow_list_is_current keeps the list honest.
PRIVATE_ALLOWED = {
    "fastsnake._numba_cache": "the package's numba cache set-up: private to the package, not to a module; "
                              "every part (warm, user kernels, dask workers) points numba at the same folders",
    "fastsnake._numba_inline": "the package's change to numba's inliner, installed with the cache set-up "
                               "(fastsnake._numba_cache) and private to the package likewise",
}


def _private_uses(name: str):
    """(what, line) for each underscore name `name` takes from another fastsnake module: ``from m import _x``,
    ``import fastsnake._m`` and ``m._x`` on a fastsnake module bound by an import."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"), str(MODULES[name]))
    private = lambda part: part.startswith("_") and not part.startswith("__")  # noqa: E731
    bound = {}  # local name -> fastsnake module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("fastsnake"):
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if any(private(p) for p in node.module.split(".")):
                    yield node.module, node.lineno
                elif private(a.name):
                    yield (full if full in MODULES else f"{node.module}:{a.name}"), node.lineno
                elif full in MODULES:
                    bound[a.asname or a.name] = full
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("fastsnake"):
                    if any(private(p) for p in a.name.split(".")):
                        yield a.name, node.lineno
                    if a.asname:
                        bound[a.asname] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                and private(node.attr) and bound[node.value.id] != name:
            yield f"{bound[node.value.id]}:{node.attr}", node.lineno


def test_no_module_takes_another_modules_private_names():
    found = [(what, _where(name, line)) for name in MODULES for what, line in _private_uses(name)
             if what not in PRIVATE_ALLOWED and what.partition(":")[0] != name]
    assert not found, "give these names a public name where they belong: " + ", ".join(f"{w} ({at})" for w, at in found)


def test_private_allow_list_is_current():
    used = {what for name in MODULES for what, _ in _private_uses(name)}
    assert set(PRIVATE_ALLOWED) <= used


def test_the_private_check_sees_all_three_forms(tmp_path):
    source = ("from fastsnake.snake.engine import _hidden\nimport fastsnake._numba_cache\n"
              "from fastsnake.snake import engine\nengine._other\n")
    MODULES["fastsnake.probe"] = tmp_path / "probe.py"
    try:
        MODULES["fastsnake.probe"].write_text(source)
        assert {what for what, _ in _private_uses("fastsnake.probe")} == {
            "fastsnake.snake.engine:_hidden", "fastsnake._numba_cache", "fastsnake.snake.engine:_other"}
    finally:
        del MODULES["fastsnake.probe"]
