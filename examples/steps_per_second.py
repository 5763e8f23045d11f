"""Env steps per second from Python, one env and the batched vector env, with the first allowed
choice of every action dimension: the same actions `schedlab bench steps` takes natively, so the
two figures side by side show what crossing into Python costs. Needs only the package (no torch).

    python examples/steps_per_second.py --workload data/workloads/philly-mini.toml
    schedlab bench steps --workload data/workloads/philly-mini.toml
"""

import argparse
import time

import numpy as np

import schedlab
from schedlab.masks import mask_offsets


def first_allowed(mask, nvec):
    """The lowest allowed level of every dimension of a flat mask, or of each row of a batch."""
    offsets = mask_offsets(nvec)
    positions = np.where(mask, np.arange(mask.shape[-1]), mask.shape[-1])
    return np.minimum.reduceat(positions, offsets, axis=-1) - offsets


def single_env_rate(workload, seconds):
    env = schedlab.SchedlabEnv(kind=None, workload=workload)
    steps, episodes = 0, 0
    env.reset(seed=0)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, terminated, truncated, _ = env.step(first_allowed(env.action_masks(), env.nvec))
        steps += 1
        if terminated or truncated:
            episodes += 1
            env.reset(seed=episodes)
    return steps / (time.perf_counter() - start), episodes


def vector_env_rate(workload, copies, seconds):
    envs = schedlab.SchedlabVectorEnv(workload, copies)
    _, info = envs.reset(seed=0)
    mask, steps = info["action_mask"], 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, info = envs.step(first_allowed(mask, envs.single_action_space.nvec))
        mask = info["action_mask"]
        steps += copies
    return steps / (time.perf_counter() - start)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workload", required=True)
    p.add_argument("--copies", type=int, default=8)
    p.add_argument("--seconds", type=float, default=5.0)
    args = p.parse_args()
    single, episodes = single_env_rate(args.workload, args.seconds)
    print(f"single env: {single:.0f} steps/s ({episodes} episodes ended)")
    print(f"vector env ({args.copies} copies): {vector_env_rate(args.workload, args.copies, args.seconds):.0f} steps/s")


if __name__ == "__main__":
    main()
