"""A versioned suite's folder (``data/suites/NAME-vN``, docs/benchmark.md) as the Python side
reads it: its ``suite.toml``, its files checked against ``MANIFEST.sha256``, and its splits'
episodes in the order ``schedlab suite episodes`` lists them (a test compares the two)."""

import hashlib
import os
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python before 3.11
    import tomli as tomllib

from ._schedlab import BUILT_FROM_DATA

SPLITS = ("train", "validation", "test")


def _folder(suite):
    """The folder of ``suite``: a path to it, else ``data/suites/ID`` under the working folder,
    else in the checkout the binding was built from."""
    given = Path(os.fspath(suite))
    candidates = [given, Path("data") / "suites" / given, Path(os.path.normpath(BUILT_FROM_DATA)) / "suites" / given]
    for folder in candidates:
        if (folder / "suite.toml").is_file():
            return folder
    shipped = Path(os.path.normpath(BUILT_FROM_DATA)) / "suites"
    known = sorted(p.name for p in shipped.iterdir() if (p / "suite.toml").is_file()) if shipped.is_dir() else []
    raise ValueError(f"no suite {os.fspath(suite)!r} (data/suites/ holds: {', '.join(known)})")


def _check_manifest(folder):
    """Refuses a file changed, missing or not listed, by name, as the command line does."""
    listed = {}
    for line in (folder / "MANIFEST.sha256").read_text().splitlines():
        digest, name = line.split("  ", 1)
        listed[name] = digest
    for name, digest in listed.items():
        path = folder / name
        if not path.is_file():
            raise ValueError(f"{path} is missing: the suite's manifest lists it")
        if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            raise ValueError(f"{path} changed since the suite was made (docs/benchmark.md, \"Versions\")")
    for path in folder.rglob("*"):
        name = path.relative_to(folder).as_posix()
        if path.is_file() and name != "MANIFEST.sha256" and name not in listed:
            raise ValueError(f"{path} is not in the suite's manifest")


class SuiteFiles:
    """One suite: ``id``, ``kind``, ``seeds`` (each test window's), ``train`` (the family's
    file), ``train_seeds`` (``(first, end)`` or None where the split is by time), and
    ``episodes(split)``."""

    def __init__(self, suite):
        self.folder = _folder(suite)
        _check_manifest(self.folder)
        with open(self.folder / "suite.toml", "rb") as file:
            spec = tomllib.load(file)
        self.id = f"{spec['name']}-v{spec['version']}"
        self.kind = spec["kind"]
        self.seeds = list(spec["seeds"])
        self.train = self.folder / spec["train"]
        self.train_seeds = tuple(spec["train_seeds"]) if "train_seeds" in spec else None
        self.validation_seeds = list(spec.get("validation_seeds", []))
        self.validation = self._windows(spec.get("validation"))
        self.test = self._windows(spec["test"])

    def _windows(self, folder):
        return sorted((self.folder / folder).glob("*.toml")) if folder else []

    def episodes(self, split):
        """``(workload, episode name, seed)`` of the ``test`` or ``validation`` split, in the
        suite's order: each window at each seed, then (validation) the family at its seeds."""
        if split not in ("test", "validation"):
            raise ValueError(f"split must be 'test' or 'validation' to list episodes, got {split!r}")
        windows = self.test if split == "test" else self.validation
        listed = [(w, w.stem, seed) for w in windows for seed in self.seeds]
        if split == "validation":
            listed += [(self.train, "validation", seed) for seed in self.validation_seeds]
        return listed
