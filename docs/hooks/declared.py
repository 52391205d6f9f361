"""mkdocs hook: lists the docs show are written from their declarations in the code, when the site is built.

A page names a list by a marker, ``{{ NAME }}``; this hook replaces it with the list `EXPANSIONS` makes, so
a new sweep column (a `Column` in `fastsnake/snake/record.py`), a new tour method (a module of
`fastsnake/tour/methods/`) or a new built-in Snake policy (its module, its options) reaches every page
with no page edited by hand. An unknown marker fails the
build (`mkdocs build --strict`): ``tests/test_docs_declared.py`` checks every page's markers.
"""

from __future__ import annotations

import re
from functools import lru_cache

MARKER = re.compile(r"\{\{ ([a-z_.]+) \}\}")


def _columns() -> str:
    from fastsnake.snake import record

    return ", ".join(record.names())


def _means() -> str:
    from fastsnake.snake import record

    return ", ".join(f"{c.name}_mean" for c in record.mean_columns())


def _column_table() -> str:
    from fastsnake.snake import record

    summary = {"outcome": "counts of won, died, stuck", "moves": "quantiles, mean, mean of won games",
               "mean": "`<name>_mean`", None: ""}
    lines = ["| column | Arrow type | meaning | summary | in every file |", "|---|---|---|---|---|"]
    for c in record.columns():
        arrow = "dictionary of strings" if c.arrow == "outcome" else c.arrow
        kept = summary[c.summary].replace("<name>", c.name)
        every = "no (older files: null)" if c.optional else "yes"
        lines.append(f"| `{c.name}` | {arrow} | {c.doc} | {kept} | {every} |")
    return "\n".join(lines)


def _method_names() -> str:
    from fastsnake.tour import methods

    return "|".join([methods.AUTO, *methods.builtin_names()])


def _builtins() -> str:
    from fastsnake.tour import methods

    return ",".join(methods.builtin_names())


def _method_table() -> str:
    from fastsnake.tour import methods

    lines = ["| method | pieces | tours | boards | seed | what it does |", "|---|---|---|---|---|---|"]
    for name in methods.builtin_names():
        d = methods.declared_fields(name)
        lines.append(f"| `{name}` | {'the knight' if d['pieces'] == 'knight' else 'any leaper'} | "
                     f"{'open and closed' if d['tours'] == 'both' else d['tours']} | {d['boards']} | "
                     f"{'yes' if d['seeded'] else 'no'} | {d['summary']} |")
    return "\n".join(lines)


def _cells(cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("*", "\\*") for c in cells) + " |"


@lru_cache(maxsize=None)
def _builtin_policies() -> tuple:
    from fastsnake.snake.policies import OWN_DISTRIBUTION, all_policies

    return tuple(p for p in all_policies() if p.origin == OWN_DISTRIBUTION)


def _policy_table() -> str:
    from fastsnake.snake.policies import builtin_module

    lines = ["| policy | guaranteed | module | what it does (its summary, `fastsnake policies`) |", "|---|---|---|---|"]
    for p in _builtin_policies():
        module = builtin_module(p.name).removeprefix("fastsnake.snake.").replace(".", "/") + ".py"
        summary = f"alias of `{p.alias_of}`" if p.alias_of else p.headline.split(": ", 1)[-1]
        lines.append(_cells([f"`{p.name}`", "yes" if p.guaranteed else "no", f"`{module}`", summary]))
    return "\n".join(lines)


def _policy_options() -> str:
    """Every built-in policy's options, policies with the same options on one row group."""
    groups: dict[tuple, list[str]] = {}
    for policy in _builtin_policies():
        if policy.options:
            groups.setdefault(policy.options, []).append(policy.name)
    lines = ["| policies | option | values | default | meaning |", "|---|---|---|---|---|"]
    for table, names in groups.items():
        who = ", ".join(f"`{n}`" for n in names)
        for opt in table:
            lines.append(_cells([who, f"`{opt.name}`", opt.rule_text(), opt.default_text(), opt.help]))
            who = ""
    return "\n".join(lines)


def _heuristics() -> str:
    from fastsnake.puzzle import heuristic_names

    return "|".join([*heuristic_names(), "auto"])


EXPANSIONS = {
    "puzzle.heuristics": _heuristics,
    "snake.policies": _policy_table,
    "snake.policy_options": _policy_options,
    "record.columns": _columns,
    "record.means": _means,
    "record.table": _column_table,
    "tour.method_names": _method_names,
    "tour.builtins": _builtins,
    "tour.methods": _method_table,
}


def expand(markdown: str) -> str:
    """`markdown` with every marker replaced; KeyError naming an unknown one."""
    def one(match):
        if match[1] not in EXPANSIONS:
            raise KeyError(f"unknown docs marker {match[0]!r}; known: {', '.join(sorted(EXPANSIONS))}")
        return EXPANSIONS[match[1]]()

    return MARKER.sub(one, markdown)


def on_page_markdown(markdown, page, config, **_):
    return expand(markdown)
