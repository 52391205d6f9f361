"""Results of small Snake games, puzzle solves and tours as plain JSON values, for comparing the
compiled kernels with the same code run by the interpreted tier (NUMBA_DISABLE_JIT=1).

`results(cases)` runs in the test process (compiled); ``python interpreted_cases.py`` reads the
cases as JSON on stdin and prints the results, and runs in a subprocess with the JIT off.
"""

import json
import sys


def _game(policy, size, seed, game, tail):
    import fastsnake

    g = fastsnake.play(policy, size, seed, game, tail=tail)
    return {"summary": {k: g.summary[k] for k in ("outcome", "moves", "apples", "length")},
            "moves": g.moves.tolist(), "apples": [int(a) for a in g.apple_cells]}


def _sweep(policy, size, games, seed, tail):
    import fastsnake

    table = fastsnake.sweep(policy, size, games, seed, tail=tail, threads=1).table
    return {name: table.column(name).to_pylist() for name in ("game", "outcome", "moves", "apples", "length")}


def _solve(start, rows, cols, algorithm):
    from fastsnake.puzzle import solve

    result = solve(start, rows=rows, cols=cols, algorithm=algorithm)
    return {"moves": result.moves, "length": result.length, "generated": result.nodes_generated,
            "expanded": result.nodes_expanded}


def _tour(rows, cols, start, closed, method, piece=(1, 2)):
    from fastsnake.tour import Piece, find_tour

    result = find_tour(Piece.leaper(*piece), rows, cols, start, closed=closed, method=method)
    return {"found": result.found, "exists": result.exists, "nodes": result.nodes,
            "path": None if result.path is None else result.path.tolist()}


def _count(rows, cols, start, closed):
    from fastsnake.tour import Piece, count_tours

    result = count_tours(Piece.leaper(1, 2), rows, cols, start, closed=closed)
    return {"count": result.count, "nodes": result.nodes}


def _reach(rows, cols, start, n, walk):
    from fastsnake.tour import Piece, reach

    return [int(c) for c in reach(Piece.leaper(1, 2), rows, cols, start, n, walk=walk).cells]


KINDS = {"game": _game, "sweep": _sweep, "solve": _solve, "tour": _tour, "count": _count, "reach": _reach}


def results(cases) -> list:
    """`cases`: [kind, [args...]] pairs; one JSON-able result each (or the error's type and text)."""
    out = []
    for kind, args in cases:
        try:
            out.append(KINDS[kind](*args))
        except Exception as exc:  # noqa: BLE001 - the error is part of the result to compare
            out.append({"error": f"{type(exc).__name__}: {exc}"})
    return json.loads(json.dumps(out))


if __name__ == "__main__":
    json.dump(results(json.load(sys.stdin)), sys.stdout)
