"""CleanRL-style single-file PPO with action masks on a schedlab jobs workload.

Needs torch and tensorboard (not installed by the package: torch is large). Run from the
repository root after `pip install .`:

    SCHEDLAB_BIN=target/release/schedlab python examples/ppo_masked_cleanrl.py --total-steps 200000

By default the jobs env uses the one-choice interface (one Discrete action per step) and at most
4 actions per decision interval, so that an untrained policy's episodes end within thousands of
steps; `--set` replaces these. Curves go to runs/cleanrl/<workload>__<seed> (TensorBoard). After
training, the greedy policy plays the evaluation seeds and its mean JCT is printed beside
`schedlab run`'s heuristics with the same overrides and seeds. The policy is one logit vector per
action dimension from a shared MLP; masked choices get -1e8 before the softmax, so the agent only
ever samples allowed choices (the env raises on a masked one).
"""

import argparse
import pathlib
import time

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical
from torch.utils.tensorboard import SummaryWriter

import schedlab
from heuristics import add_comparison_args, overrides_of, play, print_comparison


def layer(i, o, std=np.sqrt(2)):
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.zeros_(lin.bias)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_dim, nvec):
        super().__init__()
        self.nvec = [int(n) for n in nvec]
        self.critic = nn.Sequential(layer(obs_dim, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, 1, 1.0))
        self.actor = nn.Sequential(
            layer(obs_dim, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, sum(self.nvec), 0.01)
        )

    def value(self, obs):
        return self.critic(obs).squeeze(-1)

    def logits(self, obs, mask):
        """One logit vector per action dimension; masked choices at -1e8."""
        return torch.split(self.actor(obs).masked_fill(~mask, -1e8), self.nvec, dim=-1)

    def act(self, obs, mask, action=None):
        dists = [Categorical(logits=l) for l in self.logits(obs, mask)]
        if action is None:
            action = torch.stack([d.sample() for d in dists], dim=-1)
        logp = torch.stack([d.log_prob(a) for d, a in zip(dists, action.unbind(-1))], -1).sum(-1)
        entropy = torch.stack([d.entropy() for d in dists], -1).sum(-1)
        return action, logp, entropy, self.value(obs)


def main():
    p = argparse.ArgumentParser()
    add_comparison_args(p)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=256)
    p.add_argument("--total-steps", type=int, default=20_000)
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.999)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    args = p.parse_args()
    overrides = overrides_of(args)
    torch.manual_seed(args.seed)
    envs = schedlab.SchedlabVectorEnv(args.workload, num_envs=args.num_envs, overrides=overrides, seed=args.seed)
    name = pathlib.Path(args.workload).stem
    writer = SummaryWriter(f"runs/cleanrl/{name}__{args.seed}")
    obs_dim = envs.single_observation_space.shape[0]
    agent = Agent(obs_dim, envs.single_action_space.nvec)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    n, t = args.num_envs, args.num_steps
    obs_np, _ = envs.reset()
    obs, mask = torch.tensor(obs_np), torch.tensor(envs.action_masks())
    buf = {k: [] for k in ("obs", "mask", "action", "logp", "reward", "done", "value")}
    step, start, returns = 0, time.time(), np.zeros(n)
    while step < args.total_steps:
        for k in buf:
            buf[k].clear()
        for _ in range(t):
            with torch.no_grad():
                action, logp, _, value = agent.act(obs, mask)
            obs_np, reward, term, trunc, infos = envs.step(action.numpy())
            done = term | trunc
            returns += reward
            for i in np.flatnonzero(done):
                metrics = infos["final_info"][i]["metrics"]
                writer.add_scalar("charts/episodic_return", returns[i], step)
                for key in ("jct_avg_s", "finished", "unfinished"):
                    if key in metrics:
                        writer.add_scalar(f"charts/{key}", metrics[key], step)
                print(f"step {step}: episode return {returns[i]:.2f}, {({k: metrics.get(k) for k in ('jct_avg_s', 'finished')})}")
                returns[i] = 0
            for k, v in zip(buf, (obs, mask, action, logp, torch.tensor(reward, dtype=torch.float32),
                                  torch.tensor(done, dtype=torch.float32), value)):
                buf[k].append(v)
            obs, mask = torch.tensor(obs_np), torch.tensor(envs.action_masks())
            step += n
        b = {k: torch.stack(v) for k, v in buf.items()}
        with torch.no_grad():
            next_value = agent.value(obs)
        adv = torch.zeros(t, n)
        last = torch.zeros(n)
        for k in reversed(range(t)):
            nv = next_value if k == t - 1 else b["value"][k + 1]
            nonterminal = 1.0 - b["done"][k]
            delta = b["reward"][k] + args.gamma * nv * nonterminal - b["value"][k]
            last = delta + args.gamma * args.gae_lambda * nonterminal * last
            adv[k] = last
        ret = adv + b["value"]
        flat = {k: v.reshape(t * n, *v.shape[2:]) for k, v in b.items()}
        flat_adv, flat_ret = adv.reshape(-1), ret.reshape(-1)
        size = t * n // args.minibatches
        for _ in range(args.epochs):
            order = torch.randperm(t * n)
            for s in range(0, t * n, size):
                idx = order[s : s + size]
                _, logp, entropy, value = agent.act(flat["obs"][idx], flat["mask"][idx], flat["action"][idx])
                ratio = (logp - flat["logp"][idx]).exp()
                a = flat_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * (value - flat_ret[idx]).pow(2).mean()
                loss = pg + 0.5 * v_loss - args.ent_coef * entropy.mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        writer.add_scalar("losses/policy", pg.item(), step)
        writer.add_scalar("losses/value", v_loss.item(), step)
        writer.add_scalar("charts/steps_per_second", step / (time.time() - start), step)
    print(f"{step} steps in {time.time() - start:.0f} s")
    env = schedlab.SchedlabEnv(args.workload, overrides=overrides)

    def greedy(obs_np, mask_np):
        with torch.no_grad():
            logits = agent.logits(torch.tensor(obs_np), torch.tensor(mask_np))
        return np.array([int(l.argmax()) for l in logits])

    learned = [play(env, greedy, seed) for seed in args.eval_seeds]
    print_comparison("ppo (greedy)", learned, args.workload, overrides, args.eval_seeds)


if __name__ == "__main__":
    main()
