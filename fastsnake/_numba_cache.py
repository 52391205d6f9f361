"""Point numba's on-disk cache at a folder keyed by a hash of our sources.

numba invalidates a cached kernel only when *its own* file changes; a kernel that
inlines code from another module (every policy inlines the engine) would silently
keep stale machine code after that module is edited. Keying the cache folder by
the hash of every source file of the package makes any edit start a fresh cache.
"""

import hashlib
import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def source_fingerprint() -> str:
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(_PACKAGE_DIR.rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fastsnake" / "numba"


def configure_numba_cache() -> None:
    import numba

    root = os.environ.get("NUMBA_CACHE_DIR") or str(default_cache_root())
    numba.config.CACHE_DIR = os.path.join(root, source_fingerprint())
