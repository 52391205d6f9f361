"""Write (or print) `golden/find_tour.json`: what `find_tour` answers for `CASES`, the reference that
`test_tour_methods.py` holds the method registry to (same tours, nodes, attempts, methods and reasons).

Run from a checkout whose results are the reference: ``python tests/tour/golden_find_tour.py --write``
(it records the commit). Searches run with no time limit (a node limit where one is asked), so the
answers are the same on any machine.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden" / "find_tour.json"

# (piece, size, start, closed, method, seed, max_nodes)
CASES = [
    *[("1,2", size, start, closed, method, seed, None)
      for size in ("1", "3x4", "4", "5", "6", "5x6", "7", "8")
      for start in (0, 7)
      for closed in (False, True)
      for method in ("auto", "search", "construct")
      for seed in (0, 3)],
    *[(piece, "6", 0, closed, "search", seed, None)
      for piece in ("1,3", "0,1", "1,2;0,1", "2,3") for closed in (False, True) for seed in (0, 1)],
    ("1,2", "30", 5, False, "auto", 0, None),
    ("1,2", "30", 5, True, "construct", 0, None),
    ("1,2", "52x50", 0, False, "auto", 0, None),
    ("1,2", "40x41", 3, False, "auto", 0, None),
    ("1,2", "20", 0, False, "search", 0, None),
    ("1,2", "7", 0, False, "search", 0, 10),
    ("1,2", "9", 0, True, "search", 0, 100),
    ("moves:0,1;1,0;-1,-1", "4", 0, False, "search", 0, None),
    ("moves:0,1;1,0;-1,-1", "4", 0, True, "auto", 0, None),
]


def answer(case) -> dict:
    from fastsnake.tour import TourInputError, find_tour, parse_piece

    piece_text, size, start, closed, method, seed, max_nodes = case
    piece = (parse_piece(None, piece_text[6:], True) if piece_text.startswith("moves:")
             else parse_piece(piece_text))
    try:
        r = find_tour(piece, size, start=start, closed=closed, method=method, seed=seed, time_limit=None,
                      max_nodes=max_nodes)
    except TourInputError:  # its subclass and wording are not part of the answer
        return {"error": "TourInputError"}
    path = None if r.path is None else hashlib.sha256(r.path.astype("<i4").tobytes()).hexdigest()[:24]
    return {"found": r.found, "exists": r.exists, "method": r.method, "reason": r.reason, "nodes": r.nodes,
            "attempts": r.attempts, "seed": r.seed, "path_sha256": path,
            "squares": None if r.path is None else len(r.path), "extra": r.extra}


def answers() -> list:
    return [{"case": list(case), "answer": answer(case)} for case in CASES]


if __name__ == "__main__":
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip()
    doc = {"made_by": "python tests/tour/golden_find_tour.py --write", "commit": commit, "answers": answers()}
    lines = [json.dumps(a, separators=(",", ":")) for a in doc.pop("answers")]
    text = json.dumps(doc)[:-1] + ', "answers": [\n' + ",\n".join(lines) + "\n]}\n"  # one answer a line
    if "--write" in sys.argv:
        GOLDEN.write_text(text)
    else:
        sys.stdout.write(text)
