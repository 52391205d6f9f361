"""Render frames without a window: an animated GIF (Pillow) or a folder of PNGs."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from fastsnake.files import folder_written_atomically, written_atomically
from fastsnake.viewer import backend
from fastsnake.viewer.backend import INSTALL_HINT, ViewerError
from fastsnake.viewer.player import check_speed

MAX_GIF_FRAMES = 1500  # Pillow keeps every GIF frame in memory until it writes the file
LAST_FRAME_MS = 2000


def frame_indices(frames: int, every: int) -> list[int]:
    """Every `every`-th frame, always ending on the last one."""
    if every < 1:
        raise ViewerError(f"every={every} must be at least 1")
    picked = list(range(0, frames, every))
    if picked[-1] != frames - 1:
        picked.append(frames - 1)
    return picked


def export_kind(out) -> str:
    text = os.fspath(out)
    path = Path(text)
    if path.suffix.lower() == ".gif":
        return "gif"
    if text.endswith(("/", os.sep)) or path.is_dir() or path.suffix == "":
        return "png"
    raise ViewerError(f"export target {text!r} must end in .gif or name a folder for PNG frames")


def export_frames(view, out, *, every: int = 1, speed: int = 20, cell: int | None = None, overlays=None) -> dict:
    """Write frames 0, every, 2*every, ..., last of `view`; returns what was written."""
    kind = export_kind(out)
    indices = frame_indices(view.frames, every)
    speed = check_speed(speed)
    if kind == "gif":
        try:
            from PIL import Image
        except ImportError:
            raise ViewerError(f"GIF export needs Pillow ({INSTALL_HINT}); or export PNG frames to a folder") from None
        if len(indices) > MAX_GIF_FRAMES:
            need = -(-(view.frames - 1) // (MAX_GIF_FRAMES - 1))
            raise ViewerError(f"a GIF of {len(indices):,} frames is too big (at most {MAX_GIF_FRAMES:,}); "
                              f"take every={need} or more, or export PNG frames to a folder")
    pg = backend.pygame()
    surface = pg.Surface(view.window_size(cell))
    t0 = time.perf_counter()
    if kind == "png":
        folder = Path(out)
        if folder.is_dir():
            others = sorted(p.name for p in folder.iterdir() if not re.fullmatch(r"frame_\d{6}\.png", p.name))
            if others:  # the frames replace the folder whole: never take a user's other files with it
                raise ViewerError(f"out={str(folder)!r} holds other files ({others[0]!r}, ...); "
                                  "export the frames to a new folder")
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            # Frames go to a temporary folder that takes the name only when every frame is
            # written: a full disk leaves an earlier export as it was, never half replaced.
            with folder_written_atomically(folder) as tmp:
                for k, frame in enumerate(indices):
                    view.render(surface, frame, overlays)
                    pg.image.save(surface, os.path.join(tmp, f"frame_{k:06d}.png"))
        except (pg.error, OSError) as exc:
            raise ViewerError(f"cannot write frames to {str(folder)!r}: {getattr(exc, 'strerror', None) or exc}") \
                from None
    else:
        size = surface.get_size()

        def images():
            for frame in indices:
                view.render(surface, frame, overlays)
                rgb = Image.frombytes("RGB", size, pg.image.tobytes(surface, "RGB"))
                yield rgb.quantize(256, method=Image.Quantize.FASTOCTREE)

        frames = images()
        first = next(frames)
        step_ms = max(20, round(1000 * every / speed))  # browsers slow down GIF delays under 20 ms
        durations = [step_ms] * (len(indices) - 1) + [LAST_FRAME_MS]
        try:
            with written_atomically(out) as tmp:  # no partial GIF under the name
                first.save(tmp, format="GIF", save_all=True, append_images=frames, duration=durations, loop=0,
                           optimize=False, disposal=1)
        except OSError as exc:
            raise ViewerError(f"cannot write {os.fspath(out)!r}: {exc.strerror or exc}") from None
    return {
        "export": os.fspath(out),
        "format": kind,
        "written": len(indices),
        "every": every,
        "size": list(surface.get_size()),
        "seconds": time.perf_counter() - t0,
    }
