"""The one place pygame is imported: lazily, quietly, with a clear error when missing."""

from __future__ import annotations

import os
import sys

from fastsnake.errors import InputError

INSTALL_HINT = "pip install 'fastsnake[viewer]'"


class ViewerError(InputError):
    """A file the viewer cannot show, or a viewer option it cannot honour."""


class PygameMissing(ViewerError):
    """pygame (an optional extra) is not installed."""


_pygame = None


def pygame():
    """The pygame module, imported on first use with its banner silenced.

    pygame prints a support banner on import unless told not to; that line on
    stdout would break `--json`, so the variable is set before the import.
    """
    global _pygame
    if _pygame is None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        try:
            import pygame as module
        except ImportError:
            raise PygameMissing(f"the viewer needs pygame, which is not installed: {INSTALL_HINT}") from None
        module.font.init()
        _pygame = module
    return _pygame


def check_display() -> None:
    """ViewerError when a window could not be seen: on Linux (and other X11/Wayland systems)
    without DISPLAY or WAYLAND_DISPLAY, SDL would open an invisible window and the viewer would
    seem to hang. SDL_VIDEODRIVER set by the user (e.g. `dummy`, `kmsdrm`) is trusted."""
    if sys.platform in ("win32", "darwin") or os.environ.get("SDL_VIDEODRIVER"):
        return
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise ViewerError("no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set): "
                          "render it to a file instead (an animated GIF, or PNG frames in a folder)")


_fonts: dict[int, object] = {}


def font(size: int):
    """pygame's bundled default font at `size` pixels (cached)."""
    size = max(8, int(size))
    if size not in _fonts:
        _fonts[size] = pygame().font.Font(None, size)
    return _fonts[size]
