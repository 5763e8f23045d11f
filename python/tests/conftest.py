"""Shared fixtures: the repository's shipped workloads and the `schedlab` command line."""

import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
WORKLOADS = REPO / "data" / "workloads"


def shipped_workloads():
    """Every shipped workload file, held-out windows included."""
    return sorted(WORKLOADS.rglob("*.toml"))


@pytest.fixture(scope="session")
def schedlab_cli():
    """The `schedlab` binary: $SCHEDLAB_BIN, else cargo's dev build (already there after the
    workspace tests, which run it too)."""
    given = os.environ.get("SCHEDLAB_BIN")
    if given:
        return given
    if shutil.which("cargo") is None:
        pytest.fail("the CLI comparison needs cargo or SCHEDLAB_BIN")
    # --tests: the features the workspace tests were built with (dev-dependencies unify theirs),
    # so after them nothing recompiles (without it, a cold run built polars and its dependents twice)
    subprocess.run(
        ["cargo", "build", "--quiet", "--workspace", "--tests", "--bin", "schedlab"], cwd=REPO, check=True
    )
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "debug" / "schedlab")


def pytest_sessionfinish(session, exitstatus):
    # "no tests ran" or a skipped test (a missing fixture, a platform guard) must not pass as green
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = reporter.stats if reporter else {}
    if exitstatus == 0 and (not stats.get("passed") or stats.get("skipped")):
        session.exitstatus = 1
