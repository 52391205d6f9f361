"""numba's inliner with a callee's IR copied once (fastsnake/_numba_inline.py): the same compiled code as
numba's own per-block copies, and the copies of one inlining share one scope."""

import re
import types

import numpy as np
from numba import njit
from numba.core import compiler
from numba.core import inline_closurecall as inliner

import fastsnake.snake.engine  # noqa: F401 - configures numba as every kernel of ours does
from fastsnake._numba_inline import one_inlining, per_block_copies, share_block_copies


@njit(inline="always")
def _step(a, i, k):
    s = 0
    for j in range(k):
        if a[(i + j) % a.shape[0]] > j:
            s += a[j % a.shape[0]]
        else:
            s -= j
    return s


@njit(inline="always")
def _middle(a, k):
    t = 0
    for i in range(a.shape[0]):
        t += _step(a, i, k) if i % 2 else -_step(a, i, k + 1)
    return t


def _kernel(a, k):
    return _middle(a, k) + _middle(a, k + 2) * 3


def _compiled(shared: bool):
    fn = njit(types.FunctionType(_kernel.__code__, _kernel.__globals__, "_kernel"))
    if shared:
        fn.compile("(int64[:], int64)")
    else:
        with per_block_copies():
            fn.compile("(int64[:], int64)")
    return fn


def _normalised(llvm: str) -> str:
    """LLVM IR without what differs between two compiles of one function in one process: the
    functions' unique versions in names, block label numbers (a process-wide counter) and comments."""
    llvm = re.sub(r";.*", "", re.sub(r"B\d+v\d+B", "BvB", llvm))
    llvm = re.sub(r"_v\d+_", "_v_", llvm)  # inlined functions' variables carry their function's version
    labels: dict[str, str] = {}
    llvm = re.sub(r"\bB\d+\b", lambda m: labels.setdefault(m.group(0), f"L{len(labels)}"), llvm)
    return "\n".join(line.rstrip() for line in llvm.splitlines())


def _plain_kernel_value(a, k):
    def step(i, k):
        return sum(a[j % len(a)] if a[(i + j) % len(a)] > j else -j for j in range(k))

    def middle(k):
        return sum(step(i, k) if i % 2 else -step(i, k + 1) for i in range(len(a)))

    return middle(k) + middle(k + 2) * 3


def test_our_kernels_compile_with_the_shared_copies():
    assert share_block_copies()  # installed by configuring numba: a second call finds it
    assert type(inliner.copy).__name__ == "_SharedBlockCopies"


def test_inlined_code_compiles_to_the_same_llvm_ir_either_way():
    shared, per_block = _compiled(True), _compiled(False)
    ir_shared = _normalised(shared.inspect_llvm(shared.signatures[0]))
    ir_per_block = _normalised(per_block.inspect_llvm(per_block.signatures[0]))
    assert not re.search(r"call .*_(step|middle)", ir_shared)  # inlined, not called
    assert ir_shared == ir_per_block
    for a, k in ((np.arange(7), 3), (np.array([5, -1, 9, 0]), 6), (np.array([2]), 0)):
        assert shared(a, k) == per_block(a, k) == _plain_kernel_value(list(a), k)


def _block_copies(func_ir):
    return [inliner.copy.deepcopy(block) for block in func_ir.blocks.values()]


def test_one_inlinings_block_copies_share_one_new_scope_and_nothing_outlives_it():
    func_ir = compiler.run_frontend(_middle.py_func)
    scope = next(iter(func_ir.blocks.values())).scope
    assert len(func_ir.blocks) > 3 and all(block.scope is scope for block in func_ir.blocks.values())
    with one_inlining():
        copies = _block_copies(func_ir)
        again = _block_copies(func_ir)
    assert all(block.scope is copies[0].scope for block in copies + again)
    assert copies[0].scope is not scope and copies[0].scope == scope
    assert [[str(s) for s in b.body] for b in copies] == [[str(s) for s in b.body] for b in func_ir.blocks.values()]
    assert copies[0].body[0] is not next(iter(func_ir.blocks.values())).body[0]
    # outside an inlining (and with numba's own copying asked for), a deepcopy a block, as numba does
    for context in (per_block_copies, None):
        if context is None:
            outside = _block_copies(func_ir)
        else:
            with one_inlining(), context():
                outside = _block_copies(func_ir)
        assert len({id(block.scope) for block in outside}) == len(outside)
