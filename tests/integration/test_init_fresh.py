"""`planegate init` where there is nothing to classify yet: an empty repository with no commit
(exit 64) and one whose suite collects no test (exit 78), each one line and never a
traceback; tests not committed yet are classified, with a note to commit them."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main


def init(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main(["-C", str(root), "init", "-q", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_empty_repository_without_a_commit_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "fresh")
    code, out, err = init(repo.root, capsys, "--write")
    assert code == 64
    assert out == ""
    assert err == (
        f"planegate: {repo.root}: the repository has no commit yet and pytest collects no test "
        "in it (add the project and its tests and commit them: `git add -A && git commit`; "
        "then run `planegate init`)\n"
    )
    assert not (repo.root / "planegate.yml").exists()


def test_tests_not_committed_yet_are_classified_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "fresh")
    repo.write({"tests/test_a.py": "def test_a():\n    assert True\n"})
    code, out, err = init(repo.root, capsys)
    assert code == 0
    assert "tests/test_a.py" in out
    assert err.endswith(
        "planegate: the repository has no commit yet: `digest` and `gate` read the suite and "
        "planegate.yml from commits; commit them (after `planegate lock`)\n"
    )


def test_a_folder_that_is_not_a_repository_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = init(tmp_path, capsys)
    assert code == 64
    assert out == ""
    assert err.startswith(f"planegate: {tmp_path}: not a git repository")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "files",
    [
        {"README.md": "a project\n"},
        {"shop/__init__.py": "", "tests/test_broken.py": "import no_such_module_here\n"},
    ],
    ids=["no-test-file", "only-a-broken-file"],
)
def test_a_suite_without_tests_is_a_configuration_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    repo = TestRepo(tmp_path / "empty")
    repo.commit("project", files)
    code, out, err = init(repo.root, capsys, "--write")
    assert code == 78
    assert out == ""
    assert err.startswith(
        f"planegate: {repo.root}: pytest collected no tests in pytest's testpaths (or the "
        "repository root); a planegate.yml would gate nothing"
    )
    assert err.endswith(
        "(add test_*.py files pytest collects, or name the tests with --tests PATH; then run "
        "`planegate init` again)\n"
    )
    assert len(err.splitlines()) == 1
    assert ("no_such_module_here" in err) == ("tests/test_broken.py" in files)
    assert not (repo.root / "planegate.yml").exists()


def test_an_empty_commit_is_a_configuration_error_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "nothing")
    repo.git("commit", "-q", "--allow-empty", "-m", "empty")
    code, _, err = init(repo.root, capsys, "--no-trace")
    assert code == 78
    assert "pytest collected no tests" in err


def test_a_traced_run_that_stops_is_an_error_with_pytests_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "stops")
    repo.commit(
        "suite",
        {
            "tests/test_a.py": "def test_a():\n    assert True\n",
            "tests/test_b.py": (
                "import os\n\n\ndef test_b():\n"
                "    print('shutting down the interpreter', flush=True)\n    os._exit(3)\n"
            ),
        },
    )
    code, out, err = init(repo.root, capsys, "--write")
    assert code == 78
    assert out == ""
    assert err.startswith(f"planegate: pytest stopped before the suite in {repo.root} finished (")
    assert "1 of 2 tests never finished" in err
    assert len(err.strip().splitlines()) == 1
    assert not (repo.root / "planegate.yml").exists()
