"""sb3-contrib's MaskablePPO on a schedlab jobs workload, evaluated against the heuristics.

Needs sb3-contrib (and torch). Run from the repository root after `pip install .`:

    SCHEDLAB_BIN=target/release/schedlab python examples/maskable_ppo_sb3.py --total-steps 100000

The env gives MaskablePPO its masks through `action_masks()` (flat, per dimension, the layout
sb3-contrib expects for MultiDiscrete and Discrete). As in ppo_masked_cleanrl.py, the jobs env
defaults to the one-choice interface with at most 4 actions per decision interval (`--set`
replaces these). After training, the deterministic policy plays the evaluation seeds and its
mean JCT is printed beside `schedlab run`'s heuristics with the same overrides and seeds.
"""

import argparse

import gymnasium
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

import schedlab  # noqa: F401  (registers the ids)
from heuristics import add_comparison_args, overrides_of, play, print_comparison


def main():
    p = argparse.ArgumentParser()
    add_comparison_args(p)
    p.add_argument("--total-steps", type=int, default=100_000)
    args = p.parse_args()
    overrides = overrides_of(args)
    env = gymnasium.make("schedlab/Jobs-v1", workload=args.workload, overrides=overrides)
    env = ActionMasker(env, lambda e: e.unwrapped.action_masks())
    model = MaskablePPO("MlpPolicy", env, n_steps=2048, batch_size=256, gamma=0.999, seed=args.seed,
                        tensorboard_log="runs/sb3", verbose=0)
    model.learn(total_timesteps=args.total_steps, progress_bar=False)

    def deterministic(obs, mask):
        return model.predict(obs, action_masks=mask, deterministic=True)[0]

    learned = [play(env, deterministic, seed) for seed in args.eval_seeds]
    print_comparison("MaskablePPO", learned, args.workload, overrides, args.eval_seeds)


if __name__ == "__main__":
    main()
