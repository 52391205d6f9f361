"""Model files are hashed before they are read, read without running their code, and never loaded
from a path a received file names (issue 46, item 1).

A payload is planted in both formats a model comes in: a ``policy.save()`` file with one more
object whose ``__reduce__`` writes a marker file, and a ``model.save()`` zip with a ``:serialized:``
entry doing the same. Every verb that reads a file someone may have sent (replay --from, replay
--check, report, verify, sweep --resume) is run on a sweep of that model; the marker must never
appear. Before this change the marker appeared through replay --from and report (the planted file's
hash is the recorded one: the old code unpickled it, then compared).
"""

import base64
import hashlib
import json
import os
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import fastsnake  # noqa: E402
from fastsnake.cli import main  # noqa: E402
from fastsnake.snake.policies import PolicyError  # noqa: E402


def sb3():
    for module in ("torch", "stable_baselines3", "sb3_contrib"):
        pytest.importorskip(module)
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)


def _touch(marker: str) -> None:  # pragma: no cover - must never run
    Path(marker).write_text("the payload ran")


class Payload:
    """Unpickled the usual way, it calls `os.system` (what the issue found) to write `marker`."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"echo ran > '{self.marker}'",))


def tiny_zip(path, net=(8,)):
    from sb3_contrib import MaskablePPO

    from fastsnake.envs.sb3 import SnakeVecEnv, policy_kwargs

    env = SnakeVecEnv(2, size=5, obs="planes", threads=1)
    MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs("planes", net_arch=list(net)), seed=0, device="cpu",
                n_steps=8, batch_size=16).save(path)
    return str(path)


def planted_pt(tmp_path, marker):
    """A valid policy.save() file with one more object, the payload."""
    import torch
    from sb3_contrib import MaskablePPO

    clean = tiny_zip(tmp_path / "clean.zip")
    MaskablePPO.load(clean, device="cpu").policy.save(tmp_path / "clean.pt")
    saved = torch.load(tmp_path / "clean.pt", weights_only=False)  # our own file: trusted here
    saved["extra"] = Payload(marker)
    path = tmp_path / "planted.pt"
    torch.save(saved, path)
    return str(path)


def planted_zip(tmp_path, marker, where="extra"):
    """A valid model.save() zip whose data holds a ``:serialized:`` payload (a new entry, or in
    place of the policy's keyword arguments)."""
    clean = tiny_zip(tmp_path / "clean.zip")
    path = tmp_path / f"planted-{where}.zip"
    payload = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    with zipfile.ZipFile(clean) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "data":
                fields = json.loads(data)
                fields[where] = {":type:": "<class 'builtins.dict'>", ":serialized:": payload}
                data = json.dumps(fields).encode()
            dst.writestr(item, data)
    return str(path)


def cli(capsys, *argv):
    capsys.readouterr()
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "MARKER"
    yield path
    assert not path.exists(), "the planted payload ran"


def test_the_payload_is_real(tmp_path, marker):
    """The planted files do run their payload when unpickled the usual way (so the tests below
    would see it), and the stand-in file is removed again."""
    sb3()
    import torch
    from stable_baselines3.common.save_util import load_from_zip_file

    torch.load(planted_pt(tmp_path, marker), weights_only=False)
    assert marker.exists()
    marker.unlink()
    load_from_zip_file(planted_zip(tmp_path, marker), device="cpu", print_system_info=False)
    assert marker.exists()
    marker.unlink()


@pytest.mark.parametrize("kind", ["pt", "zip"])
def test_a_planted_payload_never_runs_through_any_verb(tmp_path, capsys, marker, kind):
    sb3()
    model = planted_pt(tmp_path, marker) if kind == "pt" else planted_zip(tmp_path, marker)
    digest = hashlib.sha256(Path(model).read_bytes()).hexdigest()
    # The user's own sweep of the planted model (named on the command line): read without its code.
    sweep_file, folder = tmp_path / "s.parquet", tmp_path / "dir"
    assert cli(capsys, "sweep", "--policy", f"model:{model}", "--size", "5", "--games", "20", "--out",
               sweep_file)[0] == 0
    assert cli(capsys, "sweep", "--policy", f"model:{model}", "--size", "5", "--games", "20", "--chunk-size", "10",
               "--out", folder)[0] == 0
    assert cli(capsys, "replay", "--from", sweep_file, "--pick", "longest", "--out", tmp_path / "g.npz",
               "--model", model)[0] == 0
    # Received: the files name the model's path; no verb loads it unless the user names it.
    for argv in (["replay", "--from", sweep_file, "--pick", "longest", "--out", tmp_path / "x.npz"],
                 ["report", sweep_file, "--out", tmp_path / "r.html"],
                 ["report", folder, "--out", tmp_path / "r2.html"]):
        code, _, err = cli(capsys, *argv)
        assert code == 2 and "loads no model a file names" in err and "--model PATH" in err and digest in err
    assert cli(capsys, "verify", folder)[0] == 0
    assert cli(capsys, "verify", sweep_file)[0] == 0
    assert cli(capsys, "replay", "--check", tmp_path / "g.npz")[0] in (0, 2)
    first = sorted(folder.glob("chunk-*.parquet"))[0]
    first.unlink()
    code, _, err = cli(capsys, "sweep", "--resume", folder)
    assert code == 2 and "loads no model a file names" in err
    # Named by the user: the hash is compared first, then the weights read without the payload.
    assert cli(capsys, "report", sweep_file, "--out", tmp_path / "r.html", "--model", model)[0] == 0
    assert cli(capsys, "sweep", "--resume", folder, "--model", model)[0] == 0
    assert cli(capsys, "verify", folder)[0] == 0


def test_a_model_of_other_bytes_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """--model with another file: refused by its hash; load_agent with a recorded hash never
    reaches the reader when the bytes differ."""
    sb3()
    from fastsnake.envs import model_file, model_policy

    model = tiny_zip(tmp_path / "m.zip")
    other = tiny_zip(tmp_path / "other.zip", net=(4,))
    out = tmp_path / "s.parquet"
    fastsnake.sweep(f"model:{model}", 5, 10, seed=1, threads=1, out=str(out))
    with pytest.raises(PolicyError, match="no model file given matches it"):
        fastsnake.replay_game(str(out), "longest", models=[other])
    game = fastsnake.replay_game(str(out), "longest", models=[model])
    assert np.array_equal(game.moves, fastsnake.play(f"model:{model}", 5, seed=1, game=game.game).moves)

    def never(data):
        raise AssertionError("read as a model")

    monkeypatch.setattr(model_file, "load_model", never)
    with pytest.raises(PolicyError, match="has changed since that sweep.*not loaded"):
        model_policy.load_agent(model, sha256="0" * 64)


def test_the_reader_rebuilds_sb3s_own_network(tmp_path):
    """The network rebuilt from the file's records equals the one Stable-Baselines3's own (code-running)
    load gives: same modules, same weights, same outputs; for zips of each algorithm and a policy.pt."""
    sb3()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import A2C, DQN, PPO

    from fastsnake.envs.model_file import load_model
    from fastsnake.envs.model_policy import most_likely
    from fastsnake.envs.sb3 import SnakeVecEnv

    env = SnakeVecEnv(2, size=5, obs="features", threads=1)
    cases = [(tiny_zip(tmp_path / "m.zip"), MaskablePPO)]
    for name, algorithm, extra in (("p", PPO, dict(n_steps=8, batch_size=16,
                                                   policy_kwargs=dict(net_arch=[8], activation_fn=torch.nn.ReLU))),
                                   ("a", A2C, dict(n_steps=8)),
                                   ("d", DQN, dict(learning_starts=0, buffer_size=100))):
        algorithm("MlpPolicy", env, seed=0, device="cpu", **extra).save(tmp_path / f"{name}.zip")
        cases.append((str(tmp_path / f"{name}.zip"), algorithm))
    for path, algorithm in cases:
        name, ours, _ = load_model(Path(path).read_bytes())
        theirs = algorithm.load(path, device="cpu").policy
        assert name == algorithm.__name__ and str(ours) == str(theirs)
        a, b = ours.state_dict(), theirs.state_dict()
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        space = ours.observation_space
        obs = np.random.default_rng(0).random((16, *space.shape)).astype(np.float32)
        obs = (obs > 0.5).astype(space.dtype) if space.dtype == np.uint8 else obs.astype(space.dtype)
        masks = np.ones((16, 4), bool)
        masks[::3, 1] = False
        masked = algorithm is MaskablePPO
        assert np.array_equal(most_likely(ours, obs, masks, masked), most_likely(theirs, obs, masks, masked))
    example = Path(__file__).parents[2] / "examples" / "rl" / "ego6x8" / "policy.pt"
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    _, ours, _ = load_model(example.read_bytes())
    theirs = MaskableActorCriticPolicy.load(str(example), device="cpu")
    assert str(ours) == str(theirs) and ours.observation_space == theirs.observation_space


def test_a_zip_that_needs_code_is_refused(tmp_path, marker):
    """A payload where the network's keyword arguments belong: refused, naming the entry, not run."""
    sb3()
    path = planted_zip(tmp_path, marker, where="policy_kwargs")
    with pytest.raises(PolicyError, match="policy_kwargs"):
        fastsnake.sweep(f"model:{path}", 5, 2, threads=1)
