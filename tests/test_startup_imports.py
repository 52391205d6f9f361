"""Start-up: a command imports only what it needs (issue 44, "Start-up under a second").

Each case runs in a fresh interpreter and reads `sys.modules` afterwards: no timing is asserted
(bench/bench_startup.py measures the CPU seconds). scipy.stats alone cost every CLI process about
0.9 CPU-s; numba (0.3 CPU-s, and it imports the bare `scipy` package) is not needed for the help.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Libraries only some commands need: statistics beyond a sweep's summary, files, plots, the envs.
HEAVY = ("scipy.stats", "scipy.special", "torch", "gymnasium", "matplotlib", "pandas", "pyarrow", "polars",
         "dask", "pygame", "stable_baselines3")

CHILD = """
import contextlib, io, json, sys
argv = json.loads(sys.argv[1])
if argv is None:
    import fastsnake.cli
    code = 0
else:
    from fastsnake.cli import main
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _modules(argv, **env):
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(argv)], capture_output=True, text=True,
                          cwd=REPO, timeout=600, env=dict(os.environ, **env))
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout.splitlines()[-1])
    return answer["code"], set(answer["modules"])


def _loaded(modules, names):
    return sorted(name for name in names if name in modules)


@pytest.mark.parametrize("argv", [None, ["--help"], ["--version"]], ids=["import", "help", "version"])
def test_the_cli_and_its_help_load_no_numba_and_no_heavy_library(argv):
    code, modules = _modules(argv)
    assert code == 0
    assert _loaded(modules, HEAVY + ("numba", "scipy", "numpy", "concurrent.futures.process")) == []


def test_a_verbs_help_loads_no_heavy_library():
    """`sweep --help` lists the policies (their modules, so numba), nothing heavier."""
    code, modules = _modules(["sweep", "--help"])
    assert code == 0
    assert _loaded(modules, HEAVY) == []


def test_a_sweep_without_a_file_imports_no_scipy_stats_pyarrow_or_pandas(tmp_path):
    """Its summary's intervals come from `fastsnake.snake.quantiles`. Interpreted (numba's JIT off),
    so that the test compiles nothing: the modules fastsnake imports are the same either way."""
    argv = ["sweep", "--policy", "cycle", "--size", "6", "--games", "20", "--threads", "1", "--json"]
    code, modules = _modules(argv, NUMBA_DISABLE_JIT="1")
    assert code == 0
    assert "fastsnake.snake.intervals" in modules  # the summary's intervals were computed
    assert _loaded(modules, HEAVY + ("tqdm",)) == []  # no progress bar off a terminal: not even imported


BLAS_CHILD = """
import json, sys
import numpy as np
import fastsnake.snake.engine  # configures numba for our kernels (fastsnake._numba_cache)
from numba import njit

@njit
def plain(a):
    return a.sum()

@njit
def correlate(a, b):
    return np.correlate(a, b)  # numba computes this inner product with BLAS when it has it

x = np.arange(5.0)
plain(x)
after_a_kernel = "scipy.linalg" in sys.modules
got = [float(v) for v in correlate(x, x[:2])]
print(json.dumps({"after_a_kernel": after_a_kernel, "got": got, "after_blas": "scipy.linalg" in sys.modules}))
"""


def test_a_kernel_does_not_import_scipy_linalg_until_one_uses_blas(tmp_path):
    """numba's arraymath imports scipy.linalg (about 0.3 CPU-s) to probe for BLAS as any first kernel
    loads; `fastsnake._numba_cache.defer_blas_probe` defers that to the first kernel that uses BLAS,
    which still gets it."""
    proc = subprocess.run([sys.executable, "-c", BLAS_CHILD], capture_output=True, text=True, cwd=REPO, timeout=600,
                          env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout.splitlines()[-1])
    assert answer["after_a_kernel"] is False
    assert answer["got"] == [float(v) for v in __import__("numpy").correlate(range(5), range(2))]
    assert answer["after_blas"] is True  # BLAS was used, through scipy, as numba does without us
