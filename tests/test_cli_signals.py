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
    def verify(path, repair=False):  # a library that turns the signal's exception into its own error
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
    def verify(path, repair=False):
        raise SystemError("a bug of ours")

    monkeypatch.setattr(fastsnake, "verify_sweep", verify)
    monkeypatch.delenv("FASTSNAKE_DEBUG", raising=False)
    assert cli.main(["verify", str(tmp_path)]) == 1
    assert "internal error: SystemError: a bug of ours" in capsys.readouterr().err
