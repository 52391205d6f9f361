"""The declared workspace layout of the cell-tree agents: consistent indices, sizes that fit, docs in step."""

from pathlib import Path

import numpy as np

from fastsnake.snake.board import GameConfig
from fastsnake.snake.celltree import layout
from fastsnake.snake.celltree.layout import I_LAYOUT, L_LAYOUT, X_LAYOUT, layout_markdown, segment_starts

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "design.md"


def test_every_name_has_its_own_index_and_segments_follow_the_slots():
    for lay in (I_LAYOUT, L_LAYOUT, X_LAYOUT):
        names = [r.name for r in lay.slots + lay.segments]
        assert len(names) == len(set(names)), lay.array
        indices = [lay.index(r.name) for r in lay.slots + lay.segments]
        assert indices == sorted(indices) and len(set(indices)) == len(indices)
        assert lay.index("end") == indices[-1] + 1


def test_exported_constants_are_the_declared_indices():
    for prefix, lay in (("I_", I_LAYOUT), ("L_", L_LAYOUT), ("X_", X_LAYOUT)):
        for row in lay.slots + lay.segments + (layout.Row("end", layout.size(), ""),):
            assert getattr(layout, prefix + row.name.upper()) == lay.index(row.name), (prefix, row.name)


def test_segments_start_after_the_header_and_sum_to_the_array():
    config = GameConfig(6, 8, 1, "blocked")
    n, hr, hc = config.cells, config.rows // 2, config.cols // 2
    for lay in (I_LAYOUT, L_LAYOUT, X_LAYOUT):
        for table in (0, 1):
            starts = segment_starts(lay.coefficients(), n, hr * hc, hr, table)
            sizes = [r.size[0] * n * n * table + r.size[1] * n + r.size[2] * hr * hc + r.size[3] * hr + r.size[4]
                     for r in lay.segments]
            assert starts[0] == lay.index("end") + 1
            assert np.array_equal(np.diff(starts), sizes)


def test_design_doc_holds_the_generated_tables():
    text = DESIGN.read_text()
    between = text.split("<!-- celltree-layout:begin -->\n")[1].split("<!-- celltree-layout:end -->")[0]
    assert between == layout_markdown()
