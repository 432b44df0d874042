"""Write a commit's tree into a plain folder: bytes exactly as git stores them.

The folder has no `.git` and no link back to the repository, so code run in it cannot
write the gated repository's refs, hooks or config. Blobs are written raw: no
`.gitattributes` filter, end-of-line conversion or `export-ignore` can change them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from planegate.errors import InputDataError

Kind = Literal["file", "executable", "symlink", "submodule"]


@dataclass(frozen=True)
class TreeEntry:
    """One entry of a commit's tree. `data` is a file's bytes or a symlink's target."""

    path: str
    kind: Kind
    data: bytes = b""


def parts_of(path: str) -> tuple[str, ...]:
    """The path's components; a name git itself refuses (`..`, `.git`, empty) is an error."""
    parts = tuple(path.split("/"))
    for part in parts:
        if part in ("", ".", "..") or part.lower() == ".git" or "\0" in part:
            raise InputDataError(f"the commit's tree holds a path git refuses: {path!r}")
    return parts


def write_tree(target: Path, entries: Iterable[TreeEntry]) -> int:
    """Write every entry under `target` (an empty folder); returns how many were written."""
    links: set[tuple[str, ...]] = set()
    written = 0
    for entry in entries:
        parts = parts_of(entry.path)
        if any(parts[:depth] in links for depth in range(1, len(parts) + 1)):
            raise InputDataError(f"the commit's tree holds {entry.path!r} twice or under a link")
        dest = target.joinpath(*parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        _write(dest, entry)
        if entry.kind == "symlink":
            links.add(parts)
        written += 1
    return written


def _write(dest: Path, entry: TreeEntry) -> None:
    if entry.kind == "symlink":
        os.symlink(os.fsdecode(entry.data), dest)
    elif entry.kind == "submodule":
        dest.mkdir(exist_ok=True)  # like a worktree without `submodule update`: empty
    else:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        mode = 0o755 if entry.kind == "executable" else 0o644
        fd = os.open(dest, flags, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(entry.data)
