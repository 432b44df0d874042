"""Fixture sensitivity probe: a fixture test must fail when a byte of its locked file changes.

Which tests read which locked file is found from the test file's source (base version, as
overlaid): a test file that names a locked file (its path or its file name) is taken to read
it. Every such file is perturbed at once in the overlay (one byte changed) and the passing
tests that name them are run again in one extra session: a test that still passes does not
check its data (an always-true comparison in production code, for one). Tests slower than
`MAX_SECONDS` are left out to keep the probe cheap.
"""

from __future__ import annotations

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
    found = []
    for nodeid, duration in sorted(passed.items()):
        source = sources.get(nodeid.split("::", 1)[0])
        if source is None or duration >= MAX_SECONDS:
            continue
        named = mentioned(source, files)
        if named:
            found.append(Candidate(nodeid, named))
    return found


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
