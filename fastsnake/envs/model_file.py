"""Reading a saved agent without running any code the file holds.

Stable-Baselines3 saves pickles: a ``policy.save()`` file is one torch pickle of the network's
constructor arguments and weights; a ``model.save()`` zip holds JSON whose ``:serialized:`` entries
are cloudpickles, and the weights as ``policy.pth``. Unpickling either the usual way calls whatever
the file names (a planted ``__reduce__`` runs ``os.system``). Here nothing the file names is called:

- the weights are read by ``torch.load(..., weights_only=True)`` (the zip's ``policy.pth``), or, for
  a ``policy.save()`` file, by torch's loader with `OpaqueUnpickler`: a global the file names is
  never looked up in its module but for the few that rebuild tensors and numpy arrays (`SAFE`, the
  ones torch's own ``weights_only`` allows); every other one becomes an inert `Opaque` record of its
  name and arguments;
- the network is then rebuilt from those records: spaces from their recorded fields, activation,
  features extractor and policy classes from the short lists below (`CLASSES`), and any other
  record that the network would need refuses the file (`ModelFileError`, naming the entry).

`read_model_bytes` hashes the bytes first and refuses a file whose SHA-256 is not the one expected,
before any of this reads them.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import pickle
import zipfile

# A model bigger than this is refused before it is read (examples/rl's are under 1 MB).
MAX_MODEL_BYTES = 1 << 30

# Globals a pickle may really use: the rebuilding of tensors and numpy arrays (what torch's own
# weights_only unpickler allows for them). Everything else becomes an `Opaque` record.
SAFE = {
    ("collections", "OrderedDict"),
    ("torch._utils", "_rebuild_tensor_v2"),
    ("torch._utils", "_rebuild_parameter"),
    ("torch", "Size"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),  # arrays of pickle protocol 5 (cloudpickle's)
    ("numpy._core.numeric", "_frombuffer"),
    ("_codecs", "encode"),
}

# Classes a saved network may name, by module and name: policies, activations, features extractors.
CLASSES = {
    "policy": {
        "stable_baselines3.common.policies.ActorCriticPolicy",
        "stable_baselines3.common.policies.ActorCriticCnnPolicy",
        "stable_baselines3.common.policies.MultiInputActorCriticPolicy",
        "stable_baselines3.dqn.policies.DQNPolicy",
        "stable_baselines3.dqn.policies.CnnPolicy",
        "stable_baselines3.dqn.policies.MultiInputPolicy",
        "sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy",
        "sb3_contrib.common.maskable.policies.MaskableActorCriticCnnPolicy",
        "sb3_contrib.common.maskable.policies.MaskableMultiInputActorCriticPolicy",
    },
    "activation_fn": {f"torch.nn.modules.activation.{n}" for n in (
        "Tanh", "ReLU", "LeakyReLU", "ELU", "SELU", "GELU", "SiLU", "Sigmoid", "Softplus", "Mish", "Hardswish")},
    "features_extractor_class": {
        "stable_baselines3.common.torch_layers.FlattenExtractor",
        "stable_baselines3.common.torch_layers.NatureCNN",
    },
}
# Constructor arguments whose records are dropped: the optimiser and the learning-rate schedule
# train a network, they do not play it.
DROPPED = {"lr_schedule", "optimizer_class", "optimizer_kwargs"}


class ModelFileError(ValueError):
    """A model file that cannot be read without running its code, or is not what was expected."""


class Opaque:
    """A global a pickle named, or an object it built from one: its name, arguments and state, and
    nothing else (no method of the named class ever runs)."""

    qualname = "?"

    def __new__(cls, *args, **kwargs):
        obj = object.__new__(cls)
        obj.args, obj.state, obj.items = args, None, []
        return obj

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        self.state = state

    def __call__(self, *args, **kwargs):
        return _opaque(f"{self.qualname}()")(*args)

    def append(self, item):
        self.items.append(item)

    def extend(self, items):
        self.items.extend(items)

    def __setitem__(self, key, value):
        self.items.append((key, value))

    def __repr__(self):
        return f"<{self.qualname}>"


def _opaque(qualname: str) -> type:
    """A class standing for the global `qualname` (a class, since pickle's NEWOBJ needs one)."""
    return type("Opaque", (Opaque,), {"qualname": qualname})


def _is_opaque_class(obj) -> bool:
    return isinstance(obj, type) and issubclass(obj, Opaque)


class OpaqueUnpickler(pickle.Unpickler):
    """An unpickler that calls nothing but the `SAFE` globals: every other one is an `Opaque`."""

    def find_class(self, module, name):
        if (module, name) in SAFE:
            return super().find_class(module, name)
        return _opaque(f"{module}.{name}")


class _OpaquePickle:
    """A ``pickle_module`` for ``torch.load``: its Unpickler is `OpaqueUnpickler`."""

    Unpickler = OpaqueUnpickler
    load = staticmethod(lambda fh, **kw: OpaqueUnpickler(fh, **kw).load())
    __name__ = "fastsnake.envs.model_file"


def read_model_bytes(path: str, sha256: str | None = None) -> tuple[bytes, str]:
    """(the file's bytes, their SHA-256); ModelFileError when `sha256` is given and differs: the
    check comes before anything reads the bytes as a model."""
    import os

    size = os.path.getsize(path)
    if size > MAX_MODEL_BYTES:
        raise ModelFileError(f"it is {size:,} bytes, more than a model file holds ({MAX_MODEL_BYTES:,})")
    with open(path, "rb") as fh:
        data = fh.read(MAX_MODEL_BYTES + 1)
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ModelFileError(f"its SHA-256 is {digest}, not {sha256} as recorded: the file has changed since "
                             f"that sweep (a different model); it was not loaded")
    return data, digest


def _class(kind: str, record, key: str):
    """The allowed class `record` (an Opaque class) names, for constructor argument `key`."""
    import importlib

    name = record.qualname if _is_opaque_class(record) else None
    if name not in CLASSES[kind]:
        shown = name or type(record).__name__
        raise ModelFileError(f"its {key} is {shown}, not one fastsnake reads without running the file's code "
                             f"({', '.join(sorted(n.rsplit('.', 1)[1] for n in CLASSES[kind]))})")
    module, _, cls = name.rpartition(".")
    return getattr(importlib.import_module(module), cls)


def _state(record) -> dict:
    state = record.state
    if isinstance(state, tuple) and len(state) == 2 and isinstance(state[1], dict):  # (dict, slots)
        state = dict(state[0] or {}, **state[1])
    if not isinstance(state, dict):
        raise ModelFileError(f"its {record.qualname} record holds no fields")
    return state


def _space(record, key: str):
    """A gymnasium Box or Discrete rebuilt from the fields a pickle of it records."""
    import numpy as np
    from gymnasium import spaces

    kind = type(record).qualname if isinstance(record, Opaque) else None
    if kind == "gymnasium.spaces.box.Box":
        s = _state(record)
        low, high = np.asarray(s["low"]), np.asarray(s["high"])
        return spaces.Box(low=low, high=high, shape=tuple(int(x) for x in s["_shape"]), dtype=np.dtype(s["dtype"]))
    if kind == "gymnasium.spaces.discrete.Discrete":
        s = _state(record)
        return spaces.Discrete(int(s["n"]), start=int(s.get("start", 0)))
    raise ModelFileError(f"its {key} is {kind or type(record).__name__}, not a Box or Discrete space")


def _plain(value, key: str):
    """`value` when it holds no Opaque record (lists, dicts, numbers, strings); else ModelFileError."""
    if isinstance(value, Opaque) or _is_opaque_class(value):
        raise ModelFileError(f"its {key} is {value!r}, which fastsnake does not read (it would run the file's code)")
    if isinstance(value, dict):
        return {k: _plain(v, f"{key}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v, key) for v in value)
    return value


def _kwargs(saved: dict) -> dict:
    """A policy's constructor arguments, from the records of a ``policy.save()``'s ``data`` or a
    zip's ``policy_kwargs``: the allowed classes looked up, the rest plain or refused."""
    if not isinstance(saved, dict):
        raise ModelFileError(f"its policy_kwargs is {saved!r}, not keyword arguments (fastsnake does not run "
                             f"the file's code to read them)")
    kwargs = {}
    for key, value in saved.items():
        if key in DROPPED or key in ("observation_space", "action_space"):
            continue
        if key in ("activation_fn", "features_extractor_class"):
            kwargs[key] = _class(key, value, key)
        else:
            kwargs[key] = _plain(value, key)
    return kwargs


def _constant(_progress):
    return 0.0


def _build(cls, observation_space, action_space, kwargs: dict, state_dict):
    policy = cls(observation_space, action_space, _constant, **kwargs)
    missing, unexpected = policy.load_state_dict(state_dict, strict=False)
    if missing or unexpected:
        raise ModelFileError(f"its weights do not fit its network (missing {sorted(missing)[:3]}, unexpected "
                             f"{sorted(unexpected)[:3]})")
    return policy


def _policy_class_of(state_dict):
    """The policy class a ``policy.save()`` file is played as, from its weights' names."""
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    keys = state_dict.keys()
    if any(k.startswith("q_net.") for k in keys):
        return DQNPolicy
    if any(k.startswith("action_net.") for k in keys):
        try:
            from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
        except ImportError:
            return ActorCriticPolicy
        return MaskableActorCriticPolicy
    raise ModelFileError("its network is neither an actor-critic's nor a DQN's")


def is_sb3_zip(data: bytes) -> bool:
    """A ``model.save()`` zip (its members "data" and "policy.pth"); torch's own files are zips too."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return {"data", "policy.pth"} <= set(archive.namelist())
    except zipfile.BadZipFile:
        return False


def _unpickle_entry(entry, key: str):
    """A zip's ``data`` entry: its ``:serialized:`` cloudpickle read by `OpaqueUnpickler`, or the
    plain JSON value."""
    if isinstance(entry, dict) and ":serialized:" in entry:
        try:
            return OpaqueUnpickler(io.BytesIO(base64.b64decode(entry[":serialized:"]))).load()
        except Exception as exc:  # noqa: BLE001 - any damage: the file is refused, saying which entry
            raise ModelFileError(f"its entry {key!r} cannot be read ({type(exc).__name__}: {exc})") from None
    return entry


def load_zip(data: bytes):
    """(algorithm name, policy, masked) of a ``model.save()`` zip, read without running its code."""
    import torch

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        try:
            saved = json.loads(archive.read("data"))
        except ValueError:
            raise ModelFileError("its 'data' entry is not JSON") from None
        weights = torch.load(io.BytesIO(archive.read("policy.pth")), map_location="cpu", weights_only=True)
    cls = _class("policy", _unpickle_entry(saved.get("policy_class"), "policy_class"), "policy_class")
    observation_space = _space(_unpickle_entry(saved.get("observation_space"), "observation_space"),
                               "observation_space")
    action_space = _space(_unpickle_entry(saved.get("action_space"), "action_space"), "action_space")
    kwargs = _kwargs(_unpickle_entry(saved.get("policy_kwargs") or {}, "policy_kwargs"))
    from stable_baselines3.dqn.policies import DQNPolicy

    if not issubclass(cls, DQNPolicy) and not cls.__module__.startswith("sb3_contrib"):  # PPO's, A2C's
        kwargs.setdefault("use_sde", bool(saved.get("use_sde", False)))
    policy = _build(cls, observation_space, action_space, kwargs, weights)
    name = cls.__module__
    if name.startswith("sb3_contrib"):
        algorithm = "MaskablePPO"
    elif issubclass(cls, DQNPolicy):
        algorithm = "DQN"
    else:  # PPO and A2C save the same policy (A2C's zip has no clip_range)
        algorithm = "PPO" if "clip_range" in saved else "A2C"
    return algorithm, policy, algorithm == "MaskablePPO"


def load_policy_file(data: bytes):
    """(policy class name, policy, masked) of a ``policy.save()`` file, read without running its code."""
    import torch

    try:
        saved = torch.load(io.BytesIO(data), map_location="cpu", weights_only=False, pickle_module=_OpaquePickle)
    except ModelFileError:
        raise
    except Exception as exc:  # noqa: BLE001 - not a torch file, or a damaged one
        raise ModelFileError(f"it is neither a model.save() zip nor a policy.save() file of Stable-Baselines3 "
                             f"({type(exc).__name__})") from None
    if not isinstance(saved, dict) or "state_dict" not in saved or not isinstance(saved.get("data"), dict):
        raise ModelFileError("it is neither a model.save() zip nor a policy.save() file of Stable-Baselines3")
    state_dict = saved["state_dict"]
    if not isinstance(state_dict, dict) or not all(isinstance(v, torch.Tensor) for v in state_dict.values()):
        raise ModelFileError("its state_dict holds something else than tensors")
    fields = saved["data"]
    cls = _policy_class_of(state_dict)
    observation_space = _space(fields.get("observation_space"), "observation_space")
    action_space = _space(fields.get("action_space"), "action_space")
    policy = _build(cls, observation_space, action_space, _kwargs(fields), state_dict)
    return cls.__name__, policy, cls.__name__ == "MaskableActorCriticPolicy"


def load_model(data: bytes):
    """(algorithm name, SB3 policy, masked) of a model file's bytes: a zip or a policy saved alone."""
    if is_sb3_zip(data):
        return load_zip(data)
    return load_policy_file(data)
