"""Gymnasium's own checker on every shipped workload of every kind, warnings as errors."""

import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import schedlab
from schedlab.masks import mask_offsets
from conftest import REPO, shipped_workloads

WORKLOADS = shipped_workloads()


def make(path, **kwargs):
    kind = schedlab.SchedlabEnv(path).kind
    return gymnasium.make(f"schedlab/{kind}-v1", workload=str(path), **kwargs)


def test_every_kind_is_shipped():
    kinds = {schedlab.SchedlabEnv(p).kind for p in WORKLOADS}
    assert kinds == set(schedlab.KINDS)


@pytest.mark.parametrize("path", WORKLOADS, ids=lambda p: str(p.relative_to(REPO / "data" / "workloads")))
def test_check_env_passes_with_warnings_as_errors(path):
    # check_env steps unmasked samples of the action space: the env repairs masked choices;
    # a workload that executes for real is checked in the simulator (the checker replays
    # episodes, which the wall clock does not repeat; its real runs are tests/tests/real_*.rs)
    real = 'execution = "real"' in path.read_text()
    env = make(path, invalid_action="repair", overrides={"execution": "sim"} if real else None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=True)
    assert isinstance(env.observation_space, gymnasium.spaces.Box)
    assert env.observation_space.dtype == np.float32
    assert isinstance(env.action_space, gymnasium.spaces.MultiDiscrete)
    assert env.unwrapped.action_masks().shape == (int(env.unwrapped.nvec.sum()),)


@pytest.mark.parametrize("interface", ["per-slot", "one-choice"])
def test_a_heterogeneous_workload_passes_through_both_interfaces_with_its_unit_groups(interface):
    path = REPO / "data" / "workloads" / "philly-gavel-train.toml"
    env = make(path, invalid_action="repair", overrides={"window.interface": interface})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=True)
    groups = {name: (count, width) for name, count, width in env.unwrapped.observation_groups}
    # each slot's speeds and GPUs held per model are read with the slot, one block per slot
    assert env.unwrapped.unit_groups[1:] == ["model_speed", "model_held"]
    slots = groups[env.unwrapped.unit_groups[0]][0]
    assert groups["model_speed"] == (slots, 3) and groups["model_held"] == (slots, 3)


def test_a_workload_of_another_kind_is_refused_by_id():
    with pytest.raises(ValueError, match="schedlab/SingleJob-v1"):
        gymnasium.make("schedlab/Jobs-v1", workload=str(REPO / "data/workloads/small-4node.toml"))


def test_unknown_override_names_the_key():
    with pytest.raises(ValueError, match="nope"):
        schedlab.SchedlabEnv(REPO / "data/workloads/small-4node.toml", overrides={"job.nope": "1"})


def test_extreme_counts_are_refused_naming_key_and_value():
    with pytest.raises(ValueError, match=r"`dags.layered.tasks`: 100000000 is above the limit"):
        schedlab.SchedlabEnv(REPO / "data/workloads/dag-layered.toml", overrides={"dags.layered.tasks": "100000000"})
    with pytest.raises(ValueError, match=r"`window.queued`: 1000000000 is above the limit"):
        schedlab.SchedlabEnv(REPO / "data/workloads/philly-mini.toml", overrides={"window.queued": "1000000000"})


def test_the_memory_limit_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("SCHEDLAB_MEMORY_LIMIT_GB", "0.0001")
    with pytest.raises(ValueError, match=r"100 tasks on 16 GPUs needs about .* SCHEDLAB_MEMORY_LIMIT_GB"):
        schedlab.SchedlabEnv(REPO / "data/workloads/dag-layered.toml")
    monkeypatch.delenv("SCHEDLAB_MEMORY_LIMIT_GB")
    schedlab.SchedlabEnv(REPO / "data/workloads/dag-layered.toml")


def test_observations_infos_and_masks_are_fresh_objects():
    env = schedlab.SchedlabEnv(REPO / "data/workloads/philly-mini.toml")
    obs, info = env.reset(seed=1)
    mask = env.action_masks()
    mask[:] = False
    assert env.action_masks().any(), "the env's mask must not change through a returned copy"
    action = first_allowed(env)
    obs2, _, _, _, info2 = env.step(action)
    assert obs2 is not obs and info2 is not info
    assert info2["action_mask"] is not info["action_mask"]
    assert np.array_equal(info2["action_mask"], env.action_masks())
    _, reward, terminated, truncated, _ = env.step(first_allowed(env))
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool


def first_allowed(env):
    mask, nvec = env.action_masks(), env.nvec
    offsets = mask_offsets(nvec)
    return np.array([np.flatnonzero(mask[o : o + n])[0] for o, n in zip(offsets, nvec)])


def masked_action(env):
    """A first-allowed action with one dimension set to a masked choice, and that dimension."""
    mask, nvec = env.action_masks(), env.nvec
    offsets = mask_offsets(nvec)
    action = first_allowed(env)
    for d, (o, n) in enumerate(zip(offsets, nvec)):
        refused = np.flatnonzero(~mask[o : o + n])
        if refused.size:
            action[d] = refused[0]
            return action, d
    return None, None


def test_masked_actions_raise_by_default_and_leave_the_env_as_it_was():
    env = schedlab.SchedlabEnv(REPO / "data/workloads/small-4node.toml")
    env.reset(seed=2)
    action, d = masked_action(env)
    assert action is not None, "the first state should mask something"
    with pytest.raises(ValueError, match="masked"):
        env.step(action)
    twin = schedlab.SchedlabEnv(REPO / "data/workloads/small-4node.toml")
    twin.reset(seed=2)
    a = first_allowed(env)
    assert np.array_equal(env.step(a)[0], twin.step(a)[0])


def test_repair_maps_masked_choices_to_allowed_ones_and_counts_them():
    env = schedlab.SchedlabEnv(REPO / "data/workloads/small-4node.toml", invalid_action="repair")
    env.reset(seed=2)
    action, d = masked_action(env)
    _, _, _, _, info = env.step(action)
    assert info["repaired_choices"] == 1 and env.repaired_total == 1
    _, _, _, _, info = env.step(first_allowed(env))
    assert info["repaired_choices"] == 0 and env.repaired_total == 1
    with pytest.raises(ValueError, match="not in"):
        env.step(np.full(len(env.nvec), 10_000))


def episode(env, seed, actions=None):
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards, observations = [], [obs]
    while True:
        if actions is None:
            mask, nvec = env.action_masks(), env.nvec
            offsets = mask_offsets(nvec)
            a = [rng.choice(np.flatnonzero(mask[o : o + n])) for o, n in zip(offsets, nvec)]
        else:
            a = actions[len(rewards)]
        obs, reward, terminated, truncated, info = env.step(a)
        rewards.append(reward)
        observations.append(obs)
        if terminated or truncated:
            return rewards, observations, info["metrics"]


@pytest.mark.parametrize("name", ["small-4node.toml", "dag-layered.toml", "network-diabetes-ridge.toml"])
def test_a_pickled_env_reproduces_the_episode(name):
    env = schedlab.SchedlabEnv(REPO / "data/workloads" / name, overrides={})
    restored = pickle.loads(pickle.dumps(env))
    assert repr(restored) == repr(env)
    first, again = episode(env, 5), episode(restored, 5)
    assert first[0] == again[0] and first[2] == again[2]
    assert all(np.array_equal(a, b) for a, b in zip(first[1], again[1]))


def test_repr_names_kind_and_workload():
    env = schedlab.SchedlabEnv(REPO / "data/workloads/dag-layered.toml")
    assert "kind=Dag" in repr(env) and "dag-layered.toml" in repr(env)
