"""One commit as git holds it: its file names, and its bytes and hashes read on demand."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from planegate.repo.git import GitRepo

Hasher = Callable[[str], "str | None"]
Reader = Callable[[str], "bytes | None"]
BatchReader = Callable[[Iterable[str]], dict[str, bytes]]


@dataclass(frozen=True)
class Snapshot:
    """What the gate reads of one commit."""

    commit: str
    files: tuple[str, ...]
    read: Reader
    sha256: Hasher
    batch: BatchReader | None = None  # many files at once (one git process for all of them)

    def text(self, path: str) -> str | None:
        """The file decoded as UTF-8 (undecodable bytes replaced), None when it is absent."""
        return decode(self.read(path))

    def read_many(self, paths: Iterable[str]) -> dict[str, bytes]:
        """The bytes of each of `paths` the commit holds; absent files are left out."""
        if self.batch is not None:
            return self.batch(paths)
        return {path: data for path in paths if (data := self.read(path)) is not None}


def decode(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


def snapshot(repo: GitRepo, commit: str) -> Snapshot:
    return Snapshot(
        commit,
        tuple(repo.files(commit)),
        lambda path: repo.read(commit, path),
        lambda path: repo.sha256(commit, path),
        lambda paths: repo.read_many(commit, paths),
    )
