"""The README's front door stays true (issue 18, item 6).

The README gives two set-up commands (bash blocks under "## Set up and run"): one
installs and runs a sweep, one installs the test tools and runs the suite. These
tests pull them out of the README by content (the line with `fastsnake sweep`,
the line with `pytest`), so wording around them can change freely, and check that

* the sweep command's arguments parse with the real CLI parser, reach the sweep
  handler, and (scaled down to a few games) run as written;
* the test command is what `.ci/run` runs (same install extra, same pytest
  selection; CI may add only reporting flags).
"""

from __future__ import annotations

import importlib
import re
import shlex
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
CI = REPO / ".ci" / "run"

# Flags that change only what pytest prints or caches, never which tests run or how.
PYTEST_REPORTING = re.compile(r"^(-q+|-v+|-rA|-r\w+|--durations(=\d+)?|--color=\w+|-p|no:cacheprovider)$")


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"^```(?:bash|sh|shell|console)\s*\n(.*?)^```", text, flags=re.M | re.S)


def _setup_section(text: str) -> str:
    """The "Set up and run" section if the README still has one, else the whole README."""
    match = re.search(r"^##\s+Set up and run\s*$(.*?)(?=^##\s|\Z)", text, flags=re.M | re.S)
    return match.group(1) if match else text


def _readme_line(needle: str) -> str:
    text = README.read_text(encoding="utf-8")
    for scope in (_setup_section(text), text):
        lines = [
            line.strip()
            for block in _bash_blocks(scope)
            for line in block.splitlines()
            if needle in line and not line.strip().startswith("#")
        ]
        if lines:
            return lines[0]
    pytest.fail(f"README.md has no bash command containing {needle!r}")


def _steps(line: str) -> list[list[str]]:
    """`a && b && c` -> [shlex(a), shlex(b), shlex(c)]."""
    return [shlex.split(part) for part in line.split("&&")]


def _normalise_pip(argv: list[str]) -> list[str]:
    """`.venv/bin/pip install ...` and `.venv/bin/python -m pip install ...` are the same step;
    `--quiet`/`-q` only change what pip prints."""
    if argv[:3] == [".venv/bin/python", "-m", "pip"]:
        argv = [".venv/bin/pip"] + argv[3:]
    return [a for a in argv if a not in ("--quiet", "-q")]


def _sweep_argv() -> list[str]:
    line = _readme_line("fastsnake sweep")
    for argv in _steps(line):
        if len(argv) >= 2 and Path(argv[0]).name == "fastsnake" and argv[1] == "sweep":
            return argv[1:]
    pytest.fail(f"no `fastsnake sweep` step in the README line {line!r}")


def test_readme_sweep_command_parses_with_the_real_cli():
    from fastsnake.cli import build_parser
    from fastsnake.cli.snake import cmd_sweep

    argv = _sweep_argv()
    args = build_parser().parse_args(argv)  # a drifted option exits 2 here (SystemExit)
    assert args.handler is cmd_sweep
    assert args.policy and args.size and args.games and args.games > 0
    from fastsnake.snake.policies import available

    assert args.policy in available()


def test_readme_sweep_command_installs_the_console_script_it_calls():
    line = _readme_line("fastsnake sweep")
    steps = _steps(line)
    program = next(argv[0] for argv in steps if "sweep" in argv[1:2])
    install = [i for i, argv in enumerate(steps) if "install" in _normalise_pip(argv)[1:2]]
    sweep = next(i for i, argv in enumerate(steps) if "sweep" in argv[1:2])
    assert install and install[0] < sweep, f"the README sweeps before installing: {line!r}"
    assert program in (".venv/bin/fastsnake", "fastsnake")
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    entry = re.search(r'^fastsnake\s*=\s*"([\w.]+):(\w+)"', pyproject, flags=re.M)
    assert entry, "pyproject.toml no longer installs the `fastsnake` console script the README calls"
    module, function = entry.groups()
    assert callable(getattr(importlib.import_module(module), function, None)), \
        f"the `fastsnake` console script names {module}:{function}, which does not exist"


def test_readme_sweep_command_runs_as_written_scaled_down(tmp_path, capsys):
    """The README's very arguments, with --games cut to a few and --out moved to tmp."""
    from fastsnake.cli import main

    argv = _sweep_argv()
    i = argv.index("--games")
    argv[i + 1] = "200"
    out_name = Path(argv[argv.index("--out") + 1]).name
    argv[argv.index("--out") + 1] = str(tmp_path / out_name)
    argv += ["--threads", "1"]
    assert main(argv) == 0, capsys.readouterr().err
    import pyarrow.parquet as pq

    assert pq.read_metadata(tmp_path / out_name).num_rows == 200


def _ci_commands() -> list[list[str]]:
    commands = []
    for raw in CI.read_text(encoding="utf-8").splitlines():
        line = raw.split(" || ")[0].strip()
        if not line or line.startswith("#"):
            continue
        commands.append(shlex.split(line))
    return commands


def test_readme_test_command_is_what_ci_runs():
    line = _readme_line("pytest")
    readme = _steps(line)
    ci = _ci_commands()

    # 1. the venv: both create .venv with python3.
    assert ["python3", "-m", "venv", ".venv"] in readme
    assert ["python3", "-m", "venv", ".venv"] in ci

    # 2. the install: the same editable install with the same extra.
    readme_install = [_normalise_pip(a) for a in readme if "install" in _normalise_pip(a)[1:2]]
    ci_install = [_normalise_pip(a) for a in ci if "install" in _normalise_pip(a)[1:2] and "-e" in a]
    assert len(readme_install) == 1, readme_install
    assert readme_install == ci_install, (readme_install, ci_install)

    # 3. pytest: the same interpreter and selection; CI adds reporting flags only.
    readme_pytest = [a for a in readme if "pytest" in a]
    ci_pytest = [a for a in ci if "pytest" in a]
    assert len(readme_pytest) == 1 and len(ci_pytest) == 1, (readme_pytest, ci_pytest)
    ci_selection = [a for a in ci_pytest[0] if not PYTEST_REPORTING.match(a)]
    assert ci_selection == readme_pytest[0], (
        f"README runs {shlex.join(readme_pytest[0])!r} but .ci/run runs {shlex.join(ci_pytest[0])!r}"
    )


def test_ci_script_is_executable_bash():
    assert CI.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash")
    if sys.platform != "win32":
        assert CI.stat().st_mode & 0o111, ".ci/run is not executable"


# --- the tour, as a new user runs it (issue 19, point 7) ------------------------------------------
# Every `$ fastsnake ...` line of the README and of the docs pages below parses with the real CLI
# parser; the set-up says how to put `fastsnake` on the PATH; and, read in order, the README installs
# an extra before a command needs it (`--plot` the plot extra, `view` the viewer extra).

DOCS_WITH_COMMANDS = [README] + [REPO / "docs" / name for name in ("index.md", "replays.md", "sweeps.md", "snake.md",
                                                                          "benchmarks.md")]
EXTRA_NEEDED = {"--plot": "plot", "view": "viewer"}


def _console_lines(path: Path) -> list[str]:
    """`$ ...` lines of the console blocks (the prompt removed), in order."""
    text = path.read_text(encoding="utf-8")
    return [line.strip()[2:] for block in _bash_blocks(text) for line in block.splitlines()
            if line.strip().startswith("$ ")]


def _fastsnake_commands(line: str) -> list[list[str]]:
    commands = []
    for part in re.split(r"&&|\|", line):
        argv = shlex.split(part, comments=True)
        if argv and Path(argv[0]).name == "fastsnake":
            commands.append(argv[1:])
    return commands


@pytest.mark.parametrize("path", DOCS_WITH_COMMANDS, ids=lambda p: p.name)
def test_every_documented_fastsnake_command_parses(path):
    from fastsnake.cli import build_parser

    found = 0
    for line in _console_lines(path):
        for argv in _fastsnake_commands(line):
            found += 1
            try:
                args = build_parser().parse_args(argv)
            except SystemExit:
                pytest.fail(f"{path.name}: `fastsnake {shlex.join(argv)}` does not parse")
            assert args.handler is not None
    if path == README:
        assert found >= 10


def test_readme_set_up_says_how_to_put_fastsnake_on_the_path():
    assert "source .venv/bin/activate" in _setup_section(README.read_text(encoding="utf-8"))


def test_readme_tour_installs_what_it_uses_before_using_it():
    extras: set[str] = set()
    activated = False
    for line in _console_lines(README):
        argv = shlex.split(line, comments=True)
        if argv[:2] == ["source", ".venv/bin/activate"]:
            activated = True
        pip = _normalise_pip(argv)
        if "install" in pip[1:2]:
            for arg in pip:
                match = re.fullmatch(r"\.\[([\w,]+)\]", arg)
                if match:
                    extras |= set(match.group(1).split(","))
        for command in _fastsnake_commands(line):
            assert activated, f"`{line}` runs before the README activates the venv"
            for trigger, extra in EXTRA_NEEDED.items():
                if trigger in command and not extras & {extra, "dev"}:
                    pytest.fail(f"`{line}` needs the {extra!r} extra, which the README has not installed yet")


def _first_screen() -> str:
    """The README up to its second `##` heading: what a newcomer reads before scrolling."""
    text = README.read_text(encoding="utf-8")
    heads = [m.start() for m in re.finditer(r"^## ", text, flags=re.M)]
    return text[: heads[1]] if len(heads) > 1 else text


def test_the_first_screen_carries_no_dates_hashes_or_load_stories():
    screen = _first_screen()
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b", screen), "dates belong in docs/performance.md"
    assert not re.findall(r"`[0-9a-f]{7,40}`", screen), "commit hashes belong in docs/performance.md"
    long_comments = [
        line for block in _bash_blocks(screen) for line in block.splitlines()
        if line.strip().startswith("#") and len(line) > 120
    ]
    assert not long_comments, f"set-up comments over 120 characters: {long_comments}"


# --- what the README lists stays what the code has ------------------------------------------------

def test_the_readme_lists_the_registrys_heuristics_in_its_order():
    from fastsnake.puzzle.heuristics import heuristic_names

    text = README.read_text(encoding="utf-8")
    listed = re.search(r"<!-- heuristics:[^>]*-->(.*?)<!-- /heuristics -->", text, flags=re.S)
    assert listed, "README.md has no <!-- heuristics: ... --> list"
    assert re.findall(r"`([^`]+)`", listed.group(1)) == heuristic_names()


def test_every_extra_the_readme_names_installs_what_it_says():
    import tomllib

    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    text = " ".join(README.read_text(encoding="utf-8").split())
    named = re.search(r"Optional extras: (.*?) `dev` has", text).group(1)
    for extra in re.findall(r"`([a-z-]+)` \(", named):
        assert extra in extras, f"README names the extra {extra!r}; pyproject.toml has none"
    packages = {re.split(r"[<>=\[]", p)[0] for p in extras["data"]}
    assert packages == {"pandas", "duckdb", "polars"}  # what the data-tool examples import
