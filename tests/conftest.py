"""Test-wide set-up: compiled kernels cached inside the repo's ignored .cache folder."""

import os
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
# Set before anything imports numba; fastsnake adds a source-hash subfolder itself.
os.environ.setdefault("NUMBA_CACHE_DIR", str(_REPO / ".cache" / "numba"))
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


# Tests that share kernels taking about a minute each to compile cold run on one pytest-xdist worker:
# on two, both would compile them at once (the disk cache only helps a worker that starts later).
# Keys: a test file, or one test's node id; values: the group. Under -n (xdist's default "load"
# distribution) every other test is still handed out one at a time; groups go first (largest first).
# Not xdist's own `--dist loadgroup`: with pytest 9.2 its xdist_group marks silently stop grouping
# (pytest-xdist issue #1386), so the grouping lives here, where the controller can see it.
SHARED_KERNEL_GROUPS = {
    "tests/snake/test_snake_agent_cell_dhcr.py": "celltree",
    "tests/snake/test_snake_agent_cell_times.py": "celltree",
    "tests/snake/test_snake_agent_grove.py": "celltree",
    "tests/snake/test_snake_celltree_games.py": "celltree",
    "tests/snake/test_snake_policy_options.py::test_files_from_before_the_declarations_still_replay": "celltree",
}


def shared_kernel_group(nodeid: str) -> str | None:
    """The SHARED_KERNEL_GROUPS group of a test's node id, or None."""
    for key, group in SHARED_KERNEL_GROUPS.items():
        if nodeid == key or nodeid.startswith((key + "::", key + "[")):
            return group
    return None


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pragma: no cover - pytest-xdist is in the dev extra
    pass
else:
    class SharedKernelScheduling(LoadScopeScheduling):
        """xdist's scope scheduler with a scope per SHARED_KERNEL_GROUPS group and one per other test."""

        def _split_scope(self, nodeid: str) -> str:
            group = shared_kernel_group(nodeid)
            return f"group:{group}" if group else nodeid

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(config, log):
        if config.getoption("dist") != "load":  # a distribution asked for by name is kept
            return None
        return SharedKernelScheduling(config, log)
