"""Headless export: GIF and PNG frames, frame selection."""

import pytest
import viewer_naive as naive
from hypothesis import given
from hypothesis import strategies as st

from fastsnake.viewer import export as ex
from fastsnake.viewer.backend import ViewerError


@given(st.integers(1, 500), st.integers(1, 600))
def test_frame_indices_match_reference(frames, every):
    assert ex.frame_indices(frames, every) == naive.frame_indices(frames, every)


@pytest.mark.parametrize("every", (1, 7, 500))
def test_png_frames(views, tmp_path, every):
    view = views("greedy10.npz")
    out = tmp_path / "frames"
    info = ex.export_frames(view, f"{out}/", every=every)
    files = sorted(out.glob("frame_*.png"))
    assert len(files) == info["written"] == len(naive.frame_indices(view.frames, every))
    assert files[0].name == "frame_000000.png"


def test_gif_frame_count_and_last_frame(views, tmp_path, pg):
    from PIL import Image

    view = views("greedy10.npz")
    out = tmp_path / "game.gif"
    info = ex.export_frames(view, out, every=4, speed=40, cell=12)
    with Image.open(out) as im:
        assert im.n_frames == info["written"] == len(naive.frame_indices(view.frames, 4))
        assert im.info["duration"] == 100
        im.seek(im.n_frames - 1)
        last = im.convert("RGB")
    # The last GIF frame is the last position: the head colour sits on the head cell.
    surface = pg.Surface(last.size)
    layout = view.render(surface, view.frames - 1)
    from fastsnake.viewer import canvas

    assert last.getpixel(layout.center(view.timeline.head(view.frames - 1))) == canvas.HEAD


def test_export_targets_are_checked(views, tmp_path):
    view = views("greedy10.npz")
    with pytest.raises(ViewerError, match="must end in .gif"):
        ex.export_frames(view, tmp_path / "out.mp4")
    with pytest.raises(ViewerError, match="every=0"):
        ex.export_frames(view, tmp_path / "a.gif", every=0)
    with pytest.raises(ViewerError, match="every=136 or more"):
        ex.export_frames(views("cycle30.npz"), tmp_path / "big.gif")
    assert not (tmp_path / "big.gif").exists()


def test_a_full_disk_never_leaves_a_half_replaced_frames_folder(views, tmp_path):
    """PNG frames go to a temporary folder that takes the name only when whole."""
    import resource

    view = views("greedy10.npz")
    out = tmp_path / "frames"
    ex.export_frames(view, out, every=50)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200, hard))  # each PNG is bigger: EFBIG, as on a full disk
    try:
        with pytest.raises(ViewerError, match="cannot write frames"):
            ex.export_frames(view, out, every=7)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frames"]
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ViewerError, match="holds other files"):
        ex.export_frames(view, out, every=50)
