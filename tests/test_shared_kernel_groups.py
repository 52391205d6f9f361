"""The pytest-xdist groups of tests that share slow-to-compile kernels (tests/shared_kernels.py) name real tests."""

import re
from pathlib import Path

from shared_kernels import SHARED_KERNEL_GROUPS, scheduling_unit, shared_kernel_group

REPO = Path(__file__).resolve().parents[1]


def test_every_key_names_a_test_file_or_a_test_in_one():
    for key in SHARED_KERNEL_GROUPS:
        path, _, test = key.partition("::")
        assert (REPO / path).is_file(), f"{path} is gone: update SHARED_KERNEL_GROUPS in tests/shared_kernels.py"
        if test:
            source = (REPO / path).read_text(encoding="utf-8")
            assert re.search(rf"^def {re.escape(test)}\(", source, flags=re.M), f"{key} is gone"


def test_a_key_groups_its_tests_and_nothing_else():
    grove = "tests/snake/test_snake_agent_grove.py"
    assert shared_kernel_group(f"{grove}::test_zero_losses[10-10000-1-follow]") == "celltree"
    assert shared_kernel_group(f"{grove}x.py::test_a") is None  # a file whose name merely starts the same
    options = "tests/snake/test_snake_policy_options.py"
    assert shared_kernel_group(f"{options}::test_files_from_before_the_declarations_still_replay") == "celltree"
    assert shared_kernel_group(f"{options}::test_bad_options_are_refused") is None


def test_a_group_or_else_a_file_is_what_one_worker_runs():
    assert scheduling_unit("tests/snake/test_snake_celltree_games.py::test_same_games[cell-10-10-1-follow-6]") == \
        "group:celltree"
    assert scheduling_unit("tests/snake/test_snake_compare_stats.py::test_x[a::b]") == \
        "tests/snake/test_snake_compare_stats.py"
