"""sb3-contrib's MaskablePPO on a schedlab jobs workload, evaluated against the heuristics.

Needs sb3-contrib (and torch). Run from the repository root after `pip install .`:

    python examples/maskable_ppo_sb3.py --workload data/workloads/philly-mini.toml --total-steps 20000

The env gives MaskablePPO its masks through `action_masks()` (flat, per dimension, the layout
sb3-contrib expects for MultiDiscrete). After training, one seeded episode is played with the
deterministic policy and its metrics printed beside `schedlab run`'s for fifo and las on the
same seed, when the `schedlab` binary is on PATH.
"""

import argparse
import json
import shutil
import subprocess
import tempfile

import gymnasium
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

import schedlab  # noqa: F401  (registers the ids)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workload", default="data/workloads/philly-mini.toml")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--total-steps", type=int, default=20_000)
    p.add_argument("--eval-seed", type=int, default=100)
    args = p.parse_args()
    env = gymnasium.make("schedlab/Jobs-v0", workload=args.workload)
    env = ActionMasker(env, lambda e: e.unwrapped.action_masks())
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, gamma=0.999, seed=args.seed,
                        tensorboard_log="runs/sb3", verbose=0)
    model.learn(total_timesteps=args.total_steps)
    obs, _ = env.reset(seed=args.eval_seed)
    while True:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    keys = ("jct_avg_s", "jct_p95_s", "finished", "unfinished", "makespan_s")
    print("MaskablePPO", {k: info["metrics"].get(k) for k in keys})
    if shutil.which("schedlab"):
        for policy in ("fifo", "las"):
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                subprocess.run(["schedlab", "run", "--workload", args.workload, "--policy", policy,
                                "--seed", str(args.eval_seed), "--json", out.name], check=True, capture_output=True)
                metrics = json.load(open(out.name))["episodes"][0]
            print(policy, {k: metrics.get(k) for k in keys})


if __name__ == "__main__":
    main()
