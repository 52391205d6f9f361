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

The searches are made of such pieces in turn (the detour chains, the legs, the big-board outline
test, the branch and bound, the outline walks: ``symbol_call(..., needs)``), so numba compiles and
LLVM optimises each piece once a process instead of once more in every compiled function above it
(a linked callee's code is optimised again at each level), and numba's inlining of a search does
not process the pieces' inlined layers again. Each is a call per search or per plan test, none per
move.
"""

from __future__ import annotations

import threading

from numba import config, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.core.typeconv import Conversion
from numba.extending import intrinsic

from fastsnake.snake.engine import State

_I32, _I64, _I16 = (types.Array(t, 1, "C") for t in (types.int32, types.int64, types.int16))
I16, I32, I64, INT, INT32, BOOL = _I16, _I32, _I64, types.int64, types.int32, types.boolean  # pieces' signatures
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

_lock = threading.RLock()  # `ensure` of a target binds the names its own code calls first
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


def _converts(typingctx, given, wanted) -> bool:
    """May an argument of type `given` be passed where the symbol's signature has `wanted`? The same
    type, or an integer (a literal, a narrower int) numba converts safely to the integer `wanted`."""
    if given == wanted:
        return True
    if not isinstance(wanted, types.Integer) or not isinstance(given, (types.Integer, types.IntegerLiteral,
                                                                       types.BooleanLiteral, types.Boolean)):
        return False
    conversion = typingctx.can_convert(given, wanted)
    return conversion is not None and conversion <= Conversion.safe


def symbol_call(symbol: str, target, sig=SEARCH_SIG, needs=()):
    """A function compiled code calls as ``f(*args)``: a call to the external `symbol`, which `ensure`
    binds to `target` compiled for `sig` (array and tuple arguments must be `sig`'s types exactly;
    integers are converted, so literal and narrower ints give no second specialisation). With the
    JIT off, `target` itself.

    `needs`: the (symbol, dispatcher, sig) that `target`'s own code calls through names: bound before
    `target` compiles or loads (`link_kernels` on `target`), so a search made of linked pieces
    compiles each piece once a process and links none of them into another."""
    if config.DISABLE_JIT:
        return target
    if needs:
        link_kernels((target,), needs)

    def typer(typingctx, args):
        pairs = zip(args, sig.args, strict=True)  # the typing function has the signature's arity
        if not all(_converts(typingctx, given, wanted) for given, wanted in pairs):
            raise TypingError(f"{symbol} takes {sig.args}, got {tuple(args)}")

        def codegen(context, builder, signature, llargs):
            fnty = context.call_conv.get_function_type(sig.return_type, sig.args)
            fn = cgutils.get_or_insert_function(builder.module, fnty, symbol)
            status, res = context.call_conv.call_function(builder, fn, sig.return_type, sig.args, llargs)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return res

        # The call's signature is `sig`: numba converts the arguments to its types before `codegen`.
        return sig, codegen

    # numba's intrinsics take no *args: a typing function of the signature's arity.
    names = ", ".join(f"a{i}" for i in range(len(sig.args)))
    namespace = {"typer": typer}
    exec(f"def call_{symbol}(typingctx, {names}):\n    return typer(typingctx, ({names},))", namespace)
    return intrinsic(namespace[f"call_{symbol}"])


def link_kernels(kernels, needs):
    """`kernels` (`policies.kernels.Kernels` of numba dispatchers) with every compile or cache load
    first calling ``ensure(symbol, dispatcher, sig)`` for each (symbol, dispatcher, sig) of `needs`."""
    if config.DISABLE_JIT:
        return kernels
    for kernel in kernels:
        compile_kernel = kernel.compile

        def compile_linked(sig, compile_kernel=compile_kernel):
            for need in needs:  # (symbol, dispatcher, sig), or `symbol_call`'s arguments with its needs
                ensure(*need[:3])
            return compile_kernel(sig)

        kernel.compile = compile_linked
    return kernels


def is_linked(symbol: str) -> bool:
    """Is `symbol` registered in this process (tests)?"""
    return symbol in _linked
