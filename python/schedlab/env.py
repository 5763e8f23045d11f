"""One schedlab environment as a ``gymnasium.Env``."""

import json
import os

import gymnasium
import numpy as np
from gymnasium import spaces

from ._schedlab import KINDS as _NATIVE_KINDS
from ._schedlab import RustEnv
from .masks import INVALID_ACTION_MODES, checked_action

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
    """A workload file of any kind as a Gymnasium env.

    ``reset(seed=s)`` starts the same episode as ``schedlab run --seed s``; the same actions
    then give the same rewards and metrics. The action is a ``MultiDiscrete`` over the Rust
    env's dimensions; ``action_masks()`` is the flat boolean mask sb3-contrib's MaskablePPO
    takes, also in ``info["action_mask"]``. The episode's metrics arrive in
    ``info["metrics"]`` on its last step.
    """

    metadata = {"render_modes": []}

    def __init__(self, workload, overrides=None, invalid_action="raise", render_mode=None, kind=None):
        if render_mode is not None:
            raise ValueError(f"schedlab envs do not render; got render_mode={render_mode!r}")
        if invalid_action not in INVALID_ACTION_MODES:
            raise ValueError(f"invalid_action must be one of {INVALID_ACTION_MODES}, got {invalid_action!r}")
        overrides = {str(k): str(v) for k, v in (overrides or {}).items()}
        self._config = {
            "workload": os.fspath(workload),
            "overrides": overrides,
            "invalid_action": invalid_action,
            "kind": kind,
        }
        self._rust = RustEnv(os.fspath(workload), list(overrides.items()))
        if kind is not None and kind != self._rust.kind:
            raise ValueError(
                f"schedlab/{kind}-v0 needs a {kind} workload; {workload} is a {self._rust.kind} workload "
                f"(use schedlab/{self._rust.kind}-v0)"
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

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"schedlab envs take no reset options, got {sorted(options)}")
        rust_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63 - 1))
        features, mask, info_json = self._rust.reset(int(rust_seed))
        self._mask = mask
        return features, self._info(info_json, mask, 0)

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
        return (
            f"SchedlabEnv(kind={self.kind}, workload={c['workload']!r}{extra}, "
            f"invalid_action={c['invalid_action']!r}, actions={len(self.nvec)}, "
            f"observation={self.observation_space.shape[0]})"
        )
