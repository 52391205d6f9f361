"""The study layer is cheap to import: scipy.stats and pyarrow load only where a test or a file needs them."""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_study_layer_and_describing_loads_no_scipy_or_pyarrow():
    code = ("import json, sys; import fastsnake.study as S; S.describe([1, 2, 3, 4, 5, 6]); "
            "S.to_csv(S.Table('t', ['a'], [{'a': 1}])); print(json.dumps(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    modules = set(json.loads(proc.stdout))
    assert "fastsnake.study.stats" in modules
    assert not {"scipy.stats", "scipy.special", "pyarrow", "pandas"} & modules


def test_the_writers_imports_behind_are_there_once_joined():
    """`import_writer_behind`: pyarrow, its Parquet module and (installed here) pandas, which pyarrow
    imports at its first conversion, all loaded on the thread, none by the caller."""
    code = ("import json, sys; from fastsnake.study.rows import import_writer_behind; "
            "before = {m for m in ('pyarrow', 'pyarrow.parquet', 'pandas') if m in sys.modules}; "
            "t = import_writer_behind(); t.join(120); "
            "print(json.dumps([sorted(before), t.daemon, t.is_alive(), sorted(sys.modules)]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    before, daemon, alive, modules = json.loads(proc.stdout)
    assert before == [] and daemon and not alive
    assert {"pyarrow", "pyarrow.parquet", "pandas"} <= set(modules)
