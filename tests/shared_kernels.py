"""Which tests share kernels slow to compile cold: tests/conftest.py runs each group on one xdist worker."""

# Tests that share kernels taking about a minute each to compile cold run on one pytest-xdist worker:
# on two, both would compile them at once (the disk cache only helps a worker that starts later).
# Keys: a test file, or one test's node id; values: the group. Under -n (xdist's default "load"
# distribution) every other test file is one unit too, for the same reason at a smaller scale: handed
# out test by test, two tests of one file (tests/snake/test_snake_compare_stats.py) compiled snake-ai's
# sweep kernel on both workers at once. Units go out largest first (xdist's scope scheduler).
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


def scheduling_unit(nodeid: str) -> str:
    """What one xdist worker runs whole: the test's group, else its file."""
    group = shared_kernel_group(nodeid)
    return f"group:{group}" if group else nodeid.split("::", 1)[0]
