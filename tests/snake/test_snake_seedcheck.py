"""Rows that contradict their seeds (issue 55): `verify` re-plays a sample of games from their seeds
and calls a row its game contradicts damaged; `report` says which games it re-played and marks a
run whose sample fails; a file of a newer fastsnake is a warning naming both versions.

f2b2bd8 verified a row claiming "won" for a game that died, or +7 moves, as intact (0 damaged),
and the report counted the forged win; a fastsnake_version of 99.0.0 passed without a word.
"""

import json
import shutil
import warnings

import pyarrow.parquet as pq
import pytest
from faults import CONTRADICTIONS, contradict_row

import fastsnake
from fastsnake.cli import main

GAMES = 300


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    path = tmp_path_factory.mktemp("seedcheck") / "s.parquet"
    fastsnake.sweep("greedy", 6, GAMES, 5, out=path, threads=1)
    return path


def _copy(clean, tmp_path, name="s.parquet"):
    path = tmp_path / name
    shutil.copyfile(clean, path)
    return path


def _outcomes(path):
    return pq.read_table(path, columns=["outcome"]).column("outcome").cast("string").to_pylist()


@pytest.mark.parametrize("kind", CONTRADICTIONS)
def test_verify_refuses_a_row_its_seed_contradicts(clean, tmp_path, kind):
    """The fault injector's class: each forged row passes every check but the re-play, which a sample
    covering every game of the file catches, naming the game."""
    path = _copy(clean, tmp_path)
    contradict_row(path, 41, kind)
    report = fastsnake.verify_sweep(path, replay=GAMES, replay_seed=1)
    assert not report["ok"] and not report["complete"]
    assert report["damaged"] == [[41, 41]] and report["damaged_games"] == 1
    assert report["replay"]["replayed"] == GAMES
    assert [c["game"] for c in report["replay"]["contradicted"]] == [41]
    assert any("game 41" in p and "re-played from its seed" in p for p in report["problems"])


def test_the_default_sample_catches_a_forged_win_among_games_that_died(clean, tmp_path):
    """Every game of this run died: the forged "won" is the only one of its outcome, and the default
    sample re-plays some of each outcome, whatever its seed."""
    assert set(_outcomes(clean)) == {"died"}
    path = _copy(clean, tmp_path)
    contradict_row(path, 217, "won")
    for seed in (0, 1, 2, None):
        report = fastsnake.verify_sweep(path, replay_seed=seed)
        assert not report["ok"], seed
        assert report["replay"]["sample"] == 16 and report["replay"]["replayed"] == 16
        assert [c["game"] for c in report["replay"]["contradicted"]] == [217]


def test_the_sample_is_chosen_by_its_seed(clean):
    def games(seed, n=16):
        return [g["game"] for g in fastsnake.verify_sweep(clean, replay=n, replay_seed=seed)["replay"]["games"]]

    first = games(7)
    assert len(first) == len(set(first)) == 16 and first == sorted(first)
    assert games(7) == first and games(8) != first
    assert games(7, GAMES + 50) == list(range(GAMES))  # more than the file holds: every game
    report = fastsnake.verify_sweep(clean)  # no seed: a fresh one, reported so the check can be repeated
    assert report["ok"] and report["replay"]["seed"] >= 0
    assert games(report["replay"]["seed"]) == [g["game"] for g in report["replay"]["games"]]
    assert fastsnake.verify_sweep(clean, replay=0)["replay"]["games"] == []


@pytest.mark.parametrize("bad", [{"replay": -1}, {"replay": 1.5}, {"replay_seed": -3}, {"replay_seed": 2**64}])
def test_bad_sample_arguments_are_refused_naming_them(clean, bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        fastsnake.verify_sweep(clean, **bad)


def test_cli_verify_exits_2_and_lists_the_contradicted_games(clean, tmp_path, capsys):
    path = _copy(clean, tmp_path)
    contradict_row(path, 3, "moves+")
    assert main(["verify", str(path), "--replay", str(GAMES), "--replay-seed", "4", "--json"]) == 2
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["replay"]["contradicted"][0]["game"] == 3 and report["damaged"] == [[3, 3]]
    assert "game 3: its row says moves" in err and len(err.strip().splitlines()) == 1
    path = _copy(clean, tmp_path, "won.parquet")
    contradict_row(path, 217, "won")  # no flag: the default sample re-plays some games of each outcome
    assert main(["verify", str(path)]) == 2
    assert "game 217: its row says outcome 'won'" in capsys.readouterr().err
    assert main(["verify", str(clean), "--replay", "5", "--replay-seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "re-played 5 game(s) from their seeds (--replay-seed 4): 0 contradict their rows" in out


def test_verify_re_plays_each_run_of_a_compare_file(tmp_path):
    path = tmp_path / "c.parquet"
    fastsnake.compare(["greedy", "cycle"], 6, 40, 5, out=path, threads=1)
    report = fastsnake.verify_sweep(path, replay=40, replay_seed=0)
    assert report["ok"] and report["replay"]["replayed"] == 80
    assert {g["policy"] for g in report["replay"]["games"]} == {"greedy", "cycle"}


def test_verify_re_plays_the_games_of_a_folder(tmp_path):
    folder = tmp_path / "d"
    fastsnake.sweep("greedy", 6, 120, 5, out=folder, chunk_size=40, threads=1)
    report = fastsnake.verify_sweep(folder, replay=200, replay_seed=0)
    assert report["ok"] and [g["game"] for g in report["replay"]["games"]] == list(range(120))


# -- a file of a newer fastsnake ------------------------------------------------------------------

def _written_by(src, dst, version):
    """`src` as fastsnake `version` would have written it: parameters (and their hash) and the
    fastsnake_version column."""
    import hashlib

    import pyarrow as pa

    table = pq.read_table(src)
    meta = dict(table.schema.metadata)
    params = dict(json.loads(meta[b"fastsnake"]), version=version)
    meta[b"fastsnake"] = json.dumps(params).encode()
    meta[b"fastsnake_sha256"] = hashlib.sha256(meta[b"fastsnake"]).hexdigest().encode()
    column = pa.array([version] * table.num_rows).dictionary_encode()
    table = table.set_column(table.schema.get_field_index("fastsnake_version"), "fastsnake_version", column)
    pq.write_table(table.replace_schema_metadata(meta), dst, write_page_checksum=True)
    return dst


def test_a_newer_version_is_a_warning_naming_both_from_verify_report_and_replay(clean, tmp_path, capsys):
    path = _written_by(clean, tmp_path / "v99.parquet", "99.0.0")
    both = f"fastsnake 99.0.0, newer than this fastsnake {fastsnake.__version__}"
    for argv in (["verify", str(path), "--replay", "2", "--replay-seed", "0"],
                 ["replay", "--from", str(path), "--pick", "3", "--out", str(tmp_path / "g.npz")],
                 ["report", str(path), "--out", str(tmp_path / "r.html"), "--sample", "0", "--worst", "1",
                  "--best", "0", "--died", "0", "--random", "0"]):
        assert main(argv) == 0, argv
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if "warning" in line]
        assert len(lines) == 1 and lines[0].startswith("fastsnake: warning: ") and both in lines[0], (argv, err)
    with pytest.warns(fastsnake.NewerVersionWarning, match="99.0.0"):
        report = fastsnake.verify_sweep(path, replay=0)
    assert report["ok"] and len(report["warnings"]) == 1 and both in report["warnings"][0]
    with pytest.warns(UserWarning, match="99.0.0"):
        result = fastsnake.report(path, tmp_path / "r2.html", sample=0, worst=0, best=0, died=0, random=0)
    assert result["warnings"] == report["warnings"] and result["notes"][0] == report["warnings"][0]
    assert both in (tmp_path / "r2.html").read_text()  # on the page too


@pytest.mark.parametrize("version", ["0.2.0", "0.1.0", "0.2", "0.2.0rc1", "unknown", "", "banana"])
def test_this_or_an_older_version_is_read_without_a_word(clean, tmp_path, version):
    path = _written_by(clean, tmp_path / "v.parquet", version)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fastsnake.verify_sweep(path, replay=0)["warnings"] == []


def test_version_order():
    from fastsnake.snake.store.versions import newer_version

    assert newer_version("f", "0.2.1", "0.2.0") and newer_version("f", "0.10.0", "0.9.0")
    assert newer_version("f", "1", "0.2.0") and newer_version("f", "99.0.0.dev1", "0.2.0")
    assert not newer_version("f", "0.2.0.0", "0.2.0") and not newer_version("f", "0.9.9", "0.10.0")
    line = newer_version("f", "9.9\x1b]0;PWNED\x07", "0.2.0")
    assert line and "\x1b" not in line and "\\x1b" in line


# -- the report -----------------------------------------------------------------------------------

NO_PICKS = dict(worst=0, best=0, died=0, random=0, sample=0)


def test_report_marks_a_run_whose_re_played_games_contradict_their_rows(clean, tmp_path, capsys):
    """f2b2bd8 counted the forged win (win rate 1/300) and said nothing: the default check sample
    re-plays some games of each outcome, so the lone "won" is among them."""
    path = _copy(clean, tmp_path)
    contradict_row(path, 217, "won")
    out = tmp_path / "r.html"
    result = fastsnake.report(path, out)
    (replayed,) = result["replayed"]
    assert replayed["contradicted"] == [217] and 217 in replayed["games"] and replayed["sample"] == 16
    assert any("contradict their rows (games 217)" in p and "cannot be trusted" in p for p in result["problems"])
    page = out.read_text()
    assert page.count("greedy (DAMAGED: rows contradict their seeds)") >= 1
    assert main(["report", str(path), "--out", str(out), "--json", *(f"--{k}=0" for k in NO_PICKS)]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["replayed"][0]["contradicted"] == [217]
    assert doc["replayed"][0]["name"] == "greedy (DAMAGED: rows contradict their seeds)"


def test_report_says_which_games_it_re_played(clean, tmp_path, capsys):
    result = fastsnake.report(clean, tmp_path / "r.html", replay=5, replay_seed=3, **NO_PICKS)
    (replayed,) = result["replayed"]
    checked = fastsnake.verify_sweep(clean, replay=5, replay_seed=3)["replay"]["games"]
    assert replayed["games"] == [g["game"] for g in checked] and replayed["contradicted"] == []
    assert replayed["seed"] == 3 and result["problems"] == []
    line = next(n for n in result["notes"] if "re-played from their seeds" in n)
    assert line.endswith(", ".join(str(g) for g in replayed["games"]))
    assert line in (tmp_path / "r.html").read_text()  # on the page
    every = fastsnake.report(clean, tmp_path / "r.html", replay=GAMES, replay_seed=0, **NO_PICKS)["replayed"][0]
    assert every["games"] == list(range(GAMES))
    assert main(["report", str(clean), "--out", str(tmp_path / "r.html"), "--replay", "0", "--json",
                 *(f"--{k}=0" for k in NO_PICKS)]) == 0
    assert json.loads(capsys.readouterr().out)["replayed"][0]["games"] == []
