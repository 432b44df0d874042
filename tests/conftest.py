"""Shared fixtures: real temporary git repositories holding a small gated project.

The suite is tiered by folder: `unit/` (no process, no git), `property/` (Hypothesis),
`integration/` (real git repositories, one command) and `e2e/` (whole gates, the action,
the demo). `make quick` runs the first two with the `quick` Hypothesis profile."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo

# Property tests run with a frozen seed and a fixed budget (DESIGN §1); `quick` is the inner
# loop's budget (`--hypothesis-profile=quick`), still derandomized.
settings.register_profile("planegate", derandomize=True, max_examples=100, deadline=None)
settings.register_profile("quick", derandomize=True, max_examples=10, deadline=None)
settings.load_profile("planegate")

_STARTED = time.monotonic()


def _pin(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The same git identity and an empty HOME: no user's global git configuration, hooks or
    credentials leak into the repositories the tests build."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "planegate tests")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "tests@planegate.invalid")


@pytest.fixture(scope="session", autouse=True)
def pinned_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The pinned environment for session-scoped fixtures (the template repositories)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _pin(monkeypatch, tmp_path_factory.mktemp("session-home"))
        yield


@pytest.fixture(autouse=True)
def pinned_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test sees the pinned environment with a HOME of its own."""
    _pin(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="session")
def project_template(tmp_path_factory: pytest.TempPathFactory) -> TestRepo:
    """The gated project, committed once per session; tests get copies of it."""
    repo = TestRepo(tmp_path_factory.mktemp("template") / "project")
    files = dict(PROJECT)
    files["tests/fixtures.lock.json"] = manifest_for(files)
    repo.commit("initial", files)
    return repo


@pytest.fixture
def project(project_template: TestRepo, tmp_path: Path) -> TestRepo:
    """A gated project on `main` whose suite passes, with its manifest locked."""
    return project_template.copy(tmp_path / "project")


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """The suite's own wall time, so CI logs show it."""
    if hasattr(config, "workerinput"):
        return
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    wall = time.monotonic() - _STARTED
    terminalreporter.write_line(f"planegate suite: {wall:.1f} s wall on {cpus} CPUs")
