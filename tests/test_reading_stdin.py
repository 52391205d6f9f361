"""`fastsnake.reading` on standard input (``"-"``): the bytes of a real stdin, and of one replaced by a
text stream without a byte buffer (a test's or a notebook's `io.StringIO`: once an internal error)."""

from __future__ import annotations

import io
import sys

import pytest

from fastsnake import reading


def test_a_text_stdin_without_a_buffer_is_read_as_utf8(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 2 3\nnaïve ∞\n"))
    assert reading.read_bytes("-", "instances file") == "1 2 3\nnaïve ∞\n".encode()
    monkeypatch.setattr(sys, "stdin", io.StringIO("0 1 2\n3 4 5\n"))
    assert reading.read_text("-", "instances file") == "0 1 2\n3 4 5\n"


def test_a_byte_stdin_is_read_as_it_is(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbf7 8\n"), encoding="utf-8"))
    assert reading.read_text("-", "instances file") == "7 8\n"  # the byte-order mark dropped


@pytest.mark.parametrize("make", [lambda t: io.StringIO(t), lambda t: io.TextIOWrapper(io.BytesIO(t.encode()))])
def test_the_cap_holds_on_either_stdin(monkeypatch, make):
    monkeypatch.setattr(sys, "stdin", make("x" * 5000))
    with pytest.raises(reading.ReadRefused, match="instances file"):
        reading.read_bytes("-", "instances file", limit=4096)
