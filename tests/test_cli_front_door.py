"""The CLI as a new user meets it (issue 19, point 7): help, the verb list, errors under --json.

* bare `fastsnake` (and `fastsnake puzzle`) prints the usage with every verb and its one-line help;
* every verb's help shows its required options in a group of their own, never under "options";
* the Snake verbs' and view's help ends with examples that the real parser accepts; sweep, play and
  compare list every registered policy;
* an unknown option on a verb points at that verb's help;
* with `--json`, every error is also one JSON object `{"error": ..., "code": N}` on stdout, carrying
  the stderr line's text; exit codes and the stderr line are what they are without `--json`.
"""

from __future__ import annotations

import argparse
import errno
import json
import re
import shlex

import pytest

from fastsnake.cli import build_parser, main


def _verb_parsers(parser=None, path=()):
    """(("sweep",), parser), (("puzzle", "solve"), parser), ... for every verb with a handler."""
    parser = parser or build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _verb_parsers(sub, path + (name,))
    if parser.get_default("handler") is not None:
        yield path, parser


VERBS = [path for path, _ in _verb_parsers()]
SNAKE_AND_VIEW = ["policies", "play", "sweep", "compare", "replay", "view"]


def run(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's errors exit from inside the parser
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _help(path) -> str:
    return dict(_verb_parsers())[path].format_help()


def _sections(text: str) -> dict[str, str]:
    """Help text split at its section titles (`title:` lines at column 0)."""
    parts = re.split(r"^(\S[^\n]*):\n", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def test_every_verb_is_found():
    assert {"policies", "play", "sweep", "compare", "replay", "view", "tour", "reach"} <= {p[0] for p in VERBS}
    assert ("puzzle", "solve") in VERBS


def test_bare_fastsnake_lists_every_verb_with_its_summary(capsys):
    code, out, err = run(capsys, [])
    assert code == 2 and err == ""
    assert out.startswith("usage: fastsnake")
    top = build_parser()
    choices = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for choice in choices._choices_actions:
        assert re.search(rf"^\s+{re.escape(choice.dest)}\s+{re.escape(choice.help.split()[0])}", out, flags=re.M), \
            choice.dest
    assert "fastsnake VERB --help" in out


def test_a_bare_verb_group_lists_its_subverbs(capsys):
    code, out, err = run(capsys, ["puzzle"])
    assert code == 2 and err == ""
    for name in ("solve", "compare", "random", "check"):
        assert re.search(rf"^\s+{name}\s+\S", out, flags=re.M), name


def test_bare_fastsnake_with_json_is_a_json_error(capsys):
    code, out, err = run(capsys, ["--json"])
    assert code == 2 and err.startswith("fastsnake: error: ") and err.count("\n") == 1
    assert json.loads(out)["code"] == 2


@pytest.mark.parametrize("path", VERBS, ids=" ".join)
def test_required_options_are_in_a_required_group(path):
    parser = dict(_verb_parsers())[path]
    sections = _sections(parser.format_help())
    options = sections.get("options", "")
    required = [a for a in parser._actions if a.required and a.option_strings]
    for group in parser._mutually_exclusive_groups:
        if group.required:
            required += group._group_actions
    for action in required:
        flag = action.option_strings[0]
        assert not re.search(rf"^\s+{re.escape(flag)}\b", options, flags=re.M), f"{flag} listed as optional"
        assert any(title.startswith("required") and re.search(rf"^\s+{re.escape(flag)}\b", body, flags=re.M)
                   for title, body in sections.items()), f"{flag} not in a 'required' group"


def test_sweep_help_shows_its_required_options_and_every_policy():
    from fastsnake.snake.policies import available

    sections = _sections(_help(("sweep",)))
    required = next(body for title, body in sections.items() if title.startswith("required"))
    for flag in ("--policy", "--games", "--size"):
        assert re.search(rf"^\s+{flag}\b", required, flags=re.M), flag
        assert not re.search(rf"^\s+{flag}\b", sections["options"], flags=re.M), flag
    for path in (("sweep",), ("play",), ("compare",)):
        listed = _sections(_help(path))["policies ('fastsnake policies' for more)"]
        for name in available():
            assert re.search(rf"^  {re.escape(name)}\s+\S", listed, flags=re.M), (path, name)
    assert "follow a Hamiltonian cycle forever" in listed  # the registry's own summary


def _examples(path) -> list[str]:
    body = _sections(_help(path)).get("examples", "")
    return [line.strip()[2:] for line in body.splitlines() if line.strip().startswith("$ ")]


@pytest.mark.parametrize("verb", SNAKE_AND_VIEW)
def test_help_ends_with_examples_the_parser_accepts(verb):
    lines = _examples((verb,))
    assert 2 <= len(lines) <= 4, lines
    parser = build_parser()
    for line in lines:
        for command in line.split("&&"):
            argv = shlex.split(command, comments=True)
            assert argv[0] == "fastsnake", line
            args = parser.parse_args(argv[1:])  # a drifted example exits 2 here
            assert args.handler is not None
    assert any(shlex.split(line, comments=True)[1] == verb for line in lines)


@pytest.mark.parametrize("path", VERBS, ids=" ".join)
def test_an_unknown_option_points_at_the_verbs_help(capsys, path):
    code, out, err = run(capsys, [*path, "--bogus"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("fastsnake: error: ")
    assert err.rstrip().endswith(f"(see 'fastsnake {' '.join(path)} --help')"), err


def test_the_sweep_example_of_the_issue(capsys):
    code, out, err = run(capsys, ["sweep", "--bogus"])
    assert (code, out) == (2, "")
    assert err == "fastsnake: error: unrecognized arguments: --bogus (see 'fastsnake sweep --help')\n"


@pytest.mark.parametrize("path", VERBS, ids=" ".join)
def test_json_argparse_error_is_one_json_object(capsys, path):
    code, out, err = run(capsys, [*path, "--json", "--bogus"])
    assert code == 2 and err.count("\n") == 1
    assert json.loads(out) == {"error": err.strip().removeprefix("fastsnake: error: "), "code": 2}
    assert out.count("\n") == 1


def test_json_failure_of_ours_keeps_exit_1(capsys, monkeypatch):
    def broken(args):
        raise RuntimeError("boom")

    parser = build_parser
    monkeypatch.setattr("fastsnake.cli.build_parser", lambda: _with_handler(parser(), "policies", broken))
    code, out, err = run(capsys, ["policies", "--json"])
    assert code == 1 and "internal error: RuntimeError: boom" in err
    assert json.loads(out) == {"error": err.strip().removeprefix("fastsnake: error: "), "code": 1}


@pytest.mark.parametrize("error", [OSError(errno.EFBIG, "File too large"),
                                   OSError(errno.ENOSPC, "No space left on device", "/cache/index.nbi")],
                         ids=["EFBIG", "ENOSPC"])
def test_a_full_disk_is_one_line_not_an_internal_error(capsys, monkeypatch, error):
    """A full disk or `ulimit -f` met where no code of ours catches it (numba saving a kernel it just
    compiled: the fault-injection trial's fulldisk class on cold caches): one line, exit 1."""
    def full(args):
        raise error

    parser = build_parser
    monkeypatch.setattr("fastsnake.cli.build_parser", lambda: _with_handler(parser(), "policies", full))
    code, out, err = run(capsys, ["policies", "--json"])
    assert code == 1 and err.count("\n") == 1 and "internal error" not in err
    assert err.startswith(f"fastsnake: error: cannot write {repr(error.filename) if error.filename else 'a file'}: "
                          f"{error.strerror} (the disk is full")
    assert json.loads(out)["code"] == 1


def _with_handler(parser, verb, handler):
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub.choices[verb].set_defaults(handler=handler)
    return parser


def test_json_success_is_unchanged_and_errors_without_json_keep_stdout_empty(capsys):
    code, out, err = run(capsys, ["policies", "--json"])
    assert code == 0 and "cycle" in json.loads(out) and "error" not in json.loads(out)
    code, out, err = run(capsys, ["play", "--policy", "nosuch", "--size", "6"])
    assert code == 2 and out == "" and "nosuch" in err
