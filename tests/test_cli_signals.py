"""The CLI's answer to SIGINT and SIGTERM wherever they land (issue 46, item 3).

A signal's exception raised inside a library's C code (a Cython module's import: pyarrow imports
pandas lazily at its first numpy conversion, in the middle of a scan) can come out as another
exception (SystemError "returned a result with an exception set", then AttributeError "partially
initialized module 'pandas'"): the fault injector's mixed_version rounds saw `internal error`, exit 1.
The run must still end as the signal asked. The signal is raised at a fixed point (nothing here
depends on timing).
"""

from __future__ import annotations

import signal

import pytest

import fastsnake
from fastsnake import cli, signals

CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
MESSAGES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated (SIGTERM)"}


@pytest.fixture
def cli_handlers():
    """The CLI's own SIGINT and SIGTERM handlers, as `fastsnake.cli.run` installs them."""
    previous = {sig: signal.getsignal(sig) for sig in CODES}
    cli._install_signal_handlers()
    yield
    for sig, handler in previous.items():
        signal.signal(sig, handler)
    signals.forget_stop()


@pytest.mark.parametrize("sig", list(CODES), ids=["SIGINT", "SIGTERM"])
def test_a_signal_turned_into_another_exception_keeps_its_status(tmp_path, monkeypatch, capsys, cli_handlers, sig):
    def verify(path, repair=False, **_):  # a library that turns the signal's exception into its own error
        try:
            signal.raise_signal(sig)
        except BaseException:
            raise SystemError("<class 'fields.__pyx_defaults'> returned a result with an exception set") from None
        raise AssertionError("the CLI's handler raised nothing")

    monkeypatch.setattr(fastsnake, "verify_sweep", verify)
    code = cli.main(["verify", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    assert (code, err) == (CODES[sig], f"fastsnake: error: {MESSAGES[sig]}\n")
    assert "internal error" not in out


def test_an_error_with_no_signal_is_still_an_internal_error(tmp_path, monkeypatch, capsys, cli_handlers):
    def verify(path, repair=False, **_):
        raise SystemError("a bug of ours")

    monkeypatch.setattr(fastsnake, "verify_sweep", verify)
    monkeypatch.delenv("FASTSNAKE_DEBUG", raising=False)
    assert cli.main(["verify", str(tmp_path)]) == 1
    assert "internal error: SystemError: a bug of ours" in capsys.readouterr().err


# A child that signals itself when `AT` is about to be imported, then runs the command as
# `python -m fastsnake` does; an object whose finalizer speaks at the interpreter's teardown, and an
# atexit callback.
CHILD = """
import atexit, os, runpy, sys

SIG, AT = int(sys.argv[1]), sys.argv[2]
sent = []

class SignalAt:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == AT and not sent:
            sent.append(name)
            os.kill(os.getpid(), SIG)
        return None

class Teardown:
    def __del__(self):
        os.write(2, b"teardown ran\\n")

sys.modules["teardown_witness"] = Teardown()
atexit.register(lambda: os.write(2, b"atexit ran\\n"))
sys.meta_path.insert(0, SignalAt)
sys.argv = ["fastsnake", *sys.argv[3:]]
runpy.run_module("fastsnake", run_name="__main__", alter_sys=True)
"""


def _child(tmp_path, sig, at, *argv):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    return subprocess.run([sys.executable, "-c", CHILD, str(int(sig)), at, *map(str, argv)], capture_output=True,
                          text=True, cwd=repo, timeout=600)


@pytest.mark.parametrize("sig", list(CODES), ids=["SIGINT", "SIGTERM"])
def test_a_signal_that_pandas_import_swallows_still_stops_the_command(tmp_path, sig):
    """pyarrow imports pandas at its first numpy conversion (here: the first rows `verify` checks); a
    KeyboardInterrupt landing in one of pandas' extension modules is lost there, and `verify` used to
    go on and say "complete", exit 0. The CLI's handler keeps the signal, and the next batch of rows
    (or the end of the verb) raises it again."""
    pytest.importorskip("pandas")
    folder = tmp_path / "ds"
    fastsnake.sweep("cycle", 4, 20, seed=1, out=folder, chunk_size=5, threads=1)
    proc = _child(tmp_path, sig, "pandas._libs.tslibs.fields", "verify", folder, "--json")
    assert (proc.returncode, proc.stdout.strip()) == (
        CODES[sig], f'{{"error": "{MESSAGES[sig]}", "code": {CODES[sig]}}}'), proc.stderr
    assert f"fastsnake: error: {MESSAGES[sig]}\n" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("sig", list(CODES), ids=["SIGINT", "SIGTERM"])
def test_the_answer_to_a_signal_skips_the_interpreters_teardown(tmp_path, sig):
    """Once a signal's answer is said, the process ends: atexit callbacks run, the interpreter's
    teardown (numba's, llvmlite's and pyarrow's modules: 1-2 s on a loaded machine, most of the time
    a Ctrl-C took to answer) does not."""
    out = tmp_path / "s.parquet"
    proc = _child(tmp_path, sig, "numba", "sweep", "--policy", "cycle", "--size", "4", "--games", "10", "--out", out,
                  "--json")
    assert proc.returncode == CODES[sig], proc.stderr
    assert proc.stdout.strip() == f'{{"error": "{MESSAGES[sig]}", "code": {CODES[sig]}}}'  # flushed
    assert proc.stderr == f"fastsnake: error: {MESSAGES[sig]}\natexit ran\n"
    assert not out.exists()
