"""Scoring a Python policy on a versioned benchmark suite (docs/benchmark.md).

    import schedlab.suite
    result = schedlab.suite.score(my_policy, "philly-v1")   # my_policy(observation, mask) -> action

The binding plays the suite's episodes and records the actions; the ``schedlab`` command line
(``$SCHEDLAB_BIN``) replays the actions beside the suite's reference heuristic, which the
binding does not have, and writes the result that ``schedlab suite validate`` checks.
"""

import json
import os
import subprocess
import tempfile
from pathlib import Path

from .env import SchedlabEnv
from .suite_files import SuiteFiles


def _binary(binary=None):
    path = binary or os.environ.get("SCHEDLAB_BIN")
    if not path:
        raise RuntimeError(
            "scoring needs the schedlab command line: set SCHEDLAB_BIN to its path "
            "(cargo build --release -p schedlab-experiments builds target/release/schedlab)"
        )
    return path


def _run(binary, *args):
    done = subprocess.run([_binary(binary), *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"schedlab {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


def episodes(suite, split="test"):
    """The split's episodes, in the suite's order (as ``schedlab suite episodes`` lists them):
    dicts of ``suite`` (its id), ``workload`` (a file), ``episode`` and ``seed``."""
    files = SuiteFiles(suite)
    return [
        {"suite": files.id, "workload": str(path), "episode": name, "seed": seed}
        for path, name, seed in files.episodes(split)
    ]


def play(policy, suite, split="test", name="python"):
    """Plays every episode of ``split`` with ``policy(observation, mask) -> action``; returns
    the action log that ``schedlab suite score --actions`` reads, and each episode's final
    ``info["metrics"]`` as the binding saw them."""
    listed = episodes(suite, split)
    log = {"suite": listed[0]["suite"], "split": split, "policy": name, "episodes": []}
    metrics = []
    for episode in listed:
        env = SchedlabEnv(episode["workload"])
        observation, _ = env.reset(seed=episode["seed"])
        actions = []
        while True:
            action = policy(observation, env.action_masks())
            actions.append([int(choice) for choice in action])
            observation, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        log["episodes"].append({"window": episode["episode"], "seed": episode["seed"], "actions": actions})
        metrics.append(info["metrics"])
    return log, metrics


def score(policy, suite, split="test", name="python", out=None, binary=None):
    """Plays ``split`` of ``suite`` with ``policy`` and has the command line score the actions;
    returns the result (a dict) and writes it to ``out`` where given."""
    log, _ = play(policy, suite, split, name)
    with tempfile.TemporaryDirectory() as folder:
        actions = Path(folder) / "actions.json"
        actions.write_text(json.dumps(log))
        result = Path(out) if out else Path(folder) / "result.json"
        _run(binary, "suite", "score", suite, "--actions", actions, "--out", result)
        return json.loads(result.read_text())
