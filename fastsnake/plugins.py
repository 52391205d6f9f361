"""What the problems' registries (Snake policies, puzzle heuristics, tour methods) share: other packages'
entry points, our modules' declarations read from their source, and warnings said once a process.

- `discover`: the entry points of a group, first one of a name winning; fastsnake's own (metadata of an
  older install) and names a built-in holds are left out, each case reported to the registry, which
  words its own warning;
- `dist_name`: the package an entry point comes from;
- `find_declaration`: the one top-level statement (e.g. ``BUILTIN = {...}``, ``METHOD = TourMethod(...)``)
  a module's source declares its part in, parsed with `ast` and never imported;
- `warn_once`: ``fastsnake: warning: ...`` on stderr, once per process for each message.

It knows no problem: each registry hands it its group, its names, its error class and its words.
"""

from __future__ import annotations

import ast
import os
import sys

# A declaration spans at most this many lines.
DECLARATION_LINES = 64


def dist_name(ep) -> str:
    """The distribution (package) entry point `ep` comes from; without metadata, its module's top package."""
    dist = getattr(ep, "dist", None)
    return dist.name if dist is not None else ep.value.split(":")[0].split(".")[0]


def discover(group: str, *, own: str | None, builtins=(), on_builtin=None, on_repeat=None) -> dict:
    """name -> EntryPoint of the group `group`, the first one of a name winning. Entry points of the
    distribution `own` (None: none left out) are left out; so is a name in `builtins`, after
    ``on_builtin(ep)``; a later entry point of a name already found calls ``on_repeat(ep, first)``."""
    from importlib.metadata import entry_points

    found: dict = {}
    for ep in entry_points(group=group):
        if own is not None and dist_name(ep) == own:
            continue
        if ep.name in builtins:
            if on_builtin is not None:
                on_builtin(ep)
            continue
        if ep.name in found:
            if on_repeat is not None:
                on_repeat(ep, found[ep.name])
            continue
        found[ep.name] = ep
    return found


def find_declaration(path: str, pattern, declaration: str, where: str, error, max_lines: int = DECLARATION_LINES):
    """(statement, where) of the declaration the module at `path` makes: the top-level statement at the
    one match of `pattern` (a compiled regular expression, multi-line), parsed alone with `ast` (None
    when no parse within `max_lines` lines); `where` names the module and the declaration's line for
    messages, as ``f"{where} ({file name}, line N)"``. None when the module declares nothing; `error`
    (the registry's class) when `declaration` is written more than once."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    starts = [m.start() for m in pattern.finditer(text)]
    if not starts:
        return None
    line = text.count("\n", 0, starts[0]) + 1
    where = f"{where} ({os.path.basename(path)}, line {line})"
    if len(starts) > 1:
        raise error(f"{where}: {declaration} is written {len(starts)} times; declare it once")
    lines = text[starts[0]:].split("\n", max_lines)[:max_lines]
    for end in range(1, len(lines) + 1):
        try:
            return ast.parse("\n".join(lines[:end])).body[0], where
        except SyntaxError:
            continue
    return None, where


def warn_once(message: str, said: set, lock) -> None:
    """``fastsnake: warning: message`` on stderr, unless `said` (a registry's set, guarded by its `lock`)
    holds it already; then it does."""
    with lock:
        if message in said:
            return
        said.add(message)
    sys.stderr.write(f"fastsnake: warning: {message}\n")
