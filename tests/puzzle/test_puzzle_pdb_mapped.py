"""Sparse pattern-database sets kept in the cache and memory-mapped on load (the 6-6-6-6 set
on 5x5 takes this path by size; here `mapped=True` sends 3x3 sets down the same code): the
mapped tables equal the ones expanded in memory, a damaged, truncated or stale set file is
detected and rebuilt from the compact files, and a set file is written whole or not at all."""

import json
import os
import time

import numpy as np
import pytest
from pdb_checks import assert_contexts_agree
from puzzle_naive import bfs_distances

from fastsnake.puzzle import pdb as P
from fastsnake.puzzle import pdb_store as S
from fastsnake.puzzle import solve
from fastsnake.puzzle.solver import heuristic_context

GOAL = np.arange(9, dtype=np.int8)
PART = "1,2,3,4/5,6,7,8"


def _set_file(tmp_path):
    files = sorted((tmp_path / "pdb").glob("pdbset-*.sparse"))
    assert len(files) == 1
    return files[0]


def _mapped(messages=None):
    return P.pattern_databases(3, 3, GOAL, PART, mapped=True,
                               progress=None if messages is None else messages.append)


def _changed_later(path, change):
    """Apply `change` to the file a clock tick after it was stamped (a change in the same tick
    of a coarse file-system clock keeps mtime and ctime: the stamp could not tell)."""
    time.sleep(0.05)
    change(path)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    built = P.pattern_databases(3, 3, GOAL, PART, mapped=False)  # builds the compact files only
    assert [i["source"] for i in built.infos] == ["built", "built"] and built.mapped is None
    return tmp_path


def test_mapped_tables_equal_the_ones_expanded_in_memory(cache):
    messages = []
    first = _mapped(messages)  # writes the set file from the checked compact files
    assert [i["source"] for i in first.infos] == ["mapped", "mapped"]
    assert [i["layout"] for i in first.infos] == ["sparse", "sparse"]
    assert first.mapped["written"] and any("expanding 2 cached table(s)" in m for m in messages)
    second = _mapped()
    assert not second.mapped["written"] and second.mapped["checked"] == "stamp"
    memory = P.pattern_databases(3, 3, GOAL, PART, mapped=False)
    assert [i["source"] for i in memory.infos] == ["cache", "cache"] and memory.mapped is None
    for pset in (first, second):
        assert not pset.data.flags.writeable  # mapped read-only
        assert np.array_equal(pset.data, memory.data)
        for a, b in zip(pset.tables, memory.tables, strict=True):
            assert np.array_equal(a, b)
    path = _set_file(cache)
    assert path.stat().st_size == S.SET_HEADER_BYTES + len(memory.data)
    header = json.loads(path.read_bytes()[len(S.SET_MAGIC):].split(b"\n", 1)[0])
    assert header["sizes"] == [9 ** 4, 9 ** 4] and header["layout"] == "sparse"
    assert [k["cells"] for k in header["keys"]] == memory.groups


def test_searches_on_mapped_tables_match_in_memory_ones(cache):
    dist = bfs_distances(GOAL, 3, 3)
    _mapped()
    mapped_ctx = heuristic_context("pdb", 3, 3, GOAL, PART, mapped=True)
    memory_ctx = heuristic_context("pdb", 3, 3, GOAL, PART, mapped=False)
    assert mapped_ctx[1]["pdb"]["mapped"]["file"].endswith(".sparse")
    assert [t["source"] for t in mapped_ctx[1]["pdb"]["tables"]] == ["mapped", "mapped"]
    assert "mapped" not in memory_ctx[1]["pdb"]
    assert_contexts_agree(mapped_ctx, memory_ctx, dist, GOAL, seed=7, values=200, searches=10)


def _flip_data_byte(path):
    with open(path, "r+b") as fh:  # in place: same inode and size
        fh.seek(S.SET_HEADER_BYTES + 1234)
        byte = fh.read(1)
        fh.seek(S.SET_HEADER_BYTES + 1234)
        fh.write(bytes([byte[0] ^ 0x5A]))


def _truncate(path):
    os.truncate(path, path.stat().st_size - 1)


def _garble_header(path):
    raw = bytearray(path.read_bytes())
    raw[len(S.SET_MAGIC) + 3] ^= 0xFF
    path.write_bytes(bytes(raw))


def _drop_the_data(path):
    path.write_bytes(path.read_bytes()[:S.SET_HEADER_BYTES])


@pytest.mark.parametrize("damage, says", [(_flip_data_byte, "checksum"), (_truncate, "truncated"),
                                          (_garble_header, "header"), (_drop_the_data, "truncated")])
def test_a_damaged_set_file_is_detected_and_rebuilt(cache, damage, says):
    good = P.pattern_databases(3, 3, GOAL, PART, mapped=False).data.copy()
    path = _mapped().mapped["file"]
    assert _mapped().mapped["checked"] == "stamp"  # checked once, then trusted this boot
    _changed_later(_set_file(cache), damage)
    messages = []
    again = _mapped(messages)
    assert any(says in m and "rebuilding the file" in m for m in messages), messages
    assert again.mapped["written"] and again.mapped["file"] == path
    assert np.array_equal(again.data, good)
    assert _mapped().mapped["checked"] == "stamp"


def test_the_stamp_vouches_only_for_the_file_it_saw(cache):
    _mapped()
    path = _set_file(cache)
    stamp = json.loads(open(str(path) + S.STAMP_SUFFIX).read())
    assert stamp["blake2b"] == _mapped().mapped["blake2b"] and stamp["size"] == path.stat().st_size
    # Another boot: hashed again (and stamped for this one).
    stamp["boot_id"] = "another-boot"
    with open(str(path) + S.STAMP_SUFFIX, "w") as fh:
        json.dump(stamp, fh)
    assert _mapped().mapped["checked"] == "blake2b"
    assert _mapped().mapped["checked"] == "stamp"
    # No stamp: hashed.
    os.unlink(str(path) + S.STAMP_SUFFIX)
    assert _mapped().mapped["checked"] == "blake2b"
    # Asked to: hashed whatever the stamp says.
    header = json.loads(path.read_bytes()[len(S.SET_MAGIC):].split(b"\n", 1)[0])
    again = S.open_sparse_set(path, header["keys"], header["sizes"], header["compact_blake2b"], recheck=True)
    assert again.checked == "blake2b" and again.header == header


def test_a_set_expanded_from_other_compact_tables_is_rebuilt(cache):
    _mapped()
    path = _set_file(cache)
    raw = path.read_bytes()
    header = json.loads(raw[len(S.SET_MAGIC):].split(b"\n", 1)[0])
    header["compact_blake2b"][1] = "0" * 32  # as if compact table 2 had been rebuilt differently
    head = S.SET_MAGIC + json.dumps(header).encode() + b"\n"
    path.write_bytes(head + bytes(S.SET_HEADER_BYTES - len(head)) + raw[S.SET_HEADER_BYTES:])
    messages = []
    again = _mapped(messages)
    assert any("other compact tables" in m for m in messages) and again.mapped["written"]


def test_a_damaged_compact_file_is_rebuilt_before_any_set_is_written(cache):
    # The set is expanded only from compact tables whose checksum holds.
    compact = sorted((cache / "pdb").glob("pdb-3x3-*.bin"))
    raw = bytearray(compact[0].read_bytes())
    raw[-1] ^= 0xFF
    compact[0].write_bytes(bytes(raw))
    with pytest.warns(RuntimeWarning, match="corrupt or truncated"):
        pset = _mapped()
    assert pset.mapped is None and "built" in [i["source"] for i in pset.infos]
    assert list((cache / "pdb").glob("*.sparse")) == []
    again = _mapped()
    assert again.mapped["written"] and np.array_equal(again.data, pset.data)


def test_a_set_file_is_written_whole_or_not_at_all(cache, monkeypatch):
    import resource

    keys = [P.table_key(3, 3, 0, g) for g in P.parse_partition(PART, 3, 3, GOAL)]
    path = S.set_path(keys)

    def interrupted(data):
        data[:10] = 1
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        S.write_sparse_set(path, keys, [9 ** 4, 9 ** 4], interrupted)
    assert S.write_sparse_set(path, keys, [9 ** 4, 9 ** 4], lambda data: None) is None  # fill gave up
    assert sorted(p.name for p in (cache / "pdb").iterdir() if p.name != S.BUILDS_FILE) == sorted(
        p.name for p in (cache / "pdb").glob("*.bin"))
    # A full disk: the set is expanded in memory instead, with a warning, and no file is left.
    messages = []
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
    try:
        pset = _mapped(messages)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert pset.mapped is None and [i["source"] for i in pset.infos] == ["cache", "cache"]
    assert any("cannot write sparse tables" in m for m in messages)
    assert sorted(p.name for p in (cache / "pdb").iterdir() if p.name != S.BUILDS_FILE) == sorted(
        p.name for p in (cache / "pdb").glob("*.bin"))


def test_the_default_maps_only_big_sets(cache):
    # 3x3 sets are far below MAPPED_MIN_BYTES: expanded in memory unless asked; 6-6-6-6 on
    # 5x5 (four 25**6-byte tables) is above it.
    pset = P.pattern_databases(3, 3, GOAL, PART)
    assert pset.mapped is None and [i["source"] for i in pset.infos] == ["cache", "cache"]
    assert 2 * 9 ** 4 < P.MAPPED_MIN_BYTES <= 4 * 25 ** 6


def test_every_context_gives_the_search_kernel_one_type(cache):
    # Mapped tables are read-only; so are the others (pdb_context), so pdb's IDA* kernel compiles once
    # whichever table source a process uses (and the warm-up covers them all).
    from fastsnake.puzzle.heuristics import REGISTRY, builtin_kernels
    from fastsnake.puzzle.heuristics.pdb import HC_PDB

    _mapped()
    start = np.array([1, 2, 5, 3, 0, 4, 6, 7, 8], np.int8)
    for mapped in (False, True):
        ctx = heuristic_context("pdb", 3, 3, GOAL, PART, mapped=mapped)
        assert not ctx[0][HC_PDB].flags.writeable
        for depth in (0, None):  # no pruning and the default automaton: the same array type
            solve(start, GOAL, rows=3, cols=3, algorithm="idastar", heuristic="pdb", context=ctx, prune_depth=depth)
    assert len(builtin_kernels(REGISTRY["pdb"].impl)[0].signatures) == 1
