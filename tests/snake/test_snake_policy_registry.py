"""Built-in policies are registered by the package's own code: each policy module's ``BUILTIN``
literal, read without an import, so a module dropped into the package is found with no other edit and
no install step (no entry point); never displaced by an outside package's entry point; every
declaration true to its module's objects, and every policy with a speed-guard reference."""

import importlib
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fastsnake.snake.policies as registry
from fastsnake.snake.policies import EnginePolicy, PolicyError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_registry(monkeypatch):
    """The registry as a new process sees it: nothing loaded or scanned, entry points discovered again."""
    monkeypatch.setattr(registry, "_registry", {})
    monkeypatch.setattr(registry, "_builtins", {})
    monkeypatch.setattr(registry, "_scanned", False)
    monkeypatch.setattr(registry, "_warned", set())
    registry.rediscover()
    yield
    registry.rediscover()


def test_builtins_are_found_without_any_entry_point(fresh_registry, monkeypatch):
    # As after a `git pull` without `pip install -e .`: no metadata names a policy.
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: [])
    assert {"greedy", "phc", "strongest"} <= set(registry.available())
    policy = registry.get_policy("phc")
    assert policy.name == "phc" and policy.origin == "fastsnake" and policy.guaranteed
    assert registry.get_policy("strongest").alias_of == "grove"
    assert registry.builtin_module("phc-faithful") == "fastsnake.snake.policies.phc"


def _outside_package(tmp_path, monkeypatch, package, names):
    info = tmp_path / f"{package}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {package}:decide\n" for name in names)
    (info / "entry_points.txt").write_text("[fastsnake.policies]\n" + lines)
    (tmp_path / f"{package}.py").write_text("def decide(state, ws):\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_an_entry_point_clashing_with_a_builtin_is_ignored_with_one_warning(fresh_registry, tmp_path,
                                                                             monkeypatch, capsys):
    _outside_package(tmp_path, monkeypatch, "clash_builtin", ["greedy", "clash-own-name"])
    registry.rediscover()
    for _ in range(3):
        assert registry.get_policy("greedy").origin == "fastsnake"
        assert "clash-own-name" in registry.available()
        registry.rediscover()
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "'greedy'" in warnings[0] and "clash_builtin" in warnings[0]
    assert "fastsnake.snake.policies.greedy:POLICY" in warnings[0] and "built-in" in warnings[0]
    assert registry.get_policy("clash-own-name").origin == "clash_builtin"


def test_a_builtin_name_cannot_be_taken_in_process(fresh_registry):
    with pytest.raises(PolicyError, match="taken"):
        registry.register_policy("cycle", lambda state, ws: 0)


def test_registering_a_builtin_twice_differently_is_an_error(fresh_registry):
    registry.register_builtin("phc", "fastsnake.snake.policies.phc:PHC")  # the same again: no change
    with pytest.raises(PolicyError, match="twice"):
        registry.register_builtin("phc", "fastsnake.snake.policies.cycle:POLICY")
    with pytest.raises(PolicyError, match="not 'fastsnake.module:object'"):
        registry.register_builtin("elsewhere", "other_package:POLICY")
    assert "elsewhere" not in registry.available()


def _policy_modules():
    return [importlib.import_module(info.name)
            for info in pkgutil.walk_packages(registry.__path__, registry.__name__ + ".")]


def test_every_declaration_matches_its_module_s_policies():
    # A module's BUILTIN names each policy object it defines, under the object's own name; a policy
    # a module defines and does not declare, or a declaration naming no such object, fails here.
    declared = {name: target for name, target in registry.declared_builtins()}
    defined = {}
    for module in _policy_modules():
        for attr, value in vars(module).items():
            if isinstance(value, EnginePolicy) and value.origin == "fastsnake" and value.kind == "engine":
                defined.setdefault(id(value), (value.name, f"{module.__name__}:{attr}"))
    assert "phc-faithful" in declared and "strongest" in declared
    undeclared = [(name, target) for name, target in defined.values() if declared.get(name) != target]
    assert not undeclared, f"policies defined and not declared in their module's BUILTIN: {undeclared}"
    for name, target in declared.items():
        module, _, attr = target.partition(":")
        policy = getattr(importlib.import_module(module), attr, None)
        assert isinstance(policy, EnginePolicy) and policy.name == name, (name, target)
    assert set(registry.builtin_names()) == set(declared)


def test_listing_the_policies_imports_no_policy_module():
    # What `fastsnake policies --json`'s names and every unknown-name error cost: a scan, no import.
    code = ("import sys, fastsnake.snake.policies as r; names = r.available(); "
            "print(len(names), sorted(m for m in sys.modules if m.startswith('fastsnake.snake.policies.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert int(out[0]) >= len(registry.builtin_names()) and "phc" in registry.builtin_names()
    assert out[1].strip() == "['fastsnake.snake.policies.protocol']"


def test_every_registered_policy_has_a_guard_reference():
    ratios = json.loads((REPO / "bench" / "speed" / "reference.json").read_text())["ratios"]
    missing = [name for name in registry.builtin_names() if ratios.get(f"policy {name} 10x10") is None]
    assert "phc" in registry.builtin_names()
    assert not missing, (f"no guard reference for {missing}: python bench/speed/guard.py --update --only "
                         f"'policy {missing[0]} 10x10' (CONTRIBUTING.md, 'Add a Snake policy')")


@pytest.fixture
def package_folder(fresh_registry, tmp_path, monkeypatch):
    """A second folder of the policy package (as a checkout's new file would be): a module written
    there is a module of the package, for the scan and for the import alike."""
    monkeypatch.setattr(registry, "__path__", [*registry.__path__, str(tmp_path)])
    yield tmp_path
    for name in [name for name in sys.modules if name.startswith(registry.__name__ + ".dropped")]:
        del sys.modules[name]


def test_a_policy_module_dropped_into_the_package_is_found_with_no_other_edit(package_folder):
    source = (REPO / "fastsnake" / "snake" / "policies" / "greedy.py").read_text(encoding="utf-8")
    declaration = 'BUILTIN = {"greedy": "POLICY"}'
    assert declaration in source
    (package_folder / "dropped_in.py").write_text(
        source.replace(declaration, 'BUILTIN = {"dropped-in": "POLICY"}'), encoding="utf-8")
    (package_folder / "dropped_pkg").mkdir()
    (package_folder / "dropped_pkg" / "__init__.py").write_text("")
    (package_folder / "dropped_pkg" / "inner.py").write_text('BUILTIN: dict = {\n    "dropped-inner": "POLICY",\n}\n')

    assert {"dropped-in", "dropped-inner", "greedy", "phc"} <= set(registry.available())
    assert registry.builtin_module("dropped-inner") == "fastsnake.snake.policies.dropped_pkg.inner"
    assert not [name for name in sys.modules if ".dropped" in name]  # listed, nothing imported
    policy = registry.get_policy("dropped-in")
    assert policy.name == "dropped-in" and policy.origin == "fastsnake"
    assert policy.summary == registry.get_policy("greedy").summary  # the module's own object
    with pytest.raises(PolicyError, match=r"^policy module fastsnake.snake.policies.dropped_pkg.inner: its "
                                          r"BUILTIN declares policy 'dropped-inner' as 'POLICY', which"):
        registry.get_policy("dropped-inner")


@pytest.mark.parametrize("declaration, match", [
    ('BUILTIN = dict(bad="POLICY")', "must be one literal dict"),
    ('BUILTIN = {"ok": "not an attribute"}', "must be one literal dict"),
    ('BUILTIN = {}', "must be one literal dict"),
    ('BUILTIN = {["a"]: "POLICY"}', "must be one literal dict"),
    ('BUILTIN = {"two words": "POLICY"}', "policy name 'two words' must be"),
    ('BUILTIN = {"a": "POLICY"}\nBUILTIN = {"b": "POLICY"}', "written 2 times"),
    ('BUILTIN.update({"a": "POLICY"})', "must be one literal dict"),
    ('BUILTIN = {"phc": "POLICY"}', "'phc' is registered twice"),
])
def test_a_bad_declaration_is_one_line_naming_its_module(package_folder, declaration, match):
    (package_folder / "dropped_bad.py").write_text(f'"""A policy module."""\n\n{declaration}\n')
    with pytest.raises(PolicyError, match=match) as raised:
        registry.available()
    message = str(raised.value)
    assert "\n" not in message and ("dropped_bad" in message or "twice" in message)
    if "twice" not in message:
        assert message.startswith("policy module fastsnake.snake.policies.dropped_bad (dropped_bad.py, line 3)")
    else:
        assert "fastsnake.snake.policies.dropped_bad:POLICY" in message and "policies.phc:PHC" in message


def test_the_scan_finds_the_declaration_only_at_the_start_of_a_line(package_folder):
    (package_folder / "dropped_text.py").write_text(
        '"""Mentions  BUILTIN = nothing, indented."""\n\ndef f():\n    BUILTIN = 1\n    return BUILTIN\n\n'
        'BUILTIN_NOT = {"x": "Y"}\n')
    assert not [target for _, target in registry.declared_builtins() if "dropped_text" in target]


_NUMBER = r"(?:\d+|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen)"
# "compared 2 of 2 policies" is a run's output quoted, not a count of the registry.
HAND_COUNT = re.compile(
    rf"(?<!\bof )\b{_NUMBER}\s+(?:built-in\s+|admissible\s+|registered\s+)?(?:snake\s+)?(?:policies|heuristics)\b",
    re.I)


def test_no_page_counts_the_policies_or_heuristics_by_hand():
    # A count written by hand goes stale with the next policy: `fastsnake policies` lists them.
    pages = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
    found = [f"{page.name}:{n}: {m.group(0)}" for page in pages
             for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             for m in [HAND_COUNT.search(line)] if m]
    assert not found, found
    assert HAND_COUNT.search("13 built-in policies") and HAND_COUNT.search("and five heuristics")
