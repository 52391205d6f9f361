"""Start-up work numba does that our processes need not pay for.

numba's ``numba.np.arraymath`` asks, as it is imported, whether BLAS is there, by importing
``scipy.linalg.cython_blas`` (`numba.np.linalg.ensure_blas`); numba imports ``arraymath`` the first
time any process of ours loads or compiles a kernel. That import is about 0.3 CPU-s of a warm
1,000-game sweep's whole-process 1.1 (``python bench/bench_startup.py``, ``-X importtime``:
``scipy.linalg`` under ``numba.np.arraymath``), paid by every command that runs a kernel, though no
kernel of ours does linear algebra.

The answer is known before asking: scipy is one of our dependencies (pyproject.toml), so the probe
would say yes. `defer_blas_probe` imports ``arraymath`` with the probe answered yes and then puts
numba's real ``ensure_blas`` back, so a kernel that does use BLAS (a user's ``np.dot``) imports and
checks scipy when it is compiled, exactly as before. Without scipy installed, nothing is changed.
"""

from __future__ import annotations

import sys


def defer_blas_probe() -> bool:
    """Import numba's ``arraymath`` without its eager scipy import (see the module's docstring);
    True when the probe was deferred, False when ``arraymath`` was already imported or scipy is absent."""
    if "numba.np.arraymath" in sys.modules:
        return False
    from importlib.util import find_spec

    if find_spec("scipy") is None:
        return False
    import numba  # noqa: F401  (numba's own import order first)
    from numba.np import linalg

    real = linalg.ensure_blas
    linalg.ensure_blas = _blas_is_there
    try:
        from numba.np import arraymath
    finally:
        linalg.ensure_blas = real
    arraymath.ensure_blas = real  # arraymath bound the name as it was imported
    return True


def _blas_is_there() -> None:
    """numba's ``ensure_blas`` for the one probe at ``arraymath``'s import: scipy is installed."""
