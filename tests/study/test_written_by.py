"""Files say which fastsnake wrote them, and a newer one's file is read with a warning (0.2.0):
study rows files (and the baselines saved as them) and Snake's compare baselines record
``fastsnake_version``; reading one written by a newer fastsnake warns, naming both versions; one of
a format this fastsnake does not know is refused, saying which version wrote it."""

import pyarrow as pa
import pytest

import fastsnake
from fastsnake.errors import NewerVersionWarning
from fastsnake.snake import benchmark
from fastsnake.study import rows as R
from fastsnake.versions import newer_note, newer_version, release

NEWER = "9.1.0"


def _table():
    return pa.table({"trial": ["a", "b"], "nodes": [3, 4], "fastsnake_version": [fastsnake.__version__] * 2})


def test_a_rows_file_records_its_version_and_an_older_one_reads_silently(tmp_path, recwarn):
    path = R.write_rows(_table(), str(tmp_path / "r.parquet"), {"kind": "puzzle", "run_id": "0123456789abcdef"})
    meta, table = R.read_rows(path, need_checksum=True)
    assert meta["fastsnake_version"] == fastsnake.__version__ and table.num_rows == 2
    assert [w for w in recwarn if issubclass(w.category, NewerVersionWarning)] == []


def test_a_newer_fastsnakes_rows_file_is_read_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(fastsnake, "__version__", NEWER)
    path = R.write_rows(_table(), str(tmp_path / "n.parquet"), {"kind": "puzzle", "run_id": "0123456789abcdef"})
    monkeypatch.undo()
    with pytest.warns(NewerVersionWarning, match=rf"written by fastsnake {NEWER}, newer than this fastsnake "
                                                 rf"{fastsnake.__version__}"):
        meta, _ = R.read_rows(path, need_checksum=True)  # a baseline too: read, not refused
    assert meta["fastsnake_version"] == NEWER


def test_a_newer_format_is_refused_naming_the_version_that_wrote_it(tmp_path, monkeypatch):
    monkeypatch.setattr(fastsnake, "__version__", NEWER)
    monkeypatch.setattr(R, "STUDY_FORMAT", "fastsnake-study/9")
    path = R.write_rows(_table(), str(tmp_path / "f.parquet"), {"kind": "puzzle", "run_id": "0123456789abcdef"})
    monkeypatch.undo()
    with pytest.raises(R.StudyFileError, match=rf"fastsnake-study/9.*written by fastsnake {NEWER}, newer"):
        R.read_rows(path)


def test_rows_files_of_0_2_0s_development_say_it_in_their_rows():
    # Before the footer held it, the rows did: the newest of them is the file's version.
    table = pa.table({"fastsnake_version": ["0.1.0", NEWER, None, "dev"]})
    assert R._written_by({}, table) == NEWER
    assert R._written_by({"fastsnake_version": "0.2.0"}, table) == "0.2.0"
    assert R._written_by({}, pa.table({"x": [1]})) is None


def test_the_version_words():
    assert release("0.10.2rc1") == (0, 10, 2) and release("1.0.0") == (1,) and release("x") is None
    assert newer_version("f", "0.1.0", "0.2.0") is None and newer_version("f", "unknown", "0.2.0") is None
    assert "0.3.0, newer than this fastsnake 0.2.0" in newer_version("f", "0.3.0", "0.2.0")
    assert newer_note("0.2.0", "0.2.0") == "" and newer_note("1.0", "0.2.0").startswith(", written by fastsnake 1.0")


def test_a_compare_baseline_records_its_version_and_a_newer_ones_warns(tmp_path, monkeypatch):
    monkeypatch.setenv(benchmark.BASELINES_ENV, str(tmp_path))
    ours = fastsnake.__version__
    monkeypatch.setattr(fastsnake, "__version__", NEWER)  # saved by a newer fastsnake
    fastsnake.compare(["greedy"], 6, 20, save_baseline="newer")
    monkeypatch.setattr(fastsnake, "__version__", ours)
    with pytest.warns(NewerVersionWarning, match=rf"baseline .* written by fastsnake {NEWER}, newer than this "
                                                 rf"fastsnake {ours}"):
        meta, _ = benchmark.read_baseline(benchmark.baseline_path("newer"))
    assert meta["fastsnake_version"] == NEWER  # the version that saved it, in its checksummed footer
