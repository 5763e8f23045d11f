"""Versioned Gymnasium ids: ``schedlab/KIND-v1`` plays a suite's splits, ``-v0`` still works
and is deprecated."""

import json
import shutil
import subprocess
import warnings

import gymnasium
import numpy as np
import pytest

import schedlab
from conftest import REPO

SUITES = sorted(p.name for p in (REPO / "data" / "suites").iterdir() if (p / "suite.toml").is_file())


@pytest.mark.parametrize("split", ["test", "validation"])
def test_the_binding_lists_every_suite_s_episodes_as_the_command_line_does(schedlab_cli, split):
    for suite in SUITES:
        out = subprocess.run(
            [schedlab_cli, "suite", "episodes", suite, "--split", split],
            cwd=REPO, check=True, capture_output=True, text=True,
        ).stdout
        cli = [json.loads(line) for line in out.splitlines()]
        python = schedlab.suite.episodes(REPO / "data" / "suites" / suite, split)
        strip = lambda es: [(e["suite"], e["episode"], e["seed"], str(e["workload"]).split("suites/")[-1]) for e in es]
        assert strip(python) == strip(cli), suite


def test_a_test_split_plays_its_episodes_in_order_and_by_index():
    env = gymnasium.make("schedlab/Jobs-v1", suite=REPO / "data" / "suites" / "philly-v1", split="test")
    episodes = env.unwrapped.episodes
    assert len(episodes) == 36 and episodes[:2] == [("philly-heldout-00", 0), ("philly-heldout-00", 1)]
    _, first = env.reset()
    _, second = env.reset()
    assert (first["episode"]["index"], second["episode"]["index"]) == (0, 1)
    observation, info = env.reset(seed=40)
    assert info["episode"]["window"] == episodes[4][0] and info["episode"]["seed"] == episodes[4][1]
    # the same episode as the window's own env at that seed
    window = REPO / "data" / "suites" / "philly-v1" / "test" / f"{episodes[4][0]}.toml"
    direct, _ = schedlab.SchedlabEnv(window).reset(seed=episodes[4][1])
    np.testing.assert_array_equal(observation, direct)


def test_a_train_split_keeps_to_the_suite_s_training_seeds_and_passes_check_env():
    suite = REPO / "data" / "suites" / "network-a9a-v1"
    # check_env samples unmasked actions: repaired to allowed ones
    env = gymnasium.make("schedlab/Network-v1", suite=suite, split="train", invalid_action="repair")
    with pytest.raises(ValueError, match="trains on seeds 0..999 only; seed 2000 is outside"):
        env.reset(seed=2000)
    env.reset(seed=3)
    for _ in range(3):
        _, info = env.reset()
        assert "episode" not in info
    from gymnasium.utils.env_checker import check_env

    check_env(env.unwrapped, skip_render_check=True)


def test_v0_ids_still_work_with_a_deprecation_warning_and_take_no_suite():
    workload = REPO / "data" / "workloads" / "chain.toml"
    with pytest.warns(DeprecationWarning, match="upgrading to version `v1`"):
        env = gymnasium.make("schedlab/Markov-v0", workload=workload)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        gymnasium.make("schedlab/Markov-v1", workload=workload).reset(seed=0)
    with pytest.raises(ValueError, match="suite= needs schedlab/Jobs-v1"), pytest.warns(DeprecationWarning):
        gymnasium.make("schedlab/Jobs-v0", suite="philly-v1")
    with pytest.raises(ValueError, match="is a Jobs workload"):
        gymnasium.make("schedlab/Dag-v1", suite=REPO / "data" / "suites" / "philly-v1", split="test")


def test_a_changed_suite_file_is_refused_by_name(tmp_path):
    suite = tmp_path / "network-a9a-v1"
    shutil.copytree(REPO / "data" / "suites" / "network-a9a-v1", suite)
    window = suite / "test" / "network-a9a-svm.toml"
    window.write_text(window.read_text() + "# edited\n")
    with pytest.raises(ValueError, match="test/network-a9a-svm.toml changed since the suite was made"):
        gymnasium.make("schedlab/Network-v1", suite=suite, split="test")
    window.unlink()
    with pytest.raises(ValueError, match="test/network-a9a-svm.toml is missing"):
        schedlab.suite.episodes(suite)
