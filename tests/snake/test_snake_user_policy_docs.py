"""docs/user-policies.md runs as written, and the policy it teaches plays by the tail rule it is given."""

import re
import runpy
from pathlib import Path

import numpy as np
import pytest

import fastsnake

DOC = Path(__file__).resolve().parents[2] / "docs" / "user-policies.md"
_BLOCK = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```", re.S)
SKIP = "<!-- docs-test: skip"


def doc_blocks(text: str) -> list[str]:
    """The page's python blocks, in order, except those right after a `<!-- docs-test: skip ... -->` line."""
    return [m["code"] for m in _BLOCK.finditer(text) if not m["before"].strip().startswith(SKIP)]


@pytest.fixture(scope="module")
def doc_namespace(tmp_path_factory):
    """Every runnable block of the page run in order, as one script in a fresh folder."""
    folder = tmp_path_factory.mktemp("docs")
    script = folder / "user_policies_doc.py"
    script.write_text("\n\n".join(doc_blocks(DOC.read_text())))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        namespace = runpy.run_path(str(script))
    yield namespace
    fastsnake.unregister_policy("seek")


def test_the_page_has_runnable_blocks_and_a_skip_marker_skips_only_its_block():
    text = "intro\n```python\na = 1\n```\n<!-- docs-test: skip (why) -->\n```python\nb = c\n```\n```python\nd = 2\n```"
    assert doc_blocks(text) == ["a = 1", "d = 2"]
    assert len(doc_blocks(DOC.read_text())) >= 2


def test_every_python_block_of_the_page_runs(doc_namespace, capsys):
    assert "seek" in doc_namespace and "result" in doc_namespace
    assert doc_namespace["game"].outcome in ("won", "died", "stuck")


@pytest.mark.parametrize("tail", ["follow", "blocked"])
def test_the_docs_policy_enters_the_tails_cell_only_where_the_rule_allows(doc_namespace, tail):
    seek = doc_namespace["seek"].py_func
    entered_tail, checked = [], []

    def watched(state, ws):
        move = seek(state, ws)
        target = state.neighbours[state.head, move]
        safe = [m for m in range(4) if state.neighbours[state.head, m] >= 0
                and (state.occupied[state.neighbours[state.head, m]] == 0
                     or (state.tail_follows and state.neighbours[state.head, m] == state.tail))]
        checked.append(state.tail_follows)
        if target == state.tail and safe and not state.tail_follows:
            entered_tail.append((state.moves, move, safe))
        return move

    python = fastsnake.sweep(fastsnake.Policy(watched, name=f"watched-seek-{tail}"), 7, 25, 3, tail=tail,
                             start_length=4)
    assert entered_tail == [] and set(checked) == {tail == "follow"}
    compiled = fastsnake.sweep(doc_namespace["seek"], 7, 25, 3, tail=tail, start_length=4)
    # Same games; the tables differ only in the policy's name (an identity column of every row).
    ignore = ["game", "policy", "policy_asked", "run_id"]
    assert python.table.drop(ignore).equals(compiled.table.drop(ignore))
    assert np.all(np.asarray(compiled.table.column("moves")) > 0)
