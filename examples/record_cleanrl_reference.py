"""Records CleanRL's own dqn.py and ppo.py, unmodified, as the reference learning curves that
`schedlab reproduce learners` plots beside the Rust learners' (CartPole-v1 and Acrobot-v1,
500k env steps, their default settings, one thread).

The scripts come from the `cleanrl` 1.2.0 wheel on PyPI. Its metadata asks for Python < 3.11
and gym 0.23, so it is unpacked rather than installed; the scripts need only gymnasium 0.29
(dqn.py's `final_info` and `final_observation` keys), Stable-Baselines3's replay buffer and
TensorBoard's writer; ppo.py still imports gym 0.23.1, which needs pygame and NumPy 1:

    pip download cleanrl==1.2.0 --no-deps --python-version 3.10 --only-binary :all: -d /tmp/c
    unzip /tmp/c/cleanrl-1.2.0-py3-none-any.whl -d /tmp/cleanrl
    python -m venv /opt/cleanrlvenv && /opt/cleanrlvenv/bin/pip install torch gymnasium==0.29.1 \
        stable-baselines3==2.9.2 tensorboard gym==0.23.1 pygame numpy==1.26.4
    /opt/cleanrlvenv/bin/python examples/record_cleanrl_reference.py /tmp/cleanrl data/reference \
        dqn cartpole 0 1 2 3 4

Each script runs in this process (`runpy`, as `__main__`, with its own command line), so its
trained network is read from the globals it leaves for the greedy return over 20 episodes.
The training episodes' returns come from the TensorBoard events it writes
(`charts/episodic_return`), and the env steps per second from its last `charts/SPS` (its whole
run, updates included). Rows go to OUT/cleanrl-curves.csv and OUT/cleanrl-runs.csv in
examples/record_sb3_reference.py's layout; a run already recorded is skipped.
"""

import os
import runpy
import sys
import tempfile

import gymnasium
import stable_baselines3
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from reference_runs import (CURVE_HEADER, append, curve_rows, done_runs,
                            greedy_return)

STEPS = 500_000
BIN = 10_000
TASKS = {"cartpole": "CartPole-v1", "acrobot": "Acrobot-v1"}
SCRIPTS = {"dqn": "dqn.py", "ppo": "ppo.py"}


def gym_version():
    """ppo.py trains on the old gym (0.23), dqn.py on gymnasium; both are recorded."""
    try:
        import gym
    except ImportError:
        return ""
    return gym.__version__


def greedy_action(algo, trained, observation):
    with torch.no_grad():
        x = torch.tensor(observation, dtype=torch.float32).unsqueeze(0)
        if algo == "dqn":
            return int(torch.argmax(trained["q_network"](x), dim=1))
        return int(torch.argmax(trained["agent"].actor(x), dim=1))


def scalars(run_dir, tag):
    events = EventAccumulator(run_dir, size_guidance={"scalars": 0})
    events.Reload()
    return [(e.step, e.value) for e in events.Scalars(tag)]


def run_script(cleanrl, algo, task, seed, work):
    script = os.path.join(cleanrl, "cleanrl", SCRIPTS[algo])
    sys.argv = [script, "--env-id", TASKS[task], "--seed", str(seed),
                "--total-timesteps", str(STEPS), "--cuda", "false"]
    sys.path.insert(0, cleanrl)
    here = os.getcwd()
    os.chdir(work)
    try:
        trained = runpy.run_path(script, run_name="__main__")
    finally:
        os.chdir(here)
        sys.path.remove(cleanrl)
    (run_name,) = os.listdir(os.path.join(work, "runs"))
    return trained, os.path.join(work, "runs", run_name)


def main(cleanrl, out, algo, task, seeds):
    if algo not in SCRIPTS:
        raise SystemExit(f"unknown algo {algo!r}: dqn or ppo")
    torch.set_num_threads(1)
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    runs = os.path.join(out, "cleanrl-runs.csv")
    version = open(os.path.join(cleanrl, "cleanrl-1.2.0.dist-info", "METADATA")).read()
    version = next(line.split(": ")[1] for line in version.splitlines()
                   if line.startswith("Version: "))
    for seed in seeds:
        if (algo, task, str(seed)) in done_runs(runs):
            continue
        with tempfile.TemporaryDirectory() as work:
            trained, run_dir = run_script(cleanrl, algo, task, seed, work)
            episodes = scalars(run_dir, "charts/episodic_return")
            sps = scalars(run_dir, "charts/SPS")[-1][1]
        append(os.path.join(out, "cleanrl-curves.csv"), CURVE_HEADER,
               curve_rows(algo, task, seed, episodes, STEPS, BIN))
        greedy = greedy_return(lambda o: greedy_action(algo, trained, o), TASKS[task])
        append(runs,
               ["algo", "task", "seed", "greedy_return", "env_steps_per_s", "cleanrl", "sb3",
                "torch", "gymnasium", "gym"],
               [[algo, task, seed, round(greedy, 2),
                 round(float(sps), 1), version, stable_baselines3.__version__,
                 torch.__version__, gymnasium.__version__, gym_version()]])
        print(f"{algo} {task} seed {seed}: {sps:.0f} env steps/s", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 6:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], [int(s) for s in sys.argv[5:]])
