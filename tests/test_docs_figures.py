"""The docs say things a user can check: no internal issue numbers (a reader cannot open them), and a
figure that several pages quote has one home, `docs/figures.md`, that the docs pages include and that
README.md and CONTRIBUTING.md (read raw on GitHub, where nothing is included) quote exactly."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures.md"
USER_TEXTS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
ISSUE_NUMBER = re.compile(r"issues? [0-9]+|issue #?[0-9]+", re.I)
SECTION = re.compile(r"^--8<-- \[start:(?P<name>[a-z-]+)\]\n(?P<body>.*?)^--8<-- \[end:(?P=name)\]", re.S | re.M)
INCLUDE = re.compile(r'^--8<-- "docs/figures\.md:(?P<name>[a-z-]+)"$', re.M)


def sections() -> dict[str, str]:
    return {m["name"]: m["body"] for m in SECTION.finditer(FIGURES.read_text())}


def short_form(name: str) -> str:
    """The bold phrase a section opens with: what raw pages quote."""
    match = re.search(r"\*\*(.+?)\*\*", sections()[name])
    assert match, f"docs/figures.md section {name!r} has no bold short form"
    return match[1]


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_no_internal_issue_numbers_in_the_docs():
    assert ISSUE_NUMBER.search("since issue 30") and ISSUE_NUMBER.search("Issue #44")  # the check would see one
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in USER_TEXTS
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert found == [], "say what the issue meant (a date, a commit, the thing itself):\n" + "\n".join(found)


def test_every_included_figure_exists_and_every_figure_is_shown():
    homes = sections()
    assert {"engine-speed", "readme-sweep", "suite-time"} <= set(homes)
    included = {m["name"] for page in (ROOT / "docs").glob("*.md") for m in INCLUDE.finditer(page.read_text())}
    assert included <= set(homes), f"included but not in docs/figures.md: {included - set(homes)}"
    assert set(homes) <= included, f"figures no docs page shows: {set(homes) - included}"


@pytest.mark.parametrize(
    ("path", "name", "where"),
    [
        ("README.md", "readme-sweep", "sweep one million 10×10 games"),
        ("README.md", "suite-time", "run the test suite"),
        ("CONTRIBUTING.md", "suite-time", '-m "not slow" -n 2'),
    ],
)
def test_raw_pages_quote_the_figure_of_its_home(path, name, where):
    timed = re.compile(r"\d (minutes?|min|s)\b")
    lines = [line for line in (ROOT / path).read_text().splitlines() if where in line and timed.search(line)]
    assert lines, f"{path} no longer quotes a time on the line with {where!r}: update this test's table"
    for line in lines:
        assert short_form(name) in line, f"{path} quotes another figure than docs/figures.md ({name}): {line}"


def test_raw_pages_quote_no_other_suite_measurement():
    """A raw page that gives the suite's seconds gives the home's, not an older run's."""
    home = one_line(sections()["suite-time"])
    measured = re.compile(r"\d[\d,.]* s for [\d,]+ tests")
    assert measured.search("352.9 s for 1,688 tests")
    for path in ("README.md", "CONTRIBUTING.md"):
        for figure in measured.findall(one_line((ROOT / path).read_text())):
            assert figure in home, f"{path} quotes {figure!r}; the latest run is in docs/figures.md"


def test_the_engine_speed_quoted_anywhere_is_the_homes():
    home = re.search(r"~(\d+) M moves per CPU-second", short_form("engine-speed"))
    assert home
    for path in USER_TEXTS:
        for figure in re.findall(r"~(\d+) M moves per (?:CPU-second|second per core)", path.read_text()):
            assert figure == home[1], f"{path.name} quotes ~{figure} M moves per CPU-second, the home ~{home[1]}"
