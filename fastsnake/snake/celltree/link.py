"""Calls from the policies' kernels into the agents' search, compiled once instead of in every kernel.

numba links the code of every compiled function a kernel calls into that kernel and optimises and
emits it again there (numba 0.68's code generator); `cell`'s and `grove`'s searches are most of
their kernels' code, so each kernel (play, sweep, the sweep's parallel loop) paid for them again.
Here a kernel calls the search through a named external symbol instead (`symbol_call`): it holds a
call to the name, not the code, and the search is compiled (or loaded from numba's cache) once per
process, by itself, and its address registered under that name (`ensure`) before any kernel that
calls it is compiled or loaded (`link_kernels`). The call is numba's own calling convention with
the same arguments as a direct call (an indirect call per re-search, not per move: the fast path
of a standing plan stays inlined in the kernel).

A kernel compiled with calls to a name that is not registered would fail to load, so every way to
a kernel goes through its dispatcher's ``compile``, which `link_kernels` wraps. With numba's JIT
off (the interpreted tier) the call is a plain Python call.
"""

from __future__ import annotations

import threading

from numba import config, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

from fastsnake.snake.engine import State

_I32, _I64, _I16 = (types.Array(t, 1, "C") for t in (types.int32, types.int64, types.int16))
STATE = types.NamedUniTuple(types.int64, len(State._fields), State)
# The searches' signature: (I, L, X, order, body, st) -> the next move.
SEARCH_ARGS = (_I32, _I64, _I64, _I16, _I32, STATE)
SEARCH_SIG = types.int32(*SEARCH_ARGS)
_U8, _U64 = types.Array(types.uint8, 1, "C"), types.Array(types.uint64, 1, "C")
WORKSPACE_TYPE = types.Tuple((_I32, _I64, _I64, _I16))
# The game tuple (`engine.new_game`: cfg, nbr, body, occupancy, free, free positions, rng).
GAME_TYPE = types.Tuple((_I64, _I32, _I32, _U8, _I32, _I32, _U64))
# The workspace's set-up: build(cfg, nbr, params) -> (I, L, X, order); new_start(ws, g).
BUILD_SIG = WORKSPACE_TYPE(_I64, _I32, _I64)
NEW_START_SIG = types.none(WORKSPACE_TYPE, GAME_TYPE)

_lock = threading.Lock()
_linked: dict[str, int] = {}  # symbol -> the address registered in this process


def ensure(symbol: str, dispatcher, sig=SEARCH_SIG) -> None:
    """Compile (or load from the cache) `dispatcher` for `sig` and register its native entry as `symbol`."""
    if config.DISABLE_JIT or symbol in _linked:
        return
    import llvmlite.binding as llvm

    with _lock:
        if symbol in _linked:
            return
        dispatcher.compile(sig)
        cres = dispatcher.overloads[tuple(sig.args)]
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        llvm.add_symbol(symbol, address)
        _linked[symbol] = address


def symbol_call(symbol: str, target, sig=SEARCH_SIG):
    """A function compiled code calls as ``f(*args)``: a call to the external `symbol`, which `ensure`
    binds to `target` compiled for `sig` (the argument types must be `sig`'s exactly). With the JIT
    off, `target` itself."""
    if config.DISABLE_JIT:
        return target

    def typer(args):
        if tuple(args) != tuple(sig.args):
            raise TypingError(f"{symbol} takes {sig.args}, got {tuple(args)}")

        def codegen(context, builder, signature, llargs):
            fnty = context.call_conv.get_function_type(sig.return_type, sig.args)
            fn = cgutils.get_or_insert_function(builder.module, fnty, symbol)
            status, res = context.call_conv.call_function(builder, fn, sig.return_type, sig.args, llargs)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return res

        return sig, codegen

    # numba's intrinsics take no *args: a typing function of the signature's arity.
    arity = {
        2: lambda typingctx, a, b: typer((a, b)),
        3: lambda typingctx, a, b, c: typer((a, b, c)),
        6: lambda typingctx, a, b, c, d, e, f: typer((a, b, c, d, e, f)),
    }
    typing = arity[len(sig.args)]
    typing.__name__ = typing.__qualname__ = f"call_{symbol}"
    return intrinsic(typing)


def link_kernels(kernels, needs):
    """`kernels` (`policies.kernels.Kernels` of numba dispatchers) with every compile or cache load
    first calling ``ensure(symbol, dispatcher, sig)`` for each (symbol, dispatcher, sig) of `needs`."""
    if config.DISABLE_JIT:
        return kernels
    for kernel in kernels:
        compile_kernel = kernel.compile

        def compile_linked(sig, compile_kernel=compile_kernel):
            for symbol, dispatcher, sig_needed in needs:
                ensure(symbol, dispatcher, sig_needed)
            return compile_kernel(sig)

        kernel.compile = compile_linked
    return kernels


def is_linked(symbol: str) -> bool:
    """Is `symbol` registered in this process (tests)?"""
    return symbol in _linked

