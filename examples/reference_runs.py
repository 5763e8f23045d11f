"""What both reference recorders share (examples/record_cleanrl_reference.py and
examples/record_sb3_reference.py): the greedy return they report, and the CSV layout they
write: a curve per run, the mean return of the training episodes that ended in each bin of env
steps, and a row per run; a run already recorded is skipped."""

import csv
import os

import gymnasium
import numpy as np

CURVE_HEADER = ["algo", "task", "seed", "step", "mean_return", "episodes"]


def done_runs(path):
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {(r["algo"], r["task"], r["seed"]) for r in csv.DictReader(f)}


def append(path, header, rows):
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        writer = csv.writer(f)
        if new:
            writer.writerow(header)
        writer.writerows(rows)


def curve_rows(algo, task, seed, episodes, steps, bin_steps):
    """`episodes` (env step at its end, return) as rows of CURVE_HEADER, one per bin."""
    bins = {}
    for step, ret in episodes:
        bins.setdefault(min(step, steps - 1) // bin_steps, []).append(ret)
    return [[algo, task, seed, (b + 1) * bin_steps, round(float(np.mean(r)), 3), len(r)]
            for b, r in sorted(bins.items())]


def greedy_return(act, env_id, episodes=20):
    """The mean return of `act` (observation -> action) over Gymnasium's env on seeds
    10000.. (seeds no training run resets to)."""
    env = gymnasium.make(env_id)
    total = 0.0
    for k in range(episodes):
        observation, _ = env.reset(seed=10_000 + k)
        done = False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(act(observation))
            total += reward
            done = terminated or truncated
    return total / episodes
