"""What threads sharing arrays inside nogil kernels need (`crew.py`): sequentially consistent loads
and stores of an array's element, the CPU's spin-wait hint, and arrays at addresses another thread
published (`address_of`, `array_at`).

Each is a plain Python function for interpreted kernels and a numba intrinsic when compiled.
"""

import platform
import sys

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


def atomic_load(array, index):
    """array[index], read from memory with sequential consistency (compiled: an atomic load)."""
    return array[index]


def atomic_store(array, index, value):
    """array[index] = value, written to memory with sequential consistency (compiled: an atomic
    store, after every write before it in this thread)."""
    array[index] = value


def spin_pause():
    """Tell the CPU this thread is spinning on a memory location (x86: ``pause``; elsewhere nothing)."""


def cpu_yield():
    """Give this thread's core to another runnable thread, if there is one (``sched_yield``; on
    Windows ``SwitchToThread``): a spinning thread must not hold the core the thread it waits for needs."""
    import os

    if hasattr(os, "sched_yield"):
        os.sched_yield()


def address_of(array):
    """The address of a contiguous array's first element, as an int64 (for `array_at` in another thread)."""
    return np.int64(array.ctypes.data)


def array_at(address, shape, like):
    """A C-contiguous array of `like`'s dtype and shape `shape` (an int or a tuple) over the memory at
    `address`, which must stay alive while the array is used: it holds no reference to it."""
    import ctypes

    count = int(np.prod(shape))
    buffer = (ctypes.c_char * (count * like.itemsize)).from_address(int(address))
    return np.frombuffer(buffer, like.dtype, count).reshape(shape)


def _element_pointer(context, builder, array_type, array, index, index_type):
    ary = context.make_array(array_type)(context, builder, array)
    at = context.cast(builder, index, index_type, types.intp)
    return cgutils.get_item_pointer(context, builder, array_type, ary, [at])


@intrinsic
def _atomic_load(typingctx, array, index):
    if not (isinstance(array, types.Array) and isinstance(array.dtype, types.Integer)
            and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        ptr = _element_pointer(context, builder, array_type, args[0], args[1], index_type)
        return builder.load_atomic(ptr, "seq_cst", array_type.dtype.bitwidth // 8)

    return array.dtype(array, index), codegen


@intrinsic
def _atomic_store(typingctx, array, index, value):
    if not (isinstance(array, types.Array) and isinstance(array.dtype, types.Integer) and array.mutable
            and isinstance(index, types.Integer) and isinstance(value, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type, value_type = signature.args
        ptr = _element_pointer(context, builder, array_type, args[0], args[1], index_type)
        stored = context.cast(builder, args[2], value_type, array_type.dtype)
        builder.store_atomic(stored, ptr, "seq_cst", array_type.dtype.bitwidth // 8)
        return context.get_dummy_value()

    return types.none(array, index, value), codegen


@intrinsic
def _spin_pause(typingctx):
    def codegen(context, builder, signature, args):
        if _X86:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return types.none(), codegen


@intrinsic
def _cpu_yield(typingctx):
    def codegen(context, builder, signature, args):
        name = "SwitchToThread" if sys.platform == "win32" else "sched_yield"
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), name)
        builder.call(fn, [])
        return context.get_dummy_value()

    return types.none(), codegen


@intrinsic
def _address_of(typingctx, array):
    if not (isinstance(array, types.Array) and array.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.ptrtoint(ary.data, ir.IntType(64))

    return types.int64(array), codegen


@intrinsic
def _pointer_at(typingctx, address, like):
    """A pointer to `like`'s dtype at the int64 `address` (for numba.carray)."""
    if not (isinstance(address, types.Integer) and isinstance(like, types.Array)):
        return None
    pointer_type = types.CPointer(like.dtype)

    def codegen(context, builder, signature, args):
        at = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.inttoptr(at, context.get_value_type(pointer_type))

    return pointer_type(address, like), codegen


@overload(atomic_load, inline="always")
def _atomic_load_typed(array, index):
    return lambda array, index: _atomic_load(array, index)


@overload(atomic_store, inline="always")
def _atomic_store_typed(array, index, value):
    return lambda array, index, value: _atomic_store(array, index, value)


@overload(spin_pause, inline="always")
def _spin_pause_typed():
    return lambda: _spin_pause()


@overload(cpu_yield, inline="always")
def _cpu_yield_typed():
    return lambda: _cpu_yield()


@overload(address_of, inline="always")
def _address_of_typed(array):
    return lambda array: _address_of(array)


@overload(array_at, inline="always")
def _array_at_typed(address, shape, like):
    import numba

    return lambda address, shape, like: numba.carray(_pointer_at(address, like), shape)
