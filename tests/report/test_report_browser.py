"""The report in a real browser: headless Chromium plays picked games to the engine's exact states.

Each page is opened from file:// (no server: the page must be self-contained). The
reference for every frame is the engine itself: `fastsnake.play` re-plays the game from
its seed and `trace` records the head and length after every move.
"""

import os
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

import fastsnake
from fastsnake import webpage
from fastsnake.snake.engine import R_HEAD, R_LENGTH
from fastsnake.snake.replay import load_replay, trace

GOLDEN = Path(__file__).resolve().parents[1] / "viewer" / "golden"
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

# (policy, size, tail, start length): several policies, both tail rules, non-square boards.
SWEEPS = (("greedy", "6x9", "follow", 3), ("cycle", "6x9", "blocked", 1), ("greedy", "7x5", "blocked", 1))


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Reports built once for the module: one per sweep in SWEEPS, a three-policy compare, a player page."""
    folder = tmp_path_factory.mktemp("report")
    built = {}
    for policy, size, tail, start in SWEEPS:
        name = f"{policy}-{size}-{tail}"
        sweep = folder / f"{name}.parquet"
        fastsnake.sweep(policy, size, 400, seed=5, tail=tail, start_length=start, out=str(sweep))
        out = folder / f"{name}.html"
        info = fastsnake.report(str(sweep), str(out), worst=4, best=3, died=4, random=4, picks=["7"])
        built[name] = (out, info, (policy, size, tail, start))
    compare = folder / "compare.parquet"
    fastsnake.compare(["cycle", "greedy", "phc"], "6x8", 300, seed=3, out=str(compare))
    out = folder / "compare.html"
    built["compare"] = (out, fastsnake.report(str(compare), str(out), worst=3, best=3, died=3, random=3), None)
    return built


def engine_states(policy, size, seed, game, tail, start):
    """(len0, heads after each move, lengths after each move, outcome) of the engine's game."""
    played = fastsnake.play(policy, size, seed=seed, game=game, tail=tail, start_length=start)
    outcome, count, rec = trace(played.replay)
    return len(played.body), played.body, np.asarray(rec[R_HEAD][:count]), np.asarray(rec[R_LENGTH][:count]), \
        played.outcome


def expected(len0, body, heads, lengths, outcome, k, cols):
    head = int(body[-1]) if k == 0 else int(heads[k - 1])
    length = len0 if k == 0 else int(lengths[k - 1])
    return {"move": k, "head": [head // cols, head % cols], "length": length, "apples": length - len0,
            "outcome": outcome if k == len(heads) else "running"}


def test_page_loads_from_file_without_errors_and_lists_every_picked_game(pages, open_page):
    out, info, _ = pages["compare"]
    page = open_page(out)
    assert page.errors == []
    games = page.js("window.fastsnake.games")
    assert len(games) == info["picked"] > 0
    assert page.js("document.querySelectorAll('#games tbody tr').length") == len(games)
    assert {g["policy"] for g in games} == {"cycle", "greedy", "phc"}
    # One section a policy: a config row and a summary row each, and the paired differences.
    assert page.js("document.querySelectorAll('#config tbody tr').length") == 3
    assert page.js("document.querySelectorAll('#summary tbody tr').length") == 3
    titles = page.js("Array.from(document.querySelectorAll('svg.plot .plot-title')).map(t => t.textContent)")
    assert sum("Paired difference" in t for t in titles) == 2
    assert any(t.startswith("Moves per game") for t in titles)
    # No network at view time: nothing in the page points outside it.
    html = out.read_text(encoding="utf-8")
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    assert out.stat().st_size < 5_000_000


@pytest.mark.parametrize("name", [f"{p}-{s}-{t}" for p, s, t, _ in SWEEPS] + ["compare"])
def test_click_and_end_show_the_engines_final_state(pages, open_page, name):
    out, info, rules = pages[name]
    page = open_page(out)
    games = page.js("window.fastsnake.games")
    for i, g in enumerate(games):
        page.page.click(f"#games tbody tr[data-index='{i}']")
        assert page.js("window.fastsnake.current()") == i
        page.page.keyboard.press("End")
        got = page.state()
        size = f"{g['rows']}x{g['cols']}"
        len0, body, heads, lengths, outcome = engine_states(g["policy"], size, g["seed"], g["game"], g["tail"],
                                                            g["start_length"])
        want = expected(len0, body, heads, lengths, outcome, len(heads), g["cols"])
        assert {k: got[k] for k in want} == want, (name, g)
        assert (got["outcome"], got["move"], got["apples"]) == (g["outcome"], g["moves"], g["apples"])
    assert page.errors == []


def test_frames_at_random_moves_equal_the_engines(tmp_path, open_page):
    """A 30x30 game of 60,000+ moves: seek anywhere, forwards and backwards."""
    replay = load_replay(GOLDEN / "cycle30.npz")
    out = tmp_path / "long.html"
    fastsnake.report([str(GOLDEN / "cycle30.npz"), str(GOLDEN / "greedy10.npz")], str(out))
    page = open_page(out)
    outcome, count, rec = trace(replay)
    heads, lengths = np.asarray(rec[R_HEAD][:count]), np.asarray(rec[R_LENGTH][:count])
    assert page.js("window.fastsnake.open(0)") is True
    rng = random.Random(2026)
    for k in [0, 1, count, count - 1] + [rng.randrange(count + 1) for _ in range(40)]:
        got = page.js("k => window.fastsnake.seek(k)", k)
        assert got == dict(expected(len(replay.body), replay.body, heads, lengths, replay.outcome, k, replay.cols),
                           frames=count + 1)
    assert page.errors == []


def test_keyboard_and_controls_step_play_and_pause(pages, open_page):
    out, _, _ = pages["greedy-6x9-follow"]
    page = open_page(out)
    page.page.click("#games tbody tr[data-index='0']")
    page.page.keyboard.press("Home")
    assert page.state()["move"] == 0
    for _ in range(3):
        page.page.keyboard.press("ArrowRight")
    assert page.state()["move"] == 3
    page.page.keyboard.press("ArrowLeft")
    assert page.state()["move"] == 2
    page.page.click("#forward")
    assert page.state()["move"] == 3
    page.page.click("#back")
    assert page.state()["move"] == 2
    assert page.js("window.fastsnake.speed(1000)") == 1000
    page.page.keyboard.press(" ")
    page.page.wait_for_function("window.fastsnake.state().move === window.fastsnake.state().frames - 1")
    assert page.js("document.getElementById('play').textContent").endswith("play")  # stopped at the end
    page.js("() => { const s = document.getElementById('scrub'); s.value = 5; s.dispatchEvent(new Event('input')); }")
    assert page.state()["move"] == 5
    assert page.errors == []


def test_a_record_that_breaks_the_rules_is_flagged_not_played(tmp_path, open_page):
    replay = load_replay(GOLDEN / "greedy10.npz")
    from fastsnake.snake.report import game_entry

    entry = dict(game_entry(replay, why=["tampered"]), index=0)
    apples = np.array(replay.apples, copy=True)
    apples[3] = int(replay.body[0])  # an apple that will lie on the snake (or elsewhere than the engine put it)
    entry["data"] = dict(entry["data"], apples=webpage.pack_cells(apples, replay.rows * replay.cols))
    data = {"kind": "player", "title": "tampered", "games": [entry], "problems": [], "notes": []}
    out = tmp_path / "bad.html"
    webpage.write(out, webpage.render(data))
    page = open_page(out)
    assert page.js("window.fastsnake.open(0)") is False
    assert page.js("document.getElementById('problem').hidden") is False
    assert "does not follow the rules" in page.js("document.getElementById('problem').textContent")


def test_a_puzzle_solution_and_a_tour_play_to_their_last_frame(tmp_path, open_page):
    from fastsnake import puzzle, tour

    solved = puzzle.solve("812 043 765", "123 804 765")
    puzzle.save_solution(tmp_path / "solution.json", solved)
    found = tour.find_tour("1,2", 6, 7, start=0)
    tour.save_tour(tmp_path / "tour.json", found)
    out = tmp_path / "player.html"
    info = fastsnake.report([str(tmp_path / "solution.json"), str(tmp_path / "tour.json")], str(out))
    assert info["problems"] == [] and info["picked"] == 2
    page = open_page(out)
    assert page.js("window.fastsnake.open(0)") is True
    last = page.js("window.fastsnake.seek(Infinity)")
    goal = [int(x) for x in "123804765"]
    assert last["tiles"] == goal and last["solved"] is True and last["move"] == len(solved.moves)
    first = page.js("window.fastsnake.seek(0)")
    assert first["tiles"] == [int(x) for x in "812043765"]
    assert page.js("window.fastsnake.open(1)") is True
    last = page.js("window.fastsnake.seek(Infinity)")
    path = [int(x) for x in found.path]
    assert last["visited"] == len(path) == 42
    assert last["square"] == [path[-1] // 7, path[-1] % 7]
    # From the end of a long game to a shorter one of another kind: the player starts it at move 0.
    assert page.js("window.fastsnake.open(0)") is True
    assert page.state()["move"] == 0 and page.state()["tiles"] == [int(x) for x in "812043765"]
    assert page.errors == []


def test_screenshot_of_a_report(pages, open_page, tmp_path):
    """The docs' picture is this test's screenshot (FASTSNAKE_DOCS_SHOTS=1 writes it into docs/img)."""
    out, _, _ = pages["compare"]
    page = open_page(out, width=1280, height=900)
    page.page.click("#games tbody tr[data-index='1']")
    page.js("window.fastsnake.seek(40)")
    shot = tmp_path / "report.png"
    page.page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    if os.environ.get("FASTSNAKE_DOCS_SHOTS"):
        DOCS_IMG.mkdir(exist_ok=True)
        shutil.copy(shot, DOCS_IMG / "report.png")
