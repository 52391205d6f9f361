"""An array-backed binary min-heap of int64 keys, usable inside njit kernels.

Callers pack priority and payload into one int64 (e.g. ``f << 42 | h << 21 | cell``)
so a pop is a single compare-and-swap loop with no parallel payload array. The heap
is a plain array plus a size the caller keeps, so buffers are reused across searches
without allocation.
"""

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def heap_push(keys, size, key):
    """Insert `key` into heap `keys[:size]`; returns the new size. Caller ensures capacity."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= key:
            break
        keys[i] = keys[parent]
        i = parent
    keys[i] = key
    return size + 1


@njit(cache=True, inline="always")
def heap_pop(keys, size):
    """Remove the smallest key of `keys[:size]` (size > 0); returns (key, new size)."""
    top = keys[0]
    size -= 1
    last = keys[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if last <= keys[child]:
            break
        keys[i] = keys[child]
        i = child
    keys[i] = last
    return top, size


def new_heap(capacity: int) -> np.ndarray:
    return np.empty(max(int(capacity), 1), dtype=np.int64)
