"""Code names that users read cannot go stale: every name quoted in backticks in a built-in policy's
summary (what `fastsnake policies` shows) and in docs/*.md exists.

What counts as a code name (the rest of what stands in backticks is values, commands and prose):

- a dotted name (``celltree.plan.decide``, ``fastsnake.sweep()``): each part is a name of the
  code (below), unless the first part is another installed library (``np.uint64``);
- a name with an underscore, an upper-case letter after its first (``research_every``,
  ``EnginePolicy``, ``BITS_BLOCKS``, ``_leg``): a name of the code;
- a file path under a top-level folder of the repository (``fastsnake/snake/celltree/layout.py``,
  ``docs/agents.md``) or a bare Python, Markdown or JavaScript file name (``layout.py``): a file of
  the repository;
- a command-line flag (``--policy``, ``--opt detours=N``): a flag some parser declares (the CLI's,
  or a bench or example script's).

The names of the code are read with `ast` from the Python of the package, its tests, bench and
examples (nothing is imported): module names, every function, class, argument, attribute, variable
and keyword, and the words of string constants that are not docstrings (option names, JSON keys
and columns live there), plus the words of the web page's scripts and of pyproject.toml. A
docstring never vouches for a name: the text being checked would vouch for itself.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "fastsnake"
DOCS = sorted((REPO / "docs").glob("*.md"))
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
DOTTED = re.compile(rf"^{IDENT}(\.{IDENT})*(\(\))?$")
PATH = re.compile(r"^[\w.-]+(/[\w.-]+)*/?$")
CODE_FOLDERS = ("fastsnake", "tests", "bench", "examples")
# Files we would write or read, named by suffix: a bare name with one of these is a file of ours.
CHECKED_SUFFIXES = (".py", ".md", ".js", ".toml")
# Suffixes of data files a text names (log.csv, policy.pt): not code names.
DATA_SUFFIXES = ("csv", "pt", "json", "parquet", "npz", "gif", "png", "txt", "zip", "gz", "onnx", "html", "log")
# Usual import aliases of other libraries.
ALIASES = {"np": "numpy", "pd": "pandas", "pl": "polars", "pa": "pyarrow", "pq": "pyarrow"}
FLAG = re.compile(r"^--[a-z][a-z0-9-]*")
WORD = re.compile(IDENT)
OWN_MODULES = {p.stem for p in PACKAGE.rglob("*.py")} | {p.name for p in PACKAGE.rglob("*") if p.is_dir()}

# Names quoted in the docs that are not ours and not importable here, each with why it is quoted.
ALLOWED = {
    "main.py": "illayyy/snake_ai's script, the source snake-ai follows (snake.md)",
    "inspect_asm": "numba's Dispatcher.inspect_asm, how the engine's assembly was read (engine-speed.md)",
    "MaskablePPO": "sb3-contrib's class, used by the RL example (envs.md)",
    "MaskableActorCriticPolicy": "sb3-contrib's policy class (envs.md)",
    "VecFrameStack": "Stable-Baselines3's wrapper (envs.md)",
    "VecMonitor": "Stable-Baselines3's wrapper (envs.md)",
    "VecNormalize": "Stable-Baselines3's wrapper (envs.md)",
    "DummyVecEnv": "Stable-Baselines3's vector env (envs.md)",
    "make_vec_env": "Stable-Baselines3's helper (envs.md)",
    "check_env": "Stable-Baselines3's env checker (envs.md)",
    "JaxEnvironmentLoop": "Jumanji's training loop, compared with ours (envs.md)",
    "fastsnake/Snake-v0": "the Gymnasium environment id, not a path (envs.md)",
    "__main__": "Python's name of the script being run",
    "__init__": "Python's package file name",
    "set_num_threads": "numba's numba.set_num_threads, named where thread counts are discussed",
    "NUMBA_DISABLE_JIT": "numba's environment variable, quoted where the interpreted tier is described",
    "NUMBA_NUM_THREADS": "numba's environment variable",
    "OMP_NUM_THREADS": "OpenMP's environment variable",
    "XDG_CACHE_HOME": "the XDG base-directory variable the cache root follows",
    "PYTHONPATH": "Python's module search path variable, in the bench instructions",
    "NUMBA_OPT": "numba's optimisation-level variable, in the compile-cost measurements (performance.md)",
    "QUALIFY": "DuckDB's SQL clause, in the pooling recipe (data-tools.md)",
    "drop_duplicates": "pandas' DataFrame.drop_duplicates, in the pooling recipe (data-tools.md)",
    "inline_inlinables": "numba's compiler pass that does inline='always', in the compile profiles (performance.md)",
    "CPUCodeLibrary": "numba's code library class (CPUCodeLibrary.finalize links callees), performance.md",
}


def _docstring_nodes(tree) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _code_files():
    """The repository's Python but this file (whose examples of stale names would vouch for them)."""
    here = Path(__file__).resolve()
    return [p for folder in CODE_FOLDERS for p in (REPO / folder).rglob("*.py") if p.resolve() != here]


@lru_cache(maxsize=1)
def package_names() -> frozenset[str]:
    """Every name the package's code (not its docstrings or comments) uses or defines."""
    names: set[str] = set()
    for path in _code_files():
        names.update(path.relative_to(REPO).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstring_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.update((node.asname or node.name).split("."))
                names.update(node.name.split("."))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                names.update(WORD.findall(node.value))
    for path in [*PACKAGE.rglob("*.js"), *PACKAGE.rglob("*.html"), REPO / "pyproject.toml"]:
        names.update(WORD.findall(path.read_text(encoding="utf-8")))
    return frozenset(names)


@lru_cache(maxsize=1)
def cli_flags() -> frozenset[str]:
    """Every ``--flag`` string of the code (parsers declare theirs as strings)."""
    flags = set()
    for path in _code_files():
        flags.update(re.findall(r"""["'](--[a-z][a-z0-9-]*)""", path.read_text(encoding="utf-8")))
    return frozenset(flags)


@lru_cache(maxsize=1)
def repo_files() -> tuple[frozenset[str], frozenset[str]]:
    """(paths relative to the repository, bare file and folder names) of what git would see."""
    skip = {".git", ".venv", ".cache", "node_modules", "__pycache__", "site", ".pytest_cache", ".hypothesis"}
    paths, names = set(), set()
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in skip and not d.endswith(".egg-info")]
        rel = Path(folder).relative_to(REPO)
        for name in dirs + files:
            paths.add(str(rel / name) if str(rel) != "." else name)
            names.add(name)
    return frozenset(paths), frozenset(names)


def _is_code_name(text: str) -> bool:
    name = text.removesuffix("()")
    return "." in name or "_" in name or any(c.isupper() for c in name[1:])


def problem(span: str) -> str | None:
    """Why the backticked `span` names something that does not exist, or None."""
    text = span.strip()
    if text in ALLOWED:
        return None
    if FLAG.match(text):
        flag = FLAG.match(text).group(0)
        return None if flag in cli_flags() else f"no CLI parser declares {flag}"
    if PATH.match(text):
        paths, names = repo_files()
        clean = text.rstrip("/")
        if "/" in clean:
            if clean.split("/")[0] not in {p.split("/")[0] for p in paths}:
                return None  # another project's path, a gym id or a format name (fastsnake-replay/1)
            return None if clean in paths else f"no file {clean}"
        if clean.endswith(CHECKED_SUFFIXES):
            return None if clean in names else f"no file named {clean}"
        if clean.rsplit(".", 1)[-1] in DATA_SUFFIXES:
            return None
    if not DOTTED.match(text) or not _is_code_name(text):
        return None  # a value, a command, an expression or prose: not a code name
    parts = text.removesuffix("()").split(".")
    first = ALIASES.get(parts[0], parts[0])
    if len(parts) > 1 and first not in OWN_MODULES and importlib.util.find_spec(first) is not None:
        return None  # another library's name (np.uint64, numba.set_num_threads)
    missing = [p for p in parts if p not in package_names() and p not in ALLOWED]
    return f"{'.'.join(missing)} is not a name of the package" if missing else None


def spans(markdown: str) -> list[str]:
    return SPAN.findall(FENCE.sub("", markdown))


def test_the_rule_tells_stale_names_from_live_ones():
    assert problem("_enumerate") is not None  # grove's summary named it; it never existed
    assert problem("DETOUR_ROUNDS") is not None
    assert problem("cycle.by_cycle_kind") is not None
    assert problem("--no-such-flag") is not None
    assert problem("docs/no-such-page.md") is not None
    for live in ("snug.enumerate_routes", "EnginePolicy", "BITS_BLOCKS", "research_every", "fastsnake.sweep()",
                 "--policy", "--opt detours=N", "docs/agents.md", "layout.py", "np.uint64", "cell", "8x8",
                 "fastsnake sweep --policy cycle"):
        assert problem(live) is None, live


def _policy_summaries():
    from fastsnake.snake.policies import OWN_DISTRIBUTION, all_policies

    return [(p.name, p.summary) for p in all_policies() if p.origin == OWN_DISTRIBUTION]


@pytest.mark.parametrize("name,summary", _policy_summaries(), ids=lambda v: v if len(v) < 40 else "")
def test_policy_summaries_name_only_what_exists(name, summary):
    stale = [f"`{s}`: {why}" for s in spans(summary) if (why := problem(s))]
    assert not stale, f"policy {name!r}: {stale}"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_docs_name_only_what_exists(page):
    stale = [f"`{s}`: {why}" for s in spans(page.read_text(encoding="utf-8")) if (why := problem(s))]
    assert not stale, f"{page.name}: {stale}"
