"""numba's inliner with the callee's IR copied once, not once per block: the same code, less compile.

numba inlines an ``inline="always"`` function at each call site by copying the callee's IR
(``InlineWorker.inline_ir``, twice a call site: the copy it splices in and an unchanged one it
returns), and it copies that IR one block at a time, each block with a ``copy.deepcopy`` of its own.
Every block refers to the function's one ``Scope``, and the scope holds every variable of the
function: so each block's copy copies the whole scope again, and copying a callee costs its blocks
times its variables (numba/numba#8989, open). Our engine's game loop is inlined into every
policy's kernels, so this copying was most of a kernel's compile: 57 % of the CPU profile of
``cycle``'s play kernel (numba 0.68, docs/measurements.md, "Copying inlined IR once").

`share_block_copies` makes the block copies of one ``inline_ir`` call share one deepcopy memo, as one
deepcopy of the whole IR would: the scope and each variable are copied once. numba's own code is
untouched; only the ``copy`` module its inliner sees is ours, and it differs from the standard one in
``deepcopy(block)`` alone. The copies hold the same statements; the blocks share one copied scope, as
the original blocks share theirs (numba asserts that a callee has one scope and then reads the first
block's: the per-block copies were equal and all but one unused). Every kernel's LLVM IR is the same
with and without it (tests/test_numba_inline.py compiles a chain of inlined functions both ways;
bench/inline_copy_check.py every built-in policy's kernels), and a kernel family's cold compile takes
0.67-0.95 of the CPU it took (docs/measurements.md). Installed by `configure_numba_cache` before the
first kernel of ours compiles, so users' kernels compiled in our processes get it too.
"""

from __future__ import annotations

import copy as _copy
import threading
from contextlib import contextmanager

_state = threading.local()  # .memos: {id(scope): memo} of the inline_ir call running on this thread
_enabled = True  # False inside `per_block_copies` (tests compare both)


class _SharedBlockCopies:
    """The ``copy`` module as numba's inliner sees it: ``deepcopy(block)`` inside an ``inline_ir``
    call shares one memo with the other blocks of its function (keyed by their common scope)."""

    def __getattr__(self, name):
        return getattr(_copy, name)

    @staticmethod
    def deepcopy(x, memo=None):
        memos = getattr(_state, "memos", None)
        if memo is None and memos is not None and _enabled and _is_block(x):
            memo = memos.setdefault(id(x.scope), {})
        return _copy.deepcopy(x, memo)


def _is_block(x) -> bool:
    from numba.core import ir

    return type(x) is ir.Block


def share_block_copies() -> bool:
    """Make numba's inliner copy a callee's IR with one memo for all its blocks (the module's
    docstring). True when installed now or before; False when this numba's inliner is not shaped as
    expected (numba left as it is)."""
    from numba.core import inline_closurecall as inliner

    worker = getattr(inliner, "InlineWorker", None)
    inline_ir = getattr(worker, "inline_ir", None)
    if isinstance(getattr(inliner, "copy", None), _SharedBlockCopies):
        return True
    if inline_ir is None or getattr(inliner, "copy", None) is not _copy:
        return False

    def inline_ir_sharing_copies(self, *args, **kwargs):
        with one_inlining():
            return inline_ir(self, *args, **kwargs)

    inline_ir_sharing_copies.__wrapped__ = inline_ir
    inline_ir_sharing_copies.__doc__ = inline_ir.__doc__
    worker.inline_ir = inline_ir_sharing_copies
    inliner.copy = _SharedBlockCopies()
    return True


@contextmanager
def one_inlining():
    """The span of one ``inline_ir`` call: block copies made inside share a memo per scope. The
    scopes copied stay alive through the call (its IRs hold them), so their ids are safe keys."""
    outer = getattr(_state, "memos", None)
    _state.memos = {}
    try:
        yield
    finally:
        _state.memos = outer


@contextmanager
def per_block_copies():
    """numba's own copying (a deepcopy a block) while inside: for tests comparing the two."""
    global _enabled
    before, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = before
