"""One self-contained HTML page: the browser report's renderer, shared by every problem.

`render` pours a JSON-able description of a report (written by ``fastsnake.snake.report``
for sweeps, by ``fastsnake.viewer.report`` for replays, puzzle solutions and tours) into
``assets/page.html`` with the CSS, the player and the page script inlined, so the file opens
from ``file://`` with no network. The page's schema is ``fastsnake-report/1``:

=============  ==================================================================
key            meaning
=============  ==================================================================
kind           ``"sweep"`` (sections, plots, picked games) or ``"player"`` (games only)
title          the page's title; ``subtitle`` a line under it
games          the picked games, each with ``data`` (its compact record) or a ``note``
sections       per source: ``policy``, ``name`` (distinct on the page), ``summary`` (with
               ``moves_mean_ci95``, ``win_rate_ci95``), ``hist``, ``per_apple``
config         the run table (``header``, ``rows``); ``summary_table`` likewise
hist_edges     the moves histogram's bin edges, shared by every section
paired         per source against its baseline on the same seeds: ``a``, ``b`` (names),
               ``stats`` (`PairedAccumulator.as_dict`: over the games both won),
               ``statement`` (lines of text), ``cross`` (outcome table), ``edges``, ``counts``
scaling        None, or with several board sizes ``policies``: per policy ``cells``,
               ``moves_mean``, ``games_per_cpu_second`` and their log-log fits
problems       one line each: what could not go into the page, and why
palette        the viewer's colours (`fastsnake.palette`)
=============  ==================================================================

A Snake game's record is its start body, its moves packed 2 bits each (`pack_moves`) and
the apple cells in the order they appeared (`pack_cells`), base64: the page re-plays them
under the rules (``assets/player.js``) and flags a record that contradicts them.
"""

from __future__ import annotations

import base64
import json
import os
from functools import lru_cache
from importlib import resources

import numpy as np

from fastsnake import palette
from fastsnake.errors import InputError
from fastsnake.files import written_atomically

PAGE_FORMAT = "fastsnake-report/1"
# Cells fit in two bytes on every board up to 256x256 (65,536 cells); larger boards (tours) use four.
CELL_BYTES_SMALL = 2
CELL_BYTES_LARGE = 4


class PageError(InputError):
    """A page that cannot be written (a missing folder, a full disk)."""


@lru_cache(maxsize=None)
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def cell_bytes(cells_on_board: int) -> int:
    """Bytes per cell index in a packed record for a board of `cells_on_board` cells."""
    return CELL_BYTES_SMALL if cells_on_board <= 1 << 16 else CELL_BYTES_LARGE


def pack_cells(cells, cells_on_board: int) -> str:
    """Cell indices as little-endian uint16 (uint32 on boards of more than 65,536 cells), base64."""
    dtype = "<u2" if cell_bytes(cells_on_board) == CELL_BYTES_SMALL else "<u4"
    return base64.b64encode(np.asarray(cells, dtype=np.int64).astype(dtype).tobytes()).decode("ascii")


def pack_moves(moves) -> str:
    """Moves 0..3 packed four to a byte (move k in bits 2(k mod 4) and up of byte k div 4), base64."""
    moves = np.asarray(moves, dtype=np.uint8)
    padded = np.zeros(-(-len(moves) // 4) * 4, dtype=np.uint8)
    padded[: len(moves)] = moves & 3
    quads = padded.reshape(-1, 4)
    packed = quads[:, 0] | (quads[:, 1] << 2) | (quads[:, 2] << 4) | (quads[:, 3] << 6)
    return base64.b64encode(packed.astype(np.uint8).tobytes()).decode("ascii")


def unpack_moves(text: str, count: int) -> np.ndarray:
    """The inverse of `pack_moves` (for tests and tools)."""
    raw = np.frombuffer(base64.b64decode(text), dtype=np.uint8)
    shifts = np.array([0, 2, 4, 6], dtype=np.uint8)
    return ((raw[:, None] >> shifts) & 3).reshape(-1)[:count].astype(np.uint8)


def _json_for_script(data: dict) -> str:
    # "</script>" would end the element early and "<!--" open a comment: no "<" is left raw
    # (JSON reads the \u003c escape back as "<").
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return text.replace("<", "\\u003c")


# The report's series colours: the viewer palette's eight (Okabe-Ito, colour-blind safe) for the
# first sources, then sixteen more, each at least 50 apart (RGB distance) from every other and light
# enough for the dark page, so that 24 sources get 24 colours (the page adds a marker shape each).
SERIES = tuple(palette.SERIES) + (
    (190, 0, 50), (135, 86, 146), (161, 202, 241), (194, 178, 128), (141, 182, 0), (249, 150, 121), (179, 68, 108),
    (136, 45, 23), (242, 243, 244), (102, 194, 165), (141, 160, 203), (166, 216, 84), (55, 126, 184), (77, 175, 74),
    (255, 255, 153), (200, 100, 255))


def _html_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(data: dict) -> str:
    """The page for `data` (the schema above; ``palette`` and ``format`` are filled in)."""
    from fastsnake import __version__

    data = dict(data, format=PAGE_FORMAT, palette=dict(palette.as_dict(), series=list(SERIES)))
    data.setdefault("fastsnake", __version__)
    page = _asset("page.html")
    title = str(data.get("title", "fastsnake report"))
    footer = (f"fastsnake {__version__} · {PAGE_FORMAT} · made {data.get('created', '')} · "
              "one file: no network needed to view it")
    parts = {
        "{{version}}": _html_text(__version__),
        "{{title}}": _html_text(title),
        "{{css}}": _asset("page.css"),
        "{{footer}}": _html_text(footer),
        "{{data}}": _json_for_script(data),
        "{{player_js}}": _asset("player.js"),
        "{{plots_js}}": _asset("plots.js"),
        "{{study_js}}": _asset("study.js"),
        "{{report_js}}": _asset("report.js"),
    }
    # One pass over the template: a placeholder-like text inside the data is never expanded.
    out, rest = [], page
    while "{{" in rest:
        head, _, tail = rest.partition("{{")
        name, _, rest = tail.partition("}}")
        out.append(head)
        out.append(parts["{{" + name + "}}"])
    out.append(rest)
    return "".join(out)


def write(path, text: str) -> int:
    """Write the page whole or not at all; returns its size in bytes."""
    payload = text.encode("utf-8")
    try:
        with written_atomically(path) as tmp, open(tmp, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise PageError(f"cannot write report {str(path)!r}: {exc.strerror or exc}") from None
    return len(payload)
