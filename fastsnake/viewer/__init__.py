"""The replay viewer: Snake games, puzzle solutions, tours and reach sets.

Drawing (`canvas`, the `*_view` modules) renders any frame into a pygame Surface
and never opens a window, so frames can be exported or tested headless; `player`
holds the interactive state and the window loop; `export` writes GIFs or PNGs.
pygame is an optional extra imported lazily by `backend`.

    from fastsnake.viewer import open_view, export_frames, run_window
    view = open_view("game.npz")           # validates the file
    export_frames(view, "game.gif", every=2)  # headless
    run_window(view, speed=50)             # interactive
"""

from fastsnake.viewer.backend import INSTALL_HINT, PygameMissing, ViewerError, check_display
from fastsnake.viewer.backend import pygame as require_pygame

__all__ = ["INSTALL_HINT", "PygameMissing", "ViewerError", "check_display", "check_speed", "export_frames",
           "export_kind", "open_view", "report", "require_pygame", "run_window"]

# name -> module of the lazily loaded part of the face (these modules import pygame or the problem packages)
_LAZY = {"open_view": "files", "export_frames": "export", "export_kind": "export", "run_window": "player",
         "check_speed": "player", "report": "html_report"}


def __getattr__(name):
    # Keep `import fastsnake.viewer` free of pygame and of the problem packages.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"fastsnake.viewer.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'fastsnake.viewer' has no attribute {name!r}")
