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
    # Two files of the same policy, board and seed: two sections that need distinct names.
    twin = folder / "greedy-copy.parquet"
    shutil.copy(folder / "greedy-6x9-follow.parquet", twin)
    out = folder / "twins.html"
    built["twins"] = (out, fastsnake.report([str(folder / "greedy-6x9-follow.parquet"), str(twin)], str(out),
                                            worst=2, best=1, died=2, random=1, sample=2), None)
    # Several board sizes: the scaling view.
    sized = []
    for policy in ("cycle", "greedy"):
        for size in (4, 6, 8):
            sized.append(folder / f"{policy}{size}.parquet")
            fastsnake.sweep(policy, size, 60, seed=8, out=str(sized[-1]))
    out = folder / "scaling.html"
    built["scaling"] = (out, fastsnake.report([str(f) for f in sized], str(out), worst=1, best=1, died=1, random=1,
                                              sample=2), None)
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
    assert page.js("document.querySelectorAll('.paired-panel').length") == 2
    titles = page.js("Array.from(document.querySelectorAll('svg.plot .plot-title')).map(t => t.textContent)")
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


PHONE = 400


def test_paired_panels_state_the_interval_p_and_the_outcome_table(pages, open_page):
    out, _, _ = pages["compare"]
    page = open_page(out)
    data = page.js("JSON.parse(document.getElementById('fastsnake-data').textContent)")
    panels = page.js("""Array.from(document.querySelectorAll('.paired-panel')).map(p => ({
        text: p.querySelector('.paired-statement').textContent,
        cross: Array.from(p.querySelectorAll('table.outcome-cross tbody tr')).map(
            r => Array.from(r.children).map(c => c.textContent)),
        title: (p.querySelector('.plot-title') || {}).textContent}))""")
    assert len(panels) == len(data["paired"]) == 2
    for panel, pair in zip(panels, data["paired"], strict=True):
        stats = pair["stats"]
        assert panel["text"] == "".join(pair["statement"])
        assert "95 % interval" in panel["text"]
        assert f"{stats['games']:,} games both won" in panel["text"] or "won by both" in panel["text"]
        if stats["p_value"] is not None:
            assert "p = " in panel["text"] or "p < " in panel["text"]
        assert panel["cross"] == pair["cross"]["rows"]
        assert panel["cross"][-1][-1] == f"{stats['games_total']:,}"  # every paired game in the table
        if pair["counts"]:
            assert f"({stats['games']:,} games both won)" in panel["title"]
    assert page.errors == []


def test_the_filter_box_filters_the_picked_games(pages, open_page):
    out, _, _ = pages["compare"]
    page = open_page(out)
    games = page.js("window.fastsnake.games")
    shown = "Array.from(document.querySelectorAll('#games tbody tr')).map(r => Number(r.dataset.index))"
    page.page.fill("#games-filter", "died")
    died = [i for i, g in enumerate(games) if g["outcome"] == "died" or "died" in g["why"]]
    assert died and page.js(shown) == died
    page.page.fill("#games-filter", "GREEDY  died")  # every word, any case
    both = [i for i in died if games[i]["policy"] == "greedy"]
    assert page.js(shown) == both and len(both) < len(games)
    assert page.js("window.fastsnake.filterGames('phc')") == sum(g["policy"] == "phc" for g in games)
    assert page.js("document.getElementById('games-filter').value") == "phc"
    page.page.fill("#games-filter", "")
    assert page.js(shown) == list(range(len(games)))
    # Typing a space in the box filters; it does not start the player.
    page.page.click("#games-filter")
    page.page.keyboard.type("won ")
    assert page.js("document.getElementById('play').textContent").endswith("play")
    assert page.errors == []


@pytest.mark.parametrize("name", ["compare", "scaling"])
def test_the_page_reads_on_a_phone_without_sideways_scrolling(pages, open_page, name):
    out, _, _ = pages[name]
    page = open_page(out, width=PHONE, height=800)
    assert page.js("document.scrollingElement.scrollWidth") <= PHONE
    for i in range(len(page.js("window.fastsnake.games"))):
        if page.js("i => window.fastsnake.open(i)", i):
            box = page.js("(() => { const r = document.getElementById('board').getBoundingClientRect();"
                          " return [r.left, r.right, r.width, r.height]; })()")
            assert 0 <= box[0] and box[1] <= PHONE and box[2] > 100 and box[3] > 100, box
    assert page.js("document.scrollingElement.scrollWidth") <= PHONE
    assert page.errors == []


def test_a_large_board_fits_a_phone(tmp_path, open_page):
    out = tmp_path / "long.html"
    fastsnake.report([str(GOLDEN / "cycle30.npz")], str(out))
    page = open_page(out, width=PHONE, height=800)
    assert page.js("window.fastsnake.open(0)") is True
    right = page.js("document.getElementById('board').getBoundingClientRect().right")
    assert page.js("document.getElementById('board').width") > PHONE  # drawn larger, shown scaled down
    assert right <= PHONE and page.js("document.scrollingElement.scrollWidth") <= PHONE


def test_the_scaling_plot_appears_only_with_several_board_sizes(pages, open_page):
    out, _, _ = pages["scaling"]
    page = open_page(out)
    titles = page.js("Array.from(document.querySelectorAll('svg.scaling .plot-title')).map(t => t.textContent)")
    assert titles == ["Scaling: mean moves per game", "Scaling: games per CPU-second"]
    legends = page.js("Array.from(document.querySelectorAll('svg.scaling .legend')).map(t => t.textContent)")
    assert sum(t.startswith("cycle: moves ∝ cells^") for t in legends) == 1
    assert sum(t.startswith("greedy: cost ∝ cells^") for t in legends) == 1
    assert page.js("document.querySelectorAll('svg.scaling .scaling-point').length") == 12
    # Each policy its own marker shape beside its colour; the mean moves carry their 95 % whiskers.
    shapes = page.js("Array.from(document.querySelectorAll('svg.scaling .scaling-point')).map(p => p.dataset.marker)")
    assert set(shapes) == {"circle", "square"}
    assert page.js("document.querySelectorAll('svg.scaling .whisker').length") >= 6
    assert page.js("document.querySelectorAll('svg.scaling line.scaling-fit').length") == 4
    out, _, _ = pages["compare"]
    assert open_page(out).js("document.querySelectorAll('svg.scaling').length") == 0
    assert page.errors == []


@pytest.mark.parametrize("name", ["compare", "scaling"])
def test_plot_text_is_readable_on_a_phone_and_legends_stay_off_the_data(pages, open_page, name):
    out, _, _ = pages[name]
    page = open_page(out, width=PHONE, height=800)
    # Rendered size: the font size in the plot's units times the plot's scale on the screen.
    smallest = page.js("""Math.min(...Array.from(document.querySelectorAll('svg.plot text')).map(t => {
        const svg = t.ownerSVGElement;
        return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    }))""")
    assert smallest >= 11, smallest
    # Every legend lies below its plot's axes and data, never over them.
    overlaps = page.js("""Array.from(document.querySelectorAll('svg.plot'))
        .filter(svg => svg.querySelector('.legend-box')).map(svg => {
            const data = svg.querySelector('.axes').getBBox(), box = svg.querySelector('.legend-box').getBBox();
            return box.y - (data.y + data.height);
        })""")
    assert overlaps and min(overlaps) >= 0, overlaps
    assert page.errors == []


def test_the_outcome_bars_carry_the_win_rate_interval(pages, open_page):
    out, _, _ = pages["compare"]
    page = open_page(out)
    titles = page.js("Array.from(document.querySelectorAll('svg.plot .whisker title')).map(t => t.textContent)")
    assert sum("win rate 95 % interval" in t for t in titles) == 3  # cycle, greedy, phc
    assert page.errors == []


def test_twenty_four_sources_get_twenty_four_colours():
    import itertools
    import math

    series = webpage.SERIES
    assert len(series) >= 24 and len(set(series[:24])) == 24
    assert min(math.dist(a, b) for a, b in itertools.combinations(series[:24], 2)) >= 50
    assert all(sum(c) > 150 for c in series[:24])  # none too dark for the page


def test_two_inputs_of_one_policy_get_distinct_labels(pages, open_page):
    out, _, _ = pages["twins"]
    page = open_page(out)
    names = page.js("Array.from(document.querySelectorAll('#summary tbody tr td:first-child')).map(t => t.textContent)")
    assert names == ["greedy (greedy-6x9-follow.parquet)", "greedy (greedy-copy.parquet)"]
    legends = page.js("Array.from(document.querySelectorAll('svg.plot .legend')).map(t => t.textContent)")
    assert all(any(n in t for t in legends) for n in names)
    policies = page.js("Array.from(document.querySelectorAll('#games tbody td.col-policy')).map(t => t.textContent)")
    assert set(policies) == set(names)
    # The same games twice: paired, with the same outcomes (a zero win-rate difference).
    assert page.js("document.querySelectorAll('.paired-panel').length") == 1
    assert "+0.00 points" in page.js("document.querySelector('.paired-statement').textContent")
    assert page.errors == []


@pytest.mark.parametrize("name,width", [("compare", 1280), ("compare", PHONE), ("scaling", 1280)])
def test_screenshot_of_a_report(pages, open_page, tmp_path, name, width):
    """The docs' pictures are this test's screenshots (FASTSNAKE_DOCS_SHOTS=1 writes them into docs/img)."""
    out, _, _ = pages[name]
    page = open_page(out, width=width, height=900)
    page.page.click("#games tbody tr[data-index='1']")
    page.js("window.fastsnake.seek(40)")
    shot = tmp_path / "report.png"
    if name == "scaling":  # the docs show its plots
        page.page.locator("#plots-section").screenshot(path=str(shot))
    else:
        page.page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    target = {("compare", 1280): "report.png", ("compare", PHONE): "report-phone.png",
              ("scaling", 1280): "report-scaling.png"}[name, width]
    if os.environ.get("FASTSNAKE_SHOTS_DIR"):  # to look at them
        shutil.copy(shot, Path(os.environ["FASTSNAKE_SHOTS_DIR"]) / target)
    if os.environ.get("FASTSNAKE_DOCS_SHOTS"):
        DOCS_IMG.mkdir(exist_ok=True)
        shutil.copy(shot, DOCS_IMG / target)


def test_a_puzzle_study_page_shows_its_plots_tables_and_plays_every_picked_solution(tmp_path, open_page):
    from fastsnake.cli import main

    rows_file = tmp_path / "study.parquet"
    assert main(["puzzle", "compare", "--size", "3", "--count", "4", "--heuristics", "manhattan,linear-conflict",
                 "--out", str(rows_file), "--quiet", "--json"]) == 0
    out = tmp_path / "study.html"
    info = fastsnake.report(str(rows_file), str(out), picks=["longest", "most-nodes", "1"])
    assert info["problems"] == [] and info["picked"] >= 2
    page = open_page(out)
    assert page.js("document.querySelectorAll('#study-section svg.study-plot').length") == len(info["plots"]) == 3
    assert page.js("document.querySelectorAll('#study-section table.study-table').length") == 2
    assert page.js("document.querySelectorAll('#study-section .ratio-plot g.ratio').length") == 3
    # Visible and laid out: the plots have a size, the tables rows.
    assert page.js("document.getElementById('nodes-per-instance').getBoundingClientRect().width") > 200
    assert page.js("document.querySelectorAll('table.study-table[data-name=pairs] tbody tr').length") == 3
    games = page.js("JSON.parse(document.getElementById('fastsnake-data').textContent).games")
    assert page.js("document.querySelectorAll('#games tbody tr').length") == len(games) == info["picked"]
    # A puzzle's columns, not a Snake game's (issue 64: apples, length and game seed read "-").
    assert page.js("Array.from(document.querySelectorAll('#games thead th')).map(th => th.textContent)") == \
        ["#", "instance", "heuristic", "length", "optimal", "nodes", "picked as"]
    cells = page.js("Array.from(document.querySelectorAll('#games tbody tr')).map(tr => "
                    "Array.from(tr.children).map(td => td.textContent))")
    assert all(c[1] == g["game"] and c[2] == g["heuristic"] and c[4] == "yes" and "-" not in c for c, g in
               zip(sorted(cells, key=lambda c: int(c[0])), games, strict=True))
    # Instance 1's rows are shown whether or not the study kept their moves (it keeps those its words
    # pick); every solution kept plays to the goal.
    assert {g["game"] for g in games} >= {"1"} and info["embedded"] == sum("data" in g for g in games) >= 2
    for i, g in enumerate(games):
        if "data" not in g:
            assert "fastsnake puzzle solve" in g["note"]
            continue
        page.page.click(f"#games tbody tr[data-index='{i}']")
        assert page.js("window.fastsnake.current()") == i
        page.page.keyboard.press("End")
        last = page.state()
        assert last["tiles"] == g["data"]["goal"] and last["solved"] is True and last["move"] == g["moves"]
        assert page.js("window.fastsnake.seek(0)")["tiles"] == g["data"]["start"]
    assert page.errors == []
