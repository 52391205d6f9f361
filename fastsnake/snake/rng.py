"""Counter-based randomness: every game draws from SplitMix64 seeded by (base seed, game index).

A game's stream depends only on `game_seed(base, index)`, never on the thread, the
chunk or the order in which games run, so a game replays identically anywhere.
SplitMix64 (Steele, Lea & Flood 2014) passes BigCrush and needs one uint64 of state.
"""

import re
import warnings

import numpy as np
from numba import config, njit

if config.DISABLE_JIT:
    # Interpreted (NUMBA_DISABLE_JIT=1), the uint64 sums below are numpy scalars: they wrap as the
    # compiled code does, and numpy warns each time. The wrapping is the algorithm.
    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning, re.escape(__name__))

# Game indices are int64 everywhere (the engine's game index, the game column, `game_seeds`' first
# and count): a game index is below GAME_INDEX_LIMIT. A sweep's first game and its count are each at
# most MAX_GAMES, so that first + games never passes the limit (the store checks the same bound).
GAME_INDEX_LIMIT = 2**63
MAX_GAMES = GAME_INDEX_LIMIT // 2

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
# Separates the policy's stream from the game's, so a policy drawing random numbers
# (e.g. a random cycle) never shifts where the apples fall.
POLICY_STREAM = np.uint64(0xD1B54A32D192ED03)
# Slots of a stream array: the SplitMix64 state (a one-element array holds only this slot);
# a game's array (`engine.G_RNG`) also keeps the game's seed, for policies that draw.
RNG_STATE, RNG_SEED = 0, 1


@njit(cache=True, inline="always")
def mix64(z):
    """The splitmix64 finaliser: a well-mixed uint64 of `z`."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def game_seed(base_seed, index):
    """Seed of game `index` of a sweep with `base_seed` (both uint64)."""
    return mix64(mix64(np.uint64(base_seed)) ^ (np.uint64(index) * GAMMA + GAMMA))


@njit(cache=True, inline="always")
def next_u64(state):
    """Advance the stream array `state` (uint64, slot RNG_STATE); return the next output."""
    s = state[RNG_STATE] + GAMMA
    state[RNG_STATE] = s
    return mix64(s)


@njit(cache=True, inline="always")
def below(state, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32, exact (Lemire's method with rejection)."""
    bound = np.uint64(n)
    m = (next_u64(state) >> _S32) * bound
    low = m & _LOW32
    if low < bound:
        threshold = (np.uint64(0x100000000) - bound) % bound
        while low < threshold:
            m = (next_u64(state) >> _S32) * bound
            low = m & _LOW32
    return np.int64(m >> _S32)


@njit(cache=True)
def game_seeds(base_seed, first, count):
    """Seeds of games first .. first+count-1 (uint64 array): one call for a whole table."""
    out = np.empty(count, np.uint64)
    for k in range(count):
        out[k] = game_seed(base_seed, np.uint64(first + k))
    return out


@njit(cache=True)
def seeds_of_games(base_seed, games):
    """Seeds of the games whose indices `games` (int64 array, any order) holds: checks rows that
    claim to be games of a sweep, whatever their order, in memory proportional to the rows."""
    out = np.empty(games.shape[0], np.uint64)
    for k in range(games.shape[0]):
        out[k] = game_seed(base_seed, np.uint64(games[k]))
    return out


def game_seed_py(base_seed: int, index: int) -> int:
    """Pure-Python twin of `game_seed`, for shaping results without a kernel call."""
    return int(game_seed(np.uint64(base_seed), np.uint64(index)))
