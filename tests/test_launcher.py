"""The `fastsnake` command's launcher (`fastsnake/__main__.py`, issue 37 item 8): a signal while the
CLI still imports numba and pyarrow (most of a start-up; seconds on a busy machine) ends the command
with one line and the signal's status, never a KeyboardInterrupt traceback.

The signal lands at a fixed point, not at a moment: the child sends it to itself from an import hook
when numba starts to load, so nothing here depends on timing or load.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}

# The child: an import hook that signals this very process when `numba` is about to be imported,
# then the command started as its console script (pyproject.toml's entry point, called as the
# wrapper pip writes calls it) or as `python -m fastsnake`.
CHILD = """
import importlib, os, runpy, sys

SIG, HOW, ENTRY = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sent = []

class SignalAtNumba:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "numba" and not sent:
            sent.append(name)
            os.kill(os.getpid(), SIG)
        return None

sys.meta_path.insert(0, SignalAtNumba)
sys.argv = ["fastsnake", *sys.argv[4:]]
if HOW == "script":
    module, _, attr = ENTRY.partition(":")
    sys.exit(getattr(importlib.import_module(module), attr)())
runpy.run_module("fastsnake", run_name="__main__", alter_sys=True)
"""


def _entry_point() -> str:
    """The console script's `module:function`, as pyproject.toml's [project.scripts] names it."""
    scripts = (REPO / "pyproject.toml").read_text().split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return re.search(r'^fastsnake = "([\w.]+:\w+)"', scripts, re.M).group(1)


@pytest.mark.parametrize("how", ["script", "-m"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_the_clis_imports_ends_in_one_line(tmp_path, sig, how):
    out = tmp_path / "s.parquet"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(int(sig)), how, _entry_point(), "sweep", "--policy",
                           "cycle", "--size", "6", "--games", "100", "--out", str(out), "--json"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == CODES[sig], proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    message = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated (SIGTERM)"}[sig]
    assert proc.stderr == f"fastsnake: error: {message}\n"
    assert json.loads(proc.stdout) == {"error": message, "code": CODES[sig]}
    assert not out.exists()


def test_import_fastsnake_loads_no_numba_yet_kernels_use_our_cache():
    """numba's cache is configured as the first module that may define a kernel is imported: before
    it, not on `import fastsnake` (which the launcher's signal handling would otherwise wait for)."""
    code = ("import sys, fastsnake, fastsnake.errors, fastsnake.signals\n"
            "assert 'numba' not in sys.modules, 'numba loaded'\n"
            "import fastsnake.snake.engine\n"
            "from numba.core import caching\n"
            "print(caching.CacheImpl._locator_classes[0].__name__)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip() == "FastsnakeCacheLocator", proc.stderr
