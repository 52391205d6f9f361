"""fastsnake: compiled (numba) solvers for Snake AI, sliding puzzles and leaper tours."""

from fastsnake._numba_cache import configure_numba_cache

__version__ = "0.1.0"

# Must run before any submodule defines a cached kernel.
configure_numba_cache()
