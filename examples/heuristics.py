"""What the examples compare a trained policy with: `schedlab run`'s heuristics on the same
workload, overrides and seeds (the `schedlab` binary named by $SCHEDLAB_BIN, or on PATH), the
command-line options the examples share, and the table they print."""

import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

KEYS = ("jct_avg_s", "jct_p95_s", "finished", "unfinished")

# The one-choice interface and at most 4 actions per decision interval, so that an untrained
# policy's episodes end within thousands of steps.
DEFAULT_SETS = ["window.interface=one-choice", "episode.max_steps_per_decision=4"]


def add_comparison_args(parser):
    """--workload, --seed, --set (workload overrides, default DEFAULT_SETS) and --eval-seeds."""
    parser.add_argument("--workload", default="data/workloads/philly-mini.toml")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", help="workload override (repeatable)")
    parser.add_argument("--eval-seeds", type=int, nargs="+", default=[100, 101, 102])


def overrides_of(args):
    """The env's overrides from --set, or DEFAULT_SETS without any."""
    return parse_overrides(args.set or DEFAULT_SETS)


def parse_overrides(pairs):
    """`["section.key=value", ...]` as the env's overrides dict."""
    overrides = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--set takes KEY=VALUE, got {pair!r}")
        overrides[key] = value
    return overrides


def play(env, choose, seed):
    """One episode of `choose(obs, mask) -> action` on `env`; its metrics."""
    obs, info = env.reset(seed=seed)
    while True:
        obs, _, terminated, truncated, info = env.step(choose(obs, info["action_mask"]))
        if terminated or truncated:
            return info["metrics"]


def heuristic_metrics(workload, overrides, policy, seed):
    """`schedlab run`'s episode metrics for `policy`, or None without the binary."""
    binary = shutil.which(os.environ.get("SCHEDLAB_BIN", "schedlab"))
    if binary is None:
        return None
    sets = [arg for key, value in overrides.items() for arg in ("--set", f"{key}={value}")]
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([binary, "run", "--workload", workload, "--policy", policy, "--seed", str(seed),
                        "--json", out.name, *sets], check=True, capture_output=True)
        return json.load(open(out.name))["episodes"][0]


def print_comparison(name, learned, workload, overrides, seeds, policies=("fifo", "las", "raes")):
    """Mean metrics over `seeds` of the learned policy (its per-seed metrics) and each heuristic."""
    rows = {name: learned}
    for policy in policies:
        runs = [heuristic_metrics(workload, overrides, policy, seed) for seed in seeds]
        if None in runs:
            print("(no schedlab binary: set SCHEDLAB_BIN or put it on PATH; no heuristic rows)")
            break
        rows[policy] = runs
    print(f"{'policy':<14}" + "".join(f"{k:>14}" for k in KEYS) + f"   seeds {list(seeds)}")
    for label, runs in rows.items():
        print(f"{label:<14}" + "".join(f"{np.mean([r[k] for r in runs]):>14.1f}" for k in KEYS))
