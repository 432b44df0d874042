"""Which paths are protected evidence, and how they changed between two commits."""

from __future__ import annotations

import configparser
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pathspec

from planegate import loading
from planegate.config.defaults import PROTECTED as DEFAULT_PROTECTED
from planegate.config.load import Config
from planegate.vocabulary import SCORING_PLANES

# Files protected only in their pytest section: a dependency bump is not a violation.
PYTEST_TABLE_FILES = ("pyproject.toml", "setup.cfg")


def patterns(config: Config) -> list[str]:
    found = [*DEFAULT_PROTECTED, *config.protected, config.path, config.manifest, config.ledger]
    for name in SCORING_PLANES:
        plane = config.planes[name]
        found += [*plane.paths, *plane.data]
    return found


@dataclass(frozen=True)
class Protection:
    config: Config
    extra: tuple[str, ...] = ()  # e.g. the files of frozen nodeids, wherever they live

    def __post_init__(self) -> None:
        lines = [*patterns(self.config), *(f"/{path}" for path in self.extra)]
        object.__setattr__(self, "_spec", pathspec.GitIgnoreSpec.from_lines(lines))

    def covers(self, path: str) -> bool:
        spec: pathspec.GitIgnoreSpec = self.__dict__["_spec"]
        return bool(spec.match_file(path))

    def select(self, paths: Iterable[str]) -> list[str]:
        return [path for path in paths if self.covers(path)]


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
