"""docs/benchmarks.md's study, step by step, runs as written: every command of its "A study, step by
step" section in one empty folder, in order; every line shown under a command appears in what it
printed (``…`` stands for lines left out), and it exits 0."""

import re
from pathlib import Path

import pytest

from fastsnake.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"


def _steps() -> list[tuple[list[str], list[str]]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## A study, step by step", 1)[1].split("\n## ", 1)[0]
    steps = []
    for block in re.findall(r"```console\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ fastsnake "):
                steps.append((line[len("$ fastsnake "):].split(), []))
            elif line.strip() and line.strip() != "…":
                steps[-1][1].append(line)
    return steps


def test_the_study_section_has_its_five_steps():
    verbs = [argv[0] for argv, _ in _steps()]
    assert verbs.count("compare") == 5 and verbs[-1] == "report"


@pytest.mark.slow
def test_the_study_runs_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FASTSNAKE_BASELINES", raising=False)
    for argv, shown in _steps():
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        printed = out.splitlines() + err.splitlines()
        for line in shown:
            assert line in printed, (argv, line)
    assert (tmp_path / "study.html").stat().st_size > 10_000
    assert (tmp_path / ".fastsnake" / "baselines" / "before.parquet").is_file()
