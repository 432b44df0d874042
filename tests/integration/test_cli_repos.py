"""The command line on real repositories, through the interpreter: usage and service errors
exit with their own codes and one line on stderr, never a traceback."""

from __future__ import annotations

from pathlib import Path

from helpers.repo_helper import TestRepo, run_cli, run_cli_process


def test_not_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    done = run_cli("-C", str(tmp_path), "gate", "--base", "main")
    assert done.returncode == 64
    assert done.stderr.strip().endswith(
        "not a git repository (run planegate inside one, or pass -C PATH)"
    )


def test_unknown_revision_is_a_usage_error(project: TestRepo) -> None:
    done = run_cli("-C", str(project.root), "gate", "--base", "no-such-branch")
    assert done.returncode == 64
    assert "unknown revision 'no-such-branch'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_corrupt_repository_is_a_one_line_service_error(project: TestRepo) -> None:
    project.branch("patch")
    project.commit("docs", {"README": "x\n"})
    blob = project.git("rev-parse", "HEAD:calc/core.py")
    (project.root / ".git/objects" / blob[:2] / blob[2:]).unlink()
    # through the interpreter: what reaches the shell is one line and the exit code
    done = run_cli_process("-C", str(project.root), "gate", "--base", "main", "-q")
    assert done.returncode == 69
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    # read first by the evidence by default (the modules main's tests import), else the export
    assert line.startswith(
        ("planegate: git cat-file --batch failed: ", "planegate: exporting the tree of ")
    )
    assert "an object is missing or corrupt" in line


def test_a_missing_configuration_says_whether_it_is_only_uncommitted(tmp_path: Path) -> None:
    repo = TestRepo(tmp_path / "repo")
    repo.commit("main", {"a.txt": "1\n"})
    repo.branch("patch")
    repo.commit("patch", {"a.txt": "2\n"})

    absent = run_cli("-C", str(repo.root), "gate", "--base", "main", "-q")
    assert absent.returncode == 78
    assert "planegate init --write" in absent.stderr and "not committed" not in absent.stderr

    (repo.root / "planegate.yml").write_text("version: 1\n")
    uncommitted = run_cli("-C", str(repo.root), "gate", "--base", "main", "-q")
    assert uncommitted.returncode == 78
    assert "not committed yet" in uncommitted.stderr
    assert "git add planegate.yml && git commit" in uncommitted.stderr
