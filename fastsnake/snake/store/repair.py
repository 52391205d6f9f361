"""``fastsnake verify --repair DIR``: a sweep folder's manifest rebuilt from its chunks' footers.

What a lost page cache leaves on a file system that ignores fsync: a manifest truncated, zeroed or
gone beside whole chunks. Every chunk's footer carries its sweep's identity (policy, board, rules,
options, seed, games, chunk size) and its chunk record, so the manifest is rebuilt from them: every
chunk must agree with the others field by field and pass every check `verify` makes, else the
repair is refused naming the chunk. The damaged manifest is kept beside the new one
(``_manifest.damaged-N.json``), and ``--resume`` then finishes the sweep.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

from fastsnake import __version__
from fastsnake.snake.store.folder import (
    DATASET_FORMAT,
    IDENTITY_FIELDS,
    MANIFEST,
    SweepDataset,
    SweepSpec,
    chunk_index,
    chunk_info,
    code_fingerprint,
)
from fastsnake.snake.store.sweepfile import SweepError, SweepFile, SweepFileError, new_run_id, short


def _manifest_intact(path: Path) -> bool:
    try:
        SweepDataset.open(path)
        return True
    except SweepError:
        return False


def _spec_of(name: str, sweep: SweepFile, info: dict) -> SweepSpec:
    """The sweep a chunk's footer describes (a chunk of old code has no chunk size: its record says)."""
    params = sweep.parameters
    data = {k: params[k] for k in IDENTITY_FIELDS if k in params}
    if "chunk_size" not in data:
        index, first, count = info.get("index"), info.get("first"), info.get("count")
        if not (isinstance(index, int) and isinstance(first, int) and isinstance(count, int)):
            raise SweepError(f"{name} has no chunk record in its footer; remove it and repair again")
        data["chunk_size"] = (first - data.get("first_game", 0)) // index if index else count
    try:
        return SweepSpec.from_json(data)
    except (ValueError, TypeError) as exc:
        raise SweepError(f"{name}: its sweep identity is damaged ({exc}); remove it and repair again") from None


def _replace_manifest(dataset: SweepDataset, kept: str | None) -> None:
    """Keep a copy of the damaged manifest as `kept`, then write the new one over it atomically: a
    repair that cannot finish (a full disk) leaves the old manifest where it was, and no copy."""
    path = dataset.path
    try:
        if kept is not None:
            shutil.copyfile(path / MANIFEST, path / kept)
        dataset.save_manifest()
    except (OSError, SweepError) as exc:
        if kept is not None:
            with contextlib.suppress(OSError):
                os.unlink(path / kept)
        reason = exc.strerror if isinstance(exc, OSError) else str(exc).split(": ", 1)[-1].split(" (")[0]
        raise SweepError(f"sweep folder {str(path)!r}: the repair could not finish ({reason}); the old {MANIFEST} "
                         f"is left as it was: free some space and repair again") from None


def repair_manifest(path) -> str | None:
    """Rebuild the manifest of sweep folder `path` from its chunks when it is missing or damaged;
    returns what was done (None when the manifest was intact). SweepError, one line, when a chunk
    is damaged or belongs to another sweep than the others (naming it and the field)."""
    path = Path(path)
    if not path.is_dir():
        raise SweepError(f"{str(path)!r} is not a sweep folder: only a folder's manifest can be repaired")
    if (path / MANIFEST).exists() and _manifest_intact(path):
        return None
    names = sorted(e.name for e in os.scandir(path) if chunk_index(e.name) is not None)
    if not names:
        raise SweepError(f"sweep folder {str(path)!r} has no chunk to rebuild its manifest from; start the sweep "
                         "again")
    spec, source = None, None
    for name in names:
        try:
            sweep = SweepFile(path / name)
        except SweepFileError as exc:
            raise SweepError(f"sweep folder {str(path)!r}: {name} {exc.reason}; remove it and repair again") \
                from None
        info = chunk_info(sweep) or {}
        own = _spec_of(name, sweep, info)
        if spec is None:
            spec, source = own, name
            continue
        for field in IDENTITY_FIELDS:
            mine, theirs = getattr(own, field), getattr(spec, field)
            if mine != theirs:
                raise SweepError(f"sweep folder {str(path)!r}: {name} disagrees with {source} ({field} "
                                 f"{short(mine)} there, {short(theirs)} in {source}); remove the chunk that does "
                                 "not belong and repair again")
    found = SweepFile(path / source).parameters
    code = found.get("code") or code_fingerprint()
    # The run's identity is kept: the run id and version its chunks carry (chunks of a version
    # before run ids carry none: the rebuilt folder gets a new one).
    dataset = SweepDataset(path, spec, manifest={"format": DATASET_FORMAT, "sweep": spec.to_json(),
                                                 "version": found.get("version") or __version__, "code": code,
                                                 "run_id": found.get("run_id") or new_run_id(),
                                                 **({"policy_resolved": found["policy_resolved"]}
                                                    if found.get("policy_resolved") else {}),
                                                 "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                                                 "repaired": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    with dataset.writing(reread=False):
        records = {}
        for name in names:
            index = chunk_index(name)
            if index >= spec.n_chunks:
                raise SweepError(f"sweep folder {str(path)!r}: {name} has no place in a sweep of {spec.n_chunks:,} "
                                 "chunks; remove it and repair again")
            status, _, detail = dataset.check_chunk(index)
            if status == "damaged":
                raise SweepError(f"sweep folder {str(path)!r}: {name} {detail}; remove it and repair again")
            if status == "adopt":
                records[index] = detail
        kept = None
        if (path / MANIFEST).exists():
            k = 1
            while (path / f"_manifest.damaged-{k}.json").exists():
                k += 1
            kept = f"_manifest.damaged-{k}.json"
        dataset.records = records
        _replace_manifest(dataset, kept)
    what = f"rebuilt {MANIFEST} from {len(records):,} chunk(s) of {spec.n_chunks:,}"
    return what + (f"; the damaged one is kept as {kept}" if kept else "")
