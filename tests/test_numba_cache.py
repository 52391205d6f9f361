"""The numba cache's key (`fastsnake._numba_cache`): a kernel's folder covers exactly the modules it can
reach, through imports or through the functions its globals hold. Proven in subprocesses on a scratch copy
of the package: an edit to a module a kernel cannot reach leaves it loading from the cache, an edit to one
it can reach recompiles it (and the new code runs: a stale kernel never loads)."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fastsnake
from fastsnake import _numba_cache as nc

_PACKAGE = Path(fastsnake.__file__).resolve().parent


def _scratch(tmp_path, probes=None) -> Path:
    """A copy of the package under `tmp_path/src`, plus `probes` (sub-path -> source) in it."""
    root = tmp_path / "src"
    shutil.copytree(_PACKAGE, root / "fastsnake", ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in (probes or {}).items():
        (root / "fastsnake" / name).write_text(textwrap.dedent(text))
    return root


def _run(root: Path, script: str, **env_vars) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_DISABLE_JIT")}
    env.update(PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(root.parent / "cache"), **env_vars)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env, cwd=root, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _edit(root: Path, name: str, old: str = "", new: str = "", code: bool = True) -> None:
    """Replace `old` by `new` in a module of the scratch copy and add a line: of code (a new name), or
    with ``code=False`` a comment."""
    path = root / "fastsnake" / name
    text = path.read_text()
    if old:
        assert old in text
        text = text.replace(old, new)
    path.write_text(text + ("\n_EDITED = 1\n" if code else "\n# edited\n"))


def _bookkeeping(root: Path, name: str, pattern: str, new: str) -> None:
    """Rewrite the first match of `pattern` in a module of the scratch copy (one match, or the test fails)."""
    path = root / "fastsnake" / name
    text, count = re.subn(pattern, new, path.read_text(), count=1)
    assert count == 1, (name, pattern)
    path.write_text(text)


# A tiny kernel family: `probe_kernel` calls a helper of a module it imports; `probe_template` is made
# (`kernels.specialise`) into a kernel whose global `part` is a function of a module that neither the
# template's module nor the kernel's own file imports; `probe_other` is imported by neither.
PROBES = {
    "_probe_dep.py": '''
        from numba import njit

        @njit(cache=True)
        def helper():
            """Inlined by the probe kernel."""
            return 1
        ''',
    "_probe_kernel.py": '''
        from numba import njit

        from fastsnake._probe_dep import helper

        @njit(cache=True)
        def kernel():
            """A cached kernel over an imported helper."""
            return helper() + 10
        ''',
    "_probe_parts.py": '''
        from numba import njit

        @njit(cache=True)
        def part():
            """A function given to the template as a global."""
            return 2
        ''',
    "_probe_template.py": '''
        part = None

        def template():
            """Made into a kernel per `part` (no import reaches the part's module)."""
            return part() + 100
        ''',
    "_probe_made.py": '''
        from fastsnake._probe_parts import part
        from fastsnake._probe_template import template
        from fastsnake.snake.policies.kernels import specialise

        made = specialise(template, "probe_made_kernel", {"part": part})
        ''',
    "_probe_other.py": '''
        VALUE = 1
        ''',
}

PROBE_RUN = """
    import json
    from fastsnake._probe_kernel import kernel
    from fastsnake._probe_made import made

    out = {}
    for name, k in (("kernel", kernel), ("made", made)):
        value = k()
        out[name] = [value, sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values())]
    print(json.dumps(out))
"""


def test_an_edit_recompiles_exactly_the_kernels_that_reach_it(tmp_path):
    root = _scratch(tmp_path, PROBES)
    hit, miss = 1, 0  # [value, hits, misses]
    cold = _run(root, PROBE_RUN)
    assert cold == {"kernel": [11, 0, 1], "made": [102, 0, 1]}
    assert _run(root, PROBE_RUN) == {"kernel": [11, hit, 0], "made": [102, hit, 0]}
    # Comments and docstrings are no code: a comment above the kernel (its lines move), its docstring
    # and a comment in its helper edited, and every kernel still loads (numba's own index, which
    # stamps the file's mtime and size and names the kernel by its line, included).
    _edit(root, "_probe_kernel.py", "@njit(cache=True)", "# a comment\n# and another\n\n@njit(cache=True)", code=False)
    _edit(root, "_probe_kernel.py", "A cached kernel over an imported helper.", "Edited: a kernel.", code=False)
    _edit(root, "_probe_dep.py", "Inlined by the probe kernel.", "Inlined, edited.", code=False)
    assert _run(root, PROBE_RUN) == {"kernel": [11, hit, 0], "made": [102, hit, 0]}
    # Reached by neither (it is in the same sub-package, which the old per-part key recompiled).
    _edit(root, "_probe_other.py")
    _edit(root, "snake/policies/phc.py")
    assert _run(root, PROBE_RUN) == {"kernel": [11, hit, 0], "made": [102, hit, 0]}
    # The imported helper: its kernel recompiles and runs the new helper, the other kernel loads.
    _edit(root, "_probe_dep.py", "return 1", "return 5")
    assert _run(root, PROBE_RUN) == {"kernel": [15, miss, 1], "made": [102, hit, 0]}
    # The part held as a global (no import reaches it from the template's file): same.
    _edit(root, "_probe_parts.py", "return 2", "return 7")
    assert _run(root, PROBE_RUN) == {"kernel": [15, hit, 0], "made": [107, miss, 1]}
    # Each folder names the modules its hash covers: one folder per kernel file is current (the last
    # edit's), the ones the edits left behind are stale, and so is a folder of the old per-part layout.
    cache = root.parent / "cache"
    (cache / "snake-0123456789abcdef").mkdir()
    current = _run(root, """
        import json
        from pathlib import Path
        from fastsnake._numba_cache import folder_is_current
        print(json.dumps({p.name: folder_is_current(p) for p in Path(%r).iterdir()}))
    """ % str(cache))
    assert current["snake-0123456789abcdef"] is False
    for label, count in (("_probe_kernel", 2), ("_probe_template", 2), ("_probe_dep", 2), ("_probe_parts", 2)):
        mine = sorted(n for n in current if n.startswith(label + "-"))
        assert len(mine) == count and sum(current[n] for n in mine) == 1, (label, current)
    made = next(n for n in current if n.startswith("_probe_template-") and current[n])
    manifest = set((cache / made / nc.MANIFEST).read_text().split())
    assert {"fastsnake._probe_parts", "fastsnake._probe_template"} <= manifest
    assert "fastsnake._probe_other" not in manifest and "fastsnake._probe_dep" not in manifest


def test_a_kernel_compiled_at_another_optimisation_level_never_loads_at_the_default(tmp_path):
    """numba's index does not key on NUMBA_OPT (the tests compile at 1: tests/conftest.py): a kernel
    compiled at level 1 must not load into a run at the default level 3, nor the other way round."""
    root = _scratch(tmp_path, PROBES)
    cold, hit = {"kernel": [11, 0, 1], "made": [102, 0, 1]}, {"kernel": [11, 1, 0], "made": [102, 1, 0]}
    assert _run(root, PROBE_RUN, NUMBA_OPT="1") == cold
    assert _run(root, PROBE_RUN, NUMBA_OPT="3") == cold  # the old layout loaded level 1's kernels here
    assert _run(root, PROBE_RUN, NUMBA_OPT="1") == hit
    assert _run(root, PROBE_RUN, NUMBA_OPT="3") == hit
    # Level 1's files are one folder below the default's, in the same fingerprint folder.
    folder = next(p for p in (root.parent / "cache").iterdir() if p.name.startswith("_probe_kernel-"))
    assert any((folder / "_probe_kernel").glob("*.nbi")) and any((folder / "_probe_kernel" / "opt1").glob("*.nbi"))


POLICY_FOLDERS = """
    import json
    from fastsnake.snake.policies import cycle, grove, phc
    from fastsnake.envs import kernels as env_kernels
    from fastsnake.snake.policies.kernels import compiled_kernels

    out = {}
    for policy in (cycle.POLICY, phc.PHC, grove.POLICY):
        paths = {k.stats.cache_path for e in (policy.sweep_kernel, policy.play_kernel) for k in compiled_kernels(e)}
        out[policy.name] = sorted(paths)
    out["envs"] = [env_kernels.step_batch.stats.cache_path]
    from fastsnake.warm.parts import sources_key  # what `fastsnake warm` marks a compiled part with

    out["marks"] = {part: sources_key(part) for part in ("policy:cycle", "policy:phc", "policy:grove", "envs")}
    print(json.dumps(out))
"""


def test_the_policies_keys_follow_the_engine_and_only_their_own_modules(tmp_path):
    """The issue's two directions on the real kernels (their cache folders; nothing compiles): a code edit
    to ``phc.py`` moves phc's folder only, one to ``engine.py`` every policy's and the envs'; a comment
    or a docstring moves none."""
    root = _scratch(tmp_path)
    before = _run(root, POLICY_FOLDERS)
    marks = before.pop("marks")
    assert all(before.values()) and len({p for paths in before.values() for p in paths}) == 4
    _edit(root, "snake/policies/phc.py", "Idea: read the Hamiltonian cycle", "Idea (edited): the cycle", code=False)
    _edit(root, "snake/engine.py", code=False)
    # A policy's bookkeeping: its measured compile cost and its summary text key no kernel.
    _bookkeeping(root, "snake/policies/phc.py", r"compile_cpu_range=\([^)]*\)", "compile_cpu_range=(0.5, 99.5)")
    _bookkeeping(root, "snake/policies/grove.py", r'summary="Alias of', 'summary="An edited alias of')
    after_comments = _run(root, POLICY_FOLDERS)
    assert after_comments.pop("marks") == marks and after_comments == before
    _edit(root, "snake/policies/phc.py")
    after_phc = _run(root, POLICY_FOLDERS)
    marks_phc = after_phc.pop("marks")
    assert {n for n in before if before[n] != after_phc[n]} == {"phc"}
    # `fastsnake warm`'s marks (the background compile's "is it compiled?") follow the same rule.
    assert {p for p in marks if marks[p] != marks_phc[p]} == {"policy:phc"}
    _edit(root, "snake/engine.py")
    after_engine = _run(root, POLICY_FOLDERS)
    marks_engine = after_engine.pop("marks")
    assert all(set(after_engine[n]).isdisjoint(after_phc[n]) for n in before)
    assert all(marks_engine[p] != marks_phc[p] for p in marks)


def test_import_reach_reads_every_kind_of_import(tmp_path, monkeypatch):
    root = _scratch(tmp_path, {
        "_r_a.py": "from . import _r_b\nfrom ._r_pkg import thing\n",
        "_r_b.py": "def f():\n    import fastsnake._r_c  # inside a function\n",
        "_r_c.py": "import numpy\nfrom fastsnake._r_pkg.sub import x\n",
        "_r_d.py": "X = 1\n",
    })
    (root / "fastsnake" / "_r_pkg").mkdir()
    (root / "fastsnake" / "_r_pkg" / "__init__.py").write_text("from ..errors import InputError\nthing = 1\n")
    (root / "fastsnake" / "_r_pkg" / "sub.py").write_text("x = 1\n")
    monkeypatch.setattr(nc, "_PACKAGE_DIR", root / "fastsnake")
    for fn in (nc.imports_of, nc.import_reach, nc.sources_hash, nc._module_digest):
        fn.cache_clear()
    try:
        reach = nc.import_reach(frozenset({"fastsnake._r_a"}))
        assert reach == {"fastsnake._r_a", "fastsnake._r_b", "fastsnake._r_c", "fastsnake._r_pkg",
                         "fastsnake._r_pkg.sub", "fastsnake.errors"}
        assert nc.module_of(root / "fastsnake" / "_r_pkg" / "__init__.py") == "fastsnake._r_pkg"
    finally:
        for fn in (nc.imports_of, nc.import_reach, nc.sources_hash, nc._module_digest):
            fn.cache_clear()


@pytest.mark.parametrize("module", ["fastsnake.snake.policies.cycle", "fastsnake.tour.search"])
def test_a_kernel_module_does_not_reach_the_cli_or_other_policies(module):
    reach = nc.import_reach(frozenset({module}))
    assert "fastsnake.snake.engine" in reach or module.startswith("fastsnake.tour")
    assert not any(m.startswith(("fastsnake.cli", "fastsnake.warm")) or m.endswith((".phc", ".grove", ".cell"))
                   for m in reach), sorted(reach)


def test_the_key_is_the_code_not_its_text():
    # A module's source, edited three ways (the real folders: the test above); nothing is compiled.
    source = (_PACKAGE / "snake" / "policies" / "phc.py").read_bytes()
    key = nc.code_digest(source)
    docstring = source.replace(b"Tapsell's limit on how far", b"The limit (Tapsell's) on how far", 1)
    commented = source.replace(b"\nBUFFER = 3", b"\n# a comment above\n\nBUFFER = 3", 1) + b"\n# appended\n"
    assert docstring != source and commented != source
    assert nc.code_digest(docstring) == nc.code_digest(commented) == key
    code_edit = source.replace(b"\nBUFFER = 3", b"\nBUFFER = 4", 1)
    assert code_edit != source and nc.code_digest(code_edit) != key
    assert nc.code_digest(source.replace(b"limit -= 10", b"limit -= 1", 1)) != key
    # A declaration's bookkeeping literals are left out; a value computed from code stays in the key.
    assert nc.code_digest(b"P = f(x, compile_cpu_range=(1.0, 2.0), summary='a' + __doc__)") == \
        nc.code_digest(b"P = f(x, compile_cpu_range=(3.5, 4.0), summary='b' + __doc__)")
    assert nc.code_digest(b"P = f(x, compile_cpu_range=g(1))") != nc.code_digest(b"P = f(x, compile_cpu_range=g(2))")
    assert nc.code_digest(b"P = f(x, cpu_range=(1.0, 2.0))") != nc.code_digest(b"P = f(x, cpu_range=(3.5, 4.0))")


def test_numba_names_and_stamps_our_kernels_by_their_code():
    # numba's own locator names a cache file by the kernel's line and stamps the index with the file's
    # mtime and size: a comment edit would make it stale. Ours: the code's shape and the folder's hash.
    from fastsnake.snake.policies import phc

    def twin():
        """A docstring."""
        return 1

    def other_doc():
        """Another docstring, other lines."""

        return 1

    def other_code():
        return 2

    assert nc.code_shape(twin) == nc.code_shape(other_doc) != nc.code_shape(other_code)
    locator = nc.fastsnake_locator()(phc.furthest_within.py_func, phc.__file__)
    assert locator.get_disambiguator() == nc.code_shape(phc.furthest_within.py_func)
    stamp = locator.get_source_stamp()
    assert stamp == "code-" + nc.sources_hash(locator._modules) and stamp.endswith(Path(locator._folder).name[-16:])


def _ast_imports(data: bytes) -> set:
    """The slow, obvious reading: every import statement of a source, by `ast`."""
    import ast

    out = set()
    for node in ast.walk(ast.parse(data)):
        if isinstance(node, ast.Import):
            out.add((None, None, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            out.add((node.level, node.module, tuple(a.name for a in node.names)))
    return out


def test_the_import_memo_gives_what_ast_gives_and_survives_damage(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(nc, "_memo", None)
    monkeypatch.setattr(nc, "_memo_added", {})
    sources = [p.read_bytes() for p in sorted((Path(fastsnake.__file__).parent / "snake").glob("*.py"))]
    sources.append(b"def f():\n    from . import a as b, c\n    import x.y, z\nfrom .. import (p,\n q)\n")
    first = [nc.import_statements(data) for data in sources]
    nc._write_memo()
    memo = tmp_path / nc.IMPORTS_MEMO
    assert memo.is_file() and len(json.loads(memo.read_text())) == len(set(sources))
    # A new process reads the statements from the memo: equal to the ast's, entry by entry.
    monkeypatch.setattr(nc, "_memo", None)
    again = [nc.import_statements(data) for data in sources]
    assert not nc._memo_added  # all were hits
    for data, a, b in zip(sources, first, again, strict=True):
        assert set(a) == set(b) == _ast_imports(data)
    # A damaged memo is read as empty, never as statements.
    for damage in ("{not json", '{"k": 3}', "[]", ""):
        memo.write_text(damage)
        monkeypatch.setattr(nc, "_memo", None)
        assert set(nc.import_statements(sources[-1])) == _ast_imports(sources[-1])
