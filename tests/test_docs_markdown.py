"""The docs site says what the sources say: the front page includes the README's front part (one
home, no copy), the headline engine figure is one number wherever it is quoted, and no `*` of an
algorithm's name (A*, IDA*) is eaten by Markdown as emphasis."""

import html
import re
from pathlib import Path

import pytest

markdown = pytest.importorskip("markdown")

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
INCLUDE = re.compile(r'^--8<-- "README\.md:(?P<section>[a-z-]+)"$', re.M)
FIGURE_INCLUDE = re.compile(r'^--8<-- "docs/figures\.md:(?P<section>[a-z-]+)"$', re.M)
# A name ending in a star (A*, IDA*), escaped (A\*) or not; not the closing stars of **bold**.
STARRED = re.compile(r"(?<!\*)\b[A-Z][A-Za-z0-9]*\\?\*(?!\*)")
ENGINE_FIGURE = re.compile(r"~(\d+) M moves per (CPU-second|second per core)")


def readme_section(name: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"^[^\n]*--8<-- \[start:{name}\][^\n]*\n(?P<body>.*?)^[^\n]*--8<-- \[end:{name}\]", text,
                      re.S | re.M)
    assert match, f"README.md has no snippet section {name!r}"
    return match["body"]


def site_text(page: Path) -> str:
    """The page as the docs site shows it: snippets included."""
    text = INCLUDE.sub(lambda m: readme_section(m["section"]), page.read_text())
    return FIGURE_INCLUDE.sub(lambda m: figure_section(m["section"]), text)


def figure_section(name: str) -> str:
    """A section of docs/figures.md, the one home of figures several pages quote."""
    text = (ROOT / "docs" / "figures.md").read_text()
    match = re.search(rf"^--8<-- \[start:{name}\]\n(?P<body>.*?)^--8<-- \[end:{name}\]", text, re.S | re.M)
    assert match, f"docs/figures.md has no snippet section {name!r}"
    return match["body"]


def rendered_text(source: str) -> str:
    page = markdown.markdown(source, extensions=["tables", "attr_list", "admonition", "pymdownx.superfences"])
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_the_front_page_includes_the_readme_rather_than_copying_it():
    index = (ROOT / "docs" / "index.md").read_text()
    assert INCLUDE.search(index)
    front = readme_section("front")
    copied = [p for p in re.split(r"\n\s*\n", front) if len(p) > 80 and p.strip() in index]
    assert copied == []


def test_the_engine_figure_is_one_number_wherever_it_is_quoted():
    figures = {(m[1], m[2]) for page in PAGES for m in ENGINE_FIGURE.finditer(site_text(page))}
    assert len(figures) == 1, figures
    assert "bench/bench_snake.py -k cpu_second" in readme_section("front")


def test_markdown_eats_no_star_of_an_algorithm_name():
    assert len(STARRED.findall(rendered_text("optimal A*/IDA* and BFS"))) < 2  # the check would see it
    eaten = {}
    for page in PAGES:
        source = site_text(page)
        count, shown = len(STARRED.findall(source)), len(STARRED.findall(rendered_text(source)))
        if count != shown:
            eaten[page.name] = (count, shown)
    assert eaten == {}
