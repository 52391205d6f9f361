"""The policy registry: every Snake AI, ours and users', is found here by name.

Three ways in, one registry:

- our built-in policies: each policy module of this package (and of its sub-packages, if any)
  declares the policies it defines in one literal, ``BUILTIN = {"phc": "PHC", "phc-faithful":
  "PHC_FAITHFUL"}`` (name -> the module's attribute). `declared_builtins` reads that statement from
  the source files with a regular expression and `ast.literal_eval`, without importing them (about
  a millisecond for the package, once a process, when a name is first looked up), and registers each
  through `register_builtin`; the module is imported when its policy is first used. As Gymnasium
  registers its environments in its own package, a ``git pull`` that brings a policy module brings its
  names, with no install step and no list to edit;
- the entry-point group ``fastsnake.policies`` (``name = "package.module:object"``), for other
  packages' policies: discovered once, loaded on first use. A name a built-in holds stays the
  built-in's: the entry point is ignored with one warning naming both;
- `register_policy`, for policies defined in a running process.

A name declared twice is a PolicyError, and so is a declaration that is not one literal dict of
policy names to attribute names (one line naming the module), or an attribute its module does not
define (when loaded). Listing names costs no import, and a dask worker finds an installed user policy
exactly as the CLI does. A registered object (a built-in's or an entry point's) may be:

- an `EnginePolicy` (our policies: njit functions inlined into the engine loop,
  ``alloc(cfg, nbr, params)``, ``reset(ws, g)``, ``decide(ws, g, st)``, behind two cached
  kernels made from one template, `kernels.engine_kernels`; see ``greedy.py``, ``cycle.py``);
- a `fastsnake.Policy` (``decide(state, ws)``, optional ``alloc``/``start_cycle``), or a
  bare ``decide`` function: a user policy, adapted by `fastsnake.snake.policies.user`.
"""

from __future__ import annotations

import ast
import contextvars
import os
import re
import threading
from contextlib import contextmanager
from dataclasses import replace

# Re-exported: policy modules and packages import these from here (they live below the registry,
# in protocol.py, so that user.py, which the registry imports, can use them without a cycle).
from fastsnake import plugins
from fastsnake.errors import in_cli_words
from fastsnake.snake.policies.protocol import (  # noqa: F401
    OWN_DISTRIBUTION,
    BySize,
    EnginePolicy,
    Option,
    OptionError,
    PolicyError,
    check_name,
    check_table,
    no_params,
    resolve,
)

ENTRY_POINT_GROUP = "fastsnake.policies"
# Families of policies named FAMILY:ARGUMENT, made on demand (ours: ``model:PATH``, a saved agent).
FAMILY_GROUP = "fastsnake.policy_families"

_lock = threading.RLock()
_registry: dict[str, EnginePolicy] = {}
_entry_points: dict | None = None  # name -> EntryPoint, discovered once
_builtins: dict[str, str] = {}  # name -> "module:object" of our own policies (`register_builtin`)
_scanned = False  # whether the policy modules' declarations are registered (`_builtin_table`)
_warned: set[str] = set()  # warnings already printed by this process


def warn_once(message: str) -> None:
    """`fastsnake: warning: ...` on stderr, once per process whatever the number of lookups."""
    plugins.warn_once(message, _warned, _lock)


def register_builtin(name: str, target: str) -> None:
    """Register our policy `name`, the object ``"package.module:object"`` names (imported on first use).

    Our policy modules' ``BUILTIN`` declarations come through here (`declared_builtins`); a name
    taken twice is a PolicyError.
    """
    check_name(name)
    module, _, attr = target.partition(":")
    if not (module.startswith(OWN_DISTRIBUTION + ".") and attr.isidentifier()):
        raise PolicyError(f"built-in policy {name!r}: {target!r} is not 'fastsnake.module:object'")
    with _lock:
        if name in _builtins and _builtins[name] != target:
            raise PolicyError(f"built-in policy {name!r} is registered twice: {_builtins[name]!r}, {target!r}")
        _builtins[name] = target


# The literal a policy module declares its policies in, at the start of a line (a top-level statement).
DECLARATION = "BUILTIN"
_DECLARED = re.compile(rf"^{DECLARATION}\b", re.M)
# A declaration spans at most this many lines (one a policy, and its braces).
_DECLARATION_LINES = 64


def declared_builtins(folders=None, package: str = __name__) -> list[tuple[str, str]]:
    """``(name, "module:attribute")`` for each policy the ``BUILTIN`` literals of the modules in
    `folders` (default: this package's folders, ``__path__``) and their sub-packages declare, read from
    the source without importing anything.

    Raises PolicyError, one line naming the module, for a declaration that is not one assignment of a
    literal dict of policy names to attribute names."""
    found = []
    for folder in __path__ if folders is None else folders:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            stem = entry.name[:-3] if entry.name.endswith(".py") else entry.name
            if not stem.isidentifier():
                continue
            if entry.is_dir():
                init = os.path.join(entry.path, "__init__.py")
                if os.path.isfile(init):
                    found += _declared_in(init, f"{package}.{stem}")
                    found += declared_builtins([entry.path], f"{package}.{stem}")
            elif entry.name.endswith(".py") and stem != "__init__":
                found += _declared_in(entry.path, f"{package}.{stem}")
    return found


def _declared_in(path: str, module: str) -> list[tuple[str, str]]:
    """The declaration of the module at `path` (see `declared_builtins`): a regular expression finds its
    line, `ast` reads just that statement."""
    found = plugins.find_declaration(path, _DECLARED, DECLARATION, f"policy module {module}", PolicyError,
                                     _DECLARATION_LINES)
    if found is None:
        return []
    statement, where = found
    declared = None
    targets = (statement.targets if isinstance(statement, ast.Assign)
               else [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value else [])
    if [getattr(target, "id", None) for target in targets] == [DECLARATION]:
        try:
            declared = ast.literal_eval(statement.value)
        except (ValueError, TypeError, SyntaxError, RecursionError):  # not a literal, or an unhashable key
            declared = None
    if not (isinstance(declared, dict) and declared
            and all(isinstance(attr, str) and attr.isidentifier() for attr in declared.values())):
        raise PolicyError(f"{where}: {DECLARATION} must be one literal dict of policy names to the module's "
                          f"attribute names, e.g. {DECLARATION} = {{\"my-policy\": \"POLICY\"}}")
    for name in declared:
        try:
            check_name(name)
        except PolicyError as exc:
            raise PolicyError(f"{where}: {exc}") from None
    return [(name, f"{module}:{attr}") for name, attr in declared.items()]


def _builtin_table() -> dict[str, str]:
    """name -> "module:object" of our built-in policies, the policy modules' declarations registered
    on first use (once a process: a scan of the package's source files, no import)."""
    global _scanned
    with _lock:
        if not _scanned:
            for name, target in declared_builtins():
                register_builtin(name, target)
            _scanned = True
        return _builtins


def builtin_names() -> list[str]:
    """The names of our built-in policies (aliases such as ``strongest`` included), without loading any."""
    with _lock:
        return sorted(_builtin_table())


def builtin_module(name: str) -> str | None:
    """The module that defines our policy `name` (no import), else None."""
    target = _builtin_table().get(name)
    return None if target is None else target.partition(":")[0]


def _discover() -> dict:
    """Other packages' entry points of the group, first one of a name wins; a name a built-in holds
    stays the built-in's (one warning naming both), and fastsnake's own entry points (metadata of an
    older install: built-ins are registered in code now) are not read."""
    global _entry_points
    with _lock:
        if _entry_points is None:
            builtins = _builtin_table()

            def taken_by_a_builtin(ep):
                warn_once(f"policy {ep.name!r} of package {plugins.dist_name(ep)!r} ({ep.value}) is ignored: "
                          f"fastsnake's built-in policy {ep.name!r} ({builtins[ep.name]}) keeps that name")

            def taken_by_another_package(ep, first):
                if plugins.dist_name(first) != plugins.dist_name(ep):
                    warn_once(f"policy {ep.name!r} of package {plugins.dist_name(ep)!r} is ignored: "
                              f"{plugins.dist_name(first)!r} provides that name")

            _entry_points = plugins.discover(ENTRY_POINT_GROUP, own=OWN_DISTRIBUTION, builtins=builtins,
                                             on_builtin=taken_by_a_builtin, on_repeat=taken_by_another_package)
        return _entry_points


def rediscover() -> None:
    """Forget the discovered entry points (e.g. after ``pip install`` of a policy package in a
    running process); policies loaded from them are dropped too, registered ones are kept."""
    global _entry_points
    with _lock:
        if _entry_points is not None:
            for name, ep in _entry_points.items():
                policy = _registry.get(name)
                if policy is not None and policy.origin == plugins.dist_name(ep):
                    del _registry[name]
        _entry_points = None


def as_engine_policy(name: str, obj, origin: str) -> EnginePolicy:
    """The engine form of a registered object (an EnginePolicy, a Policy or a decide function)."""
    if isinstance(obj, EnginePolicy):
        check_table(name, obj.options)
        return obj if obj.name == name and obj.origin == origin else replace(obj, name=name, origin=origin)
    from fastsnake.snake.policies.user import Policy, user_engine_policy

    if not isinstance(obj, Policy):
        if not callable(obj):
            raise PolicyError(f"policy {name!r} is {type(obj).__name__} {obj!r}, not a fastsnake.Policy "
                              f"or a callable decide(state, ws)")
        obj = Policy(obj)
    return user_engine_policy(name, obj, origin)


def register_policy(name: str, policy, *, replace_existing: bool = False) -> EnginePolicy:
    """Register `policy` as `name` in this process.

    Names of installed policies cannot be taken unless `replace_existing`.

    Parameters
    ----------
    name : str
        The policy's name, as ``fastsnake.sweep(name, ...)`` and the CLI take it.
    policy : fastsnake.Policy or callable
        A `fastsnake.Policy`, or a bare ``decide(state, ws)`` function.
    replace_existing : bool, optional
        Allow taking a name that is already registered or installed.

    Returns
    -------
    EnginePolicy
        The registry's entry.

    Raises
    ------
    PolicyError
        A bad or taken name, or an object that is not a policy.

    Examples
    --------
    >>> import fastsnake
    >>> def left_then_down(state, ws):
    ...     return 3
    >>> fastsnake.register_policy("doc-example", left_then_down).name
    'doc-example'
    >>> fastsnake.unregister_policy("doc-example")
    """
    check_name(name)
    module = getattr(getattr(policy, "decide", policy), "__module__", None) or "__main__"
    engine_policy = as_engine_policy(name, policy, origin=module.split(".")[0])
    with _lock:
        if not replace_existing and (name in _registry or name in _builtin_table() or name in _discover()):
            holder = (_registry[name].origin if name in _registry
                      else OWN_DISTRIBUTION if name in _builtin_table() else plugins.dist_name(_discover()[name]))
            raise PolicyError(f"policy name {name!r} is taken (by {holder}); choose another or pass "
                              f"replace_existing=True")
        _registry[name] = engine_policy
    return engine_policy


def unregister_policy(name: str) -> None:
    """Forget a policy registered in this process (built-in and installed ones come back on next use).

    Parameters
    ----------
    name : str
        A name given to `register_policy`; unknown names are ignored.

    Examples
    --------
    See `register_policy`.
    """
    with _lock:
        _registry.pop(name, None)


def available() -> list[str]:
    """Every policy name, built-in, registered or installed, without loading any."""
    with _lock:
        return sorted(set(_registry) | set(_builtin_table()) | set(_discover()))


# An unknown name lists choices up to this many characters, so the error stays one readable line
# whatever names users have registered (tests/test_bad_inputs.py holds every error to 240).
_LISTED_CHARS = 120


def _unknown_policy_message(name: str) -> str:
    import difflib

    names = available()
    close = difflib.get_close_matches(str(name), names, n=3)
    if close:
        return f"unknown policy {name!r}; did you mean {' or '.join(map(repr, close))}?"
    shown = []
    for candidate in names:
        if len(", ".join([*shown, candidate])) > _LISTED_CHARS:
            break
        shown.append(candidate)
    listed = ", ".join(shown)
    more = f" and {len(names) - len(shown)} more (fastsnake.policies() lists them)" if len(names) > len(shown) else ""
    return f"unknown policy {name!r}; available: {listed}{more}"


# Inside `named_by_files`: the model files the user named (SHA-256 -> path) and the family policies a
# file named that were matched with one of them (argument -> (path, SHA-256)). None outside.
_from_files: contextvars.ContextVar = contextvars.ContextVar("fastsnake_named_by_files", default=None)


def _sha256(path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_family_name(name) -> bool:
    """Whether `name` is a ``FAMILY:ARGUMENT`` policy (e.g. ``model:PATH``), made on demand."""
    return isinstance(name, str) and ":" in name and name not in _registry


@contextmanager
def named_by_files(models=()):
    """Inside, policies are named by files someone may have sent (a sweep's, a replay's): a family
    policy such as ``model:PATH`` is made only from a model file the user named in `models` (the CLI's
    ``--model PATH``) whose SHA-256 is the one the file recorded, never from the PATH the file names.
    `recorded_options` matches them; a policy no file of `models` matches is refused (PolicyError)
    when it would be made. Built-in and installed policies are looked up as usual."""
    found = {}
    for path in models or ():
        try:
            found[_sha256(path)] = str(path)
        except OSError as exc:
            raise PolicyError(f"model file {str(path)!r}: cannot read it: {exc.strerror or exc}") from None
    token = _from_files.set({"models": found, "admitted": {}})
    try:
        yield
    finally:
        _from_files.reset(token)


def _admit(policy_name: str, options: dict) -> None:
    """Inside `named_by_files`: match the family policy a file names with a model file the user named
    (by the SHA-256 the file recorded; without one recorded, the only model named)."""
    state = _from_files.get()
    if state is None:
        return
    argument = policy_name.partition(":")[2]
    recorded = options.get("sha256") if isinstance(options.get("sha256"), str) else None
    models = state["models"]
    if recorded is not None and recorded in models:
        state["admitted"][argument] = (models[recorded], recorded)
    elif recorded is None and len(models) == 1:
        state["admitted"][argument] = (next(iter(models.values())), None)
    else:
        state["admitted"].setdefault(argument, (None, recorded))


def require_named(policy_name: str, options: dict | None) -> None:
    """Inside `named_by_files`: PolicyError now (not one per game later) when `policy_name`, a family
    policy a file names, matches no model file the user named."""
    state = _from_files.get()
    if state is None or not is_family_name(policy_name):
        return
    _admit(policy_name, dict(options or {}))
    path, recorded = state["admitted"].get(policy_name.partition(":")[2], (None, None))
    if path is None:
        raise _not_named(policy_name, recorded)


def _not_named(name: str, recorded: str | None) -> PolicyError:
    state = _from_files.get()
    given = ", ".join(f"{path} (SHA-256 {sha[:12]}...)" for sha, path in state["models"].items())
    what = f" with SHA-256 {recorded}" if recorded else ""
    if given:
        said = f"policy {name!r} is named by the file, and no model file given matches it: {given}; give the model "
        tail = f"it was played with (a file{what})"
        return in_cli_words(PolicyError(said + "in models=[PATH] " + tail), said + "with --model PATH " + tail)
    said = f"policy {name!r} is named by the file: fastsnake loads no model a file names; give the model yourself"
    tail = f" (a file{what}), to play it"
    return in_cli_words(PolicyError(f"{said}, models=[PATH]{tail}"), f"{said}, --model PATH{tail}")


def _family_policy(name: str) -> EnginePolicy:
    """``FAMILY:ARGUMENT`` (e.g. ``model:runs/ppo/model.zip``): the policy the family's factory, an entry
    point of `FAMILY_GROUP` (``factory(argument, name) -> EnginePolicy``), makes of the argument. Not
    kept in the registry: the factory keeps what it loads (a file may change between two calls).
    Inside `named_by_files`, made from the file the user named, as `named_by_files` says."""
    from importlib.metadata import entry_points

    family, _, argument = name.partition(":")
    expected = {}
    state = _from_files.get()
    if state is not None:
        path, recorded = state["admitted"].get(argument, (None, None))
        if path is None:
            raise _not_named(name, recorded)
        argument = path
        if recorded is not None:
            expected = {"sha256": recorded}
    found = {ep.name: ep for ep in entry_points(group=FAMILY_GROUP)}
    if family not in found:
        known = ", ".join(f"{f}:..." for f in sorted(found)) or "none installed"
        raise PolicyError(f"unknown policy {name!r}: no policy family {family!r} (families: {known})")
    try:
        factory = found[family].load()
    except ImportError as exc:  # e.g. the envs without gymnasium: its message says what to install
        raise PolicyError(f"policy {name!r}: {exc}") from None
    policy = factory(argument, name, **expected)
    if not isinstance(policy, EnginePolicy) or policy.name != name:
        raise PolicyError(f"policy family {family!r} made no policy named {name!r} of {name!r}")
    return policy


def get_policy(name: str) -> EnginePolicy:
    with _lock:
        if name in _registry:
            return _registry[name]
        if isinstance(name, str) and ":" in name:
            return _family_policy(name)
        if name in _builtin_table():
            policy = as_engine_policy(name, _load_builtin(name), origin=OWN_DISTRIBUTION)
            _registry[name] = policy
            return policy
        ep = _discover().get(name)
        if ep is None:
            raise PolicyError(_unknown_policy_message(name))
        try:
            obj = ep.load()
        except Exception as exc:  # a broken third-party package must not take the tool down
            raise PolicyError(f"policy {name!r} of package {plugins.dist_name(ep)!r} cannot be loaded from "
                              f"{ep.value!r}: {type(exc).__name__}: {exc}") from None
        policy = as_engine_policy(name, obj, origin=plugins.dist_name(ep))
        _registry[name] = policy
        return policy


def _load_builtin(name: str):
    import importlib

    module, _, attr = _builtins[name].partition(":")
    obj = getattr(importlib.import_module(module), attr, None)
    if obj is None:
        raise PolicyError(f"policy module {module}: its {DECLARATION} declares policy {name!r} as {attr!r}, "
                          f"which the module does not define")
    return obj


def resolved_name(name: str) -> str:
    """The policy that plays under `name`: an alias's own (``strongest`` -> ``grove``), else `name`.
    A family's name (``model:PATH``) is its own: nothing is loaded to answer."""
    if ":" in name:
        return name
    try:
        return get_policy(name).alias_of or name
    except PolicyError:
        return name


def all_policies(errors: list | None = None) -> list[EnginePolicy]:
    """Every policy, loaded; a policy that cannot load is skipped (its error appended to `errors`)."""
    found = []
    for name in available():
        try:
            found.append(get_policy(name))
        except PolicyError as exc:
            if errors is not None:
                errors.append(str(exc))
    return found


def resolve_options(policy: EnginePolicy, options: dict | None, config) -> dict:
    """The value of every option `policy` declares for a game on `config`: the ones given, checked
    against the declaration, and the defaults (by board size where declared so) for the rest."""
    return resolve(policy.name, policy.options, options, config)


# Files written before options were declared as data (fastsnake 0.x up to 2026-11) recorded a
# cell/grove default that depends on the board as -1. No declared option takes -1 now.
LEGACY_DEFAULT = -1


def recorded_options(policy_name: str, options: dict | None) -> dict:
    """Options as a sweep or replay file recorded them, read for today's declarations: a
    `LEGACY_DEFAULT` where the declaration refuses it means "the default" (older files), so those
    files still replay; every other value is checked as usual when the game is set up. A family
    policy (``model:PATH``) is not made here; inside `named_by_files` it is matched with a model file
    the user named."""
    options = dict(options or {})
    if is_family_name(policy_name):  # made on demand from a file: no legacy defaults, nothing loaded here
        _admit(policy_name, options)
        return options
    try:
        table = {opt.name: opt for opt in get_policy(policy_name).options}
    except PolicyError:
        return options
    for name, value in list(options.items()):
        opt = table.get(name)
        if (value == LEGACY_DEFAULT and opt is not None and opt.type is int
                and opt.low is not None and opt.low > LEGACY_DEFAULT):
            del options[name]
    return options
