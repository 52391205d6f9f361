"""The colours every view of a board shares: the pygame viewer and the browser report.

RGB triples. The viewer's tests read pixels against these names and the report's
player receives them as data, so a colour is changed here once for both.
"""

BACKGROUND = (18, 19, 24)
EMPTY = (34, 36, 44)
GRID = (52, 55, 66)
TEXT = (225, 228, 235)
TEXT_DIM = (150, 155, 170)
STATUS_BG = (26, 27, 34)
BODY_TAIL = (28, 96, 64)
BODY_HEAD = (96, 214, 120)
HEAD = (246, 214, 64)
APPLE = (226, 58, 64)
CRASH = (255, 64, 255)
CYCLE = (70, 110, 190)
PATH = (255, 160, 40)
TILE = (58, 98, 168)
TILE_HOME = (52, 140, 96)
TILE_MOVED = (214, 150, 52)
LIGHT = (58, 60, 70)
DARK = (42, 44, 52)
VISIT_OLD = (28, 58, 118)
VISIT_NEW = (70, 140, 220)
CURRENT = HEAD
JUMP = (255, 170, 60)
REACH_NEAR = (250, 210, 90)
REACH_FAR = (120, 170, 240)
TARGET = APPLE

# Series colours of the report's plots, one per policy (a colour-blind-safe set, Okabe-Ito order).
SERIES = ((86, 180, 233), (230, 159, 0), (0, 158, 115), (204, 121, 167), (240, 228, 66), (0, 114, 178),
          (213, 94, 0), (200, 200, 200))


def as_dict() -> dict:
    """Every colour by lower-case name (e.g. ``body_tail``), for pages and other front ends."""
    return {name.lower(): value for name, value in globals().items()
            if name.isupper() and isinstance(value, tuple)}
