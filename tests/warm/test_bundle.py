"""Kernel bundles (`fastsnake.warm.bundle`, ``fastsnake warm --export / --import``): a kernel exported from
one cache and imported into an empty one loads there without compiling (checked in a fresh process by
numba's own cache statistics); every bundle that cannot be used here is refused whole, in one line,
with nothing written.

The kernel is `snake.rng.game_seed`, which the suite compiles anyway (a few tenths of a second cold):
its cache folder is copied from the tests' cache into a scratch cache, the only one exported."""

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

import fastsnake
from fastsnake._numba_cache import MANIFEST, fingerprint_folder, import_reach, write_manifest
from fastsnake.cli import main
from fastsnake.warm import bundle as B
from fastsnake.warm.bundle import BundleError, export_bundle, import_bundle

PROBE = """
    import json
    import numpy as np
    import fastsnake
    from fastsnake.snake.rng import game_seed
    value = int(game_seed(np.uint64(1), np.uint64(2)))
    print(json.dumps([value, sum(game_seed.stats.cache_hits.values()), sum(game_seed.stats.cache_misses.values()),
                      fastsnake.__file__]))
"""


def _probe(cache: Path, install: Path | None = None) -> list:
    """[game_seed(1, 2), cache hits, cache misses] in a fresh process whose numba cache is `cache` (and
    whose fastsnake is the copy in folder `install`, if given)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "PYTHONPATH")}
    env["NUMBA_CACHE_DIR"] = str(cache)
    if install is not None:
        env["PYTHONPATH"] = str(install)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(PROBE)], env=env, capture_output=True, text=True,
                          timeout=300, cwd=install or cache)
    assert proc.returncode == 0, proc.stderr
    *found, package = json.loads(proc.stdout.strip().splitlines()[-1])
    assert install is None or Path(package).is_relative_to(install)
    return found


@pytest.fixture(scope="module")
def source_cache(tmp_path_factory):
    """A scratch cache holding game_seed's folder (compiled, or loaded, by this process first)."""
    from fastsnake.snake.rng import game_seed

    expected = int(game_seed(np.uint64(1), np.uint64(2)))
    folder = Path(game_seed._cache._cache_file._index_path).resolve()
    while not (folder / MANIFEST).exists():
        folder = folder.parent
    root = tmp_path_factory.mktemp("source-cache")
    shutil.copytree(folder, root / folder.name)
    return root, expected


@pytest.fixture(scope="module")
def bundle_file(source_cache, tmp_path_factory):
    path = tmp_path_factory.mktemp("bundle") / "rng.kernels"
    made = export_bundle(path, root=source_cache[0])
    assert made["kernels"] >= 1 and made["folders"] == 1 and made["bytes"] == path.stat().st_size
    return path


def _members(path: Path) -> dict:
    with zipfile.ZipFile(path) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def _write(path: Path, members: dict) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _doctored(src: Path, dst: Path, manifest=None, members=None) -> Path:
    """A copy of bundle `src` with `manifest(m)` applied to its manifest and `members(d)` to its members
    (name -> bytes), the manifest's checksums left as they were unless `manifest` changes them."""
    found = _members(src)
    man = json.loads(found.pop(B.MANIFEST_MEMBER))
    if members is not None:
        members(found)
    if manifest is not None:
        manifest(man)
    found[B.MANIFEST_MEMBER] = json.dumps(man).encode()
    return _write(dst, found)


def _retargeted(src: Path, dst: Path, cpu) -> Path:
    """Bundle `src` as if compiled for magic tuple `cpu`: its indexes' keys and manifest say so, checksums
    made to match (what a bundle built with NUMBA_CPU_NAME=generic looks like)."""
    found = _members(src)
    man = json.loads(found.pop(B.MANIFEST_MEMBER))
    for name in list(found):
        if name.endswith(".nbi"):
            _, stamp, overloads = B.parse_index(found[name])
            found[name] = B.index_bytes(stamp, {(k[0], tuple(cpu), k[2]): v for k, v in overloads.items()})
            rel = name[len(B.KERNEL_PREFIX):]
            man["files"][rel] = {"sha256": hashlib.sha256(found[name]).hexdigest(), "size": len(found[name])}
    man["cpu"] = dict(zip(("triple", "name", "features"), cpu, strict=True))
    found[B.MANIFEST_MEMBER] = json.dumps(man).encode()
    return _write(dst, found)


def _files(root: Path) -> list:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) if root.exists() else []


def test_an_imported_kernel_loads_without_compiling(bundle_file, source_cache, tmp_path):
    empty = tmp_path / "cache"
    got = import_bundle(bundle_file, root=empty)
    assert got["kernels"] >= 1 and got["present"] == 0 and not got["retargeted"]
    # Another machine: the same sources installed elsewhere, with other mtimes; loaded, nothing compiled.
    install = tmp_path / "elsewhere"
    shutil.copytree(Path(fastsnake.__file__).parent, install / "fastsnake",
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert _probe(empty, install) == [source_cache[1], 1, 0]
    again = import_bundle(bundle_file, root=empty)  # a second import adds nothing, rewrites nothing
    assert (again["kernels"], again["present"], again["files"]) == (0, got["kernels"], 0)
    # The whole-file-or-nothing writer leaves no temporary file behind.
    assert not [f for f in _files(empty) if "partial" in f]


def test_kernels_of_a_compatible_cpu_are_filed_for_this_one(bundle_file, source_cache, tmp_path):
    # A generic build (baseline features only) runs on any CPU of its triple: numba keys kernels by the
    # exact CPU, so an import files them under this CPU's key, or numba would never find them.
    host = B.host_cpu()
    generic = _retargeted(bundle_file, tmp_path / "generic.kernels", (host[0], "generic", ""))
    native_key = tmp_path / "native-cache"
    import_bundle(bundle_file, root=native_key)
    # An entry of the same kernel under another code hash: kept beside the one already there.
    other = _retargeted(bundle_file, tmp_path / "other.kernels", (host[0], "generic", ""))
    found = _members(other)
    for name in list(found):
        if name.endswith(".nbi"):
            _, stamp, overloads = B.parse_index(found[name])
            found[name] = B.index_bytes(stamp, {(k[0], k[1], ("0" * 64, "1" * 64)): v for k, v in overloads.items()})
    man = json.loads(found.pop(B.MANIFEST_MEMBER))
    for name, data in found.items():
        man["files"][name[len(B.KERNEL_PREFIX):]] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    found[B.MANIFEST_MEMBER] = json.dumps(man).encode()
    _write(other, found)
    cache = tmp_path / "cache"
    got = import_bundle(generic, root=cache)
    assert got["retargeted"] and got["bundle_cpu"] == "generic" and got["cpu"] == host[1] and got["kernels"] >= 1
    assert import_bundle(generic, root=native_key)["present"] == got["kernels"]  # the same key as a native one
    merged = import_bundle(other, root=cache)
    assert merged["kernels"] == got["kernels"]
    entries = 0
    for index in cache.rglob("*.nbi"):
        _, _, overloads = B.parse_index(index.read_bytes())
        assert len(set(overloads.values())) == len(overloads) and all(key[1] == host for key in overloads)
        entries += len(overloads)
    assert entries == 2 * got["kernels"]
    assert _probe(cache) == [source_cache[1], 1, 0]


def _set(path, value):
    def edit(man):
        *keys, last = path
        for key in keys:
            man = man[key]
        man[last] = value
    return edit


@pytest.mark.parametrize("edit, words", [
    (_set(["fastsnake"], "0.0.1"), "holds kernels of fastsnake 0.0.1; this is fastsnake"),
    (_set(["python"], "CPython 3.99"), "holds kernels of Python CPython 3.99"),
    (_set(["numba"], "0.1.0"), "was compiled by numba 0.1.0; this is numba"),
    (_set(["llvmlite"], "0.1.0"), "was compiled by llvmlite 0.1.0"),
    (_set(["cpu", "triple"], "aarch64-unknown-linux-gnu"), "for aarch64-unknown-linux-gnu, and this machine is"),
    (_set(["cpu", "features"], "+sse2,+quantum-entangler"), "features this CPU"),
    (_set(["format_version"], 99), "bundle format 99"),
    (_set(["files"], []), "manifest's files field(s) are malformed"),
])
def test_a_bundle_from_elsewhere_is_refused_naming_what_differs(bundle_file, tmp_path, capsys, monkeypatch, edit,
                                                                words):
    bad = _doctored(bundle_file, tmp_path / "bad.kernels", manifest=edit)
    cache = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    assert main(["warm", "--import", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastsnake: error: bundle") and "bad.kernels" in err and words in err
    assert len(err.strip().splitlines()) == 1
    assert _files(cache) == []


def _source_differs(man):
    folder = next(iter(man["folders"].values()))
    folder["modules"]["fastsnake.snake.rng"] = "0" * 32


def _tamper(members):
    name = next(n for n in members if n.endswith(".nbc"))
    data = bytearray(members[name])
    data[len(data) // 2] ^= 0xFF
    members[name] = bytes(data)


def _hide(members):
    members["kernels/extra.py"] = b"print('hello')"


def _drop(members):
    del members[next(n for n in members if n.endswith(".nbc"))]


def _escape(members):
    members["kernels/../../escaped.nbc"] = b"x"


@pytest.mark.parametrize("manifest, members, words", [
    (_source_differs, None, "was compiled from another fastsnake/snake/rng.py than this install's"),
    (None, _tamper, "does not match its checksum"),
    (None, _hide, "is not in its manifest"),
    (None, _drop, "is missing"),
    (None, _escape, "is not in its manifest"),
])
def test_a_damaged_or_foreign_bundle_writes_nothing(bundle_file, tmp_path, manifest, members, words):
    bad = _doctored(bundle_file, tmp_path / "bad.kernels", manifest=manifest, members=members)
    cache = tmp_path / "cache"
    with pytest.raises(BundleError) as caught:
        import_bundle(bad, root=cache)
    assert words in str(caught.value)
    assert _files(cache) == [] and not (tmp_path / "escaped.nbc").exists()


@pytest.mark.parametrize("cut", [0.5, 0.98])
def test_a_truncated_bundle_exits_2_in_one_line(bundle_file, tmp_path, capsys, monkeypatch, cut):
    data = bundle_file.read_bytes()
    short = tmp_path / "short.kernels"
    short.write_bytes(data[: int(len(data) * cut)])
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["warm", "--import", str(short)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fastsnake: error: bundle") and "short.kernels" in err and len(err.splitlines()) == 1
    assert _files(tmp_path / "cache") == []


def test_the_verb_exports_and_imports_with_json(source_cache, tmp_path, capsys, monkeypatch):
    out = tmp_path / "all.kernels"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(source_cache[0]))
    assert main(["warm", "--export", str(out), "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)["exported"]
    assert exported["path"] == str(out) and exported["kernels"] >= 1 and out.is_file()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["warm", "--import", str(out), "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)["imported"]
    assert imported["kernels"] == exported["kernels"] and imported["cache"] == str(tmp_path / "cache")
    assert main(["warm", "--import", str(out), "--export", str(tmp_path / "x")]) == 2
    assert "not both" in capsys.readouterr().err


def test_an_empty_cache_exports_nothing_and_leaves_no_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "empty"))
    target = tmp_path / "out" / "k.kernels"
    target.parent.mkdir()
    assert main(["warm", "--export", str(target)]) == 2
    assert "holds no compiled kernels" in capsys.readouterr().err
    assert list(target.parent.iterdir()) == []
    assert main(["warm", "--export", str(tmp_path / "no-such-folder" / "k.kernels")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_part_exports_the_folders_within_its_reach(tmp_path):
    def folder(module):
        modules = import_reach(frozenset({module}))
        path = tmp_path / fingerprint_folder(module, modules)
        (path / "stem").mkdir(parents=True)
        (path / "stem" / "k.nbi").write_bytes(b"")
        write_manifest(path, modules)
        return path

    engine, board = folder("fastsnake.snake.engine"), folder("fastsnake.tour.board")
    (tmp_path / "snake.engine-0123456789abcdef").mkdir()  # stale: never exported
    assert B.select_folders(tmp_path) == sorted([engine, board])
    phc = folder("fastsnake.snake.policies.phc")
    assert B.select_folders(tmp_path, ["policy:cycle"]) == [engine]  # neither another policy's nor the tours'
    assert B.select_folders(tmp_path, ["policy:phc"]) == sorted([engine, phc])
    assert board in B.select_folders(tmp_path, ["tour"])


def test_cpu_compatibility_is_a_subset_of_features():
    host = ("x86_64-unknown-linux-gnu", "znver3", "+avx,+avx2,-avx512f,+sse2")
    assert B.cpu_problem(host, host) is None
    assert B.cpu_problem(("x86_64-unknown-linux-gnu", "generic", ""), host) is None
    assert B.cpu_problem(("x86_64-unknown-linux-gnu", "haswell", "+avx,+sse2,-fma"), host) is None
    assert "avx512f" in B.cpu_problem(("x86_64-unknown-linux-gnu", "skx", "+avx512f,+avx"), host)
    assert "aarch64" in B.cpu_problem(("aarch64-unknown-linux-gnu", "generic", ""), host)


def test_a_bundle_read_from_bytes_is_the_file(bundle_file):
    assert B.read_manifest(bundle_file.read_bytes()) == B.read_manifest(bundle_file)
    with pytest.raises(BundleError, match="not a whole zip file"):
        B.read_manifest(io.BytesIO(b"no zip").getvalue())


def _on_a_worker() -> list:
    """[game_seed(1, 2), cache hits, cache misses] in the worker process running it (shipped by value)."""
    from fastsnake.snake.rng import game_seed

    value = int(game_seed(np.uint64(1), np.uint64(2)))
    return [value, sum(game_seed.stats.cache_hits.values()), sum(game_seed.stats.cache_misses.values())]


@pytest.mark.slow
def test_a_cluster_s_workers_load_the_client_s_kernels(source_cache, tmp_path):
    import cloudpickle
    from distributed import Client, LocalCluster

    from fastsnake.warm.ship import ship_kernels

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    worker_cache = tmp_path / "worker-cache"
    env = {"NUMBA_CACHE_DIR": str(worker_cache), "NUMBA_OPT": os.environ.get("NUMBA_OPT", "3")}
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, env=env) as cluster, \
            Client(cluster) as client:
        shipped = ship_kernels(client, root=source_cache[0])
        assert shipped["kernels"] >= 1 and len(shipped["workers"]) == 1
        (status,) = shipped["workers"].values()
        assert status["status"] == "installed" and status["kernels"] == shipped["kernels"], status
        assert client.submit(_on_a_worker, pure=False).result() == [source_cache[1], 1, 0]
        cluster.scale(2)  # a worker joining later gets them too
        client.wait_for_workers(2)
        results = client.run(_on_a_worker)
    assert sorted(results.values()) == [[source_cache[1], 1, 0]] * 2
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def _sweep_kernel_stats(policy: str) -> list:
    """[cache hits, cache misses] of `policy`'s sweep kernel in the worker process running it."""
    from fastsnake.snake.policies import get_policy

    kernel = get_policy(policy).sweep_kernel
    return [sum(kernel.stats.cache_hits.values()), sum(kernel.stats.cache_misses.values())]


@pytest.mark.slow
def test_a_sweep_on_a_cluster_address_ships_its_policy_s_kernels(tmp_path, capsys):
    """The wiring: `--cluster tcp://...` (a scheduler this test starts, whose worker has an empty cache of
    its own) ships the client's kernels of the sweep's policy, and the worker's games compile nothing."""
    from distributed import LocalCluster

    main(["sweep", "--policy", "greedy", "--size", "6", "--games", "20", "--json"])  # the client's cache has them
    capsys.readouterr()
    worker_cache = tmp_path / "worker-cache"
    env = {"NUMBA_CACHE_DIR": str(worker_cache), "NUMBA_OPT": os.environ.get("NUMBA_OPT", "3"),
           "FASTSNAKE_QUIET_COMPILE": ""}
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, env=env) as cluster:
        code = main(["sweep", "--policy", "greedy", "--size", "6", "--games", "20", "--chunk-size", "10",
                     "--out", str(tmp_path / "sweep"), "--cluster", cluster.scheduler_address, "--json"])
        err = capsys.readouterr().err
        assert code == 0, err
        assert "cluster: shipped" in err and "worker(s)" in err, err
        assert list(worker_cache.rglob("*.nbc"))  # installed in the worker's own cache
        import cloudpickle
        from distributed import Client

        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        try:
            with Client(cluster) as client:
                (stats,) = client.run(_sweep_kernel_stats, "greedy").values()
        finally:
            cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert stats[0] >= 1 and stats[1] == 0, stats  # the worker's sweep kernel loaded, never compiled


@pytest.mark.slow
def test_an_install_with_an_edited_source_refuses_the_bundle(bundle_file, tmp_path):
    """The same version with one module's code edited (a patched install): refused, the module named."""
    install = tmp_path / "patched"
    shutil.copytree(Path(fastsnake.__file__).parent, install / "fastsnake",
                    ignore=shutil.ignore_patterns("__pycache__"))
    rng = install / "fastsnake" / "snake" / "rng.py"
    rng.write_text(rng.read_text().replace("RNG_STATE, RNG_SEED = 0, 1", "RNG_STATE, RNG_SEED = 0, 1\n_PATCHED = 1"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(install), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "fastsnake", "warm", "--import", str(bundle_file)], env=env,
                          cwd=install, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (f"fastsnake: error: bundle {str(bundle_file)!r} was compiled from another "
                                   f"fastsnake/snake/rng.py than this install's: export it from the same sources")
    # Nothing of the bundle's (the process keeps only its memo of the sources' import statements).
    assert [f for f in _files(tmp_path / "cache") if f != "import-statements.json"] == []
