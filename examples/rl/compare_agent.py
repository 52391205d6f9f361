"""A trained MaskablePPO agent beside the guaranteed policies, on the same seeded games, in one table.

    python examples/rl/compare_agent.py examples/rl/ppo6x6/policy.pt --size 6 --obs planes --games 1000 \\
        --plot examples/rl/ppo6x6/log.csv docs/img/ppo6x6-learning.png

The agent plays through `fastsnake.compare` as a plain-Python policy (`fastsnake.envs.agent_policy`),
so game k is game k of every other policy's sweep; one trained with ``--relative`` (3 actions, turns of
the heading) plays as the policy ``model:PATH``. Prints a Markdown table (mean moves, apples, won
and died %, games per CPU-second); ``--json`` prints the compare rows instead. ``--plot LOG PNG`` draws
the learning curve of a train_maskable_ppo.py log. ``model.zip`` or the exported ``policy.pt`` both load.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import torch

import fastsnake
from fastsnake.envs import agent_policy
from fastsnake.envs.sb3 import model_agent

AGENT = "maskable-ppo"


def load(path: Path):
    """The policy of a MaskablePPO checkpoint (model.zip) or of an exported policy.pt."""
    if path.suffix == ".zip":
        from sb3_contrib import MaskablePPO

        return MaskablePPO.load(path, device="cpu").policy
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy.load(path, device="cpu")


def table_markdown(table) -> str:
    lines = ["| policy | games | mean moves | mean apples | won % | died % | games / CPU-s |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for row in table.to_pylist():
        games = row["games"]
        lost = row["deaths"]
        lines.append(f"| {row['policy']} | {games:,} | {row['moves_mean']:,.1f} | {row['apples_mean']:.2f} | "
                     f"{100 * row['wins'] / games:.1f} | {100 * lost / games:.1f} | "
                     f"{row['games_per_cpu_second']:,.0f} |")
    return "\n".join(lines)


def plot(log: Path, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(log, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["mean_apples"]]
    steps = [int(r["steps"]) / 1e6 for r in rows]
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
    ax.plot(steps, [float(r["mean_apples"]) for r in rows], color="tab:green", label="apples (last 100 episodes)")
    run = log.parent / "run.json"
    if run.exists():  # the apples of a won game: every cell but the start body's
        side = [int(x) for x in str(json.loads(run.read_text(encoding="utf-8"))["size"]).lower().split("x")]
        ax.axhline(side[0] * side[-1] - 3, color="tab:green", linestyle=":", linewidth=1, label="a won game")
    ax.set_xlabel("env steps (millions)")
    ax.set_ylabel("mean apples")
    right = ax.twinx()
    right.plot(steps, [float(r["mean_moves"]) for r in rows], color="tab:blue", alpha=0.6, label="moves")
    right.set_ylabel("mean moves")
    cpu = float(rows[-1]["cpu_seconds"]) / 60 if rows else 0.0
    ax.set_title(f"MaskablePPO on fastsnake/Snake-v0 ({log.parent.name}), {cpu:.1f} CPU-minutes")
    fig.legend(loc="lower right", bbox_to_anchor=(0.88, 0.18))
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    tmp = png.with_name(png.stem + ".partial.png")
    fig.savefig(tmp)
    tmp.replace(png)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path, help="model.zip or policy.pt of examples/rl/train_maskable_ppo.py")
    p.add_argument("--size", default="6")
    p.add_argument("--obs", default="planes", choices=("grid", "planes", "features", "egocentric"))
    p.add_argument("--view", type=int, default=None, help="--obs egocentric: the window's side (default 11)")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--policies", default="cycle,greedy,cell", help="the guaranteed ones to compare with")
    p.add_argument("--export", type=Path, help="also save the policy alone (policy.pt, no optimizer state)")
    p.add_argument("--plot", nargs=2, type=Path, metavar=("LOG", "PNG"), help="learning curve of a training log")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    policy = load(args.model)
    if args.export:
        policy.save(args.export)
    if getattr(policy.action_space, "n", 4) == 3:
        # Trained with --relative (turns of the heading): a policy's state has no heading (no body
        # order), so the batched model:PATH policy, which keeps the games' bodies, plays it.
        agent_name = f"model:{args.model}"
    else:
        agent = agent_policy(model_agent(policy), masked=True, obs=args.obs, view=args.view)
        fastsnake.register_policy(AGENT, fastsnake.Policy(agent, summary=f"MaskablePPO, {args.model}"),
                                  replace_existing=True)
        agent_name = AGENT
    names = [agent_name] + [n.strip() for n in args.policies.split(",") if n.strip()]
    table = fastsnake.compare(names, args.size, args.games, args.seed, progress=True)
    if args.plot:
        plot(*args.plot)
    print(json.dumps(table.to_pylist()) if args.json else table_markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
