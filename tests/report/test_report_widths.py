"""Every plot's text whole and clear of the others at 1366 px and at 400 px (issue 64), in headless
Chromium: a puzzle study's page and a tour study's page (the Snake compare page's plots at both
widths: test_report_phone_layout.py, which measures them alike).

At bada6c1 a study page's plots were SVGs laid out in Python at a fixed size: with Korf-sized node
counts the y tick labels ran off the plot's left edge ("00,000,000") under the axis title, and at
400 px the axis titles, the ratio labels and the ratio plot's title were cut off and the legend's
entries overlapped. The study plots are now drawn by the page's shared plotting code, which
measures its text. The puzzle study here is a 3x3 one (kernels the suite compiles anyway) whose
node counts are scaled to Korf-100 sizes in its rows file: the page reads them, it never searches.
"""

import pyarrow as pa
import pytest
from layout_checks import faults

from fastsnake.cli import main
from fastsnake.study.rows import read_rows, write_rows

WIDTHS = (1366, 400)
# Korf's 100 take 10^5 to 10^10 nodes with Manhattan: the 3x3 counts times this reach them.
KORF_SCALE = 10**6

@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("widths")
    puzzle = folder / "puzzle.parquet"
    assert main(["puzzle", "compare", "--size", "3", "--count", "6", "--seed", "3", "--heuristics",
                 "manhattan,linear-conflict", "--out", str(puzzle), "--quiet", "--json"]) == 0
    meta, table = read_rows(str(puzzle))
    for name in ("nodes_generated", "nodes_expanded"):
        scaled = pa.array([v * KORF_SCALE for v in table.column(name).to_pylist()], pa.int64())
        table = table.set_column(table.column_names.index(name), name, scaled)
    write_rows(table, str(puzzle), meta)
    assert main(["report", str(puzzle), "--out", str(folder / "puzzle.html")]) == 0
    tour = folder / "tour.parquet"
    assert main(["tour", "compare", "--size", "5", "--methods", "search", "--seeds", "0,1", "--out", str(tour),
                 "--quiet", "--json"]) == 0
    assert main(["report", str(tour), "--out", str(folder / "tour.html")]) == 0
    return {name: folder / f"{name}.html" for name in ("puzzle", "tour")}


@pytest.mark.parametrize("which", ["puzzle", "tour"])
def test_no_plot_label_is_cut_off_or_over_another_at_1366_and_400_px(pages, open_page, which):
    for width in WIDTHS:
        page = open_page(pages[which], width=width, height=900)
        texts, cut, overlaps, small = faults(page)
        assert len({t["plot"] for t in texts}) >= 3, (which, width)
        assert cut == [], f"{which} at {width} px: cut off at the plot's edge: {cut}"
        assert overlaps == [], f"{which} at {width} px: texts over one another: {overlaps}"
        assert small == [], f"{which} at {width} px: text under 10.5 px: {small}"
        assert page.js("document.scrollingElement.scrollWidth") <= width
        assert page.errors == []


def test_the_korf_sized_tick_labels_read_whole(pages, open_page):
    page = open_page(pages["puzzle"], width=WIDTHS[0], height=900)
    ticks = page.js("Array.from(document.querySelectorAll('#nodes-per-instance text.tick')).map(t => t.textContent)")
    assert any(t in ("1e7", "1e8", "1e9", "1e10") for t in ticks), ticks  # never "00,000,000"
