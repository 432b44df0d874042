"""Discovery: run a checkout's suite once with read tracing and say what its tests read.

Used by `planegate init` (propose `planes.fixture.data` patterns covering every file the
tests read, list the test helpers, name the tests that read nothing) and by `planegate lock`
(warn about read files the manifest does not lock). The suite runs in a copy of the checkout,
so nothing is written into it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from planegate.config import default_evidence
from planegate.config.load import Config
from planegate.config.planemap import PlaneMap, file_of
from planegate.pyimports import parent
from planegate.repo.git import tracked_files as git_files
from planegate.runner import pytest_ini
from planegate.runner.session import RunResult
from planegate.runner.spec import Sessions
from planegate.runner.traced import TraceSpec
from planegate.vocabulary import SCORING_PLANES

# Folders never copied: version control, environments, caches, build output.
SKIPPED = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "node_modules", "__pycache__"}
)
SKIPPED_SUFFIXES = (".egg-info", "_cache")


@dataclass(frozen=True)
class Discovery:
    """What one traced run of the suite showed."""

    closed: bool
    reads: Mapping[str, tuple[str, ...]]  # file read from the test side: the tests reading it
    prod_reads: tuple[str, ...]  # files production code opened
    helpers: tuple[str, ...]
    read_nothing: tuple[str, ...]  # scoring tests that opened no repository file
    output: str = ""
    read_package: tuple[str, ...] = ()  # tests (or modules) that read production source


def checkout_files(root: Path) -> list[str]:
    """The checkout's files (repository-relative), without VCS folders, caches, envs."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED and not d.endswith(SKIPPED_SUFFIXES))
        rel = Path(folder).relative_to(root).as_posix()
        found += [name if rel == "." else f"{rel}/{name}" for name in files]
    return sorted(found)


def tracked_files(root: Path) -> list[str]:
    """The checkout's files git tracks (its index) that exist; every file outside git. Only
    these are ever proposed, locked or warned about: a tool's cache (`.hypothesis/`), an
    ignored file or a path a test only probes is no data of the project."""
    tracked = git_files(root)
    if tracked is None:
        return checkout_files(root)
    return [path for path in tracked if (root / path).exists() or (root / path).is_symlink()]


def discover(
    root: Path, cfg: Config, ini_options: Mapping[str, Any], targets: tuple[str, ...] = ()
) -> Discovery:
    """Run the checkout's suite once, traced, in a copy of it."""
    result, found = run(root, cfg, ini_options, targets)
    return summarise(result, PlaneMap(cfg), found, tracked_files(root))


def run(
    root: Path,
    cfg: Config,
    ini_options: Mapping[str, Any],
    targets: tuple[str, ...] = (),
    **changes: Any,
) -> tuple[RunResult, default_evidence.DefaultEvidence]:
    """One run of the checkout's suite in a copy of it, traced unless `changes` say
    `trace=None`; paths of the copy in its output and collection errors read as `root`."""
    files = checkout_files(root)
    found = default_evidence.collect(
        cfg,
        tracked_files(root),
        lambda path: _read(root, path),
        pythonpath=pytest_ini.pythonpath(ini_options),
    )
    options: dict[str, Any] = {"trace": TraceSpec(found.test_side, found.roots), **changes}
    with tempfile.TemporaryDirectory(prefix="planegate-discover-") as scratch:
        tree = Path(scratch) / "tree"
        tree.mkdir()  # a checkout with no file still gets its folder (and pytest's ini)
        _copy(root, tree, files)
        result = Sessions(tree, cfg, ini_options).run(canaries=False, targets=targets, **options)
    return _relocated(result, str(tree), str(root)), found


def checkout_ini(root: Path) -> dict[str, Any]:
    """The checkout's pytest options, as the gate reads them from a commit."""
    return pytest_ini.base_options(lambda path: _read(root, path))


def _relocated(result: RunResult, tree: str, root: str) -> RunResult:
    errors = tuple((n, message.replace(tree, root)) for n, message in result.collect_errors)
    return replace(result, output=result.output.replace(tree, root), collect_errors=errors)


def summarise(
    result: RunResult,
    plane_map: PlaneMap,
    evidence: default_evidence.DefaultEvidence,
    files: Iterable[str],
) -> Discovery:
    """What the run's tests read of `files` (the tracked ones): production source
    (config/production.py) is never data, only the tests that read it are named."""
    scoring = [
        n
        for n in result.collected
        if n in result.outcomes and plane_map.plane_of(n) in SCORING_PLANES
    ]
    tracked = frozenset(files)
    readers: dict[str, set[str]] = {}
    prod: set[str] = set()
    reading_tests: set[str] = set()
    package: set[str] = set()
    for key, reads in result.reads.items():
        tests = [key] if "::" in key else [n for n in scoring if file_of(n) == key]
        kept = [path for path in reads.test if path in tracked]
        source = [path for path in kept if evidence.production.covers(path)]
        for path in kept:
            if path not in source:
                readers.setdefault(path, set()).update(tests or [key])
        if kept:
            reading_tests.update(tests)
        if source:
            package.update(tests or [key])
        prod.update(reads.prod)
    return Discovery(
        closed=result.closed,
        reads={path: tuple(sorted(readers[path])) for path in sorted(readers)},
        prod_reads=tuple(sorted(prod)),
        helpers=evidence.helpers,
        read_nothing=tuple(n for n in scoring if n not in reading_tests),
        output=result.output,
        read_package=tuple(sorted(package)),
    )


def data_patterns(read: Iterable[str], files: Iterable[str]) -> list[str]:
    """gitignore-style patterns covering exactly the read files: a folder whose files (and
    sub-folders) were all read becomes `folder/`, anything else is named file by file."""
    names = list(files)
    wanted = set(read) & set(names)
    below: dict[str, set[str]] = {}
    for path in names:
        folder = parent(path)
        while folder:
            below.setdefault(folder, set()).add(path)
            folder = parent(folder)
    whole = {folder for folder, inside in below.items() if inside and inside <= wanted}
    patterns = set()
    for path in wanted:
        top = path
        folder = parent(path)
        while folder in whole:
            top, folder = folder + "/", parent(folder)
        patterns.add(_anchored(top))
    return sorted(patterns)


def _anchored(pattern: str) -> str:
    """A pattern with no inner slash would match at any depth: anchor it at the root."""
    return pattern if "/" in pattern.rstrip("/") else "/" + pattern


def _read(root: Path, path: str) -> bytes | None:
    try:
        return (root / path).read_bytes()
    except OSError:
        return None


def _copy(root: Path, tree: Path, files: Iterable[str]) -> None:
    for path in files:
        source, target = root / path, tree / PurePosixPath(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copyfile(source, target)
