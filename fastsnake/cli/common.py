"""Helpers every verb module shares: the parser, parsing sizes, printing JSON, one-line errors.

Every parser of the CLI is a `Parser`, so every verb (snake, puzzle, tour, view) gets, without
asking:

* help with the required options in a group of their own (argparse lists them as optional);
* an epilog that may be a function, evaluated only when the help is shown (e.g. the policy
  list, which reads the registry), and prose wrapped while indented lines (examples) are kept;
* `fastsnake VERB --bogus` -> `unrecognized arguments: --bogus (see 'fastsnake VERB --help')`;
* a missing (sub)verb prints the usage with the list of verbs;
* with `--json` on the command line, every error also prints `{"error": ..., "code": N}` on
  stdout (unless a JSON value was printed already), so a script reading stdout gets a value.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import sys
from decimal import Decimal, InvalidOperation

from fastsnake.errors import InputError
from fastsnake.files import LINE_CHARS, file_in_the_way, not_utf8, printable
from fastsnake.renamed import RENAMED_KEYS
from fastsnake.sizes import parse_size  # noqa: F401 - verbs use common.parse_size

# Set by `fastsnake.cli.main` for one run: whether errors also go to stdout as JSON, and
# whether a JSON value has been printed already (stdout then holds its one value).
_json_errors = False
_json_written = False

# The namespace attribute through which the innermost (verb) parser names itself.
_VERB_PARSER = "_fastsnake_verb_parser"


def start_run(argv: list[str]) -> None:
    """Reset the per-run state; `--json` anywhere on the line turns on JSON errors."""
    global _json_errors, _json_written
    _json_errors = "--json" in argv
    _json_written = False


def set_json_errors(on: bool) -> None:
    global _json_errors
    _json_errors = bool(on)


class HelpFormatter(argparse.HelpFormatter):
    """Wraps prose paragraphs; keeps paragraphs whose lines are indented (examples, lists) as written."""

    def _fill_text(self, text, width, indent):
        blocks = []
        for block in re.split(r"\n[ \t]*\n", text.strip("\n")):
            lines = block.splitlines()
            if len(lines) > 1 and all(line.startswith(" ") for line in lines[1:]):
                blocks.append("\n".join(indent + line for line in lines))
            else:
                blocks.append(super()._fill_text(block, width, indent))
        return "\n\n".join(blocks)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (`fastsnake: error: …`, exit 2) naming the verb's help."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D401 - argparse API
        if self._missing_verb(message) and not _json_errors:
            sys.stdout.write(self.format_help())
            sys.stdout.flush()
            sys.exit(2)
        fail(f"{message} (see '{self.prog} --help')", 2)
        sys.exit(2)

    def _missing_verb(self, message: str) -> bool:
        action = self._subparsers_action()
        return (action is not None and message.startswith("the following arguments are required:")
                and str(action.metavar or action.dest) in message)

    def _subparsers_action(self):
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action
        return None

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if not hasattr(namespace, _VERB_PARSER):  # the innermost parser returns first
            setattr(namespace, _VERB_PARSER, self)
        return namespace, extras

    def parse_args(self, args=None, namespace=None):
        namespace, extras = self.parse_known_args(args, namespace)
        verb = vars(namespace).pop(_VERB_PARSER, self)
        if extras:
            verb.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace

    def format_help(self) -> str:
        if callable(self.epilog):
            self.epilog = self.epilog()
        self._group_required()
        return super().format_help()

    def _group_required(self) -> None:
        """Move required options (argparse lists them under "options") into groups of their own."""
        if getattr(self, "_required_grouped", False):
            return
        self._required_grouped = True
        groups = []
        alone = [a for a in self._optionals._group_actions if a.required]
        if alone:
            groups.append(("required", alone))
        for mutex in self._mutually_exclusive_groups:
            if mutex.required:
                groups.append(("required, one of", list(mutex._group_actions)))
        at = 1 if self._positionals._group_actions else 0
        for title, actions in groups:
            group = self.add_argument_group(title)
            self._action_groups.remove(group)
            self._action_groups.insert(at, group)
            at += 1
            for action in actions:
                for owner in self._action_groups:
                    if action in owner._group_actions and owner is not group:
                        owner._group_actions.remove(action)
                group._group_actions.append(action)


class LazyChoices:
    """An argument's ``choices`` read when argparse first checks or prints them, not at start-up:
    `names()` gives them (a registry's names, its module imported only then)."""

    def __init__(self, names):
        self._read = names

    def _names(self) -> tuple:
        return tuple(self._read())

    def __iter__(self):
        return iter(self._names())

    def __contains__(self, name):
        return name in self._names()

    def __getitem__(self, i):
        return self._names()[i]

    def __len__(self):
        return len(self._names())


def examples(*lines: str) -> str:
    """An epilog: `examples:` and one indented `$ command` per line (kept as written by the help)."""
    return "examples:\n" + "\n".join(f"  $ {line}" for line in lines)


def shown(path) -> str:
    """`path` for a message: as given when it prints on one line, else quoted with its newlines and
    other control characters escaped (a crafted name cannot forge another line of output)."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def print_baseline_and_files(baseline, verdict: dict | None, written: dict, what: str) -> None:
    """The last lines of a study's text output: the verdict against the baseline file `baseline`
    (none without one), naming the worse of its `what` (``"heuristic"``, ``"method"``) and what it
    could not compare, then each file `written` (a path or a list of paths by key)."""
    if verdict is not None:
        print(f"baseline {shown(baseline)}: {verdict['headline']}; "
              + ("worse: " + ", ".join(verdict["worse"]) if verdict["worse"] else f"no {what} is worse"))
        for line in verdict["unmatched"]:
            print(f"  not compared: {line}")
        for line in verdict.get("changed") or ():
            print(f"  changed: {line}")
    for key, path in written.items():
        for p in [path] if isinstance(path, str) else path:
            print(f"{key}: {shown(os.fspath(p))}")


class EscapedOutput:
    """A text stream (the command's stdout) that writes every control character but newline and tab
    as its escape (`fastsnake.files.printable`): text a file holds (a policy name, options, a file
    name) can never reach the terminal as an escape sequence, whichever line prints it."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        if not text.isprintable():
            text = "\n".join(printable(line) for line in text.split("\n"))
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def escaped_stdout():
    """Within the block, `sys.stdout` is an `EscapedOutput` over what it was."""
    before = sys.stdout
    sys.stdout = EscapedOutput(before)
    try:
        yield
    finally:
        if isinstance(sys.stdout, EscapedOutput):
            sys.stdout = before


def fail(message: str, code: int) -> int:
    """Say what went wrong on stderr in one line; with `--json`, also as one JSON value on stdout."""
    message = printable(message, LINE_CHARS)  # text from a file: no escapes reach the terminal
    sys.stderr.write(f"fastsnake: error: {message}\n")
    sys.stderr.flush()
    if _json_errors and not _json_written:
        emit_json({"error": message, "code": code})
    return code


def check_output(flag: str, path, *, folder_target: bool = False) -> None:
    """Fail before a long run, not after it, when `path` cannot be written: InputError naming
    `flag` when a folder on the way is a regular file, or (unless the target is a folder made
    with its parents) when the folder to write into does not exist."""
    text = os.fspath(path)
    parent = os.path.dirname(os.path.normpath(text))
    blocker = file_in_the_way(text)
    if blocker is not None:
        raise InputError(f"{flag} {text!r}: {blocker!r} is a file, not a folder")
    if text.endswith(".parquet") and not_utf8(text):
        raise InputError(f"{flag} {text!r} is not valid UTF-8, which Parquet files need: rename it")
    if not folder_target and parent and not os.path.isdir(parent):
        raise InputError(f"{flag} {text!r}: folder {os.path.abspath(parent)!r} does not exist")


# "(10, 12)": the pair form the size errors offer as an example, as typed on a command line.
_SIZE_PAIR = re.compile(r"^\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$")


def size_text(text: str):
    """A --size as given, "(10, 12)" made the (rows, cols) pair it means; the library checks it."""
    pair = _SIZE_PAIR.match(text)
    return (int(pair[1]), int(pair[2])) if pair else text


def size_arg(lo: int = 1, hi: int | None = None):
    """An argparse `type=` that defers the error to the handler's InputError path."""

    def convert(text: str) -> tuple[int, int]:
        try:
            return parse_size(size_text(text), lo=lo, hi=hi)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


# Digits in a count's exponent (1e6) above which the number is refused before it is built.
_MAX_EXPONENT = 100


def whole_number(text: str) -> int:
    """An integer as counts are typed: 1000000, 1_000_000 or 1e6 (not 1.5e0, not 1e6.5)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not value.is_finite() or value.adjusted() > _MAX_EXPONENT:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer of at most {_MAX_EXPONENT} digits")
    if value != value.to_integral_value():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def positive_int(text: str) -> int:
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def study_baseline_options(p, algorithm: str, trial: str, stop_at: bool = False) -> None:
    """A study's baseline flags (puzzle and tour compare): save one, check against one, what is judged."""
    p.add_argument("--save-baseline", metavar="FILE", default=None,
                   help="keep this run's rows as a baseline file for --baseline-from")
    p.add_argument("--baseline-from", metavar="FILE", default=None,
                   help=f"pair with a saved baseline on the same {trial}s: exit 4 when a {algorithm} needs "
                        f"significantly more nodes (CPU-seconds too with --slower), 2 when the {trial}s differ")
    p.add_argument("--slower", type=nonnegative_float, default=None, metavar="SHARE",
                   help="--baseline-from: also judge CPU-seconds, worse beyond this share of the baseline's "
                        "(e.g. 0.10; default: reported, not judged, as they move with the machine's load; node "
                        "counts are always judged, exactly)")
    p.add_argument("--allow-partial", action="store_true",
                   help=f"--baseline-from: accept comparing only the {algorithm}s and {trial}s the baseline "
                        "holds (at least one must pair); without it a partial comparison exits 2")
    p.add_argument("--require-all", action="store_true",
                   help=f"--baseline-from: exit 2 unless the run covers every {trial} and {algorithm} of the "
                        f"baseline (without it, the baseline's {trial}s not run are counted in the verdict)")
    if stop_at:
        p.add_argument("--stop-at", type=nonnegative_float, default=None, metavar="X",
                       help=f"--baseline-from: a search stops at X times the baseline's nodes on its {trial} "
                            f"(default 20; 0: never), and its {algorithm} counts as worse (its later {trial}s are "
                            "not run); the options stay comparable with the baseline's")


def study_run_options(p, what: str) -> None:
    """A study's flags for where it runs (puzzle and tour compare): --workers, --cluster."""
    p.add_argument("--workers", type=whole_number, default=None, metavar="N",
                   help=f"worker processes on this machine (default: every core this process may use; a study of "
                        f"{what} runs in this process); the rows are the same whatever N")
    p.add_argument("--cluster", metavar="local:N|tcp://HOST:PORT", default=None,
                   help="run the searches on a dask cluster instead (needs fastsnake[dist]): local:N starts N "
                        "workers here, an address uses a running scheduler; the rows are the same")


def study_workers(args, small: bool):
    """(workers, cluster) of a study from --workers and --cluster, checked before any work: a count of 0
    or more than the cores allowed, or an unreachable scheduler, is one line and exit 2. Without
    --workers, every core this process may use, but one (this process) when the study is `small`."""
    from fastsnake.runs import check_workers, probe

    if args.cluster is not None:
        if args.workers is not None:
            raise InputError("give --workers or --cluster, not both (a cluster's workers are its own)")
        probe(args.cluster, InputError)
        return 1, args.cluster
    if args.workers is None:
        return (1 if small else check_workers(None)), None
    try:
        return check_workers(args.workers, InputError), None
    except InputError as exc:
        raise InputError(f"--workers {args.workers}: {str(exc).partition(': ')[2]}") from None


def run_json(outcome, workers: int, cluster) -> dict | None:
    """What ran a study (``run`` in its JSON): worker processes (0 on a cluster), the cluster, and the
    chunks computed now, found finished in its folder, and redone after a worker died."""
    if outcome is None:
        return None
    return {"workers": outcome.workers, "cluster": cluster, "chunks_computed": outcome.computed,
            "chunks_resumed": outcome.resumed, "chunks_redone": outcome.redone}


def run_folder_out(out) -> bool:
    """Whether --out names a run folder (resumable) rather than a rows file: it ends with a slash, is
    an existing folder, or has no suffix (``results``, not ``results.parquet``) and is no file."""
    if out is None:
        return False
    text = str(out)
    if text.endswith(("/", os.sep)) or os.path.isdir(text):
        return True
    return not os.path.splitext(os.path.basename(text))[1] and not os.path.exists(text)


def pooled_folder(out) -> bool:
    """An existing folder of other files and no run (0.x's way of pooling rows files in one folder):
    the rows go to DIR/RUN_ID.parquet at the end, as before, not resumably."""
    from fastsnake.runs import is_run_folder

    return (os.path.isdir(out) and not is_run_folder(out)
            and any(not name.startswith(".") for name in os.listdir(out)))


def nonnegative_float(text: str) -> float:
    """A finite number >= 0 (a share such as --slower)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number >= 0")
    return value


def nonnegative_int(text: str) -> int:
    value = whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 0")
    return value


# JSON keys renamed in a release (`fastsnake.renamed`): the old name printed beside the new for one release.
RENAMED_JSON_KEYS = RENAMED_KEYS
_OLD_KEY_OF = {new: old for old, new in RENAMED_JSON_KEYS.items()}


def _with_old_keys(obj: dict) -> dict:
    """`obj` with each renamed key's old name right after the new one (unless already there)."""
    if not any(key in _OLD_KEY_OF for key in obj):
        return obj
    out = {}
    for key, value in obj.items():
        out[key] = value
        old = _OLD_KEY_OF.get(key)
        if old is not None and old not in obj:
            out[old] = value
    return out


def _clean(value):
    """Make numpy scalars/arrays and non-finite floats JSON-safe; add renamed keys' old names."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in _with_old_keys(value).items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "tolist"):
        return _clean(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def emit_json(obj) -> None:
    global _json_written
    sys.stdout.write(json.dumps(_clean(obj)) + "\n")
    sys.stdout.flush()
    _json_written = True


# Text output: a value longer than this is shown as its head and tail (a 20x20 puzzle's moves are
# ~23,000 letters on one line); --json, and the verb's file option, keep it whole.
TERMINAL_MAX_CHARS = 200
_HEAD_CHARS, _TAIL_CHARS = 120, 40


def abridged(text: str, unit: str, whole: str) -> str:
    """`text` as it is if short, else its head, ' … ', its tail, how many `unit`s (one a character)
    and `whole`: where all of it is (e.g. "--json or --save FILE")."""
    if len(text) <= TERMINAL_MAX_CHARS:
        return text
    return f"{text[:_HEAD_CHARS]} … {text[-_TAIL_CHARS:]} ({len(text):,} {unit}; all of them with {whole})"


def kernel_time_name() -> str:
    """What a result's `compile_seconds` measured: loading (or compiling) the kernels, or, in an
    interpreted run (numba's JIT off, e.g. the tier's small first call), no kernel at all but the
    same warm-up call run by the interpreter."""
    from numba.core import config

    return "interpreted warm-up (no compiled kernels)" if config.DISABLE_JIT else "loading compiled kernels"


def log(message: str) -> None:
    sys.stderr.write(printable(message, LINE_CHARS) + "\n")
    sys.stderr.flush()
