"""Fixture sensitivity probe: a fixture test must fail when a byte of its locked file changes.

Which tests read which locked file is found from the test file's source (base version, as
overlaid): a test is taken to read a locked file when the file is named (by its path or its
file name) in the test's own function, in module-level code, or in a function of the file the
test uses (a helper, a fixture it requests), followed through the functions those use.
Every such file is perturbed at once in the overlay (one byte changed) and the passing tests
that name them are run again in one extra session: a test that still passes does not
check its data (an always-true comparison in production code, for one). The tests the patch
flips are always probed; other tests slower than `MAX_SECONDS` are left out, and the rest
only while the probe budget lasts.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from planegate import sourcesize

MAX_SECONDS = 2.0


@dataclass(frozen=True)
class ProbeResult:
    probed: tuple[str, ...] = ()  # nodeids run again with their data perturbed
    survivors: tuple[tuple[str, tuple[str, ...]], ...] = ()  # nodeid, files: still passed


def mentioned(source: str, data_files: Iterable[str]) -> tuple[str, ...]:
    """Locked files a test file names, by path or by whole file name.

    `report.json` inside `planegate-report.json` is another file's name, not a mention.
    """
    return NameIndex(tuple(data_files)).mentioned(source)


_WORD = re.compile(r"[\w.-]+")


class NameIndex:
    """The locked files, indexed once by file name, so a source is scanned once for all."""

    def __init__(self, files: tuple[str, ...]) -> None:
        self.files = files
        self._by_name: dict[str, list[str]] = {}
        self._odd: list[str] = []  # file names with characters a word scan cannot see
        for path in files:
            name = path.rsplit("/", 1)[-1]
            if _WORD.fullmatch(name):
                self._by_name.setdefault(name, []).append(path)
            else:
                self._odd.append(path)

    def mentioned(self, source: str) -> tuple[str, ...]:
        if not self.files:
            return ()
        words = set(_WORD.findall(source))
        found = {path for name in words & self._by_name.keys() for path in self._by_name[name]}
        found.update(path for path in self._odd if _names(source, path))
        found.update(path for path in self.files if path not in found and path in source)
        return tuple(path for path in self.files if path in found)


def _names(source: str, path: str) -> bool:
    if path in source:
        return True
    name = re.escape(path.rsplit("/", 1)[-1])
    return re.search(rf"(?<![\w.-]){name}(?![\w.-])", source) is not None


@dataclass(frozen=True)
class Candidate:
    nodeid: str
    files: tuple[str, ...]


def candidates(
    passed: Mapping[str, float],
    sources: Mapping[str, str],
    data_files: Iterable[str],
    always: Iterable[str] = (),
    budget: float | None = None,
) -> list[Candidate]:
    """`passed`: fixture nodeid -> duration of its passing run; `sources`: test file -> text.

    The nodeids of `always` (the tests the patch flips) come first, whatever their duration;
    then the others under MAX_SECONDS, while their durations add up to at most `budget`.
    Linear in the suite: each test file is scanned once for locked names, and each of its
    definitions once; a nodeid only unions the mentions of the definitions it reaches.
    """
    index = NameIndex(tuple(data_files))
    if not index.files:
        return []
    first = frozenset(always)
    per_file: dict[str, _FileMentions] = {}
    found = []
    spent = 0.0
    for nodeid, duration in sorted(passed.items(), key=lambda item: (item[0] not in first, item)):
        path = nodeid.split("::", 1)[0]
        source = sources.get(path)
        chosen = nodeid in first
        if source is None or not (chosen or _affordable(duration, spent, budget)):
            continue
        if path not in per_file:
            per_file[path] = _FileMentions(source, index)
        named = per_file[path].of(nodeid)
        if named:
            found.append(Candidate(nodeid, named))
            spent += 0.0 if chosen else duration
    return found


def _affordable(duration: float, spent: float, budget: float | None) -> bool:
    return duration < MAX_SECONDS and (budget is None or spent + duration <= budget)


def _parse(source: str) -> ast.Module | None:
    return sourcesize.parse(source)


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


class _FileMentions:
    """Which locked files each part of one test file names, computed once per part."""

    def __init__(self, source: str, index: NameIndex) -> None:
        self._whole = index.mentioned(source)
        self._index = NameIndex(self._whole)
        self._lines = source.splitlines(keepends=True)
        self._tree = _parse(source) if self._whole else None
        self._parts: dict[int, frozenset[str]] = {}
        self._used: dict[int, set[str]] = {}
        self._scope_cache: dict[tuple[str, ...], tuple[frozenset[str], dict[str, ast.stmt]]] = {}
        self._tests: dict[tuple[str, ...], tuple[str, ...]] = {}

    def of(self, nodeid: str) -> tuple[str, ...]:
        if not self._whole:
            return ()
        key = tuple(part.split("[", 1)[0] for part in nodeid.split("::")[1:])
        if key not in self._tests:
            self._tests[key] = self._reach(key)
        return self._tests[key]

    def _reach(self, key: tuple[str, ...]) -> tuple[str, ...]:
        found = _scopes(self._tree, key)
        if found is None:
            return self._whole
        scopes, target = found
        scope_named, functions = self._scope_facts(key[:-1], scopes)
        named = set(scope_named)
        pending, seen = [target], {id(target)}
        while pending:
            node = pending.pop()
            named |= self._part(node)
            for name in self._names_used(node):
                helper = functions.get(name)
                if helper is not None and id(helper) not in seen:
                    seen.add(id(helper))
                    pending.append(helper)
        return tuple(path for path in self._whole if path in named)

    def _scope_facts(
        self, classes: tuple[str, ...], scopes: list[list[ast.stmt]]
    ) -> tuple[frozenset[str], dict[str, ast.stmt]]:
        """What the enclosing bodies' own statements name, and their definitions by name;
        once per class, not once per test."""
        if classes not in self._scope_cache:
            named: set[str] = set()
            for body in scopes:
                named.update(*(self._part(s) for s in body if not isinstance(s, Definition)))
            functions: dict[str, ast.stmt] = {
                s.name: s for body in scopes for s in body if isinstance(s, Definition)
            }
            self._scope_cache[classes] = (frozenset(named), functions)
        return self._scope_cache[classes]

    def _names_used(self, node: ast.AST) -> set[str]:
        if id(node) not in self._used:
            self._used[id(node)] = _names_used(node)
        return self._used[id(node)]

    def _part(self, node: ast.AST) -> frozenset[str]:
        if id(node) not in self._parts:
            first = getattr(node, "lineno", 1) - 1
            last = getattr(node, "end_lineno", None) or first + 1
            text = "".join(self._lines[first:last])
            self._parts[id(node)] = frozenset(self._index.mentioned(text))
        return self._parts[id(node)]


def _scopes(
    tree: ast.Module | None, key: tuple[str, ...]
) -> tuple[list[list[ast.stmt]], ast.stmt] | None:
    """The bodies enclosing a test (module, then its classes) and its definition; None when
    the test is not found, so the whole file counts.

    A test reads data through module-level code, its own function (and its class's own
    statements), and the functions of the file it names, followed through the functions
    they name."""
    if tree is None or not key:
        return None
    scopes: list[list[ast.stmt]] = [tree.body]
    target: ast.stmt | None = None
    for index, name in enumerate(key):
        target = _definition(scopes[-1], name)
        if target is None:
            return None
        if index < len(key) - 1:
            if not isinstance(target, ast.ClassDef):
                return None
            scopes.append(target.body)
    assert target is not None
    return scopes, target


def _definition(body: list[ast.stmt], name: str) -> ast.stmt | None:
    found = None
    for stmt in body:
        if isinstance(stmt, Definition) and stmt.name == name:
            found = stmt  # the last definition is the one pytest collects
    return found


def _names_used(node: ast.AST) -> set[str]:
    """Names and attributes a function uses, and its arguments (fixtures are requested so)."""
    out: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            out.add(child.id)
        elif isinstance(child, ast.Attribute):
            out.add(child.attr)
        elif isinstance(child, ast.arg):
            out.add(child.arg)
    return out


def perturb(data: bytes) -> bytes:
    """The same bytes with one changed: the middle non-space byte, kept printable if it was."""
    if not data:
        return b"x"
    visible = [i for i, byte in enumerate(data) if not chr(byte).isspace()]
    index = visible[len(visible) // 2] if visible else len(data) // 2
    return data[:index] + bytes([_other(data[index])]) + data[index + 1 :]


def _other(byte: int) -> int:
    for low, high in ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)):
        if low <= byte <= high:
            return low + (byte - low + 1) % (high - low + 1)
    if 0x21 <= byte <= 0x7E:
        return ord("x")
    return byte ^ 0x01 if byte >= 0x80 else ord("x")


def perturb_files(tree: Path, files: Iterable[str]) -> None:
    for path in sorted(set(files)):
        target = tree / path
        if target.is_file() and not target.is_symlink():
            target.write_bytes(perturb(target.read_bytes()))


_EVERY = bytes(byte if chr(byte).isspace() else _other(byte) for byte in range(256))


def perturb_all(data: bytes) -> bytes:
    """Every non-space byte changed as `perturb` changes one (its header too): a test that
    checks any part of the file sees it."""
    return data.translate(_EVERY) if data else b"x"
