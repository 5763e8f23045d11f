"""Many copies of one schedlab environment stepped together in Rust."""

import json
import os

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ._schedlab import RustEnv
from .env import spaces_of


class SchedlabVectorEnv(VectorEnv):
    """``num_envs`` copies of a workload, stepped together in Rust with the GIL released
    (in parallel with rayon where a step costs enough to repay the fork-join).

    Same-step autoreset: a copy whose episode ends reports its reward, flags, last observation
    (``infos["final_obs"]``) and info (``infos["final_info"]``, with the episode's metrics), and
    its entry in the returned observations is already the next episode's first. Copy ``i``'s
    ``k``-th episode is seeded from ``(seed, i, k)``, so a run is reproducible from the seed.
    Actions must respect ``action_masks()``: a masked choice raises ``ValueError``.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, workload, num_envs, overrides=None, seed=0):
        overrides = {str(k): str(v) for k, v in (overrides or {}).items()}
        self._prototype = RustEnv(os.fspath(workload), list(overrides.items()))
        self._config = {"workload": os.fspath(workload), "num_envs": num_envs, "overrides": overrides, "seed": seed}
        self.num_envs = int(num_envs)
        self.render_mode = None
        self.single_action_space, self.single_observation_space = spaces_of(self._prototype)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._rust = self._prototype.vectorised(self.num_envs, int(seed))
        self._masks = None

    def reset(self, *, seed=None, options=None):
        if options:
            raise ValueError(f"schedlab envs take no reset options, got {sorted(options)}")
        if seed is not None:
            self._rust = self._prototype.vectorised(self.num_envs, int(seed))
        features, masks = self._rust.reset()
        self._masks = masks
        return features, {"action_mask": masks.copy()}

    def step(self, actions):
        if self._masks is None:
            raise RuntimeError("call reset before step")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs, -1)
        features, masks, rewards, terminated, truncated, infos_json, finals = self._rust.step(actions.tolist())
        self._masks = masks
        ended = terminated | truncated
        infos = {"action_mask": masks.copy()}
        if ended.any():
            final_obs = np.empty(self.num_envs, dtype=object)
            final_info = np.empty(self.num_envs, dtype=object)
            for i in np.flatnonzero(ended):
                final_obs[i] = finals[i]
                final_info[i] = json.loads(infos_json[i])
            infos.update({"final_obs": final_obs, "_final_obs": ended, "final_info": final_info, "_final_info": ended})
        return features, rewards, terminated, truncated, infos

    def action_masks(self):
        """The copies' flat masks, one row each (a fresh array)."""
        if self._masks is None:
            raise RuntimeError("call reset before action_masks")
        return self._masks.copy()

    def __repr__(self):
        c = self._config
        return f"SchedlabVectorEnv(kind={self._prototype.kind}, workload={c['workload']!r}, num_envs={self.num_envs})"
