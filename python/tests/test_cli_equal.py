"""The same seed and actions give the same rewards and metrics as `schedlab run`."""

import csv
import json
import subprocess

import numpy as np
import pytest

import schedlab
from conftest import REPO

CASES = [
    ("small-4node.toml", "static"),
    ("small-4node.toml", "random"),
    ("philly-mini.toml", "random"),
    ("dag-layered.toml", "random"),
    ("network-diabetes-ridge.toml", "consensus"),
]


@pytest.mark.parametrize("name,policy", CASES)
def test_seeded_episodes_equal_the_cli(tmp_path, schedlab_cli, name, policy):
    workload = REPO / "data/workloads" / name
    out = {k: tmp_path / f"{k}.json" for k in ("metrics", "actions")}
    subprocess.run(
        [schedlab_cli, "run", "--workload", str(workload), "--policy", policy, "--seed", "7", "--episodes", "2",
         "--json", str(out["metrics"]), "--actions-json", str(out["actions"]),
         "--rounds-csv", str(tmp_path / "steps.csv")],
        check=True, capture_output=True,
    )
    cli_metrics = json.loads(out["metrics"].read_text())["episodes"]
    recorded = json.loads(out["actions"].read_text())
    with open(tmp_path / "steps.csv") as f:
        steps = list(csv.DictReader(f))
    env = schedlab.SchedlabEnv(workload)
    for seed, actions, expected in zip(recorded["seeds"], recorded["actions"], cli_metrics):
        env.reset(seed=seed)
        rewards = []
        for action in actions:
            _, reward, terminated, truncated, info = env.step(action)
            rewards.append(reward)
        assert terminated or truncated
        assert info["metrics"] == expected
        cli_rewards = [float(r["reward"]) for r in steps if int(r["seed"]) == seed]
        assert np.allclose(rewards, cli_rewards, rtol=1e-6, atol=1e-9), (rewards[:5], cli_rewards[:5])
