"""The production-code answers' constants worked out ahead (beside the head's test child):
the hunks step's check then reads them back instead of parsing the files again, and gets the
same set it would have worked out itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from planegate.gitfacts import GitFacts
from planegate.probes.in_code import findings as in_code
from planegate.probes.in_code import scan


@dataclass(frozen=True)
class _Map:
    planes: frozenset[str]

    def is_plane_file(self, path: str) -> bool:
        return path in self.planes


@dataclass(frozen=True)
class _Protection:
    protected: frozenset[str]

    def covers(self, path: str) -> bool:
        return path in self.protected


@dataclass(frozen=True)
class _Cfg:
    max_file_bytes: int = 10_000


@dataclass(frozen=True)
class _Facts:
    """What `tokens_ahead` reads of the gate's git facts (no git)."""

    plane_map: _Map
    protection: _Protection
    cfg: _Cfg


FACTS = cast(
    GitFacts,
    _Facts(_Map(frozenset({"src/data_plane.py"})), _Protection(frozenset({"src/kept.py"})), _Cfg()),
)


def _text(n: int) -> tuple[str, str]:
    base = f"LIMIT_{n} = {n}\n"
    return base, base + f"ANSWER_{n} = 'the answer is {n * 7} items'\n"


def test_the_constants_worked_out_ahead_are_read_back_as_they_would_be_worked_out() -> None:
    base, head = _text(4101)
    in_code.tokens_ahead(FACTS, [("src/calc.py", base, head)])
    hits = scan._added_tokens.cache_info().hits
    first = scan.added_tokens(base, head)
    assert scan._added_tokens.cache_info().hits == hits + 1  # not parsed again
    assert first == {"the answer is 28707 items"}
    first.add("changed by its reader")
    assert scan.added_tokens(base, head) == {"the answer is 28707 items"}  # a copy each time
    assert scan.added_tokens(None, head) == {"4101", "the answer is 28707 items"}


def test_only_the_files_the_check_scans_are_worked_out_ahead() -> None:
    skipped = {
        "tests/test_calc.py": _text(4102),  # a test file: the hunks analysis reads it
        "src/data_plane.py": _text(4103),  # a plane's file
        "src/kept.py": _text(4104),  # protected: restored from the base
        "README.md": _text(4105),  # not Python
    }
    too_big = ("src/big.py", "", "X = 'a long answer for a file'\n" + "#" * 10_001)
    deleted = ("src/gone.py", "X = 1\n", None)
    changed = [(path, base, head) for path, (base, head) in skipped.items()]
    misses = scan._added_tokens.cache_info().misses
    in_code.tokens_ahead(FACTS, [*changed, too_big, deleted])
    assert scan._added_tokens.cache_info().misses == misses
