"""Core clock estimate: a dependency chain of known latency (imul 3 + shr 1 + xor 1 cycles) timed in CPU time."""

import time

import numpy as np
from numba import njit


@njit(cache=True)
def mulchain(n, x):
    m = np.uint64(0x9E3779B97F4A7C15)
    for _ in range(n):
        x = x * m
        x = x ^ (x >> np.uint64(33))
    return x


def ghz():
    mulchain(10, np.uint64(3))
    best = 1e9
    for _ in range(3):
        t = time.process_time()
        mulchain(200_000_000, np.uint64(3))
        best = min(best, time.process_time() - t)
    return 5 * 200_000_000 / best / 1e9


if __name__ == "__main__":
    print(f"clock ~{ghz():.2f} GHz (5-cycle imul+shr+xor dependency chain, best of 3)")
