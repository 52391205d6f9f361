"""The example policy package (examples/fastsnake-zigzag), made installed for a test.

Installing with pip would cost a build per test run; instead the package's module
folder and a ``.dist-info`` with its entry points (read from its own pyproject.toml,
so the docs' example is what is tested) go on sys.path and PYTHONPATH, which is all
``importlib.metadata`` and subprocesses (CLI, dask workers) look at.
"""

import os
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fastsnake-zigzag"


def _tomllib():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    return tomllib


@pytest.fixture
def zigzag_installed(tmp_path, monkeypatch):
    from fastsnake.snake.policies import rediscover

    project = _tomllib().loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    site = tmp_path / "site"
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    group = project["entry-points"]["fastsnake.policies"]
    lines = ["[fastsnake.policies]"] + [f"{name} = {value}" for name, value in group.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    paths = [str(site), str(EXAMPLE)]
    for path in reversed(paths):
        monkeypatch.syspath_prepend(path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    rediscover()
    yield project
    rediscover()
    sys.modules.pop("fastsnake_zigzag", None)


@pytest.fixture(autouse=True)
def _registry_left_as_found():
    """A policy a test registers in-process is forgotten after it, so one test's policies
    never show up in another's output (e.g. the list of names in an unknown-policy error)."""
    from fastsnake.snake.policies import _registry, unregister_policy

    before = set(_registry)
    yield
    for name in set(_registry) - before:
        unregister_policy(name)
