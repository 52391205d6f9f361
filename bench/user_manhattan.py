"""A user's Manhattan distance written to fastsnake's heuristic contract (no import of fastsnake):
what bench/bench_user_heuristic.py measures against the built-in `manhattan`, and bench/bench_gate.py
registers as a user's ``mine``.

Its functions are also the one copy of a user's Manhattan that tests and bench_gate.py write into
users' modules of their own (an entry point's package, a module another process imports, a weaker
copy): `source` gives their text (tests load this file by its path, tests/user_heuristic_source.py)."""

from numba import njit


@njit(cache=True)
def evaluate(cells, goal, rows, cols):
    """Sum over the tiles of their row and column distances to their goal cells."""
    h = 0
    for i in range(rows * cols):
        t = cells[i]
        if t != 0:
            g = goal[t]
            h += abs(i // cols - g // cols) + abs(i % cols - g % cols)
    return h


@njit(cache=True)
def update(h, cells, goal, rows, cols, tile, src, dst):
    """The value after `tile` moved from cell `src` to cell `dst`: only that tile's distance changes."""
    g = goal[tile]
    return (h - abs(src // cols - g // cols) - abs(src % cols - g % cols)
            + abs(dst // cols - g // cols) + abs(dst % cols - g % cols))


def source(name: str = "evaluate", *, decorator: str = "@njit", result: str = "h", with_update: bool = False) -> str:
    """The text of `evaluate` as a module's function: named `name`, under `decorator`, returning
    `result` (an expression of its sum ``h``), without its docstring; with `with_update`, `update`
    after it the same way. Each function is one decorator line, its ``def`` line and its body."""
    import inspect

    def text(fn, new_name: str, returns: str | None = None) -> str:
        lines = [line for line in inspect.getsource(fn.py_func).splitlines()
                 if not line.startswith("@") and not line.lstrip().startswith('"""')]
        assert lines[0].startswith(f"def {fn.__name__}("), lines[0]
        lines[0] = lines[0].replace(f"def {fn.__name__}(", f"def {new_name}(", 1)
        if returns is not None:
            assert lines[-1] == "    return h", lines[-1]
            lines[-1] = f"    return {returns}"
        return "\n".join([decorator, *lines]) + "\n"

    parts = [text(evaluate, name, result)] + ([text(update, "update")] if with_update else [])
    return "\n\n".join(parts)
