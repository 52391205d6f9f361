"""Test-wide set-up: compiled kernels cached inside the repo's ignored .cache folder."""

import os
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
# Set before anything imports numba; fastsnake adds a source-hash subfolder itself.
os.environ.setdefault("NUMBA_CACHE_DIR", str(_REPO / ".cache" / "numba"))
# The tests compile at LLVM optimisation level 1, not numba's default 3: a quarter less compile CPU
# (cycle 12.5 -> 9.2 CPU-s, cell 57 -> 40; level 0 leaves kernels numba cannot cache) and games as
# fast at the tests' sizes. Kernels compiled at another level than 3 are cached apart
# (fastsnake/_numba_cache.py, `opt_level_folder`), so they never load into a user's run or the speed
# guard's. Subprocesses inherit it, and share the tests' kernels.
os.environ.setdefault("NUMBA_OPT", "1")
# The tests compile what they need: a `fastsnake` subprocess must not turn interpreted and start a
# background compile fighting them for the cores (tests/warm/test_tier.py asks for the tier itself).
os.environ.setdefault("FASTSNAKE_TIER", "compiled")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

# No test may depend on timing: a cold numba compile inside a hypothesis example takes seconds,
# so no example has a deadline, whatever a test's own @settings says.
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

settings.register_profile("fastsnake", deadline=None)
settings.load_profile("fastsnake")
# The compile notice goes to stderr of in-process CLI calls, whose stderr some tests read whole;
# tests/warm checks the notice in subprocesses of its own.
os.environ.setdefault("FASTSNAKE_QUIET_COMPILE", "1")


# Tests that share kernels slow to compile cold run on one pytest-xdist worker (tests/shared_kernels.py).
from shared_kernels import scheduling_unit  # noqa: E402

try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pragma: no cover - pytest-xdist is in the dev extra
    pass
else:
    class SharedKernelScheduling(LoadScopeScheduling):
        """xdist's scope scheduler with a scope per SHARED_KERNEL_GROUPS group and one per other test file."""

        def _split_scope(self, nodeid: str) -> str:
            return scheduling_unit(nodeid)

    @pytest.hookimpl(tryfirst=True, optionalhook=True)  # optional: `-p no:xdist` leaves the hook unknown
    def pytest_xdist_make_scheduler(config, log):
        if config.getoption("dist") != "load":  # a distribution asked for by name is kept
            return None
        return SharedKernelScheduling(config, log)


# A plain run (`pytest tests/x.py`, no -m) runs the quick tests: the tests marked slow are deselected,
# so one file's edit->test loop is seconds. `--slow` adds them, `-m slow` runs them alone, any -m
# expression is obeyed as written (CI: -m "not slow"), and a test named by its node id (`file::test`)
# always runs.
def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the tests marked slow (a run without -m deselects them)")


def slow_deselected(config) -> bool:
    """Whether this run leaves the slow tests out: no -m expression, no --slow, no test named by node id."""
    return not (config.getoption("--slow") or config.option.markexpr
                or any("::" in str(arg) for arg in config.args))


def pytest_collection_modifyitems(config, items):
    if not slow_deselected(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]
        config._fastsnake_slow_left_out = len(slow)


def pytest_terminal_summary(terminalreporter, config):
    left_out = getattr(config, "_fastsnake_slow_left_out", 0)
    if left_out:
        terminalreporter.write_line(f"{left_out} slow test(s) not run: add --slow (or -m slow for them alone)")
