"""Exceptions shared by every part of fastsnake.

`InputError` (a `ValueError`) means the caller asked for something invalid; the CLI
maps it to exit code 2. Each problem package subclasses it so a message can always
name the bad input.
"""


class FastsnakeError(Exception):
    """Base class of every error fastsnake raises on purpose."""


class InputError(FastsnakeError, ValueError):
    """Invalid input: bad size, option, file or state. The message quotes the input."""
