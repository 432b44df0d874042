"""scripts/action.sh prepare on the runner, with a stand-in `docker` command (no engine)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from helpers.github_support import read_outputs
from helpers.repo_helper import TestRepo

ROOT = Path(__file__).resolve().parents[2]


def _prepare(tmp: Path, docker: str | None, **env: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    if docker is not None:
        (bin_dir / "docker").write_text(f"#!/bin/sh\n{docker}\n")
        (bin_dir / "docker").chmod(0o755)
    workspace = tmp / "workspace"
    if not workspace.exists():
        TestRepo(workspace).commit("main", {"a.txt": "1\n"})
    (tmp / "temp").mkdir(exist_ok=True)
    (tmp / "output").touch()
    base = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_OUTPUT": str(tmp / "output"),
        "RUNNER_TEMP": str(tmp / "temp"),
        "RUNNER_OS": "Linux",
        "INPUT_MODE": "gate",
        "INPUT_IMAGE": "planegate:test",
    }
    return subprocess.run(
        [str(ROOT / "scripts/action.sh"), "prepare"],
        env=base | env,
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp,
    )


def test_a_runner_that_is_not_linux_is_refused_in_one_line(tmp_path: Path) -> None:
    done = _prepare(tmp_path, "exit 0", RUNNER_OS="macOS")
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert line.startswith("::error title=planegate::planegate needs a Linux runner with Docker")
    assert "runs-on: ubuntu-24.04" in line and "pipx run --spec git+https://" in line


def test_a_runner_without_a_usable_docker_is_refused_in_one_line(tmp_path: Path) -> None:
    done = _prepare(tmp_path, "exit 1")
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert "planegate needs Docker on the runner and found none usable" in line


def test_an_unknown_digest_upload_is_refused(tmp_path: Path) -> None:
    done = _prepare(tmp_path, "exit 0", INPUT_DIGEST_UPLOAD="v5")
    assert done.returncode == 1
    assert "digest-upload must be v4, v3 or off, got 'v5'" in done.stdout


def test_event_file_and_ca_bundle_are_staged_where_phase_1_cannot_write(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    TestRepo(workspace).commit("main", {"event.json": "{}\n", "ca.pem": "PEM\n"})
    done = _prepare(tmp_path, "exit 0", INPUT_EVENT_FILE="event.json", INPUT_CA_BUNDLE="ca.pem")
    assert done.returncode == 0, done.stdout + done.stderr
    folder = Path(read_outputs(tmp_path / "output")["dir"])
    assert (folder / "in/event.json").read_text() == "{}\n"
    assert (folder / "in/ca-bundle.pem").read_text() == "PEM\n"
    assert os.stat(folder / "in").st_mode & 0o777 == 0o755
    assert os.stat(folder / "exchange").st_mode & 0o777 == 0o700  # phase 1 planegate alone


def test_a_missing_event_file_is_refused(tmp_path: Path) -> None:
    done = _prepare(tmp_path, "exit 0", INPUT_EVENT_FILE="nope.json")
    assert done.returncode == 1
    assert "event.json" in done.stdout and "nope.json does not exist" in done.stdout
