"""Modules a test module imports on first use, not when pytest collects it.

``pytest tests/snake -k NAME`` imports every test module of the folder to find the tests the name
selects, so a heavy import at the top of one (``scipy.stats``: about 0.6 CPU-s) is paid by every such
run, and by each worker of ``-n 2``. A reference library only a few tests call goes through `lazy`.
"""

import importlib
import importlib.util


class lazy:
    """``stats = lazy("scipy.stats")``: the module, imported at the first attribute read."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self):
        return f"lazy({self._name!r})"


def missing(*names: str) -> list[str]:
    """The names among `names` not installed, found without importing them (for ``skipif``)."""
    return [name for name in names if importlib.util.find_spec(name) is None]
