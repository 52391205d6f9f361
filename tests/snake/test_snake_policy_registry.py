"""Built-in policies are registered by the package's own code: found with no install step (no entry
point), never displaced by an outside package's entry point, and every one of them registered."""

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import fastsnake.snake.policies as registry
from fastsnake.snake.policies import EnginePolicy, PolicyError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_registry(monkeypatch):
    """The registry as a new process sees it: nothing loaded, entry points discovered again."""
    monkeypatch.setattr(registry, "_registry", {})
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


def test_registering_a_builtin_twice_differently_is_an_error():
    registry.register_builtin("phc", "fastsnake.snake.policies.phc:PHC")  # the same again: no change
    with pytest.raises(PolicyError, match="twice"):
        registry.register_builtin("phc", "fastsnake.snake.policies.cycle:POLICY")
    with pytest.raises(PolicyError, match="not 'fastsnake.module:object'"):
        registry.register_builtin("elsewhere", "other_package:POLICY")
    assert "elsewhere" not in registry.available()


def test_every_policy_a_policy_module_defines_is_registered_under_its_name():
    # A new module's policy without its `register_builtin` line fails here.
    found = {}
    for info in pkgutil.iter_modules(registry.__path__):
        module = importlib.import_module(f"{registry.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, EnginePolicy) and value.origin == "fastsnake" and value.kind == "engine":
                found[value.name] = f"{module.__name__}"
    assert "phc-faithful" in found and "strongest" in found
    assert {name: registry.builtin_module(name) for name in found} == found
    assert set(registry.builtin_names()) == set(found)


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
