"""Messages that lead to the fix (issue 46, item 5): every manifest problem names
``fastsnake verify --repair DIR`` on the command line (the library's words name the function); a
repair that cannot finish leaves the old manifest where it was; a lock that cannot be written
leaves no empty lock file; a reason repeated for many games is one line with a count.
"""

import errno
import json

import pytest

import fastsnake
from fastsnake.cli import main
from fastsnake.errors import counted
from fastsnake.snake.store import MANIFEST, SweepError
from fastsnake.snake.store import folder as folder_module
from fastsnake.snake.store import repair as repair_module


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "s"
    fastsnake.sweep("cycle", 4, 60, out=str(path), chunk_size=20, threads=1)
    return path


def cli(capsys, *argv):
    capsys.readouterr()
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("damage", ["deleted", "zeroed", "truncated", "no-checksum"])
def test_every_manifest_problem_names_the_repair_command(folder, capsys, damage):
    manifest = folder / MANIFEST
    if damage == "deleted":
        manifest.unlink()
    elif damage == "zeroed":
        manifest.write_bytes(b"\0" * manifest.stat().st_size)
    elif damage == "truncated":
        manifest.write_bytes(manifest.read_bytes()[:50])
    else:
        data = json.loads(manifest.read_text())
        del data["checksum"]
        manifest.write_text(json.dumps(data))
    for argv in (["verify", folder], ["sweep", "--resume", folder], ["replay", "--from", folder, "--out",
                                                                     folder.parent / "g.npz"]):
        code, err = cli(capsys, *argv)
        assert code == 2, err
        assert f"fastsnake verify --repair {folder}" in err, err
        assert "utf-32" not in err and len(err.splitlines()) == 1
    with pytest.raises(SweepError) as info:  # the library's words: the function, no flag
        fastsnake.resume_sweep(str(folder))
    assert "repair=True" in str(info.value) and "--" not in str(info.value)
    assert cli(capsys, "verify", "--repair", folder)[0] == 0


def test_a_repair_that_cannot_finish_leaves_the_old_manifest(folder, monkeypatch, capsys):
    manifest = folder / MANIFEST
    manifest.write_bytes(b"\0" * 100)
    before = manifest.read_bytes()

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(folder_module, "_atomic_write", full)
    code, err = cli(capsys, "verify", "--repair", folder)
    assert code == 2 and "the repair could not finish (No space left on device)" in err
    assert "old _manifest.json is left as it was" in err
    assert manifest.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith("chunk-")) == [MANIFEST]  # no lock
    monkeypatch.undo()
    assert cli(capsys, "verify", "--repair", folder)[0] == 0
    assert cli(capsys, "sweep", "--resume", folder)[0] == 0


def test_a_lock_that_cannot_be_written_leaves_no_lock_file(folder, monkeypatch):
    def full(fd, data, offset):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(folder_module.os, "pwrite", full)
    (folder / MANIFEST).unlink()
    with pytest.raises(SweepError, match="cannot write its lock file"):
        repair_module.repair_manifest(folder)
    assert not (folder / "_writer.lock").exists()


def test_repeated_messages_are_said_once_with_a_count():
    assert counted(["a", "b", "a", "a"]) == ["a (3 times)", "b"]


def test_a_report_says_a_reason_of_many_games_once(tmp_path, capsys, monkeypatch):
    from fastsnake.snake import report

    path = tmp_path / "s.parquet"
    fastsnake.sweep("cycle", 4, 50, out=str(path), threads=1)

    def refuse(src, config, options, row):
        return None, f"{src.label}: game {row['game']} cannot be re-played: the model file has changed"

    monkeypatch.setattr(report, "_replay_row", refuse)
    code, err = cli(capsys, "report", path, "--out", tmp_path / "r.html")
    assert code == 2 and err.count("the model file has changed") == 1 and " games (" in err
