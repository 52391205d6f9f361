"""The policy registry: every Snake AI is registered here under a name.

A policy is three njit functions the engine inlines into its game loop:

- ``alloc(cfg, nbr, params) -> ws``: the policy's workspace (a tuple of arrays),
  allocated once per thread block and reused across games;
- ``reset(ws, g)``: start of a game: lay the start body (``engine.lay_body*``),
  build per-game state such as a random cycle;
- ``decide(ws, g) -> move``: the next move (0 up, 1 right, 2 down, 3 left);
- ``cycle_of(ws) -> int32 order array`` (empty if the policy has no cycle), for replays.

plus two tiny cached kernels built from `engine.sweep_chunk` and
`engine.play_recorded` (see `cycle.py` for the pattern). A module under
``fastsnake/snake/policies/`` registers itself with `register(Policy(...))`; adding
a policy means adding a module and its name to `POLICY_MODULES`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from fastsnake.errors import InputError

POLICY_MODULES = (
    "fastsnake.snake.policies.cycle",
    "fastsnake.snake.policies.greedy",
    "fastsnake.snake.policies.greedy_dynamic",
    "fastsnake.snake.policies.thesis_shortcut",
    "fastsnake.snake.policies.snake_ai",
    "fastsnake.snake.policies.phc",
    "fastsnake.snake.policies.dhcr",
    "fastsnake.snake.policies.cell",
)


class PolicyError(InputError):
    """Unknown policy, or an option the policy cannot take."""


@dataclass(frozen=True)
class Policy:
    name: str
    summary: str
    sweep_kernel: Callable  # (cfg, nbr, params, base_seed, first, out, nblocks)
    play_kernel: Callable  # (cfg, nbr, params, seed) -> (outcome, body0, moves, apples, cycle)
    make_params: Callable  # (GameConfig, options: dict) -> int64 array; raises PolicyError
    guaranteed: bool = False  # never loses, under both tail rules
    options: dict = field(default_factory=dict)  # option name -> (default, allowed values)


_REGISTRY: dict[str, Policy] = {}
_loaded = False


def register(policy: Policy) -> Policy:
    if policy.name in _REGISTRY:
        raise ValueError(f"policy {policy.name!r} registered twice")
    _REGISTRY[policy.name] = policy
    return policy


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in POLICY_MODULES:
            importlib.import_module(module)


def available() -> list[str]:
    _load()
    return sorted(_REGISTRY)


def get_policy(name: str) -> Policy:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise PolicyError(f"unknown policy {name!r}; available: {', '.join(available())}") from None


def resolve_options(policy: Policy, options: dict | None) -> dict:
    """Fill defaults and check values; options a policy does not take are refused."""
    options = {k: v for k, v in (options or {}).items() if v is not None}
    unknown = sorted(set(options) - set(policy.options))
    if unknown:
        raise PolicyError(f"policy {policy.name!r} takes no option {unknown[0]!r}")
    resolved = {}
    for key, (default, allowed) in policy.options.items():
        value = options.get(key, default)
        if allowed is not None and value not in allowed:
            raise PolicyError(
                f"policy {policy.name!r}: {key}={value!r} is not one of {', '.join(map(str, allowed))}"
            )
        resolved[key] = value
    return resolved


def no_params(config, options) -> np.ndarray:
    return np.zeros(1, dtype=np.int64)
