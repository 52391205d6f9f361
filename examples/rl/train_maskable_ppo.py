"""Train sb3-contrib's MaskablePPO on fastsnake/Snake-v0 through `fastsnake.envs.sb3.SnakeVecEnv`.

    python examples/rl/train_maskable_ppo.py --size 6 --obs planes --cpu-minutes 20 --out runs/ppo6
    python examples/rl/train_maskable_ppo.py --size 6,8 --obs egocentric --view 11 --cpu-minutes 5 --out runs/ego
    python examples/rl/train_maskable_ppo.py --size 6 --obs egocentric --view 7 --relative --out runs/turns

--relative (with --obs egocentric) trains on turns of the heading: 3 actions (0 left, 1 ahead, 2 right)
and the window turned so the heading points up (``SnakeVecEnv(relative=True)``); ``model:PATH``
plays such a model too.

Several sizes (``--size 6,8``, for ``egocentric`` and ``features``, whose observations have one shape on
every board) train one agent on all of them at once: --envs games of each size, stepped side by side.

Writes into --out: ``log.csv`` (one row per rollout: steps, wall and CPU seconds, episodes and
their mean apples, moves and reward over the last 100), ``model.zip`` (a checkpoint every
--checkpoint-every steps and at the end, each written whole; --resume continues it),
``policy.pt`` (the policy alone, at the end) and ``run.json`` (the arguments).
Progress goes to stderr. Ctrl-C (or SIGTERM) stops at the next step and saves what was learnt.
The model plays as the policy ``model:OUT/policy.pt`` (``fastsnake compare --policies cycle,model:...``).

Needs the rl-train extra and a CPU torch: pip install torch==2.13.0 'fastsnake[rl-train]'.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from fastsnake.envs.sb3 import SnakeVecEnv, policy_kwargs

LOG_FIELDS = ("steps", "seconds", "cpu_seconds", "episodes", "mean_apples", "mean_moves", "mean_reward",
              "steps_per_second")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="6",
                   help="board, N or RxC (default 6); several, comma-separated, with --obs egocentric or features")
    p.add_argument("--obs", default="planes", choices=("grid", "planes", "features", "egocentric"))
    p.add_argument("--view", type=int, default=None, help="--obs egocentric: the window's side, odd (default 11)")
    p.add_argument("--relative", action="store_true",
                   help="--obs egocentric: actions are turns of the heading (left, ahead, right), the window "
                        "turned to it")
    p.add_argument("--policy", default="mlp", choices=("mlp", "cnn"), help="MlpPolicy, or CnnPolicy with BoardCNN")
    p.add_argument("--envs", type=int, default=32, help="games stepped together, of each size (default 32)")
    p.add_argument("--steps", type=int, default=10_000_000, help="stop after this many env steps")
    p.add_argument("--cpu-minutes", type=float, default=None, help="stop after this much CPU time of this process")
    p.add_argument("--seed", type=int, default=0, help="base seed of the training games and the network")
    p.add_argument("--n-steps", type=int, default=128, help="rollout length per env (default 128)")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--net", default="128,128", help="hidden layers of the MLP heads (default 128,128)")
    p.add_argument("--torch-threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--checkpoint-every", type=int, default=200_000, help="env steps between checkpoints")
    p.add_argument("--resume", action="store_true", help="continue from --out/model.zip")
    p.add_argument("--out", type=Path, required=True, help="folder for log.csv, model.zip, run.json")
    args = p.parse_args(argv)
    if args.envs < 1 or args.steps < 1 or args.n_steps < 1:
        p.error("--envs, --steps and --n-steps must be at least 1")
    args.sizes = [x.strip() for x in args.size.split(",") if x.strip()]
    if not args.sizes:
        p.error("--size needs at least one board size")
    if len(args.sizes) > 1 and args.obs not in ("egocentric", "features"):
        p.error(f"--size {args.size}: several sizes need --obs egocentric or features "
                f"(--obs {args.obs} has the board's shape)")
    if args.view is not None and args.obs != "egocentric":
        p.error("--view is only for --obs egocentric")
    if args.relative and args.obs != "egocentric":
        p.error(f"--relative is only for --obs egocentric (--obs {args.obs} is not turned to the heading)")
    try:
        args.net_arch = [int(x) for x in args.net.split(",") if x.strip()]
    except ValueError:
        p.error(f"--net {args.net!r} is not a comma-separated list of widths")
    return args


def save_whole(model, path: Path) -> None:
    """Write the checkpoint beside its place, then rename: a reader sees the old file or the new one."""
    tmp = path.with_name(path.stem + ".partial.zip")
    model.save(tmp)
    os.replace(tmp, path)


class SizesVecEnv(VecEnv):
    """Several `SnakeVecEnv`s (one per board size, observations of one shape) as one SB3 `VecEnv`:
    env i of the whole is env i - offset of its part, and seed(S) seeds it with S + i, as one
    `SnakeVecEnv` would."""

    def __init__(self, parts):
        self.parts = parts
        self.bounds = np.cumsum([0] + [part.num_envs for part in parts])
        super().__init__(int(self.bounds[-1]), parts[0].observation_space, parts[0].action_space)

    def _spans(self):
        return zip(self.parts, self.bounds[:-1], self.bounds[1:], strict=True)

    def seed(self, seed=None):
        return [s for part, start, _ in self._spans()
                for s in part.seed(None if seed is None else seed + int(start))]

    def reset(self):
        return np.concatenate([part.reset() for part in self.parts])

    def step_async(self, actions):
        for part, start, end in self._spans():
            part.step_async(actions[start:end])

    def step_wait(self):
        done = [part.step_wait() for part in self.parts]
        return (np.concatenate([d[0] for d in done]), np.concatenate([d[1] for d in done]),
                np.concatenate([d[2] for d in done]), [info for d in done for info in d[3]])

    def close(self):
        for part in self.parts:
            part.close()

    def action_masks(self):
        return np.concatenate([part.action_masks() for part in self.parts])

    def get_attr(self, attr_name, indices=None):
        every = [value for part in self.parts for value in part.get_attr(attr_name)]
        return [every[i] for i in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        for part in self.parts:
            part.set_attr(attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":  # MaskablePPO asks every step: one array
            return list(self.action_masks()[list(self._get_indices(indices))])
        every = [r for part in self.parts for r in part.env_method(method_name, *method_args, **method_kwargs)]
        return [every[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(list(self._get_indices(indices)))


def make_env(args):
    """The training VecEnv: one `SnakeVecEnv`, or a `SizesVecEnv` over one per size."""
    parts = [SnakeVecEnv(args.envs, size=size, obs=args.obs, view=args.view, relative=args.relative, threads=1)
             for size in args.sizes]
    return parts[0] if len(parts) == 1 else SizesVecEnv(parts)


class Progress(BaseCallback):
    """Log a row per rollout, print progress, checkpoint, and stop at the CPU budget or on Ctrl-C."""

    def __init__(self, out: Path, cpu_budget: float | None, checkpoint_every: int, start_steps: int):
        super().__init__()
        self.out = out
        self.cpu_budget = cpu_budget
        self.checkpoint_every = checkpoint_every
        self.last_checkpoint = start_steps
        self.t0, self.c0 = time.perf_counter(), time.process_time()
        self.s0 = start_steps
        self.stop = False
        self.log = None

    def _on_training_start(self):
        new = not (self.out / "log.csv").exists()
        self.wall_before = self.cpu_before = 0.0
        if not new:  # a resumed run: its clocks go on from the log's last row
            with open(self.out / "log.csv", newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh))
            if rows:
                self.wall_before, self.cpu_before = float(rows[-1]["seconds"]), float(rows[-1]["cpu_seconds"])
        self.log = open(self.out / "log.csv", "a", newline="", encoding="utf-8")
        self.writer = csv.DictWriter(self.log, LOG_FIELDS)
        if new:
            self.writer.writeheader()

    def _on_step(self) -> bool:
        if self.cpu_budget is not None and time.process_time() - self.c0 >= self.cpu_budget:
            self.stop = True
        return not self.stop

    def _on_rollout_end(self):
        episodes = list(self.model.ep_info_buffer)
        apples = [e["apples"] for e in episodes if "apples" in e]
        wall, cpu = time.perf_counter() - self.t0, time.process_time() - self.c0
        steps = self.num_timesteps
        row = {
            "steps": steps,
            "seconds": round(self.wall_before + wall, 2),
            "cpu_seconds": round(self.cpu_before + cpu, 2),
            "episodes": len(episodes),
            "mean_apples": round(float(np.mean(apples)), 3) if apples else "",
            "mean_moves": round(float(np.mean([e["l"] for e in episodes])), 1) if episodes else "",
            "mean_reward": round(float(np.mean([e["r"] for e in episodes])), 3) if episodes else "",
            "steps_per_second": round((steps - self.s0) / max(wall, 1e-9), 1),
        }
        self.writer.writerow(row)
        self.log.flush()
        print(f"\rsteps {steps:>10,}  {row['steps_per_second']:>8,.0f}/s  cpu {row['cpu_seconds'] / 60:5.1f} min  "
              f"apples {row['mean_apples']}  moves {row['mean_moves']}    ", end="", file=sys.stderr, flush=True)
        if steps - self.last_checkpoint >= self.checkpoint_every:
            save_whole(self.model, self.out / "model.zip")
            self.last_checkpoint = steps

    def _on_training_end(self):
        if self.log is not None:
            self.log.close()
        print(file=sys.stderr)


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.torch_threads)
    args.out.mkdir(parents=True, exist_ok=True)
    env = make_env(args)
    env.seed(args.seed)
    # The episode's apples reach VecMonitor's records through the infos of its last step.
    env = VecMonitor(env, info_keywords=("apples",))
    checkpoint = args.out / "model.zip"
    if args.resume and checkpoint.exists():
        # custom_objects: a checkpoint saved when "planes" declared Box(0, 255) goes on with today's Box(0, 1).
        model = MaskablePPO.load(checkpoint, env=env, device="cpu",
                                 custom_objects={"observation_space": env.observation_space})
        done_steps = model.num_timesteps
    else:
        kwargs = policy_kwargs(args.obs, cnn=args.policy == "cnn", net_arch=args.net_arch)
        model = MaskablePPO("CnnPolicy" if args.policy == "cnn" else "MlpPolicy", env, n_steps=args.n_steps,
                            batch_size=args.batch_size, n_epochs=args.epochs, learning_rate=args.lr,
                            gamma=args.gamma, ent_coef=args.ent_coef, policy_kwargs=kwargs, seed=args.seed,
                            device="cpu", verbose=0)
        done_steps = 0
    record = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    (args.out / "run.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    progress = Progress(args.out, None if args.cpu_minutes is None else args.cpu_minutes * 60,
                        args.checkpoint_every, done_steps)

    def stop(signum, frame):
        progress.stop = True  # the callback ends learn() at the next env step; then the model is saved

    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        model.learn(max(args.steps - done_steps, 1), callback=progress, reset_num_timesteps=not args.resume)
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    if progress.stop:
        print("stopped: saving what was learnt", file=sys.stderr)
    save_whole(model, checkpoint)
    # The policy alone (no optimizer state, about a third of the size): what compare_agent.py needs.
    model.policy.save(args.out / "policy.partial.pt")
    os.replace(args.out / "policy.partial.pt", args.out / "policy.pt")
    print(f"{model.num_timesteps:,} steps; model in {checkpoint}, policy in {args.out / 'policy.pt'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
