""".npz archives that inflate far beyond their size (zip bombs), built cheaply, for the tests
and bench/fault_injection.py.

`write_npz(path, members)` writes a zip of `.npy` members, each given as an `Member`: the
`.npy` bytes it starts with and a count of zero bytes after them. The zeros are never built:
their deflate stream is one block (1 MiB of zeros, ~1 KB compressed) repeated, each ending in a
full flush so that it refers to nothing before it, so a 1 GiB member takes about 1 MB and
a second to write (the CRC is the honest one).
"""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass

import numpy as np
from numpy.lib import format as npy

MIB = 1 << 20
_ZEROS = bytes(MIB)


@dataclass
class Member:
    head: bytes  # the member's first bytes (an .npy header, or a whole .npy)
    zeros: int = 0  # how many zero bytes follow (a multiple of 1 MiB)
    declared_size: int | None = None  # the uncompressed size the zip headers state (None: the true one)


def npy_bytes(array) -> bytes:
    buf = io.BytesIO()
    npy.write_array(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def npy_header(shape, descr: str = "|u1") -> bytes:
    """The .npy header of an array of `shape` and dtype `descr`, without its data."""
    buf = io.BytesIO()
    npy.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": tuple(shape)})
    return buf.getvalue()


def _deflated(member: Member) -> tuple[bytes, int, int]:
    """(raw deflate stream, CRC-32, uncompressed size) of the member's content."""
    assert member.zeros % MIB == 0
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    parts = [comp.compress(member.head), comp.flush(zlib.Z_FULL_FLUSH)]
    crc = zlib.crc32(member.head)
    if member.zeros:
        block = comp.compress(_ZEROS) + comp.flush(zlib.Z_FULL_FLUSH)  # the same bytes every time
        parts.append(block * (member.zeros // MIB))
        for _ in range(member.zeros // MIB):
            crc = zlib.crc32(_ZEROS, crc)
    parts.append(comp.flush())
    return b"".join(parts), crc, len(member.head) + member.zeros


def write_npz(path, members: dict[str, Member]) -> None:
    """A zip archive of deflated members named `NAME.npy` (sizes under 4 GiB: no zip64)."""
    out, central = bytearray(), bytearray()
    for name, member in members.items():
        data, crc, size = _deflated(member)
        size = size if member.declared_size is None else member.declared_size
        fname = f"{name}.npy".encode()
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(data), size, len(fname), 0)
        out += fname + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(data), size,
                               len(fname), 0, 0, 0, 0, 0, offset) + fname
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(out), 0)
    with open(path, "wb") as fh:
        fh.write(bytes(out) + bytes(central) + end)


def replay_fields(path) -> dict[str, Member]:
    """The members of a real replay file, each as it is (to swap one for a bomb)."""
    with np.load(path, allow_pickle=False) as data:
        return {key: Member(npy_bytes(data[key])) for key in data.files}


def replay_bomb(golden, path, kind: str, inflated: int) -> None:
    """A replay file like `golden` but for one fault of `kind`, whose bomb inflates to `inflated` bytes:

    * ``moves-declared``: `moves` declares `inflated` moves (and holds them, all zeros);
    * ``moves-lying``: `moves` declares the real count but its data goes on for `inflated` bytes;
    * ``moves-hidden``: as ``moves-lying``, the zip headers stating only the declared size;
    * ``extra-member``: an extra member `junk` of `inflated` zero bytes beside the real fields;
    * ``huge-shape``: `moves` declares shape (10**12,) with no data behind it (no bomb at all).
    """
    members = replay_fields(golden)
    moves_head = npy_header((inflated,)) if kind == "moves-declared" else None
    if kind == "moves-declared":
        members["moves"] = Member(moves_head, inflated)
    elif kind in ("moves-lying", "moves-hidden"):
        real = members["moves"].head
        members["moves"] = Member(real, inflated, declared_size=len(real) if kind == "moves-hidden" else None)
    elif kind == "extra-member":
        members["junk"] = Member(npy_header((inflated,)), inflated)
    elif kind == "huge-shape":
        members["moves"] = Member(npy_header((10**12,)))
    else:
        raise ValueError(kind)
    write_npz(path, members)


BOMB_KINDS = ("moves-declared", "moves-lying", "moves-hidden", "extra-member", "huge-shape")
