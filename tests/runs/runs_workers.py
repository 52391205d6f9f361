"""Work functions the runner's tests hand to worker processes (top-level, so they pickle)."""

import os
import time


def setup(spec):
    return {"offset": spec["offset"], "pid": os.getpid()}


def square(state, unit):
    """A unit's result: a pure function of the unit (and the spec), whoever computes it."""
    return {"unit": unit, "value": unit * unit + state["offset"]}


def slow_square(state, unit):
    time.sleep(state.get("sleep", 0.05))
    return {"unit": unit, "value": unit * unit + state["offset"]}


def slow_setup(spec):
    return {"offset": spec["offset"], "sleep": spec.get("sleep", 0.05)}


def die_once(state, unit):
    """Kills its own process the first time unit 3 is worked (a marker file says it happened)."""
    marker = state["marker"]
    if unit == 3 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    return {"unit": unit, "value": unit * unit}


def cores(state, unit):
    """The cores the unit may use as it starts (`fastsnake.runs.spare_cores`), and whether it may ever
    get more than one (`core_share`)."""
    from fastsnake.runs import core_share, spare_cores

    return {"unit": unit, "cores": spare_cores(), "pool": core_share() is not None}


def mark_chunk(state, results):
    """A chunk's finish: each result learns the chunk's first unit and size (only a whole chunk knows)."""
    first = results[0]["unit"]
    return [dict(r, chunk_first=first, chunk_size=len(results)) for r in results]
