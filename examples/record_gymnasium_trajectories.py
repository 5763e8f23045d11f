"""Records CartPole-v1 and Acrobot-v1 trajectories from Gymnasium, for the step-by-step test of
schedlab's classic-control dynamics (env/src/control/tests.rs).

Each episode: Gymnasium's own reset on a seed, its start state (the unwrapped env's `state`),
then actions drawn from a seeded NumPy generator, with every observation, reward and flag.
Rust starts from the recorded state (its reset draws from its own generator) and must match.

    python -m venv /tmp/gym && /tmp/gym/bin/pip install gymnasium==1.2.2
    /tmp/gym/bin/python examples/record_gymnasium_trajectories.py data/fixtures/gymnasium-classic-control.json
"""

import json
import sys

import gymnasium
import numpy as np

STEPS = 120
SEEDS = (0, 1, 2)


def episode(env_id, seed):
    env = gymnasium.make(env_id)
    observation, _ = env.reset(seed=seed)
    start = [float(v) for v in env.unwrapped.state]
    actions = np.random.default_rng(seed).integers(env.action_space.n, size=STEPS)
    steps = []
    for action in actions:
        observation, reward, terminated, truncated, _ = env.step(int(action))
        steps.append(
            {
                "action": int(action),
                "observation": [float(v) for v in observation],
                "reward": float(reward),
                "terminated": bool(terminated),
                "truncated": bool(truncated),
            }
        )
        if terminated or truncated:
            break
    return {"env": env_id, "seed": seed, "start": start, "steps": steps}


def main(out):
    episodes = [episode(env_id, seed) for env_id in ("CartPole-v1", "Acrobot-v1") for seed in SEEDS]
    record = {"gymnasium": gymnasium.__version__, "numpy": np.__version__, "episodes": episodes}
    with open(out, "w") as f:
        json.dump(record, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
