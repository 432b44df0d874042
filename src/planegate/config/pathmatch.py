"""Gitignore-style path patterns, matched as pathspec's GitIgnoreSpec matches them, with the
literal lines (a path, a folder, a bare name) answered by set lookups.

A configuration names its fixture data file by file (`planegate init` writes one line per
golden): hundreds of lines, each a regular expression to pathspec, asked of every file of a
commit. Without a negation (`!`) a path matches when any line does, so the literal lines can
be looked up instead; with one, the order of the lines decides and pathspec answers alone.
"""

from __future__ import annotations

from collections.abc import Iterable

import pathspec
from pathspec.util import normalize_file

# What makes a gitignore line more than a literal path (a path ending in a space is cut).
_SPECIAL = frozenset("*?[]\\")


class PathPatterns:
    """`match_file(path)` as `pathspec.GitIgnoreSpec.from_lines(lines).match_file(path)`."""

    def __init__(self, lines: Iterable[str]) -> None:
        lines = list(lines)
        self.anchored: set[str] = set()  # `a/b`, `/a`: the path itself or a folder above it
        self.anchored_dirs: set[str] = set()  # `a/b/`: a folder above the path
        self.names: set[str] = set()  # `name`: any part of the path
        self.dir_names: set[str] = set()  # `name/`: any folder of the path
        if any(line.startswith("!") for line in lines):
            rest = lines
        else:
            rest = [line for line in lines if not self._literal(line)]
        self.spec = pathspec.GitIgnoreSpec.from_lines(rest) if rest else None

    def _literal(self, line: str) -> bool:
        """File a literal line in its set; False for a line pathspec must read."""
        if not line or line.startswith("#") or _SPECIAL & set(line) or line != line.rstrip(" "):
            return False
        folder = line.endswith("/")
        body = line[:-1] if folder else line
        anchored = body.startswith("/") or "/" in body
        body = body.removeprefix("/")
        if not body or any(part in ("", ".", "..") for part in body.split("/")):
            return False
        if anchored:
            (self.anchored_dirs if folder else self.anchored).add(body)
        else:
            (self.dir_names if folder else self.names).add(body)
        return True

    def match_file(self, path: str) -> bool:
        path = normalize_file(path)
        if (self.anchored or self.anchored_dirs) and _anchored(self, path):
            return True
        if self.names or self.dir_names:
            parts = path.split("/")
            if not self.names.isdisjoint(parts) or not self.dir_names.isdisjoint(parts[:-1]):
                return True
        return self.spec is not None and bool(self.spec.match_file(path))


def _anchored(patterns: PathPatterns, path: str) -> bool:
    """`path` is an anchored line, or a folder above it is (a folder line only that)."""
    if path in patterns.anchored:
        return True
    end = path.find("/")
    while end != -1:
        folder = path[:end]
        if folder in patterns.anchored or folder in patterns.anchored_dirs:
            return True
        end = path.find("/", end + 1)
    return False
