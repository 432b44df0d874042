"""Fixture sensitivity probe: a fixture test must fail when a byte of its locked file changes.

Which tests read which locked file is found from the test file's source (base version, as
overlaid): a test is taken to read a locked file when the file is named (by its path or its
file name) in the test's own function, in module-level code, or in a function of the file the
test uses (a helper, a fixture it requests), followed through the functions those use.
Every such file is perturbed at once in the overlay (one byte changed) and the passing tests
that name them are run again in one extra session: a test that still passes does not
check its data (an always-true comparison in production code, for one). Tests slower than
`MAX_SECONDS` are left out to keep the probe cheap.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

MAX_SECONDS = 2.0


@dataclass(frozen=True)
class ProbeResult:
    probed: tuple[str, ...] = ()  # nodeids run again with their data perturbed
    survivors: tuple[tuple[str, tuple[str, ...]], ...] = ()  # nodeid, files: still passed


def mentioned(source: str, data_files: Iterable[str]) -> tuple[str, ...]:
    """Locked files a test file names, by path or by whole file name.

    `report.json` inside `planegate-report.json` is another file's name, not a mention.
    """
    return tuple(path for path in data_files if _names(source, path))


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
    passed: Mapping[str, float], sources: Mapping[str, str], data_files: Iterable[str]
) -> list[Candidate]:
    """`passed`: fixture nodeid -> duration of its passing run; `sources`: test file -> text."""
    files = tuple(data_files)
    trees: dict[str, ast.Module | None] = {}
    found = []
    for nodeid, duration in sorted(passed.items()):
        path = nodeid.split("::", 1)[0]
        source = sources.get(path)
        if source is None or duration >= MAX_SECONDS:
            continue
        if path not in trees:
            trees[path] = _parse(source)
        named = mentioned(reachable_source(source, trees[path], nodeid), files)
        if named:
            found.append(Candidate(nodeid, named))
    return found


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def reachable_source(source: str, tree: ast.Module | None, nodeid: str) -> str:
    """The parts of a test file a test can read data through: module-level code, its own
    function (and its class's own statements), and the functions of the file it names,
    followed through the functions they name. The whole file when the test is not found."""
    if tree is None:
        return source
    path = [part.split("[", 1)[0] for part in nodeid.split("::")[1:]]
    scopes: list[list[ast.stmt]] = [tree.body]
    target: ast.stmt | None = None
    for index, name in enumerate(path):
        found = _definition(scopes[-1], name)
        if found is None:
            return source
        if index < len(path) - 1:
            if not isinstance(found, ast.ClassDef):
                return source
            scopes.append(found.body)
        target = found
    if target is None:
        return source
    chosen: list[ast.AST] = [
        stmt for body in scopes for stmt in body if not isinstance(stmt, Definition)
    ]
    functions = {
        stmt.name: stmt for body in scopes for stmt in body if isinstance(stmt, Definition)
    }
    pending, seen = [target], {id(target)}
    while pending:
        node = pending.pop()
        chosen.append(node)
        for name in _names_used(node):
            helper = functions.get(name)
            if helper is not None and id(helper) not in seen:
                seen.add(id(helper))
                pending.append(helper)
    return "\n".join(ast.get_source_segment(source, node) or "" for node in chosen)


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
