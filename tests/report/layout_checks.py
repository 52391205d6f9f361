"""Measuring a report page's plot texts in the browser: cut off at their plot's edge, over one another,
too small to read (the layout tests at 1366 and 400 px)."""

# Every <text> of every plot: its rectangle on the screen, its plot's, its rendered font size.
TEXTS = """Array.from(document.querySelectorAll('svg.plot')).map((svg, k) => {
    const box = svg.getBoundingClientRect(), scale = box.width / svg.viewBox.baseVal.width;
    return Array.from(svg.querySelectorAll('text')).map(t => {
        const r = t.getBoundingClientRect();
        return {plot: k, id: svg.id || svg.getAttribute('class'), text: t.textContent,
                left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                svg: [box.left, box.right, box.top, box.bottom], px: parseFloat(getComputedStyle(t).fontSize) * scale};
    });
}).flat()"""


def faults(page):
    """The texts cut off at their plot's edge, the pairs of texts over one another, those too small."""
    texts = [t for t in page.js(TEXTS) if t["text"].strip()]
    cut = [(t["id"], t["text"]) for t in texts if t["left"] < t["svg"][0] - 0.5 or t["right"] > t["svg"][1] + 0.5
           or t["top"] < t["svg"][2] - 0.5 or t["bottom"] > t["svg"][3] + 0.5]
    overlaps = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            w = min(a["right"], b["right"]) - max(a["left"], b["left"])
            h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if a["plot"] == b["plot"] and w > 1 and h > 1:
                overlaps.append((a["id"], a["text"], b["text"]))
    small = sorted({(t["id"], round(t["px"], 1)) for t in texts if t["px"] < 10.5})
    return texts, cut, overlaps, small
