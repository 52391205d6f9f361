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
        "5x5-k6": {"cpu_seconds": 431.3, "wall_seconds": 612.0}}


def test_a_build_records_what_it_took(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    assert P.measured_build(2, 3, 2) is None and P.build_cost(2, 3, 2) is None  # nothing published for 2x3
    said = []
    P.group_table(2, 3, 0, [1, 2], progress=said.append)
    found = P.measured_build(2, 3, 2)
    assert found is not None and found["cpu_seconds"] > 0 and found["wall_seconds"] > 0
    assert P.build_cost(2, 3, 2).startswith("the last one built here took ")
    # A damaged record is no measurement.
    (tmp_path / "pdb" / pdb_store.BUILDS_FILE).write_text('{"2x3-k2": {"cpu_seconds": -1, "wall_seconds": 2}}')
    assert P.measured_build(2, 3, 2) is None
