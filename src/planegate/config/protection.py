"""Which paths are protected evidence, and how they changed between two commits."""

from __future__ import annotations

import configparser
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pathspec.util import normalize_file

from planegate import loading
from planegate.config.defaults import PROTECTED as DEFAULT_PROTECTED
from planegate.config.load import Config
from planegate.config.pathmatch import PathPatterns
from planegate.vocabulary import SCORING_PLANES

# Files protected only in their pytest section: a dependency bump is not a violation.
PYTEST_TABLE_FILES = ("pyproject.toml", "setup.cfg")


def patterns(config: Config) -> list[str]:
    found = [*DEFAULT_PROTECTED, *config.protected, config.path, config.manifest, config.ledger]
    for name in SCORING_PLANES:
        plane = config.planes[name]
        found += [*plane.paths, *plane.admit, *plane.data]
    return found


# What makes a gitignore line more than a literal path (a path ending in a space is cut).
_SPECIAL = frozenset("*?[]\\")


def _literal(path: str) -> bool:
    return not (_SPECIAL & set(path)) and path == path.rstrip(" ") and bool(path)


@dataclass(frozen=True)
class Protection:
    config: Config
    extra: tuple[str, ...] = ()  # e.g. the files of frozen nodeids, wherever they live

    def __post_init__(self) -> None:
        # `/path` lines of literal paths come last, so one of them matching wins over any
        # earlier pattern: a set lookup of the path and its folders gives the same answer as
        # a pattern each, at any number of listed files.
        literal = frozenset(path for path in self.extra if _literal(path))
        lines = [*patterns(self.config), *(f"/{p}" for p in self.extra if p not in literal)]
        object.__setattr__(self, "_spec", PathPatterns(lines))
        object.__setattr__(self, "_literal", literal)

    def covers(self, path: str) -> bool:
        literal: frozenset[str] = self.__dict__["_literal"]
        if literal and _named(normalize_file(path), literal):
            return True
        spec: PathPatterns = self.__dict__["_spec"]
        return bool(spec.match_file(path))

    def select(self, paths: Iterable[str]) -> list[str]:
        return [path for path in paths if self.covers(path)]


def _named(path: str, literal: frozenset[str]) -> bool:
    """`path` or a folder above it is in `literal` (how `/a/b` matches `a/b` and `a/b/c`)."""
    if path in literal:
        return True
    end = path.find("/")
    while end != -1:
        if path[:end] in literal:
            return True
        end = path.find("/", end + 1)
    return False


def parse_toml(data: bytes) -> dict[str, Any] | None:
    """A TOML document, or None when it does not parse."""
    try:
        return loading.toml_value(data.decode("utf-8", "replace"))
    except loading.Problem:
        return None


def pytest_table(path: str, data: bytes | None) -> Any:
    """The pytest configuration held by pyproject.toml or setup.cfg, as a comparable value."""
    if data is None:
        return None
    text = data.decode("utf-8", "replace")
    if path.endswith("pyproject.toml"):
        document = parse_toml(data)
        if document is None:
            return {"unparseable": text}
        tool = document.get("tool", {})
        return tool.get("pytest") if isinstance(tool, dict) else None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {"unparseable": text}
    if not parser.has_section("tool:pytest"):
        return None
    return dict(parser.items("tool:pytest"))


def table_digest_bytes(table: Any) -> bytes:
    return json.dumps(table, sort_keys=True, default=str).encode()


@dataclass(frozen=True)
class ProtectedChange:
    path: str
    status: str  # added, modified, deleted, renamed, pytest-table
    old_path: str | None = None


Reader = Callable[[str, str], "bytes | None"]


def changes(
    protection: Protection,
    changed: Iterable[tuple[str, str, str | None]],
    read: Reader,
    base: str,
    head: str,
) -> list[ProtectedChange]:
    """`changed` is (path, git status letter, old path); `read(commit, path)` gives bytes."""
    found = []
    names = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "T": "modified"}
    for path, status, old in changed:
        if path in PYTEST_TABLE_FILES or path.endswith(("/pyproject.toml", "/setup.cfg")):
            if pytest_table(path, read(base, path)) != pytest_table(path, read(head, path)):
                found.append(ProtectedChange(path, "pytest-table"))
            continue
        if protection.covers(path) or (old is not None and protection.covers(old)):
            found.append(ProtectedChange(path, names.get(status, "modified"), old))
    return found
