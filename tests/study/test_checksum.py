"""`fastsnake.study.checksum`: the digest is the one older versions wrote (the slow reference in
`checksum_naive`) on any table, whatever path a column's values take."""

import math

import checksum_naive
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.study.checksum import all_columns, column_values, table_checksum

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6)
FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.1, 1e300, -0.0, 5e-324, math.nan])
# (Arrow type, values) per kind of column a rows file holds, and some it may hold in other files.
KINDS = {
    "string": (pa.string(), TEXT),
    "large_string": (pa.large_string(), TEXT),
    "int8": (pa.int8(), st.integers(-128, 127)),
    "int16": (pa.int16(), st.integers(-(2**15), 2**15 - 1)),
    "int32": (pa.int32(), st.integers(-(2**31), 2**31 - 1)),
    "int64": (pa.int64(), st.integers(-(2**63), 2**63 - 1)),
    "uint64": (pa.uint64(), st.integers(0, 2**64 - 1)),
    "float32": (pa.float32(), st.floats(width=32)),
    "float64": (pa.float64(), FLOATS),
    "bool": (pa.bool_(), st.booleans()),
    "words": (pa.dictionary(pa.int32(), pa.string()), st.sampled_from(["search", "construct", "", "ü", "a\0b"])),
    "small_words": (pa.dictionary(pa.int8(), pa.string()), TEXT),
    "int_words": (pa.dictionary(pa.int16(), pa.int64()), st.integers(-5, 5)),
    "list": (pa.list_(pa.int64()), st.lists(st.integers(-3, 3), max_size=3)),
}


@st.composite
def tables(draw):
    n = draw(st.integers(0, 12))
    arrays, names = [], []
    for k, kind in enumerate(draw(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=6))):
        typ, values = KINDS[kind]
        nulls = draw(st.booleans())
        cells = [None if nulls and draw(st.booleans()) else draw(values) for _ in range(n)]
        # one chunk, or two (as read from a file of several row groups; dictionaries of their own)
        cut = draw(st.integers(0, n))
        parts = [cells[:cut], cells[cut:]] if draw(st.booleans()) else [cells]
        if pa.types.is_dictionary(typ):
            chunks = [pa.array(part, typ.value_type).dictionary_encode().cast(typ) for part in parts]
        else:
            chunks = [pa.array(part, typ) for part in parts]
        arrays.append(pa.chunked_array(chunks, typ))
        names.append(f"c{k}")
    return pa.table(arrays, names=names)


@settings(max_examples=300, deadline=None)
@given(tables(), st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=4), max_size=3))
def test_the_digest_is_the_old_one_on_any_table(table, meta):
    columns = all_columns(table)
    assert table_checksum(meta, table, columns) == checksum_naive.table_checksum(meta, table, columns)
    for name in table.column_names:
        column = table.column(name)
        assert repr(column_values(column)) == repr(column.to_pylist())  # NaN, -0.0 alike
        for chunk in column.chunks:
            assert repr(column_values(chunk)) == repr(chunk.to_pylist())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "bb", "ü"]) | st.none(), max_size=20))
def test_string_kind_and_numeric_kind_unchanged(words):
    table = pa.table({"s": pa.array([w or "x" for w in words]).dictionary_encode(),
                      "t": pa.array(words, pa.string()), "n": pa.array(range(len(words)), pa.int64())})
    columns = [("s", "string"), ("t", "string"), ("n", "int64")]
    assert table_checksum({"a": 1}, table, columns) == checksum_naive.table_checksum({"a": 1}, table, columns)


def test_a_rows_file_read_back_has_the_digest_it_was_written_with(tmp_path):
    """A file's dictionary columns read back take the fast path; the digest is the old one."""
    from fastsnake.study.rows import read_rows, write_rows

    words = pa.array(["search", "construct", None] * 400).dictionary_encode()
    table = pa.table({"method": words, "nodes": pa.array(range(1200), pa.int64()),
                      "moves": pa.array([None, "0a1"] * 600, pa.string())})
    path = write_rows(table, str(tmp_path / "r.parquet"), {"kind": "tour", "run_id": "r1"})
    meta, back = read_rows(path, need_checksum=True)
    assert pa.types.is_dictionary(back.schema.field("method").type)
    assert meta["checksum"] == checksum_naive.table_checksum(meta, back, all_columns(back))
    assert meta["checksum"] == checksum_naive.table_checksum(meta, table, all_columns(table))
