"""Records the reference learning curves that `schedlab reproduce learners` plots beside the
Rust learners': Stable-Baselines3's PPO and DQN, unmodified, at CleanRL's settings (ppo.py and
dqn.py), and its A2C at its defaults, on CartPole-v1 and Acrobot-v1, 500k env steps, one thread.

CleanRL's own scripts are recorded beside these by examples/record_cleanrl_reference.py; SB3's
PPO is a second reference and its A2C the only one. Where SB3 cannot express a CleanRL setting
it keeps its own (the comments in `model` below).

    python -m venv /opt/refvenv && /opt/refvenv/bin/pip install torch gymnasium==1.2.2 \
        stable-baselines3==2.9.2
    /opt/refvenv/bin/python examples/record_sb3_reference.py data/reference ppo cartpole 0 1 2 3 4

Each run appends to OUT/sb3-curves.csv (algo, task, seed, step, mean_return, episodes: the
mean return of the training episodes that ended in each 10k-step bin) and OUT/sb3-runs.csv
(the greedy return over 20 episodes at the end, the env steps per second of the whole run,
updates included, and the versions). A run already in sb3-runs.csv is skipped, so the
script resumes where it was stopped.
"""

import os
import sys
import time

import gymnasium
import stable_baselines3
import torch
from stable_baselines3 import A2C, DQN, PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

from reference_runs import (CURVE_HEADER, append, curve_rows, done_runs,
                            greedy_return)

STEPS = 500_000
BIN = 10_000
TASKS = {"cartpole": "CartPole-v1", "acrobot": "Acrobot-v1"}


def linear(start):
    return lambda remaining: start * remaining


def model(algo, env, seed):
    if algo == "ppo":
        # ppo.py: 4 envs x 128 steps, 4 minibatches, 4 epochs, lr 2.5e-4 annealed, clip 0.2
        # (SB3 clips the value prediction, CleanRL takes the larger of both losses), tanh 64x64
        return PPO(
            "MlpPolicy", env, n_steps=128, batch_size=128, n_epochs=4,
            learning_rate=linear(2.5e-4), gamma=0.99, gae_lambda=0.95, clip_range=0.2,
            clip_range_vf=0.2, ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5,
            policy_kwargs=dict(net_arch=dict(pi=[64, 64], vf=[64, 64]),
                               activation_fn=torch.nn.Tanh),
            seed=seed, device="cpu")
    if algo == "dqn":
        # (SB3 2.9.2's DQN with torch 2.15 did not learn CartPole here, at these settings or
        # rl-zoo's, so its runs are not kept as a reference: docs/learned.md)
        # dqn.py: 1 env, replay 10k, batch 128, learning starts 10k, a gradient step every 10,
        # target copied every 500, epsilon 1 -> 0.05 over half the run, ReLU 120x84; SB3 keeps
        # its Huber loss and double-free target, and clips no gradient here as dqn.py
        return DQN(
            "MlpPolicy", env, learning_rate=2.5e-4, buffer_size=10_000,
            learning_starts=10_000, batch_size=128, tau=1.0, gamma=0.99, train_freq=10,
            gradient_steps=1, target_update_interval=500, exploration_fraction=0.5,
            exploration_initial_eps=1.0, exploration_final_eps=0.05, max_grad_norm=1e9,
            policy_kwargs=dict(net_arch=[120, 84]), seed=seed, device="cpu")
    if algo == "a2c":
        # SB3's A2C defaults: RMSprop (alpha 0.99, eps 1e-5), 5 steps, lr 7e-4 constant,
        # lambda 1, entropy 0, value 0.5, grad norm 0.5, no advantage normalisation, tanh 64x64
        return A2C("MlpPolicy", env, seed=seed, device="cpu")
    raise SystemExit(f"unknown algo {algo!r}: ppo, dqn or a2c")


class Curve(BaseCallback):
    """Training episodes' returns, by the env step at which each ended."""

    def __init__(self):
        super().__init__()
        self.episodes = []

    def _on_step(self):
        for info in self.locals["infos"]:
            if "episode" in info:
                self.episodes.append((self.num_timesteps, info["episode"]["r"]))
        return True


def main(out, algo, task, seeds):
    torch.set_num_threads(1)
    os.makedirs(out, exist_ok=True)
    runs = os.path.join(out, "sb3-runs.csv")
    for seed in seeds:
        if (algo, task, str(seed)) in done_runs(runs):
            continue
        envs = 1 if algo == "dqn" else 4
        env = make_vec_env(TASKS[task], n_envs=envs, seed=seed)
        agent = model(algo, env, seed)
        curve = Curve()
        start = time.perf_counter()
        agent.learn(total_timesteps=STEPS, callback=curve)
        wall = time.perf_counter() - start
        append(os.path.join(out, "sb3-curves.csv"), CURVE_HEADER,
               curve_rows(algo, task, seed, curve.episodes, STEPS, BIN))
        greedy = greedy_return(
            lambda o: int(agent.predict(o, deterministic=True)[0]), TASKS[task])
        append(runs,
               ["algo", "task", "seed", "greedy_return", "env_steps_per_s", "wall_s",
                "sb3", "torch", "gymnasium"],
               [[algo, task, seed, round(greedy, 2),
                 round(STEPS / wall, 1), round(wall, 1), stable_baselines3.__version__,
                 torch.__version__, gymnasium.__version__]])
        print(f"{algo} {task} seed {seed}: {wall:.0f} s", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4:]])
