"""One commit as git holds it: its file names, and its bytes and hashes read on demand."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from planegate.repo.git import GitRepo

Hasher = Callable[[str], "str | None"]
Reader = Callable[[str], "bytes | None"]


@dataclass(frozen=True)
class Snapshot:
    """What the gate reads of one commit."""

    commit: str
    files: tuple[str, ...]
    read: Reader
    sha256: Hasher

    def text(self, path: str) -> str | None:
        """The file decoded as UTF-8 (undecodable bytes replaced), None when it is absent."""
        return decode(self.read(path))


def decode(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


def snapshot(repo: GitRepo, commit: str) -> Snapshot:
    return Snapshot(
        commit,
        tuple(repo.files(commit)),
        lambda path: repo.read(commit, path),
        lambda path: repo.sha256(commit, path),
    )
