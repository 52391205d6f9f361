"""docs/puzzle-benchmarks.md runs as written, and what DuckDB, polars and pandas compute from the
rows is what `puzzle compare` itself says."""

import json
import math
import re
import runpy
from pathlib import Path

import pytest

from fastsnake.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "puzzle-benchmarks.md"
_BLOCK = re.compile(r"\n```python\n(?P<code>.*?)\n```", re.S)

pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    folder = tmp_path_factory.mktemp("puzzle-benchmarks")
    script = folder / "doc.py"
    script.write_text("\n\n".join(m["code"] for m in _BLOCK.finditer(DOC.read_text())))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        namespace = runpy.run_path(str(script))
        namespace["folder"] = folder
        yield namespace


def _summary(capsys, seed):
    capsys.readouterr()
    assert main(["puzzle", "compare", "--size", "3", "--count", "20", "--seed", str(seed), "--heuristics",
                 "manhattan,linear-conflict", "--quiet", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_pooled_runs_agree_with_the_summaries(doc, capsys):
    assert len(list((doc["folder"] / "runs").glob("*.parquet"))) == 2
    per = doc["per_heuristic"].set_index("heuristic")
    assert per.loc["manhattan", "runs"] == 2 and per.loc["manhattan", "solved"] == 40
    one, two = _summary(capsys, 1), _summary(capsys, 2)
    means = [s["heuristics"]["manhattan"]["nodes_generated"]["mean"] for s in (one, two)]
    assert per.loc["manhattan", "nodes_mean"] == pytest.approx(sum(means) / 2)
    ratios = [s["pairs"][0]["nodes_generated"]["ratio"] for s in (one, two)]
    assert doc["geometric_mean"] == pytest.approx(math.sqrt(ratios[0] * ratios[1]))  # 20 instances each
    assert set(doc["lengths"].tolist()) == {1}
