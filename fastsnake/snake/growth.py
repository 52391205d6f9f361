"""The report's scaling view: how a policy's moves and cost grow with the board, fitted only over
games played under the same conditions.

A fit pools the sections of one policy with the same options, tail rule, start length and move cap (a
`strongest` with detours 8 and one with detours 4 are two curves, not one); one point a board (the
same games given twice count once; distinct runs on one board are pooled into one point, their
game-weighted mean); the exponent's 95 % interval needs three boards or more
(`intervals.scaling_fit`). What was kept apart, counted once or left without an interval is said
in ``notes``, which the report shows and ``fastsnake report --json`` carries.
"""

from __future__ import annotations

import json

from fastsnake.snake import intervals

# What must be equal for two sections to lie on one curve (besides the policy and its options); the
# move cap counts as "default" where it is the board's default (cells squared), which grows with it.
SAME_CURVE = ("tail_rule", "start_length", "max_moves")


def _rules(p: dict) -> tuple:
    s = p["summary"]
    cap = p.get("max_moves")
    if cap is None or int(cap) == (s["rows"] * s["cols"]) ** 2:
        cap = "default"
    return p.get("tail_rule"), p.get("start_length"), cap


def _options_text(options: dict) -> str:
    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in sorted(options.items()))


def _point(runs: list[dict]) -> dict:
    """One board's point from its distinct runs: theirs if one, else the game-weighted mean moves
    and the pooled games per CPU-second (total games / total CPU-seconds), without an interval."""
    if len(runs) == 1:
        s = runs[0]
        repeats = s.get("repeats") or {}
        return {"games": s["games"], "moves_mean": s.get("moves_mean"), "moves_mean_ci95": s.get("moves_mean_ci95"),
                "games_per_cpu_second": s.get("games_per_cpu_second"),
                "games_per_cpu_second_ci95": repeats.get("median_ci95")}
    games = sum(s["games"] for s in runs)
    means = [s.get("moves_mean") for s in runs]
    moves = None if None in means or not games else sum(s["games"] * s["moves_mean"] for s in runs) / games
    speeds = [s.get("games_per_cpu_second") for s in runs]
    cpu = None if not all(speeds) else sum(s["games"] / s["games_per_cpu_second"] for s in runs)
    return {"games": games, "moves_mean": moves, "moves_mean_ci95": None,
            "games_per_cpu_second": games / cpu if cpu else None, "games_per_cpu_second_ci95": None}


def _run_key(point: dict) -> tuple:
    """What makes two sections the same games (a file given twice or copied, a sweep and a compare
    of one seed): the seed, the number of games and their results; a game is its seed, whichever
    run kept it."""
    s = point["summary"]
    return (point.get("seed"), s["games"], s.get("moves_mean"), s.get("wins"))


def report_scaling(points: list[dict]) -> dict | None:
    """The scaling view of the report's sections. `points`: one dict a section, ``{"policy",
    "options", "tail_rule", "start_length", "max_moves", "seed", "summary"}`` (the summary holds ``rows``,
    ``cols``, ``games``, ``moves_mean`` ...). None unless the sections hold several boards; else
    ``{"policies": [one curve a policy and conditions: "policy", "label", "options", "cells",
    "boards", "moves_mean", ..., "moves_fit", "cpu_seconds_per_game_fit"], "notes": [...]}``."""
    boards = {(p["summary"]["rows"], p["summary"]["cols"]) for p in points}
    if len(boards) < 2:
        return None
    curves: dict[tuple, list[dict]] = {}
    for p in points:
        options = p.get("options") or {}
        if isinstance(options, str):  # as a file's metadata may hold them
            options = json.loads(options or "{}")
        key = (p["policy"], json.dumps(options, sort_keys=True)) + _rules(p)
        curves.setdefault(key, []).append(p)
    per_policy: dict[str, int] = {}
    for policy, *_ in curves:
        per_policy[policy] = per_policy.get(policy, 0) + 1
    notes = [f"scaling: {policy} was played under {n} different options or rules: one curve each, never pooled"
             for policy, n in per_policy.items() if n > 1]
    policies = []
    for (policy, options_json, *rules), group in curves.items():
        options = json.loads(options_json)
        label = policy
        if per_policy[policy] > 1:  # name what sets its curves apart
            siblings = [key for key in curves if key[0] == policy]
            conditions = [_options_text(options) or "default options"] if len({k[1] for k in siblings}) > 1 else []
            conditions += [f"{name} {value}" for i, (name, value) in enumerate(zip(SAME_CURVE, rules, strict=True))
                           if len({k[2 + i] for k in siblings}) > 1]
            label = f"{policy} ({'; '.join(conditions)})"
        by_board: dict[tuple, dict] = {}
        for p in group:
            board = (p["summary"]["rows"], p["summary"]["cols"])
            by_board.setdefault(board, {}).setdefault(_run_key(p), []).append(p)
        for (rows, cols), runs in by_board.items():
            twice = [len(copies) for copies in runs.values() if len(copies) > 1]
            if twice:
                notes.append(f"scaling: {label} on {rows}x{cols}: the same games (one seed) appear {max(twice)} "
                             "times: counted once")
            if len(runs) > 1:
                notes.append(f"scaling: {label} on {rows}x{cols}: {len(runs)} runs pooled into one point "
                             "(their game-weighted mean)")
        ordered = sorted(by_board, key=lambda b: b[0] * b[1])
        board_points = [_point([copies[0]["summary"] for copies in by_board[b].values()]) for b in ordered]
        cells = [r * c for r, c in ordered]
        moves_fit = intervals.scaling_fit(cells, [m["moves_mean"] if m["moves_mean"] is not None else float("nan")
                                                  for m in board_points])
        cost_fit = intervals.scaling_fit(cells, [1 / m["games_per_cpu_second"] if m["games_per_cpu_second"]
                                                 else float("nan") for m in board_points])
        for fit in (moves_fit, cost_fit):
            if fit is not None:
                fit["points"] = fit["sizes"]
        if len(ordered) == 1:
            notes.append(f"scaling: {label} was played on one board ({ordered[0][0]}x{ordered[0][1]}): no fit")
        elif moves_fit is not None and moves_fit["exponent_ci95"] is None:
            notes.append(f"scaling: {label}'s exponent is fitted over {moves_fit['sizes']} boards: no 95 % interval "
                         "(it needs three boards or more)")
        policies.append({"policy": policy, "label": label, "options": options, "cells": cells,
                         "boards": [f"{r}x{c}" for r, c in ordered],
                         "moves_mean": [m["moves_mean"] for m in board_points],
                         "moves_mean_ci95": [m["moves_mean_ci95"] for m in board_points],
                         "games": [m["games"] for m in board_points],
                         "games_per_cpu_second": [m["games_per_cpu_second"] for m in board_points],
                         "games_per_cpu_second_ci95": [m["games_per_cpu_second_ci95"] for m in board_points],
                         "moves_fit": moves_fit, "cpu_seconds_per_game_fit": cost_fit})
    return {"policies": policies, "notes": notes}
