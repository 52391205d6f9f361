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

from fastsnake.viewer.backend import INSTALL_HINT, PygameMissing, ViewerError

__all__ = ["INSTALL_HINT", "PygameMissing", "ViewerError", "export_frames", "open_view", "run_window"]


def __getattr__(name):
    # Keep `import fastsnake.viewer` free of pygame and of the problem packages.
    if name == "open_view":
        from fastsnake.viewer.files import open_view

        return open_view
    if name == "export_frames":
        from fastsnake.viewer.export import export_frames

        return export_frames
    if name == "run_window":
        from fastsnake.viewer.player import run_window

        return run_window
    raise AttributeError(name)
