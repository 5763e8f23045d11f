"""schedlab: Gymnasium environments for scheduling distributed machine-learning training.

Every kind of schedlab environment, stepped in Rust (python/src) with the GIL released:

    import gymnasium, schedlab
    env = gymnasium.make("schedlab/Jobs-v1", workload="data/workloads/philly-mini.toml")
    env = gymnasium.make("schedlab/Jobs-v1", suite="philly-v1", split="train")

Ids: ``schedlab/SingleJob-v1``, ``schedlab/Jobs-v1``, ``schedlab/Dag-v1``,
``schedlab/Network-v1`` and the tasks with known answers (``schedlab/Control-v1``...); each
takes ``workload`` (a workload file of that kind) or ``suite`` and ``split`` (a versioned
suite's ``train``, ``validation`` or ``test`` episodes, docs/benchmark.md), ``overrides``
(``{"section.key": "value"}``, as ``--set`` on the command line) and ``invalid_action``
(``"raise"`` or ``"repair"``). The ``-v0`` ids take a workload only and are deprecated:
Gymnasium warns when one is made. ``SchedlabVectorEnv`` steps many copies
together in Rust. ``schedlab.suite.score(policy, "philly-v1")`` scores a policy on a versioned
benchmark suite (docs/benchmark.md).
"""

import gymnasium

from . import suite
from .env import KINDS, SchedlabEnv
from .vector import SchedlabVectorEnv

__all__ = ["KINDS", "SchedlabEnv", "SchedlabVectorEnv", "suite"]

for _kind in KINDS:
    for _version in (0, 1):
        _id = f"schedlab/{_kind}-v{_version}"
        if _id not in gymnasium.registry:
            gymnasium.register(
                id=_id, entry_point="schedlab.env:SchedlabEnv", kwargs={"kind": _kind, "version": _version}
            )
