"""Tour methods as registered plug-ins (`fastsnake.tour.methods`): the same answers as before the registry,
names read from the modules' declarations without importing them, a module added to the folder found
with no other edit, a user's method through `register_tour_method` and the entry-point group."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import golden_find_tour
import pytest
from tour_naive import check_tour

import fastsnake
from fastsnake.cli import main
from fastsnake.tour import find_tour, methods
from fastsnake.tour.methods import MethodInapplicable, Outcome, TourMethod, TourMethodError

PACKAGE = Path(fastsnake.__file__).resolve().parent


def test_find_tour_answers_as_before_the_registry():
    """Every case of the reference (`golden/find_tour.json`, made by `golden_find_tour.py` on the code
    before the registry): the same tour (its digest), nodes, attempts, method and reason."""
    golden = json.loads(golden_find_tour.GOLDEN.read_text())
    cases = [tuple(entry["case"]) for entry in golden["answers"]]
    assert cases == golden_find_tour.CASES
    for entry in golden["answers"]:
        assert golden_find_tour.answer(entry["case"]) == entry["answer"], entry["case"]


def test_the_names_are_the_modules_declarations():
    modules = sorted(p.stem for p in (PACKAGE / "tour" / "methods").glob("*.py") if not p.stem.startswith("_"))
    declared = methods.declared_methods()
    assert sorted(module.rsplit(".", 1)[1] for _, module, _ in declared) == modules
    assert methods.builtin_names() == [name for name, _, _ in declared]
    for name, module, fields in declared:
        method = methods.get_method(name)
        assert method.module == module and method.name == fields["name"] and callable(method.run)
        assert {k: getattr(method, k) for k in fields if k not in ("applies", "run", "warm")} == \
            {k: v for k, v in fields.items() if k not in ("applies", "run", "warm")}


def test_a_bad_declaration_is_one_line_naming_the_module(tmp_path):
    (tmp_path / "odd.py").write_text("METHOD = TourMethod('odd', run=make_run())\n")
    with pytest.raises(TourMethodError, match=r"tour method module pkg\.odd \(odd\.py, line 1\)"):
        methods.declared_methods(str(tmp_path), "pkg")
    (tmp_path / "odd.py").write_text("METHOD = TourMethod('odd', pieces='bishop')\n")
    with pytest.raises(TourMethodError, match="pieces must be one of"):
        methods.declared_methods(str(tmp_path), "pkg")


def _walk_run(task):
    """Row by row, boustrophedon: a wazir tour of any board (the method a test registers)."""
    cols = task.cols
    path = [r * cols + (c if r % 2 == 0 else cols - 1 - c) for r in range(task.rows) for c in range(cols)]
    import numpy as np

    return Outcome(True, True, np.array(path, dtype=np.int32), "rows in turn", "zigzag")


WAZIR = {(-1, 0), (0, -1), (0, 1), (1, 0)}
ZIGZAG = TourMethod("zigzag", summary="rows in turn", pieces="any", tours="open", boards="any board",
                    applies=lambda piece, rows, cols, closed: set(piece.jump_list) == WAZIR, run=_walk_run)


@pytest.fixture
def zigzag():
    methods.register_tour_method(ZIGZAG)
    yield
    methods.unregister_tour_method("zigzag")


def test_a_registered_method_is_taken_by_find_tour_the_cli_and_compare(zigzag, capsys):
    r = find_tour("0,1", 3, 4, 0, method="zigzag")
    assert r.found and r.method == "zigzag" and r.seed == 0
    assert check_tour(3, 4, [(-1, 0), (0, -1), (0, 1), (1, 0)], r.path) is None
    with pytest.raises(MethodInapplicable, match="no zigzag for piece 'knight'"):
        find_tour("1,2", 5, 5, 0, method="zigzag")
    assert main(["tour", "--piece", "0,1", "--size", "3x4", "--method", "zigzag", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "zigzag"
    assert main(["tour", "compare", "--size", "3,4", "--piece", "0,1", "--methods", "search,zigzag", "--seeds",
                 "0,1", "--starts", "corner", "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    labels = {m["method"] for m in doc["methods"]}
    assert labels == {"search seed=0", "search seed=1", "zigzag"}  # seeded: one arm a seed; zigzag: one
    with pytest.raises(TourMethodError, match="taken"):
        methods.register_tour_method(ZIGZAG)


def test_an_unknown_method_is_one_line_listing_the_registry(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["tour", "--piece", "1,2", "--size", "5", "--method", "magic"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.count("\n") == 1 and all(name in err for name in methods.method_names())
    with pytest.raises(fastsnake.errors.InputError, match="'magic' is not one of auto, "):
        find_tour("1,2", 5, 5, 0, method="magic")


ENTRY_POINT_PACKAGE = {
    "zig_method.py": '''
        import numpy as np
        from fastsnake.tour.methods import Outcome, TourMethod

        def run(task):
            cols = task.cols
            path = [r * cols + (c if r % 2 == 0 else cols - 1 - c) for r in range(task.rows) for c in range(cols)]
            return Outcome(True, True, np.array(path, dtype=np.int32), "rows in turn", "zig")

        METHOD = TourMethod("zig", summary="rows in turn", tours="open", run=run)
        ''',
    "zig_method-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: zig-method\nVersion: 0.1\n",
    "zig_method-0.1.dist-info/entry_points.txt": "[fastsnake.tour_methods]\nzig = zig_method:METHOD\n",
}


def test_an_installed_method_comes_through_the_entry_point_group(tmp_path, monkeypatch):
    for name, text in ENTRY_POINT_PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))  # as if installed: its dist-info is on the path
    methods.rediscover()
    try:
        assert methods.method_names()[-1] == "zig" and "zig_method" not in sys.modules  # listed, not loaded
        r = find_tour("0,1", 2, 3, 0, method="zig")
        assert r.method == "zig" and check_tour(2, 3, sorted(WAZIR), r.path) is None
        assert methods.get_method("zig").origin == "zig-method"
    finally:
        monkeypatch.undo()
        methods.rediscover()
        sys.modules.pop("zig_method", None)
    assert "zig" not in methods.method_names()


def test_a_module_added_to_the_folder_is_a_method_with_no_other_edit(tmp_path):
    """CONTRIBUTING's "Adding a tour method" on a scratch copy of the package: one module, nothing else;
    listing the names imports no method's module."""
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "fastsnake", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "fastsnake" / "tour" / "methods" / "corner_first.py").write_text(textwrap.dedent('''
        """Search with tie-break seed 7 whatever the seed asked: a scratch method of the test."""
        from fastsnake.tour.methods import TourMethod


        def run(task):
            from fastsnake.tour.methods import search

            task.seed = 7
            answer = search.run(task)
            answer.how = "corner-first"
            return answer


        def warm():
            from fastsnake.tour.tour import warm_up

            return warm_up(False)


        METHOD = TourMethod("corner-first", summary="search with seed 7", run="run", warm="warm", searches=True)
        '''))
    code = ("import json, sys; from fastsnake.tour import method_names; from fastsnake.cli import main; "
            "print(json.dumps([method_names(), [k for k in sys.modules if k.startswith('fastsnake.tour.methods.')]]));"
            "main(['tour', '--piece', 'knight', '--size', '5', '--method', 'corner-first', '--json'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=root,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert out.returncode == 0, out.stderr
    names, answer = map(json.loads, out.stdout.splitlines()[:2])
    assert names == [["auto", *methods.method_names()[:1], "corner-first", *methods.method_names()[1:]], []]
    assert answer["method"] == "corner-first" and answer["found"]
