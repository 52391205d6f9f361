"""`fastsnake view` and viewer.py: clean --json, one-line errors, the install hint."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fastsnake.cli import main
from fastsnake.viewer import backend

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "viewer" / "golden"


def test_export_json_is_the_only_thing_on_stdout(tmp_path):
    env = dict(os.environ)
    env.pop("PYGAME_HIDE_SUPPORT_PROMPT", None)  # the viewer must silence pygame itself
    out = tmp_path / "g.gif"
    proc = subprocess.run(
        [sys.executable, str(REPO / "viewer.py"), str(GOLDEN / "greedy10.npz"), "--export", str(out),
         "--every", "20", "--json"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert doc["written"] == 11 and doc["format"] == "gif" and doc["kind"] == "snake"
    assert out.exists()


def run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_human_export_output(tmp_path, capsys):
    code, out, err = run(["view", str(GOLDEN / "greedy10.npz"), "--export", f"{tmp_path}/f/", "--every", "50"],
                         capsys)
    assert code == 0 and out.startswith("wrote 5 frames") and err == ""
    assert len(list((tmp_path / "f").glob("*.png"))) == 5


def json_error(out: str, err: str, code: int = 2) -> dict:
    """With --json an error is also one JSON object on stdout, saying what the stderr line says."""
    lines = out.splitlines()
    assert len(lines) == 1, out
    doc = json.loads(lines[0])
    assert doc == {"error": err.strip().removeprefix("fastsnake: error: "), "code": code}
    return doc


def test_missing_pygame_gives_the_install_hint(monkeypatch, capsys):
    monkeypatch.setattr(backend, "_pygame", None)
    monkeypatch.setitem(sys.modules, "pygame", None)  # makes `import pygame` fail
    code, out, err = run(["view", str(GOLDEN / "greedy10.npz"), "--json"], capsys)
    assert code == 2
    json_error(out, err)
    assert err.count("\n") == 1 and "pip install 'fastsnake[viewer]'" in err


def broken_files(tmp_path):
    (tmp_path / "garbage.npz").write_bytes(b"\x00\x01junk" * 10)
    good = (GOLDEN / "greedy10.npz").read_bytes()
    (tmp_path / "truncated.npz").write_bytes(good[: len(good) // 2])
    np.savez(tmp_path / "foreign.npz", x=np.arange(4))
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"format": "somebody-else/3"}')
    (tmp_path / "empty.npz").write_bytes(b"")
    with np.load(GOLDEN / "greedy10.npz") as data:
        fields = {k: data[k] for k in data.files}
    fields["moves"] = fields["moves"][:-5]
    np.savez(tmp_path / "cheating.npz", **fields)
    fields["format"] = np.array("fastsnake-replay/9")
    np.savez(tmp_path / "future.npz", **fields)
    (tmp_path / "folder").mkdir()
    return sorted(p.name for p in tmp_path.iterdir()) + ["missing.npz"]


def test_broken_or_foreign_files_give_one_line(tmp_path, capsys):
    for name in broken_files(tmp_path):
        code, out, err = run(["view", str(tmp_path / name), "--json"], capsys)
        assert code == 2, (name, err)
        assert err.count("\n") == 1 and err.startswith("fastsnake: error:"), (name, err)
        assert name in err and name in json_error(out, err)["error"]


@pytest.mark.parametrize("platform", ["linux", "freebsd13"])
def test_no_display_says_so_and_suggests_export(monkeypatch, capsys, platform):
    """Without a display SDL would play to an invisible window: one line instead, pointing at --export."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", platform)
    code, out, err = run(["view", str(GOLDEN / "greedy10.npz")], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("fastsnake: error: no display") and "--export" in err
    code, out, err = run(["view", str(GOLDEN / "greedy10.npz"), "--json"], capsys)
    assert code == 2 and "no display" in json_error(out, err)["error"]


@pytest.mark.parametrize("env", [{"DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "wayland-0"}, {"SDL_VIDEODRIVER": "dummy"}])
def test_a_display_or_an_sdl_driver_passes_the_check(monkeypatch, env):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "platform", "linux")
    backend.check_display()


def test_export_needs_no_display(monkeypatch, tmp_path, capsys):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    code, out, err = run(["view", str(GOLDEN / "greedy10.npz"), "--export", str(tmp_path / "g.gif"),
                          "--every", "50"], capsys)
    assert code == 0, err


@pytest.mark.parametrize("argv,message", [
    (["--speed", "0"], "speed 0"),
    (["--speed", "20000"], "speed 20000"),
    (["--every", "3"], "--every applies to --export"),
    (["--export", "x.mp4"], "must end in .gif"),
    (["--cell", "100"], "--cell 100"),
    (["--show", "cycle,bogus"], "'bogus'"),
])
def test_bad_options(capsys, argv, message):
    code, out, err = run(["view", str(GOLDEN / "greedy10.npz"), *argv], capsys)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_an_empty_file_is_called_empty(tmp_path, capsys):
    for name in ("empty.npz", "empty.json"):
        (tmp_path / name).write_bytes(b"")
        code, out, err = run(["view", str(tmp_path / name)], capsys)
        assert code == 2 and "is empty" in err and "JSON" not in err, err
