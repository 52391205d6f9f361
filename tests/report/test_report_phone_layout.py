"""The report at 400 px (issue 55): outcome labels, axis titles and plot titles readable and whole.

At f2b2bd8 a long section name was cut off at the outcome plot's left edge ("ngest (study.parquet)"),
the y axis titles ran over the tick labels, and long plot titles were squeezed (`textLength`) into
glyphs too small to read. Checked in headless Chromium on a page with long names, two option sets
of one policy (the scaling view) and a paired histogram."""

import shutil

import pytest
from layout_checks import faults

import fastsnake

PHONE = 400


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("phone")
    study = folder / "study.parquet"
    fastsnake.compare(["cycle", "greedy"], 6, 40, seed=2, out=str(study))
    long = folder / "a-sweep-file-with-a-rather-long-name-for-a-phone.parquet"
    fastsnake.sweep("greedy", 6, 40, seed=2, out=str(long))
    big = folder / "cycle8.parquet"
    fastsnake.sweep("cycle", 8, 20, seed=2, out=str(big), cycle="random")
    shutil.copy(big, folder / "cycle8-again.parquet")
    out = folder / "phone.html"
    fastsnake.report([str(study), str(long), str(big), str(folder / "cycle8-again.parquet")], str(out),
                     worst=1, best=1, died=1, random=1, sample=2)
    return out


# Every <text> of every plot: its rectangle on the screen, its plot's, its rendered font size.
_TEXTS = """Array.from(document.querySelectorAll('svg.plot')).map((svg, k) => {
    const box = svg.getBoundingClientRect(), scale = box.width / svg.viewBox.baseVal.width;
    return Array.from(svg.querySelectorAll('text')).map(t => {
        const r = t.getBoundingClientRect();
        return {plot: k, text: t.textContent, cls: t.getAttribute('class') || '',
                left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                svg: [box.left, box.right, box.top, box.bottom],
                px: parseFloat(getComputedStyle(t).fontSize) * scale, squeezed: t.hasAttribute('textLength')};
    });
}).flat()"""


def test_every_plot_text_is_whole_readable_and_clear_of_the_others(page_file, open_page):
    page = open_page(page_file, width=PHONE, height=800)
    assert page.js("document.scrollingElement.scrollWidth") <= PHONE
    texts = [t for t in page.js(_TEXTS) if t["text"].strip()]
    assert len(texts) > 50
    cut = [t["text"] for t in texts if t["left"] < t["svg"][0] - 0.5 or t["right"] > t["svg"][1] + 0.5
           or t["top"] < t["svg"][2] - 0.5 or t["bottom"] > t["svg"][3] + 0.5]
    assert cut == [], f"cut off at the plot's edge: {cut}"
    assert [t["text"] for t in texts if t["squeezed"]] == []  # wrapped, never squeezed
    small = [(t["text"], round(t["px"], 1)) for t in texts if t["px"] < 11]
    assert small == [], small
    overlaps = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if a["plot"] != b["plot"]:
                continue
            w = min(a["right"], b["right"]) - max(a["left"], b["left"])
            h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if w > 1 and h > 1:
                overlaps.append((a["text"], b["text"]))
    assert overlaps == [], f"texts over one another: {overlaps}"
    assert page.errors == []


def test_the_outcome_labels_are_the_whole_section_names(page_file, open_page):
    page = open_page(page_file, width=PHONE, height=800)
    names = page.js("Array.from(document.querySelectorAll('#plots-section svg.outcomes text.legend'))"
                    ".map(t => t.textContent)")
    assert any("a-sweep-file-with-a-rather-long-name-for-a-phone.parquet" in n.replace(" ", "") or
               "a-sweep-file-with-a-rather-long-name-for-a-phone.parquet" in n for n in names), names
    titles = page.js("Array.from(document.querySelectorAll('svg.plot .plot-title')).map(t => t.textContent)")
    assert any(t.startswith("Paired difference per game: ") and t.endswith("games both won)") for t in titles)
    # Each line of a wrapped title fits; its words read whole, in order.
    assert all("  " not in t for t in titles)
    assert page.errors == []


def test_at_1366_px_too_every_plot_text_is_whole_and_clear_of_the_others(page_file, open_page):
    page = open_page(page_file, width=1366, height=900)
    texts, cut, overlaps, small = faults(page)
    assert len(texts) > 50 and cut == overlaps == small == [], (cut, overlaps, small)
    assert page.errors == []
