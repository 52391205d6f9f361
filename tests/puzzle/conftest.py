"""Pattern databases built by the puzzle tests go to the repo's ignored .cache folder."""

import os
import sys
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]
os.environ.setdefault("FASTSNAKE_CACHE_DIR", str(_REPO / ".cache"))
# The naive reference helpers sit beside the tests.
sys.path.insert(0, str(Path(__file__).resolve().parent))
