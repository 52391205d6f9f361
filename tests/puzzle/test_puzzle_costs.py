"""Announced table-build costs are measurements (issue 55: the 5x5 tables were announced as "about 100
CPU-s" and took 450): this machine's last build, recorded beside the tables, else the published range
with the machine it was measured on."""

import json

import numpy as np

from fastsnake.published import MEASURED_ON
from fastsnake.puzzle import pdb as P
from fastsnake.puzzle import pdb_store
from fastsnake.puzzle.solver import pdb_auto


def test_the_5x5_build_is_announced_with_a_measured_range_and_its_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    said = []
    assert pdb_auto(5, 5, np.arange(25), progress=said.append)  # announces; builds nothing itself
    assert len(said) == 1 and "building the 4 missing table(s)" in said[0]
    low, high = P.PUBLISHED_BUILD_CPU[(5, 5, 6)]
    assert f"measured {low}-{high} CPU-s each, 4 to build on {MEASURED_ON}, none built here yet" in said[0]
    assert "about 100 CPU-s" not in said[0]
    # Once a table of that size was built here, its measured cost is what is announced.
    P.record_build(5, 5, 6, 431.26, 612.04)
    said.clear()
    pdb_auto(5, 5, np.arange(25), progress=said.append)
    assert "the last one built here took 431 CPU-s, 612 s wall each, 4 to build" in said[0]
    assert json.loads((tmp_path / "pdb" / pdb_store.BUILDS_FILE).read_text()) == {
        "5x5-k6": {"cpu_seconds": 431.26, "wall_seconds": 612.04}}


def test_a_build_records_what_it_took(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    assert P.measured_build(3, 3, 4) is None and P.build_cost(3, 3, 4) is None  # nothing published for 3x3
    said = []
    P.group_table(3, 3, 0, [1, 2, 3, 4], progress=said.append)
    found = P.measured_build(3, 3, 4)
    assert found is not None and found["cpu_seconds"] > 0 and found["wall_seconds"] > 0
    assert P.build_cost(3, 3, 4).startswith("the last one built here took ")
    # A damaged record is no measurement.
    (tmp_path / "pdb" / pdb_store.BUILDS_FILE).write_text('{"3x3-k4": {"cpu_seconds": -1, "wall_seconds": 2}}')
    assert P.measured_build(3, 3, 4) is None


def test_missing_tables_are_built_one_at_a_time_before_any_is_loaded(tmp_path, monkeypatch):
    """Issue 55: the 5x5 default peaked at 2.19 GB against 2 GiB, every table held while the last was
    built. Now each missing table is built, saved and dropped first: the peak is one table and its BFS,
    then the loaded set (4x4 5-5-5 here: traced numpy memory, the same code path)."""
    import tracemalloc

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path / "warm"))
    P.pattern_databases(4, 4, np.arange(16), "5-5-5")  # the BFS kernels for these groups loaded before tracing
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path / "cold"))
    tracemalloc.start()
    try:
        pset = P.pattern_databases(4, 4, np.arange(16), "5-5-5")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    one_build = P.table_size(16, 5) + P.build_bytes(16, 5)
    assert pset.data.nbytes == 3 * P.table_size(16, 5)
    assert peak < pset.data.nbytes + P.build_bytes(16, 5)  # every table beside a BFS: the old peak
    assert peak < one_build + 2_000_000  # one table and its BFS, and small change


def test_the_5x5_default_fits_its_default_budget_or_says_so_before_it_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("FASTSNAKE_MEMORY_BUDGET", raising=False)
    monkeypatch.setattr(P, "resident_bytes", lambda: 250_000_000)  # a solve's process before the tables
    groups = P.parse_partition(None, 5, 5, np.arange(25))
    assert P.check_budget(5, 5, groups, "6-6-6-6") <= 2 << 30  # the default budget
    # A budget it does not fit: `auto` says so before anything is built, and reduces instead.
    said = []
    assert not pdb_auto(5, 5, np.arange(25), memory_budget="1G", progress=said.append)
    assert len(said) == 1 and "needs 1,907,656,000 bytes" in said[0] and "1,073,741,824" in said[0]
    assert "solving with reduce instead" in said[0]
    assert not list(tmp_path.rglob("pdb-*.bin"))
