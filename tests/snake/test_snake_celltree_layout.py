"""The declared workspace layout of the cell-tree agents: consistent indices, sizes that fit, docs in step."""

from pathlib import Path

import numpy as np

from fastsnake.snake.board import GameConfig
from fastsnake.snake.celltree import layout
from fastsnake.snake.celltree.layout import I_LAYOUT, L_LAYOUT, X_LAYOUT, layout_markdown, segment_starts

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "design.md"


def test_every_name_has_its_own_index_and_segments_follow_the_slots():
    for lay in (I_LAYOUT, L_LAYOUT, X_LAYOUT):
        names = [r.name for r in lay.slots + lay.segments]
        assert len(names) == len(set(names)), lay.array
        indices = [lay.index(r.name) for r in lay.slots + lay.segments]
        assert indices == sorted(indices) and len(set(indices)) == len(indices)
        assert lay.index("end") == indices[-1] + 1


def test_exported_constants_are_the_declared_indices():
    for prefix, lay in (("I_", I_LAYOUT), ("L_", L_LAYOUT), ("X_", X_LAYOUT)):
        for row in lay.slots + lay.segments + (layout.Row("end", layout.size(), ""),):
            assert getattr(layout, prefix + row.name.upper()) == lay.index(row.name), (prefix, row.name)


def test_segments_start_after_the_header_and_sum_to_the_array():
    config = GameConfig(6, 8, 1, "blocked")
    n, hr, hc = config.cells, config.rows // 2, config.cols // 2
    for lay in (I_LAYOUT, L_LAYOUT, X_LAYOUT):
        for table in (0, 1):
            starts = segment_starts(lay.coefficients(), n, hr * hc, hr, table)
            sizes = [r.size[0] * n * n * table + r.size[1] * n + r.size[2] * hr * hc + r.size[3] * hr + r.size[4]
                     for r in lay.segments]
            assert starts[0] == lay.index("end") + 1
            assert np.array_equal(np.diff(starts), sizes)


def test_design_doc_holds_the_generated_tables():
    text = DESIGN.read_text()
    between = text.split("<!-- celltree-layout:begin -->\n")[1].split("<!-- celltree-layout:end -->")[0]
    assert between == layout_markdown()


# -- the kernels read the arrays only as declared -------------------------------------------------
#
# A scan of the cell-tree kernels' source (`ast`; nothing is imported or run) for reads that rely on
# something the declaration does not say: a parameter read as X[P_BUDGET] (it works only while the
# parameter slot happens to be first), an offset from a slot or header name (I[I_START_CELLS + 1],
# the next segment's header), a literal start (copy_into(X, 0, ...)), or a slice or index of a segment
# that runs past its declared size (copying two segments at once because one follows the other).

import ast  # noqa: E402

CELLTREE = Path(layout.__file__).resolve().parent
SCANNED = sorted(p for p in CELLTREE.glob("*.py") if p.name not in ("layout.py", "params.py", "__init__.py"))
# The declared names: constant -> (layout, row, is a slot).
DECLARED = {
    prefix + row.name.upper(): (lay, row, row in lay.slots)
    for prefix, lay in (("I_", I_LAYOUT), ("L_", L_LAYOUT), ("X_", X_LAYOUT))
    for row in lay.slots + lay.segments
}
# The slot holding several fields, and the prefix of their names.
FIELDS = {"X_PARAMS": "P_"}
# Boards on which sizes and offsets are compared (rows, cols): sizes are linear, so two do.
BOARDS = ((12, 10), (4, 16))


def _names(board):
    rows, cols = board
    n, hr, hc = rows * cols, rows // 2, cols // 2
    values = {k: v for k, v in vars(layout).items() if k.isupper() and isinstance(v, int)}
    values.update(n=n, nb=hr * hc, hr=hr, hc=hc)
    return values


def _declared_size(row, board) -> int:
    names = _names(board)
    table, cn, cnb, chr_, const = row.size
    return table * names["n"] ** 2 + cn * names["n"] + cnb * names["nb"] + chr_ * names["hr"] + const


def _value(terms, board):
    """The sum of the expressions `terms` on `board`, or None when one uses a name we cannot value."""
    total = 0
    for term in terms:
        try:
            total += eval(compile(ast.Expression(term), "<size>", "eval"), {"__builtins__": {}}, _names(board))
        except (NameError, TypeError):
            return None
    return total


class _Scan(ast.NodeVisitor):
    """The layout rules over one module's functions; `problems` lists what breaks them."""

    def __init__(self, where):
        self.where = where
        self.problems = []
        self.checked = 0  # reads whose extent was compared with the declared size
        self.bases = {}  # in the current function: local name -> (segment constant, offset terms)
        self.handled = set()  # nodes a slice rule already judged

    def _flag(self, node, what):
        self.problems.append(f"{self.where}:{node.lineno}: {what}: {ast.unparse(node)}")

    def visit_FunctionDef(self, node):
        saved, self.bases = self.bases, {}
        self.generic_visit(node)
        self.bases = saved

    def _base(self, expr):
        """(segment constant, offset terms) when `expr` is A[K] + ..., a tracked name + ..., else None."""
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Name):
            name = expr.slice.id
            if name in DECLARED and not DECLARED[name][2]:
                return name, []
        if isinstance(expr, ast.Name) and expr.id in self.bases:
            return self.bases[expr.id]
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left = self._base(expr.left)
            if left is not None:
                return left[0], left[1] + [expr.right]
        return None

    def visit_Assign(self, node):
        targets = node.targets[0]
        pairs = []
        if isinstance(targets, ast.Name):
            pairs = [(targets, node.value)]
        elif isinstance(targets, ast.Tuple) and isinstance(node.value, ast.Tuple):
            pairs = list(zip(targets.elts, node.value.elts, strict=False))
        for target, value in pairs:
            if isinstance(target, ast.Name):
                base = self._base(value)
                if base is not None:
                    self.bases[target.id] = base
                else:
                    self.bases.pop(target.id, None)
        self.generic_visit(node)

    def _check_extent(self, node, base, end_terms, inclusive):
        name, _ = base
        lay, row, _ = DECLARED[name]
        for board in BOARDS:
            end = _value(end_terms, board)
            if end is None:
                return
            size = _declared_size(row, board)
            if end > size or (not inclusive and end >= size):
                self._flag(node, f"reaches past `{row.name}` ({row.size_text()} entries)")
                return
        self.checked += 1

    def visit_Subscript(self, node):
        index = node.slice
        if isinstance(index, ast.Slice) and index.lower is not None and index.upper is not None:
            low, high = self._base(index.lower), self._base(index.upper)
            if low is not None and high is not None and low[0] == high[0]:
                self._check_extent(node, high, high[1], inclusive=True)
            # A[K:K + c] of a slot K: within the slot's size.
            if isinstance(index.lower, ast.Name) and index.lower.id in DECLARED and DECLARED[index.lower.id][2]:
                slot = DECLARED[index.lower.id][1]
                up = index.upper
                if (isinstance(up, ast.BinOp) and isinstance(up.op, ast.Add) and isinstance(up.left, ast.Name)
                        and up.left.id == index.lower.id):
                    self.handled.add(id(up))
                    if any((_value([up.right], b) or 0) > slot.size[4] for b in BOARDS):
                        self._flag(node, f"reaches past slot `{slot.name}`")
        else:
            base = self._base(index)
            if base is not None and base[1]:
                self._check_extent(node, base, base[1], inclusive=False)
            self._check_index(node, index)
        self.generic_visit(node)

    def _check_index(self, node, index):
        if isinstance(index, ast.Name) and index.id.startswith("P_"):
            if not (isinstance(node.value, ast.Name) and node.value.id == "params"):
                self._flag(node, "a parameter read outside the declared slot (X[X_PARAMS + P_...])")
        if (isinstance(index, ast.BinOp) and isinstance(index.left, ast.Name) and index.left.id in DECLARED
                and id(index) not in self.handled):
            field = FIELDS.get(index.left.id)
            if field is None or not (isinstance(index.right, ast.Name) and index.right.id.startswith(field)):
                self._flag(node, "an offset from a declared name (reads another slot or header by position)")
        if isinstance(index, ast.BinOp) and any(isinstance(s, ast.Name) and s.id.startswith("P_")
                                                for s in (index.left, index.right)):
            if not (isinstance(index.left, ast.Name) and index.left.id == "X_PARAMS"):
                self._flag(node, "a parameter read outside the declared slot (X[X_PARAMS + P_...])")

    def visit_Call(self, node):
        func = node.func.id if isinstance(node.func, ast.Name) else ""
        if func == "copy_into" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            self._flag(node, "a literal start instead of a declared name")
        if func == "segment" and len(node.args) == 3 and isinstance(node.args[1], ast.Name):
            if node.args[1].id in DECLARED:
                self._check_extent(node, (node.args[1].id, []), [node.args[2]], inclusive=True)
        self.generic_visit(node)


def scan(source: str, where: str = "<source>") -> _Scan:
    found = _Scan(where)
    found.visit(ast.parse(source))
    return found


def test_the_scan_catches_reads_that_rely_on_the_declaration_order():
    bad = {
        "X[P_BUDGET] > 0": "outside the declared slot",
        "L[L_PLAN_LENGTH + P_EVERY]": "outside the declared slot",
        "I[I_START_CELLS + 1]": "an offset from a declared name",
        "copy_into(X, 0, params)": "a literal start",
        "segment(I, I_STAMPS, 6 * nb)": "reaches past `stamps`",
        "X[X[X_SUFFIX_ROWS]:X[X_SUFFIX_ROWS] + 3 * hr]": "reaches past `suffix_rows`",
        "r = X[X_REACHED]\nX[r:r + 2 * hr] = 0": "reaches past `reached`",
        "w = X[X_OPEN_ROWS] + OPEN_DOWN_ROW * hr\nX[w + hr] = 0": "reaches past `open_rows`",
        "L[L_RNG:L_RNG + 2]": "reaches past slot `rng`",
    }
    for source, problem in bad.items():
        found = scan(source).problems
        assert any(problem in f for f in found), (source, found)
    good = ("X[X_PARAMS + P_BUDGET]", "params[P_BITS]", "copy_into(X, X_PARAMS, params)", "L[L_RNG:L_RNG + 1]",
            "segment(I, I_STAMPS, STAMP_ROWS * nb)", "w = X[X_OPEN_ROWS] + OPEN_DOWN_ROW * hr\nX[w:w + hr] = 0",
            "X[X[X_SUFFIX_ROWS]:X[X_SUFFIX_ROWS] + OPEN_ROWS * hr]")
    for source in good:
        assert scan(source).problems == [], source


def test_the_kernels_read_the_arrays_only_as_declared():
    problems, checked = [], 0
    for path in SCANNED:
        found = scan(path.read_text(encoding="utf-8"), path.name)
        problems += found.problems
        checked += found.checked
    assert checked > 40  # the extents of that many segment reads were compared with the declaration
    assert not problems, "\n".join(problems)
