"""Every example runs as shown (issue 39, item 6): each `$ fastsnake ...` line of every
`fastsnake VERB --help` (verb groups such as `puzzle` included) and of the README's console blocks.

Each line runs through the real CLI (`fastsnake.cli.main`, in this process: no start-up per line)
in one shared folder, with what a shell would do for it: `a && b`, `a | b`, `a > FILE`,
`"$(a)"`. A line that reads a file another example writes (`--from greedy.parquet`,
`view died.npz`, ...) runs that example first, so the examples must make their own inputs. Every
line must exit 0; with `--json`, its stdout is one JSON value; on the terminal no line of output
is longer than `TERMINAL_LINE_MAX` (long results are abridged there, whole with `--json`/`--save`).

A view without `--export` opens a window: here the file is loaded and the view built exactly as
for the window, and the window loop itself is replaced by a stub (tests/viewer tests the loop).

Examples that sweep a million games, compile every policy, build pattern databases or `warm`
are marked slow (`HEAVY`), as is every example that needs a file one of them makes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from fastsnake.cli import build_parser, main

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
TERMINAL_LINE_MAX = 1000

# Examples too long for the quick suite (each a regex over the example line), with why.
HEAVY = {
    r"--games (1000000|2000000)\b": "a million-game sweep",
    r"--games 10000\b": "10,000 games on 10x10 (and a plot)",
    r"compare --size 8 --games 200\b": "compiles every registered policy",
    r"\bcell\b": "compiles the cell policy",
    r"\bphc\b": "compiles phc",
    r"\bwarm\b": "compiles policies ahead of time",
    r"--heuristic pdb": "builds 6-6-3 pattern databases",
    r"--heuristics \S*\bpdb\b": "a study with pdb: builds 6-6-3 pattern databases",
    r"walking-distance": "builds the walking-distance table",
    r"--size 20(x20)?\b": "a 20x20 puzzle (reduce) or a 20x20 sweep",
    r"--count 50 --seed 1 >": "a batch of 50 instances",
}
# Output options: the file an example writes. Input options/positionals: a file it reads.
OUTPUT_FLAGS = ("--out", "--save", "--replay", "--export")
INPUT_FLAGS = ("--from", "--check", "--resume", "--batch", "--import")
FILE_SUFFIXES = (".parquet", ".npz", ".json", ".txt")


# -- collecting the examples --------------------------------------------------------------------

def _parsers(parser=None, path=()):
    parser = parser or build_parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def _help_examples(parser) -> list[str]:
    text = parser.format_help()
    if "\nexamples:\n" not in text:
        return []
    body = text.split("\nexamples:\n", 1)[1]
    return [line.strip()[2:] for line in body.splitlines() if line.strip().startswith("$ ")]


def help_examples() -> dict[str, str]:
    """{example line: the help it is in}."""
    found = {}
    for path, parser in _parsers():
        for line in _help_examples(parser):
            found.setdefault(line, f"fastsnake {' '.join(path)} --help".replace("  ", " "))
    return found


def readme_examples() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"^```(?:console|bash)\s*\n(.*?)^```", text, flags=re.M | re.S)
    lines = [line.strip()[2:] for block in blocks for line in block.splitlines() if line.strip().startswith("$ ")]
    return {line: "README.md" for line in lines if line.startswith("fastsnake ")}


EXAMPLES = {**readme_examples(), **help_examples()}


# -- what a line does ---------------------------------------------------------------------------

def _uncommented(line: str) -> str:
    return re.sub(r"\s+#\s.*$", "", line)


def _commands(line: str) -> list[list[str]]:
    """Every argv (after `fastsnake`) of the line, `$(...)` included, for files and heaviness."""
    line = _uncommented(line)
    inner = re.findall(r"\$\((fastsnake [^)]*)\)", line)
    outer = re.sub(r"\$\((fastsnake [^)]*)\)", "X", line)
    out = []
    for part in [*inner, *re.split(r"&&|\|", outer)]:
        argv = shlex.split(part.split(">")[0], comments=True)
        assert argv and argv[0] == "fastsnake", f"not a fastsnake command: {part!r} in {line!r}"
        out.append(argv[1:])
    return out


def _writes(line: str) -> set[str]:
    files = set()
    for argv in _commands(line):
        files |= {argv[i + 1] for i, a in enumerate(argv[:-1]) if a in OUTPUT_FLAGS}
    files |= set(re.findall(r">\s*(\S+)", _uncommented(line)))
    return files


def _reads(line: str) -> set[str]:
    files = set()
    for argv in _commands(line):
        for i, arg in enumerate(argv):
            before = argv[i - 1] if i else ""
            if before in INPUT_FLAGS or (not arg.startswith("-") and not before.startswith("-")
                                         and (arg.endswith(FILE_SUFFIXES) or arg.endswith("/"))):
                files.add(arg)
    return files - {"-"} - _writes(line)


def _producers() -> dict[str, str]:
    made = {}
    for line in EXAMPLES:
        for name in _writes(line):
            made.setdefault(name, line)
    return made


PRODUCERS = _producers()


def _needs(line: str, seen=()) -> list[str]:
    """The examples to run before `line`, producers first."""
    order = []
    for name in sorted(_reads(line)):
        maker = PRODUCERS.get(name)
        assert maker is not None, f"{EXAMPLES[line]}: `{line}` reads {name!r}, which no example writes"
        if maker not in seen and maker != line:
            for earlier in [*_needs(maker, (*seen, line)), maker]:
                if earlier not in order:
                    order.append(earlier)
    return order


def _heavy(line: str) -> str | None:
    for example in [*_needs(line), line]:
        for pattern, why in HEAVY.items():
            if re.search(pattern, example):
                return why if example == line else f"needs `{example}`: {why}"
    return None


# -- running a line as a shell would --------------------------------------------------------------

class _WindowStub:
    frame = 0
    shots = ()


def _call(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # --help
                code = exc.code
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def _run_line(line: str) -> list[tuple[list[str], str]]:
    """Run `line`; returns (argv, stdout) of the commands whose stdout reaches the terminal."""
    shown = []

    def substitute(match):
        code, out, err = _call(shlex.split(match.group(1))[1:])
        assert code == 0, f"`{match.group(1)}` exited {code}: {err}"
        return out.strip()

    line = re.sub(r"\$\((fastsnake [^)]*)\)", substitute, _uncommented(line))
    for command in line.split("&&"):
        command, _, target = command.partition(">")
        stdin = ""
        stages = command.split("|")
        for k, stage in enumerate(stages):
            argv = shlex.split(stage, comments=True)[1:]
            code, out, err = _call(argv, stdin)
            assert code == 0, f"`fastsnake {shlex.join(argv)}` exited {code}: {err.strip()[-2000:]}"
            if "--json" in argv:
                json.loads(out)  # one JSON value
            stdin = out
            if k == len(stages) - 1:
                if target.strip():
                    Path(shlex.split(target, comments=True)[0]).write_text(out)
                else:
                    shown.append((argv, out))
    return shown


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("examples")


_DONE: set[str] = set()


def _ensure(line: str, workdir) -> list[tuple[list[str], str]]:
    for earlier in _needs(line):
        if earlier not in _DONE:
            _run_line(earlier)
            _DONE.add(earlier)
    shown = _run_line(line)
    _DONE.add(line)
    return shown


def _params():
    for line, where in EXAMPLES.items():
        why = _heavy(line)
        marks = [pytest.mark.slow] if why else []
        yield pytest.param(line, id=f"{where}: {line}"[:150], marks=marks)


@pytest.mark.parametrize("line", list(_params()))
def test_example_runs_as_shown(line, workdir, monkeypatch):
    from fastsnake import viewer

    monkeypatch.chdir(workdir)
    monkeypatch.setattr(viewer, "check_display", lambda: None, raising=False)
    monkeypatch.setattr(viewer, "run_window", lambda view, **kw: _WindowStub(), raising=False)
    for argv, out in _ensure(line, workdir):
        if "--json" not in argv:
            longest = max((len(x) for x in out.splitlines()), default=0)
            assert longest <= TERMINAL_LINE_MAX, \
                f"`fastsnake {shlex.join(argv)}` printed a line of {longest:,} characters"


# -- the examples' own promises -------------------------------------------------------------------

def test_every_verb_and_verb_group_shows_examples():
    for path, parser in _parsers():
        if path:  # bare `fastsnake` lists the verbs
            assert _help_examples(parser), f"`fastsnake {' '.join(path)} --help` shows no examples"


def test_the_quick_suite_runs_examples_of_every_problem():
    quick = [line for line in EXAMPLES if _heavy(line) is None]
    for verb in ("puzzle", "tour", "reach", "play", "policies", "view"):
        assert any(line.startswith(f"fastsnake {verb} ") for line in quick), verb


def test_a_long_move_list_is_abridged_on_the_terminal(capsys):
    from fastsnake.cli import common

    moves = "UDLR" * 5000
    text = common.abridged(moves, "moves", "--json or --save FILE")
    assert len(text) < 300  # head, tail and the count, whatever the length
    assert text.startswith(moves[:100]) and "20,000 moves" in text and "--json or --save FILE" in text
    assert common.abridged("UDLR", "moves", "x") == "UDLR"


def test_kernel_time_is_named_for_what_it_measured(monkeypatch):
    from numba.core import config

    from fastsnake.cli import common

    monkeypatch.setattr(config, "DISABLE_JIT", True)
    assert "interpreted" in common.kernel_time_name() and "loading" not in common.kernel_time_name()
    monkeypatch.setattr(config, "DISABLE_JIT", False)
    assert common.kernel_time_name() == "loading compiled kernels"
