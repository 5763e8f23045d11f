"""A trained policy played on a workload it does not fit is refused by the command line before
its weights load, in the project's words. The binding serves envs and loads no policies; a Python
user plays shipped policies through `schedlab eval`, and this is what they read."""

import subprocess

import pytest

from conftest import REPO

CASES = [
    ("philly-es", "dag-layered.toml", [], ["trained on a jobs workload", "this is a dag workload"]),
    ("dag-ppo", "network-diabetes-ridge.toml", [], ["trained on a dag workload", "this is a network workload"]),
    ("philly-es", "small-4node.toml", [], ["trained on a jobs workload", "this is a single-job workload"]),
    ("dag-ddqn", "dag-alibaba.toml", [], ["actions of 16 levels", "GPUs = 18"]),
    ("dag-ddqn", "dag-layered.toml", ["ready_tasks=2"], ["ready_tasks = 2"]),
    ("philly-es", "philly-mini.toml", ["window.interface=per-slot"],
     ["window.interface is one-choice in training and per-slot here"]),
]


@pytest.mark.parametrize("policy,workload,settings,said", CASES)
def test_a_policy_that_does_not_fit_is_refused_by_name(schedlab_cli, policy, workload, settings, said):
    args = [schedlab_cli, "eval", "--policy", policy, "--workload", str(REPO / "data/workloads" / workload),
            "--seeds", "0"]
    for kv in settings:
        args += ["--set", kv]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    for text in said + [policy]:
        assert text in done.stderr, done.stderr
    assert "shape mismatch" not in done.stderr and "panicked" not in done.stderr
