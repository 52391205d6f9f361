"""What a policy module needs, below the registry: `EnginePolicy`, `PolicyError`, `no_params`, `check_name`,
and options as data: each option one `Option` row (name, type, bounds, default, one line of help).

A policy, ours or a user's, lists its rows in `EnginePolicy.options`; `resolve` checks what a
caller gave against them (unknown names, types, bounds), fills the defaults (a default may
depend on the board: `BySize`) and returns the values the policy's ``make_params`` packs.
`fastsnake policies --json`, its ``--help`` and docs/snake.md list the same rows (`Option.describe`),
so a listing cannot drift from what is checked. Every error names the policy and the value.

The registry (`fastsnake.snake.policies`) re-exports these names, so a policy package writes
``from fastsnake.snake.policies import EnginePolicy``. They live here so that modules the
registry itself imports (`user.py`, which adapts a user's ``decide``) can use them without an
import cycle.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from fastsnake.errors import InputError

OWN_DISTRIBUTION = "fastsnake"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class PolicyError(InputError):
    """Unknown policy, an option the policy cannot take, or a policy that misbehaves."""


@dataclass(frozen=True)
class EnginePolicy:
    """A policy as the sweep, play and dask code run it: two kernels and a parameter builder."""

    name: str
    summary: str
    sweep_kernel: Callable  # (cfg, nbr, params, base_seed, first, out, nblocks)
    play_kernel: Callable  # (cfg, nbr, params, seed) -> (outcome, body0, moves, apples, cycle)
    make_params: Callable  # (GameConfig, values of every option) -> int64 array; raises PolicyError
    guaranteed: bool = False  # never loses, under both tail rules
    options: tuple = ()  # the `Option` rows it takes, in the order their defaults are resolved
    origin: str = OWN_DISTRIBUTION  # the package that provides it ("__main__" etc. when registered in-process)
    kind: str = "engine"  # engine (our kernel protocol), numba or python (a user's decide), model
    # Games a sweep hands each kernel call at least: a policy that plays many games at once (model:PATH,
    # one forward pass for all of them) is only fast when it has many to play.
    batch_games: int = 1
    # The policy an alias names (``strongest``: ``grove``): sweep files record that one as `policy`.
    alias_of: str | None = None
    # The (lowest, highest) CPU seconds a cold compile of its two kernels took where it was measured
    # (`fastsnake.published.MEASURED_ON`): what the compile notice quotes until this machine has measured
    # its own (`fastsnake.warm.family.cost`); None: no estimate.
    compile_cpu_range: tuple[float, float] | None = None

    @property
    def compile_cpu_seconds(self) -> float | None:
        """The estimate of a cold compile before one here: the top of `compile_cpu_range`."""
        return None if self.compile_cpu_range is None else float(self.compile_cpu_range[1])

    @property
    def headline(self) -> str:
        """The first sentence-line of the summary, for one-line listings."""
        text = (self.summary or "").strip()
        return text.split("\n\n")[0].replace("\n", " ") if text else ""

    @property
    def option_names(self) -> list[str]:
        return [opt.name for opt in self.options]

    def params(self, config, options: dict | None = None) -> np.ndarray:
        """The kernels' parameter vector for a game on `config` with `options` (checked, defaults filled)."""
        return self.make_params(config, resolve(self.name, self.options, options, config))


def check_name(name) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise PolicyError(f"policy name {name!r} must be 1..64 letters, digits, '-', '_' or '.'")
    return name


def no_params(config, options) -> np.ndarray:
    return np.zeros(1, dtype=np.int64)


class OptionError(PolicyError):
    """An option a policy does not take, or a value outside what it declares."""


@dataclass(frozen=True)
class BySize:
    """A default chosen per game: ``rule(config, values, given)`` with `config` the game's
    `GameConfig`, `values` the options resolved before this one (declaration order) and `given`
    the names the caller gave; `text` says what it is, for listings."""

    rule: Callable
    text: str


@dataclass(frozen=True)
class Option:
    """One option of a policy.

    `type` is ``int`` (a whole number in `low`..`high`; `words` are strings taken besides numbers,
    such as ``"length"``) or ``str`` (one of `words`). `default` is a value or a `BySize`.
    """

    name: str
    type: type
    default: object
    help: str
    low: int | None = None
    high: int | None = None
    words: tuple = ()

    def __post_init__(self):
        if self.type not in (int, str):
            raise TypeError(f"option {self.name!r}: type must be int or str, not {self.type!r}")
        if self.type is str and not self.words:
            raise TypeError(f"option {self.name!r}: a str option lists its words")

    def rule_text(self) -> str:
        """What a value must be, as error messages and listings say it."""
        if self.type is str:
            return "one of " + ", ".join(self.words)
        kind = "a count" if self.low is not None and self.low >= 0 else "a whole number"
        if self.low is not None and self.high is not None:
            span = f"{kind} in {self.low}..{self.high}"
        elif self.low is not None:
            span = f"{kind} >= {self.low}"
        else:
            span = kind
        return " or ".join([repr(w) for w in self.words] + [span])

    def check(self, policy: str, raw):
        """`raw` as this option's value (a string from the command line is read as a number)."""
        if isinstance(raw, str) and raw in self.words:
            return raw
        if self.type is int and not isinstance(raw, bool):
            value = whole_value(raw)
            if value is not None and (self.low is None or value >= self.low) \
                    and (self.high is None or value <= self.high):
                return value
        raise OptionError(f"policy {policy!r}: {self.name}={raw!r} is not {self.rule_text()}")

    def default_for(self, config, values: dict, given) -> object:
        return self.default.rule(config, values, given) if isinstance(self.default, BySize) else self.default

    def describe(self) -> dict:
        """The row as `fastsnake policies --json` lists it."""
        by_size = isinstance(self.default, BySize)
        return {"type": self.type.__name__, "default": None if by_size else self.default,
                "default_by_size": self.default.text if by_size else None,
                "low": self.low, "high": self.high, "words": list(self.words) or None,
                "allowed": self.rule_text(), "help": self.help}

    def default_text(self) -> str:
        return self.default.text if isinstance(self.default, BySize) else str(self.default)


def whole_value(raw):
    """An int from an int-like value or a decimal string; None otherwise (floats are refused)."""
    if isinstance(raw, str):
        text = raw.strip()
        digits = text[1:] if text[:1] in "+-" else text
        return int(text) if digits.isdigit() else None
    try:
        return operator.index(raw)
    except TypeError:
        return None


def resolve(policy: str, table: tuple, options: dict | None, config) -> dict:
    """Every option of `table` for a game on `config`: the values given (checked), defaults for the rest.

    A value of None counts as not given. Raises `OptionError` naming the policy and the value.
    """
    given = {k: v for k, v in (options or {}).items() if v is not None}
    names = [opt.name for opt in table]
    unknown = sorted(set(given) - set(names))
    if unknown:
        takes = f"takes {', '.join(sorted(names))}" if names else "takes no options"
        raise OptionError(f"policy {policy!r} takes no option {unknown[0]!r} (it {takes})")
    values: dict = {}
    for opt in table:
        values[opt.name] = opt.check(policy, given[opt.name]) if opt.name in given \
            else opt.default_for(config, values, given)
    return values


def check_table(policy: str, table) -> tuple:
    """`table` as a tuple of `Option`s with distinct names (a policy's declaration, checked once)."""
    table = tuple(table)
    for opt in table:
        if not isinstance(opt, Option):
            raise OptionError(f"policy {policy!r}: option {opt!r} is not a fastsnake.snake.policies.Option")
    names = [opt.name for opt in table]
    if len(set(names)) != len(names):
        raise OptionError(f"policy {policy!r} declares an option twice: {names}")
    return table
