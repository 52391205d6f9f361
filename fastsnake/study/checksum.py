"""Checksums of saved files: a BLAKE2b digest over a file's metadata and its columns, so a baseline
that was edited after it was saved is refused rather than trusted.

`table_checksum(meta, table, columns)` is the one serialisation every saved baseline uses (Snake's
`fastsnake.snake.benchmark.baseline_checksum`, the study rows files of `fastsnake.study.rows`):
the metadata but its ``checksum`` as canonical JSON, then each column in order, a numeric column as
little-endian values of its stated type, a ``"string"`` column NUL-separated UTF-8, a ``"json"``
column (any type, nulls allowed) as the JSON of its values.
"""

from __future__ import annotations

import json

import numpy as np

PREFIX = "blake2b:"


def table_checksum(meta: dict, table, columns) -> str:
    """``"blake2b:<hex>"`` over `meta` (but its ``checksum``) and the `columns` of the Arrow
    `table`, given as ``(name, kind)`` pairs: kind ``"string"``, ``"json"`` or a numpy dtype name."""
    import hashlib

    digest = hashlib.blake2b(digest_size=32)
    body = {k: v for k, v in meta.items() if k != "checksum"}
    digest.update(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    for name, kind in columns:
        column = table.column(name)
        digest.update(f"\0{name}:{len(column)}\0".encode())
        if kind == "string":
            digest.update("\0".join("\1" if v is None else v for v in column_values(column)).encode())  # null: refused
        elif kind == "json":
            digest.update(json.dumps(column_values(column), separators=(",", ":")).encode())
        else:
            digest.update(np.ascontiguousarray(column.to_numpy(), dtype=np.dtype(kind).newbyteorder("<")).tobytes())
    return PREFIX + digest.hexdigest()


def column_values(column) -> list:
    """``column.to_pylist()`` (an Arrow array or chunked array), the same Python values, made faster
    for a dictionary-encoded column (its dictionary's values converted once, then looked up by
    index, so equal values are one object: pyarrow converts such a column value by value)."""
    chunks = column.chunks if hasattr(column, "chunks") else [column]
    if len(chunks) == 1:
        return _chunk_values(chunks[0])
    out = []
    for chunk in chunks:
        out.extend(_chunk_values(chunk))
    return out


def _chunk_values(array) -> list:
    import pyarrow as pa

    if not pa.types.is_dictionary(array.type):
        return array.to_pylist()
    words = array.dictionary.to_pylist()
    indices = array.indices.to_pylist()
    if array.indices.null_count == 0:
        return list(map(words.__getitem__, indices))
    return [None if k is None else words[k] for k in indices]


def all_columns(table) -> list[tuple[str, str]]:
    """Every column of `table`, in order, as ``(name, "json")``: the columns a study rows file's
    checksum reads (any type, nulls allowed)."""
    return [(name, "json") for name in table.column_names]
