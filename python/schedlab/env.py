"""One schedlab environment as a ``gymnasium.Env``."""

import json
import os

import gymnasium
import numpy as np
from gymnasium import spaces

from ._schedlab import KINDS as _NATIVE_KINDS
from ._schedlab import RustEnv
from .masks import INVALID_ACTION_MODES, checked_action
from .suite_files import SPLITS, SuiteFiles

# The kinds as env's table of kinds names them (env/src/kinds.rs), one Gymnasium id each.
KINDS = tuple(_NATIVE_KINDS)

# Features are finite float32 (the Rust env contract); Box bounds say exactly that.
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def spaces_of(rust):
    """The action and observation spaces of one native env."""
    actions = spaces.MultiDiscrete(np.asarray(rust.nvec, dtype=np.int64))
    n = rust.observation_len
    return actions, spaces.Box(-_FLOAT32_MAX, _FLOAT32_MAX, shape=(n,), dtype=np.float32)


class SchedlabEnv(gymnasium.Env):
    """A workload file of any kind, or a split of a versioned suite, as a Gymnasium env.

    With ``workload``, ``reset(seed=s)`` starts the same episode as ``schedlab run --seed s``;
    the same actions then give the same rewards and metrics. With ``suite`` (``"philly-v1"``,
    docs/benchmark.md) and ``split``: ``"train"`` draws episodes from the suite's training family
    (within its training seeds where its episodes are drawn by seed); ``"validation"`` and
    ``"test"`` play the split's fixed episodes, ``reset()`` the next in the suite's order and
    ``reset(seed=k)`` the k-th (modulo their number), named in ``info["episode"]``. The action
    is a ``MultiDiscrete`` over the Rust env's dimensions; ``action_masks()`` is the flat
    boolean mask sb3-contrib's MaskablePPO takes, also in ``info["action_mask"]``. The
    episode's metrics arrive in ``info["metrics"]`` on its last step.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        workload=None,
        overrides=None,
        invalid_action="raise",
        render_mode=None,
        kind=None,
        suite=None,
        split="test",
        version=1,
    ):
        if render_mode is not None:
            raise ValueError(f"schedlab envs do not render; got render_mode={render_mode!r}")
        if invalid_action not in INVALID_ACTION_MODES:
            raise ValueError(f"invalid_action must be one of {INVALID_ACTION_MODES}, got {invalid_action!r}")
        if (workload is None) == (suite is None):
            raise ValueError("give a workload file or a suite (suite=\"philly-v1\"), not both or neither")
        if suite is not None and version < 1:
            raise ValueError(f"suite= needs schedlab/{kind}-v1 (the -v0 ids take a workload only)")
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        overrides = {str(k): str(v) for k, v in (overrides or {}).items()}
        self._config = {
            "workload": None if workload is None else os.fspath(workload),
            "overrides": overrides,
            "invalid_action": invalid_action,
            "kind": kind,
            "suite": None if suite is None else os.fspath(suite),
            "split": split,
            "version": version,
        }
        self._suite = None if suite is None else SuiteFiles(suite)
        if self._suite is None:
            self.episodes = None
            self._rusts = {os.fspath(workload): RustEnv(os.fspath(workload), list(overrides.items()))}
        else:
            self._open_split(split, overrides)
        self._rust = next(iter(self._rusts.values()))
        self._cursor = 0
        if kind is not None and kind != self._rust.kind:
            given = workload if suite is None else f"suite {self._suite.id}"
            raise ValueError(
                f"schedlab/{kind}-v{version} needs a {kind} workload; {given} is a {self._rust.kind} workload "
                f"(use schedlab/{self._rust.kind}-v{version})"
            )
        self.render_mode = None
        self.invalid_action = invalid_action
        self.action_space, self.observation_space = spaces_of(self._rust)
        self.nvec = self.action_space.nvec
        self.action_labels = list(self._rust.action_labels)
        self.observation_groups = list(self._rust.observation_groups)
        self.unit_groups = list(self._rust.unit_groups)
        self.step_limit = self._rust.step_limit
        self.repaired_total = 0
        self._mask = None

    @property
    def kind(self):
        return self._rust.kind

    @property
    def workload_name(self):
        return self._rust.workload_name

    def _open_split(self, split, overrides):
        """One native env per workload file of the split, their spaces checked alike."""
        suite = self._suite
        if split == "train":
            self.episodes = None
            files = [suite.train]
        else:
            listed = suite.episodes(split)
            self.episodes = [(name, seed) for _, name, seed in listed]
            self._files = [path for path, _, _ in listed]
            files = sorted(set(self._files))
            if not files:
                raise ValueError(f"suite {suite.id} has no {split} episodes")
        self._rusts = {os.fspath(f): RustEnv(os.fspath(f), list(overrides.items())) for f in files}
        first = next(iter(self._rusts.items()))
        for path, rust in self._rusts.items():
            if (list(rust.nvec), rust.observation_len) != (list(first[1].nvec), first[1].observation_len):
                raise ValueError(
                    f"suite {suite.id}: {path} has other action or observation spaces than {first[0]}; "
                    "one env cannot play both"
                )

    def _episode(self, seed):
        """The native env and seed of the next episode, and what ``info["episode"]`` names."""
        split = self._config["split"]
        if self._suite is None or split == "train":
            bounds = self._suite.train_seeds if self._suite is not None else None
            first, end = bounds or (0, 2**63 - 1)
            if seed is None:
                seed = int(self.np_random.integers(first, end))
            elif bounds is not None and not first <= seed < end:
                raise ValueError(
                    f"suite {self._suite.id} trains on seeds {first}..{end - 1} only; seed {seed} is outside"
                )
            return self._rust, seed, None
        index = self._cursor if seed is None else seed % len(self.episodes)
        self._cursor = (index + 1) % len(self.episodes)
        window, episode_seed = self.episodes[index]
        named = {"suite": self._suite.id, "split": split, "index": index, "window": window, "seed": episode_seed}
        return self._rusts[os.fspath(self._files[index])], episode_seed, named

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"schedlab envs take no reset options, got {sorted(options)}")
        self._rust, rust_seed, episode = self._episode(seed)
        features, mask, info_json = self._rust.reset(int(rust_seed))
        self._mask = mask
        info = self._info(info_json, mask, 0)
        if episode is not None:
            info["episode"] = episode
        return features, info

    def step(self, action):
        if self._mask is None:
            raise RuntimeError("call reset before step")
        action, repaired = checked_action(action, self.nvec, self._mask, self.invalid_action, self.action_labels)
        features, mask, reward, terminated, truncated, info_json = self._rust.step(action.tolist())
        self._mask = mask
        self.repaired_total += repaired
        return features, float(reward), bool(terminated), bool(truncated), self._info(info_json, mask, repaired)

    def action_masks(self):
        """The current flat boolean mask (a fresh copy)."""
        if self._mask is None:
            raise RuntimeError("call reset before action_masks")
        return self._mask.copy()

    def _info(self, info_json, mask, repaired):
        info = json.loads(info_json)
        info["action_mask"] = mask.copy()
        if self.invalid_action == "repair":
            info["repaired_choices"] = repaired
        return info

    def __getstate__(self):
        return dict(self._config)

    def __setstate__(self, config):
        self.__init__(**config)

    def __repr__(self):
        c = self._config
        extra = f", overrides={c['overrides']!r}" if c["overrides"] else ""
        played = f"workload={c['workload']!r}" if c["suite"] is None else f"suite={self._suite.id!r}, split={c['split']!r}"
        return (
            f"SchedlabEnv(kind={self.kind}, {played}{extra}, "
            f"invalid_action={c['invalid_action']!r}, actions={len(self.nvec)}, "
            f"observation={self.observation_space.shape[0]})"
        )
