"""A Python policy scored on a versioned suite through the binding and the command line."""

import json
import shutil
import subprocess

import numpy as np

import schedlab
from conftest import REPO
from schedlab.masks import mask_offsets


def random_masked(seed, nvec):
    rng = np.random.default_rng(seed)
    starts = mask_offsets(nvec)

    def policy(observation, mask):
        return np.array([rng.choice(np.flatnonzero(mask[s : s + n])) for s, n in zip(starts, nvec)])

    return policy


KEPT = ["philly-heldout-04", "philly-heldout-07"]


def tiny_suite(root, cli):
    """philly-v1 cut to its two smallest test windows (24 and 19 jobs) at seed 0, as a suite of
    its own (its manifest written as a maintainer writes a new suite's): a random policy takes
    every decision point to its step limit, so a large window takes it tens of seconds."""
    suite = root / "data" / "suites" / "tiny-v1"
    shutil.copytree(REPO / "data" / "suites" / "philly-v1", suite)
    for window in (suite / "test").glob("*.toml"):
        if window.stem not in KEPT:
            window.unlink()
    text = (suite / "suite.toml").read_text()
    text = text.replace('name = "philly"', 'name = "tiny"').replace("seeds = [0, 1, 2]", "seeds = [0]")
    (suite / "suite.toml").write_text(text)
    subprocess.run([cli, "suite", "manifest", suite], check=True, capture_output=True)


def test_a_random_masked_policy_is_scored_and_its_result_replays(schedlab_cli, tmp_path, monkeypatch):
    tiny_suite(tmp_path, schedlab_cli)
    monkeypatch.chdir(tmp_path)
    listed = schedlab.suite.episodes("tiny-v1")
    assert [(e["episode"], e["seed"]) for e in listed] == [(w, 0) for w in KEPT]
    nvec = schedlab.SchedlabEnv(listed[0]["workload"]).nvec
    result_path = tmp_path / "result.json"
    result = schedlab.suite.score(
        random_masked(0, nvec), "tiny-v1", name="random", out=result_path, binary=schedlab_cli
    )
    assert result["entry"]["policy"] == "external:random" and result["entry"]["actions_log"]
    assert [e["window"] for e in result["episodes"]] == KEPT
    # the command line replays the log the result carries and finds every metric and digest
    out = subprocess.run(
        [schedlab_cli, "suite", "validate", result_path], check=True, capture_output=True, text=True
    ).stdout
    assert "validated, 2 episodes replayed" in out
    # a log with an action outside the space is refused, naming the episode and the step
    log, _ = schedlab.suite.play(random_masked(1, nvec), "tiny-v1")
    log["episodes"][1]["actions"][0] = [int(n) for n in nvec]
    actions = tmp_path / "actions.json"
    actions.write_text(json.dumps(log))
    refused = subprocess.run(
        [schedlab_cli, "suite", "score", "tiny-v1", "--actions", actions, "--out", tmp_path / "no.json"],
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0, refused.stdout
    assert "episode philly-heldout-07 seed 0" in refused.stderr and "step 0" in refused.stderr, refused.stderr
