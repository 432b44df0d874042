"""The git adapter on real repositories: planegate's errors only, facts git cannot be bent on."""

from __future__ import annotations

import gc
import os
import stat
from pathlib import Path

import pytest

from helpers.processes import alive, children
from helpers.repo_helper import TestRepo
from planegate.errors import ServiceUnavailable, UnknownRevision, UsageError
from planegate.repo.git import GitRepo, commit_all

UNKNOWN = "1" * 40


@pytest.fixture
def repo(tmp_path: Path) -> TestRepo:
    made = TestRepo(tmp_path / "repo")
    made.commit("one", {"a.txt": "one\n", "tests/test_a.py": "def test_a():\n    assert 1\n"})
    made.commit("two", {"a.txt": "two\n"})
    return made


@pytest.mark.parametrize("rev", [UNKNOWN, "nope", "HEAD~9", "", "HEAD:", "a" * 64, "1" * 12])
def test_an_unknown_revision_is_planegates_usage_error(repo: TestRepo, rev: str) -> None:
    git = GitRepo(repo.root)
    with pytest.raises(UnknownRevision, match="unknown revision") as raised:
        git.resolve(rev)
    assert isinstance(raised.value, UsageError)
    for call in (
        lambda: git.files(rev),
        lambda: git.read(rev, "a.txt"),
        lambda: git.sha256(rev, "a.txt"),
        lambda: git.changes(rev, "HEAD"),
        lambda: git.merge_base(rev, "HEAD"),
    ):
        with pytest.raises(UnknownRevision):
            call()


def test_is_ancestor_of_a_commit_the_clone_does_not_have_is_false(repo: TestRepo) -> None:
    git = GitRepo(repo.root)
    head = git.resolve("HEAD")
    first = git.resolve("HEAD~1")
    assert git.is_ancestor(first, head) is True
    assert git.is_ancestor(head, first) is False
    assert git.is_ancestor(head, head) is True  # as git answers: a commit is its own
    assert git.is_ancestor(UNKNOWN, head) is False
    assert git.is_ancestor(UNKNOWN, UNKNOWN) is False
    assert git.is_ancestor(head, UNKNOWN) is False
    assert git.is_ancestor("not a sha", head) is False
    assert (git.has_commit(head), git.has_commit(UNKNOWN), git.has_commit(head[:12])) == (
        True,
        False,
        False,
    )


def test_not_a_repository_and_a_failing_command_are_planegate_errors(
    tmp_path: Path, repo: TestRepo
) -> None:
    with pytest.raises(UsageError, match="not a git repository"):
        GitRepo(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    with pytest.raises(UsageError, match="not a git repository"):
        GitRepo(tmp_path / "plain")
    git = GitRepo(repo.root)
    repo.git("checkout", "-q", "--orphan", "island")
    repo.git("rm", "-q", "-r", "--cached", ".")
    island = repo.commit("unrelated")
    with pytest.raises(UsageError, match="no common ancestor"):
        git.merge_base(island, "main")


def test_a_replace_ref_does_not_swap_the_blob_planegate_reads(
    repo: TestRepo, tmp_path: Path
) -> None:
    head = repo.git("rev-parse", "HEAD")
    original = repo.git("rev-parse", "HEAD:tests/test_a.py")
    (tmp_path / "weak.py").write_text("def test_a():\n    pass\n")
    weak = repo.git("hash-object", "-w", str(tmp_path / "weak.py"))
    repo.git("replace", original, weak)
    # the attack is real for git run with default settings ...
    assert "pass" in repo.git("cat-file", "-p", f"{head}:tests/test_a.py")
    git = GitRepo(repo.root)
    # ... and changes nothing planegate sees
    assert git.read(head, "tests/test_a.py") == b"def test_a():\n    assert 1\n"
    assert git.read_many(head, ["tests/test_a.py", "a.txt"])["tests/test_a.py"] == (
        b"def test_a():\n    assert 1\n"
    )
    with git.worktree(head) as tree:
        assert (tree / "tests/test_a.py").read_text() == "def test_a():\n    assert 1\n"


def test_many_files_are_read_at_once_as_one_at_a_time(repo: TestRepo) -> None:
    big = bytes(range(256)) * 12_000  # 3 MB: more than a pipe holds, either way
    files: dict[str, str | bytes] = {f"m/f{n}.txt": f"{n % 7}\n" for n in range(300)}
    repo.commit("many", {**files, "big.bin": big, "empty": b"", "nl.txt": b"\n\n"})
    git = GitRepo(repo.root)
    paths = [*files, "big.bin", "empty", "nl.txt", "a.txt", "absent.txt", "m"]
    read = git.read_many("HEAD", paths)
    assert read == {path: git.read("HEAD", path) for path in paths if path in read}
    assert set(read) == set(paths) - {"absent.txt", "m"}
    assert read["big.bin"] == big and read["empty"] == b""
    assert git.read_many("HEAD", ["a.txt"]) == {"a.txt": b"two\n"}
    assert git.read_many("HEAD", ["absent.txt"]) == {}


def test_a_graft_does_not_bend_ancestry(repo: TestRepo) -> None:
    head = repo.git("rev-parse", "HEAD")
    repo.branch("side", "HEAD~1")
    side = repo.commit("side", {"b.txt": "b\n"})
    (repo.root / ".git/info").mkdir(exist_ok=True)
    (repo.root / ".git/info/grafts").write_text(f"{head} {side}\n")
    assert repo.git("merge-base", "--is-ancestor", side, head) == ""  # bent for plain git
    assert GitRepo(repo.root).is_ancestor(side, head) is False


def test_hooks_planted_in_the_repository_never_run(repo: TestRepo, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    planted = tmp_path / "planted-hooks"
    planted.mkdir()
    for folder in (repo.root / ".git/hooks", planted):
        for name in ("post-checkout", "pre-commit", "post-commit", "reference-transaction"):
            hook = folder / name
            hook.write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
            hook.chmod(0o755)
    repo.git("config", "core.hooksPath", str(planted))
    git = GitRepo(repo.root)
    with git.worktree("HEAD") as tree:
        assert (tree / "a.txt").read_text() == "two\n"
    (repo.root / "c.txt").write_text("c\n")
    commit_all(git, "three")
    assert git.read("HEAD", "c.txt") == b"c\n"
    assert not marker.exists()


def test_the_exported_tree_has_no_link_to_the_repository(repo: TestRepo) -> None:
    repo.commit(
        "kinds",
        {
            ".gitattributes": "a.txt export-ignore\n*.txt eol=crlf\n*.bin filter=planted\n",
            "run.sh": "#!/bin/sh\n",
            "data.bin": b"\x00\x01\r\n",
        },
    )
    repo.git("config", "filter.planted.smudge", "echo smudged")
    (repo.root / "run.sh").chmod(0o755)
    os.symlink("a.txt", repo.root / "link")
    head = repo.commit("exec bit and link")
    git = GitRepo(repo.root)
    with git.worktree(head) as tree:
        assert not (tree / ".git").exists()
        assert {p.name for p in tree.iterdir()} == {
            ".gitattributes",
            "a.txt",
            "data.bin",
            "link",
            "run.sh",
            "tests",
        }
        # bytes as git stores them: no export-ignore, end-of-line conversion or filter
        assert (tree / "a.txt").read_bytes() == b"two\n"
        assert (tree / "data.bin").read_bytes() == b"\x00\x01\r\n"
        assert os.readlink(tree / "link") == "a.txt"
        assert (tree / "run.sh").stat().st_mode & stat.S_IXUSR
        assert not (tree / "a.txt").stat().st_mode & stat.S_IXUSR
        (tree / "a.txt").write_text("changed by the code under test\n")
    assert not tree.exists()
    assert git.read(head, "a.txt") == b"two\n"
    assert repo.git("worktree", "list").count("\n") == 0  # no worktree was registered


def test_git_missing_from_path_is_unavailable(
    repo: TestRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    git = GitRepo(repo.root)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("GIT_PYTHON_GIT_EXECUTABLE", "/nonexistent/git")
    with pytest.raises(ServiceUnavailable):
        git.merge_base("HEAD", "HEAD~1")


def test_safe_directory_passed_by_the_caller_still_reaches_git(
    repo: TestRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "planegate.probe")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "seen")
    git = GitRepo(repo.root)
    assert git._repo.git.config("--get", "planegate.probe") == "seen"
    assert git._repo.git.config("--get", "core.hooksPath") == "/dev/null"


def test_a_repository_left_in_a_cycle_ends_its_git_processes_before_any_finalizer(
    repo: TestRepo,
) -> None:
    """Left to the collector in a reference cycle, a repository's `git cat-file` readers end
    before any object of the cycle is finalized: otherwise whichever finalizer runs first may be
    the process's own, which warns that it is still running (an error under `-W error`)."""
    before = children("git")
    running_at_finalizer: list[int] = []

    class FinalizedFirst:  # made first, so the collector finalizes it first
        def __del__(self) -> None:
            running_at_finalizer.extend(pid for pid in started if alive(pid))

    gc.collect()
    gc.disable()
    try:
        first = FinalizedFirst()
        git = GitRepo(repo.root)
        assert git.read("HEAD", "a.txt") == b"two\n"
        started = children("git") - before
        cycle: dict[str, object] = {"first": first, "git": git}
        cycle["cycle"] = cycle
        del first, git, cycle
        gc.collect()
    finally:
        gc.enable()
    assert started
    assert running_at_finalizer == []
    assert not any(alive(pid) for pid in started)
