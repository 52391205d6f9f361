"""Slow, obviously-correct references for `fastsnake.study.checksum`: the checksum as it was first
written (every column through ``to_pylist``), the digest files of older versions carry."""

from __future__ import annotations

import hashlib
import json

import numpy as np


def table_checksum(meta: dict, table, columns) -> str:
    digest = hashlib.blake2b(digest_size=32)
    body = {k: v for k, v in meta.items() if k != "checksum"}
    digest.update(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    for name, kind in columns:
        column = table.column(name)
        digest.update(f"\0{name}:{len(column)}\0".encode())
        if kind == "string":
            digest.update("\0".join("\1" if v is None else v for v in column.to_pylist()).encode())
        elif kind == "json":
            digest.update(json.dumps(column.to_pylist(), separators=(",", ":")).encode())
        else:
            digest.update(np.ascontiguousarray(column.to_numpy(), dtype=np.dtype(kind).newbyteorder("<")).tobytes())
    return "blake2b:" + digest.hexdigest()
