"""How many worker processes a run may use on this machine."""

from __future__ import annotations

import os

from fastsnake.errors import InputError


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, as a container or `taskset` limits it),
    else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_workers(workers, error=InputError, *, cap: bool = False, warn=None) -> int:
    """`workers` checked: None is every core this process may use (`available_cores`); 0, a negative
    or a non-integer count is `error` naming it; more than the cores allowed is `error` too, or,
    with `cap`, the cores allowed with a warning line through `warn`."""
    allowed = available_cores()
    if workers is None:
        return allowed
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise error(f"workers={workers!r}: give a whole number of worker processes from 1 to {allowed} "
                    f"(the cores this process may use)")
    if workers > allowed:
        if not cap:
            raise error(f"workers={workers}: this process may use {allowed} core{'s' if allowed > 1 else ''}; "
                        f"give at most {allowed} (more workers than cores only slow every search down)")
        if warn is not None:
            warn(f"fastsnake: warning: workers={workers}: this process may use {allowed} cores; "
                 f"running {allowed} workers")
        return allowed
    return workers
