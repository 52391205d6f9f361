"""What a policy module needs, below the registry: `EnginePolicy`, `PolicyError`, `no_params`, `check_name`.

The registry (`fastsnake.snake.policies`) re-exports these names, so a policy package writes
``from fastsnake.snake.policies import EnginePolicy``. They live here so that modules the
registry itself imports (`user.py`, which adapts a user's ``decide``) can use them without an
import cycle.
"""

from __future__ import annotations

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
    options: tuple = ()  # the `options.Option` rows it takes, in the order defaults are resolved
    origin: str = OWN_DISTRIBUTION  # the package that provides it ("__main__" etc. when registered in-process)
    kind: str = "engine"  # engine (our kernel protocol), numba or python (a user's decide)

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
        from fastsnake.snake.policies.options import resolve  # options.py builds on this module

        return self.make_params(config, resolve(self.name, self.options, options, config))


def check_name(name) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise PolicyError(f"policy name {name!r} must be 1..64 letters, digits, '-', '_' or '.'")
    return name


def no_params(config, options) -> np.ndarray:
    return np.zeros(1, dtype=np.int64)
