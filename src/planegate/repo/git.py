"""The only module that imports GitPython: commits, blobs, diffs and throwaway worktrees."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import git
import git.exc

from planegate.errors import ServiceUnavailable, UsageError

_CHUNK = 1 << 16


@dataclass(frozen=True)
class Change:
    """One path changed between two commits; `status` is git's letter (A, M, D, R, T)."""

    path: str
    status: str
    old_path: str | None = None


class GitRepo:
    def __init__(self, root: Path) -> None:
        try:
            self._repo = git.Repo(root, search_parent_directories=True)
        except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError):
            raise UsageError(
                f"{root}: not a git repository", "run planegate inside one, or pass -C PATH"
            ) from None
        except git.exc.GitCommandNotFound:
            raise ServiceUnavailable("git is not installed or not on PATH") from None
        if self._repo.working_tree_dir is None:
            raise UsageError(f"{root}: a bare repository has no working tree")
        self.root = Path(self._repo.working_tree_dir)

    def resolve(self, ref: str) -> str:
        try:
            return str(self._repo.commit(ref).hexsha)
        except (git.exc.BadName, ValueError, git.exc.GitCommandError):
            raise UsageError(
                f"unknown revision {ref!r}", "pass a branch, tag or commit sha"
            ) from None

    def merge_base(self, base: str, head: str) -> str:
        try:
            bases = self._repo.merge_base(base, head)
        except git.exc.GitCommandError as error:
            raise _unavailable("git merge-base", error) from None
        if not bases:
            raise UsageError(f"{base} and {head} have no common ancestor")
        return str(bases[0].hexsha)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return bool(
            self._repo.is_ancestor(self._repo.commit(ancestor), self._repo.commit(descendant))
        )

    def files(self, commit: str) -> list[str]:
        tree = self._repo.commit(commit).tree
        return sorted(str(item.path) for item in tree.traverse() if item.type == "blob")  # type: ignore[union-attr]

    def read(self, commit: str, path: str) -> bytes | None:
        blob = self._blob(commit, path)
        return None if blob is None else bytes(blob.data_stream.read())

    def sha256(self, commit: str, path: str) -> str | None:
        """Hash a blob without holding it in memory."""
        blob = self._blob(commit, path)
        if blob is None:
            return None
        digest = hashlib.sha256()
        stream = blob.data_stream
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
        return digest.hexdigest()

    def changes(self, base: str, head: str) -> list[Change]:
        diffs = self._repo.commit(base).diff(self._repo.commit(head), find_renames=True)
        changes = []
        for diff in diffs:
            status = (diff.change_type or "M")[0]
            path = diff.b_path if status != "D" else diff.a_path
            old = diff.a_path if status == "R" else None
            changes.append(Change(str(path), status, old))
        return sorted(changes, key=lambda change: change.path)

    def _blob(self, commit: str, path: str) -> git.Blob | None:
        try:
            item = self._repo.commit(commit).tree / path
        except KeyError:
            return None
        return item if isinstance(item, git.Blob) else None

    @contextlib.contextmanager
    def worktree(self, commit: str) -> Iterator[Path]:
        """A detached throwaway worktree of `commit`, removed afterwards whatever happens."""
        parent = Path(tempfile.mkdtemp(prefix="planegate-wt-"))
        path = parent / "tree"
        try:
            self._repo.git.worktree("add", "--detach", "--quiet", str(path), commit)
        except git.exc.GitCommandError as error:
            shutil.rmtree(parent, ignore_errors=True)
            raise _unavailable("git worktree add", error) from None
        try:
            yield path
        finally:
            with contextlib.suppress(git.exc.GitCommandError):
                self._repo.git.worktree("remove", "--force", str(path))
            shutil.rmtree(parent, ignore_errors=True)
            with contextlib.suppress(git.exc.GitCommandError):
                self._repo.git.worktree("prune")


def _unavailable(what: str, error: git.exc.GitCommandError) -> ServiceUnavailable:
    detail = " ".join(str(error.stderr).split()).removeprefix("stderr: ")
    return ServiceUnavailable(f"{what} failed: {detail}")


def init_repository(path: Path) -> GitRepo:
    """Create a new repository (used by `planegate demo`)."""
    repo = git.Repo.init(path, initial_branch="main")
    with repo.config_writer() as writer:
        writer.set_value("user", "name", "planegate demo")
        writer.set_value("user", "email", "demo@planegate.invalid")
        writer.set_value("commit", "gpgsign", "false")
    return GitRepo(path)


def commit_all(repo: GitRepo, message: str) -> str:
    repo._repo.git.add("--all")
    repo._repo.git.commit("--quiet", "--allow-empty", "-m", message)
    return repo.resolve("HEAD")


def checkout(repo: GitRepo, ref: str, create: bool = False) -> None:
    if create:
        repo._repo.git.checkout("--quiet", "-b", ref)
    else:
        repo._repo.git.checkout("--quiet", ref)
