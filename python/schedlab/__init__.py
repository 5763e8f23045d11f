"""schedlab: Gymnasium environments for scheduling distributed machine-learning training.

Every kind of schedlab environment, stepped in Rust (python/src) with the GIL released:

    import gymnasium, schedlab
    env = gymnasium.make("schedlab/Jobs-v0", workload="data/workloads/philly-mini.toml")

Ids: ``schedlab/SingleJob-v0``, ``schedlab/Jobs-v0``, ``schedlab/Dag-v0`` and
``schedlab/Network-v0``; each takes ``workload`` (a workload file of that kind),
``overrides`` (``{"section.key": "value"}``, as ``--set`` on the command line) and
``invalid_action`` (``"raise"`` or ``"repair"``). ``SchedlabVectorEnv`` steps many copies
together in Rust. ``schedlab.suite.score(policy, "philly-v1")`` scores a policy on a versioned
benchmark suite (docs/benchmark.md).
"""

import gymnasium

from . import suite
from .env import KINDS, SchedlabEnv
from .vector import SchedlabVectorEnv

__all__ = ["KINDS", "SchedlabEnv", "SchedlabVectorEnv", "suite"]

for _kind in KINDS:
    _id = f"schedlab/{_kind}-v0"
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point="schedlab.env:SchedlabEnv", kwargs={"kind": _kind})
