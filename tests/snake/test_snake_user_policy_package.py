"""A user's whole path, as the docs tell it: the example policy package pip-installed into a fresh
venv, found through its entry point, swept on 1 and 2 threads and on a local dask cluster (the same
rows), a game re-created from the sweep, checked and exported by the viewer."""

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

pa_parquet = pytest.importorskip("pyarrow.parquet")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fastsnake-zigzag"
ROWS = ("game", "seed", "outcome", "moves", "apples", "length")


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory):
    """The python of a new venv holding only the example package (installed by pip, not editable);
    fastsnake and its dependencies are this environment's, seen through a .pth file."""
    root = tmp_path_factory.mktemp("user-venv")
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True, timeout=300)
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    outer = [p for p in site.getsitepackages() if os.path.isdir(p)]
    (Path(purelib) / "outer_environment.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in outer))
    package = root / "fastsnake-zigzag"
    shutil.copytree(EXAMPLE, package)
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(package)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return python


def _fastsnake(python, *argv, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.setdefault("SDL_VIDEODRIVER", "dummy")
    done = subprocess.run([str(python), "-m", "fastsnake", *argv], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout) if "--json" in argv else done.stdout


def _rows(table):
    table = table.sort_by("game")
    return {c: table.column(c).to_pylist() for c in ROWS}


# A venv, a pip install, a dask cluster: about 20-30 s, in the quick suite so that CI walks the path.
def test_the_example_package_from_install_to_viewer(fresh_python, tmp_path):
    run = lambda *argv: _fastsnake(fresh_python, *argv, cwd=tmp_path)  # noqa: E731
    listed = run("policies", "--json")
    assert listed["zigzag"]["origin"] == "fastsnake-zigzag" and listed["zigzag"]["kind"] == "numba"
    sweep = ("sweep", "--policy", "zigzag", "--size", "6x4", "--games", "1_200", "--seed", "5")
    one = run(*sweep, "--threads", "1", "--out", "one.parquet", "--json")
    two = run(*sweep, "--threads", "2", "--out", "two.parquet", "--json")
    cluster = run(*sweep, "--cluster", "local:2", "--chunk-size", "300", "--out", "cluster", "--json")
    rows = _rows(pa_parquet.read_table(tmp_path / "one.parquet"))
    assert _rows(pa_parquet.read_table(tmp_path / "two.parquet")) == rows
    import pyarrow.dataset as ds

    assert _rows(ds.dataset(str(tmp_path / "cluster"), format="parquet").to_table()) == rows
    assert one["moves_mean"] == two["moves_mean"] == cluster["moves_mean"] and one["win_rate"] == 1.0
    game = run("replay", "--from", "one.parquet", "--pick", "longest", "--out", "longest.npz", "--json")
    assert game["moves"] == max(rows["moves"]) and game["policy"] == "zigzag"
    assert run("replay", "--check", "longest.npz", "--json")["valid"] is True
    exported = run("view", "longest.npz", "--export", "longest.gif", "--every", "20", "--json")
    assert (tmp_path / "longest.gif").stat().st_size > 0 and exported["policy"] == "zigzag"
