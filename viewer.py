#!/usr/bin/env python
"""The replay viewer: `python viewer.py FILE [options]` is `fastsnake view FILE [options]`.

Shows Snake replays, puzzle solutions, tours and reach files (pygame needed:
pip install 'fastsnake[viewer]'). See `python viewer.py --help`.
"""

import sys

from fastsnake.cli import main

if __name__ == "__main__":
    sys.exit(main(["view", *sys.argv[1:]]))
