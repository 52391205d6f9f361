"""Helpers every verb module shares: parsing sizes, printing JSON, one-line errors."""

from __future__ import annotations

import argparse
import json
import math
import sys

from fastsnake.errors import InputError
from fastsnake.sizes import parse_size  # noqa: F401 - verbs use common.parse_size


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (`fastsnake: error: …`, exit 2), no usage dump."""

    def error(self, message: str):  # noqa: D401 - argparse API
        fail(f"{message} (see '{self.prog} --help')", 2)
        sys.exit(2)


def fail(message: str, code: int) -> int:
    sys.stderr.write(f"fastsnake: error: {message}\n")
    sys.stderr.flush()
    return code


def size_arg(lo: int = 1, hi: int | None = None):
    """An argparse `type=` that defers the error to the handler's InputError path."""

    def convert(text: str) -> tuple[int, int]:
        try:
            return parse_size(text, lo=lo, hi=hi)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 0")
    return value


def _clean(value):
    """Make numpy scalars/arrays and non-finite floats JSON-safe."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "tolist"):
        return _clean(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def emit_json(obj) -> None:
    sys.stdout.write(json.dumps(_clean(obj)) + "\n")
    sys.stdout.flush()


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
