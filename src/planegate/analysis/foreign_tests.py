"""Hunk rules for tests that are not Python (step 5, PG527-PG531), at the level a text view
allows: a skip added (`GTEST_SKIP`, a `DISABLED_` prefix, `t.Skip`, `#[ignore]`, `.skip(`,
`xit(`, a `{ skip: true }` option, a focused `.only(`, a ctest `DISABLED`/`WILL_FAIL`
property), an assertion removed or commented out (`EXPECT_*`/`ASSERT_*`, Catch2's
`REQUIRE`/`CHECK`, `require.`/`assert.`, `t.Error`/`t.Fatal`, `assert!`, `expect(`), a frozen
seed changed, an iteration budget lowered. Each finding names the file and the line.

Lines are compared as text with comments removed (analysis/foreign_lines.py): a rule sees
what a reviewer reading the diff sees, not what the compiler does with macros."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from planegate.analysis.foreign_lines import Line, language, split
from planegate.findings import Finding, Severity, Step

SKIPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GTEST_SKIP", re.compile(r"\bGTEST_SKIP\s*\(")),
    ("a DISABLED_ test", re.compile(r"\b(TEST|TEST_F|TEST_P|TYPED_TEST)\s*\([^)]*\bDISABLED_")),
    ("t.Skip", re.compile(r"\.\s*(Skip|SkipNow|Skipf)\s*\(")),
    ("#[ignore]", re.compile(r"#\s*\[\s*ignore\b")),
    (".skip(", re.compile(r"\.\s*skip\s*\(|\bx(it|describe|test)\s*\(|\.\s*todo\s*\(")),
    (".only(", re.compile(r"\.\s*only\s*\(|\bf(it|describe)\s*\(")),
    ("a Catch2 hidden or may-fail tag", re.compile(r"\"[^\"]*\[(\.|!mayfail|!shouldfail)")),
)
# node:test's and mocha's options object (`test(name, { skip: true }, fn)`): JavaScript only,
# where a `skip:` is not a C or Go label
JS_SKIPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a skip option", re.compile(r"\b(skip|todo)['\"`]?\s*:\s*(?!false\b|undefined\b|null\b)\S")),
    ("an only option", re.compile(r"\bonly['\"`]?\s*:\s*(?!false\b|undefined\b|null\b)\S")),
)
JS_SUFFIXES = frozenset({".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"})
CMAKE_SKIPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("the DISABLED property", re.compile(r"\bDISABLED\s+\"?(TRUE|ON|YES|1)\b", re.I)),
    ("the WILL_FAIL property", re.compile(r"\bWILL_FAIL\s+\"?(TRUE|ON|YES|1)\b", re.I)),
    ("SKIP_RETURN_CODE", re.compile(r"\bSKIP_RETURN_CODE\b")),
)
ASSERTION = re.compile(
    r"\b(EXPECT|ASSERT)_[A-Z_]+\s*\("  # GoogleTest
    r"|\b(REQUIRE|CHECK)(_[A-Z_]+)?\s*\("  # Catch2, doctest
    r"|\b(require|assert)\s*\.\s*\w+\s*\("  # testify, node's assert
    r"|\bt\s*\.\s*(Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\("  # go test
    r"|\b(assert|assert_eq|assert_ne|debug_assert\w*)\s*!\s*\("  # Rust
    r"|\bexpect\s*\("  # jest
    r"|\bassert\s*\("  # C's assert
)
SEEDS = (
    re.compile(r"\bmt19937(?:_64)?\s+\w+\s*[({]\s*([^)}]+?)\s*[)}]"),
    re.compile(r"\b(?:seed_from_u64|srand|NewSource|seed)\s*\(\s*([^)]+?)\s*\)"),
    re.compile(r"\b\w*[sS][eE][eE][dD]\w*\s*(?::\s*[\w:<>]+\s*)?[:=]\s*([\w.']+)"),
)
LOOP_BOUNDS = (
    re.compile(r"\bfor\s*\(?[^;{]*;\s*\w+\s*<=?\s*(\d[\d_']*)\s*;"),  # C, Go, JS
    re.compile(r"\bfor\s+\w+\s+in\s+0\s*\.\.=?\s*(\d[\d_]*)"),  # Rust
    re.compile(r"\b(?:numRuns|with_cases|cases|MinSuccessfulTests|max_examples)\s*[:=(]\s*(\d+)"),
)
BUDGET_NAME = re.compile(
    r"\b(\w*(?:iter|ITER|Iter|case|CASE|Case|run|RUN|Run|trial|TRIAL|Trial|sample|SAMPLE|"
    r"Sample|input|INPUT|Input|count|COUNT|Count)\w*)\s*(?::\s*[\w:<>]+\s*)?=\s*(\d[\d_']*)\s*[;,]?"
)


@dataclass(frozen=True)
class Where:
    """The changed file the findings are about, and whom they name."""

    path: str
    owner: str
    plane: str | None = None

    def finding(self, rule: str, line: int | None, message: str) -> Finding:
        return Finding(
            rule, Step.HUNKS, Severity.ERROR, message, self.path, line, self.owner, self.plane
        )


def analyse(where: Where, base: str, head: str) -> list[Finding]:
    """Every finding of one changed non-Python test file."""
    kind = language(where.path)
    if kind is None:
        return []
    old, new = split(base, kind), split(head, kind)
    if kind == "cmake":
        return _skips(where, old, new, CMAKE_SKIPS)
    skips = (
        (*SKIPS, *JS_SKIPS) if PurePosixPath(where.path).suffix.lower() in JS_SUFFIXES else SKIPS
    )
    return [
        *_skips(where, old, new, skips),
        *_assertions(where, old, new),
        *_seeds(where, old, new),
        *_budgets(where, old, new),
    ]


def _skips(
    where: Where,
    old: list[Line],
    new: list[Line],
    patterns: Iterable[tuple[str, re.Pattern[str]]],
) -> list[Finding]:
    """PG527: a line that skips (or focuses on others) that the base does not have."""
    findings = []
    for label, pattern in patterns:
        before = Counter(line.code for line in old if pattern.search(line.code))
        for line in new:
            if not pattern.search(line.code):
                continue
            if before[line.code] > 0:
                before[line.code] -= 1
                continue
            findings.append(where.finding("PG527", line.number, f"{label} added: {line.code}"))
    return findings


def _assertions(where: Where, old: list[Line], new: list[Line]) -> list[Finding]:
    """PG529: an assertion of the base now in a comment; PG528: fewer assertions than the
    base, each base line gone named (by its line on the base)."""
    kept = Counter(line.code for line in new if ASSERTION.search(line.code))
    commented = {_squash(line.comment): line for line in new if ASSERTION.search(line.comment)}
    findings: list[Finding] = []
    gone: list[Line] = []
    for line in old:
        if not ASSERTION.search(line.code):
            continue
        if kept[line.code] > 0:
            kept[line.code] -= 1
            continue
        hidden = commented.pop(_squash(line.code), None)
        if hidden is not None:
            message = f"assertion commented out: {line.code}"
            findings.append(where.finding("PG529", hidden.number, message))
        else:
            gone.append(line)
    before = sum(len(ASSERTION.findall(line.code)) for line in old)
    after = sum(len(ASSERTION.findall(line.code)) for line in new)
    if after < before:
        for line in gone[: before - after]:
            message = f"assertion removed (line {line.number} of the base): {line.code}"
            findings.append(where.finding("PG528", head_line(old, new, line.number), message))
    return findings


def head_line(old: list[Line], new: list[Line], number: int) -> int:
    """Where the base's line `number` went on the head: its own line when it stayed, else the
    line of the head where the hunk that removed it is (the line after it, at most the last)."""
    matcher = difflib.SequenceMatcher(None, [x.code for x in old], [x.code for x in new], False)
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if i1 < number <= i2 or (tag == "delete" and i1 == number - 1):
            offset = number - 1 - i1 if tag == "equal" else 0
            return min(j1 + offset + 1, max(len(new), 1))
    return max(len(new), 1)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _seeds(where: Where, old: list[Line], new: list[Line]) -> list[Finding]:
    """PG530: the base's frozen seeds, in order, changed or gone on the head."""
    before, after = _values(old, SEEDS), _values(new, SEEDS)
    findings = []
    for index, (_, value) in enumerate(before):
        if index >= len(after):
            message = f"frozen seed {value} removed"
            findings.append(where.finding("PG530", head_line(old, new, before[index][0]), message))
        elif after[index][1] != value:
            line, now = after[index]
            findings.append(where.finding("PG530", line, f"frozen seed {value} changed to {now}"))
    return findings


def _values(lines: list[Line], patterns: Iterable[re.Pattern[str]]) -> list[tuple[int, str]]:
    found = []
    for line in lines:
        for pattern in patterns:
            match = pattern.search(line.code)
            if match:
                found.append((line.number, _squash(match.group(1))))
                break
    return found


def _budgets(where: Where, old: list[Line], new: list[Line]) -> list[Finding]:
    """PG531: a loop bound (by its order in the file) or a named budget (by its name) lower on
    the head than on the base."""
    findings = []
    before, after = _values(old, LOOP_BOUNDS), _values(new, LOOP_BOUNDS)
    for (_, was), (number, now) in zip(before, after, strict=False):
        if _number(now) < _number(was):
            message = f"iteration budget lowered from {was} to {now}"
            findings.append(where.finding("PG531", number, message))
    named = {m.group(1): _number(m.group(2)) for line in old for m in _budget_names(line)}
    for line in new:
        for match in _budget_names(line):
            was_value = named.get(match.group(1))
            if was_value is not None and _number(match.group(2)) < was_value:
                message = (
                    f"iteration budget {match.group(1)} lowered from {was_value} "
                    f"to {_number(match.group(2))}"
                )
                findings.append(where.finding("PG531", line.number, message))
    return findings


def _budget_names(line: Line) -> list[re.Match[str]]:
    return list(BUDGET_NAME.finditer(line.code))


def _number(text: str) -> int:
    digits = text.replace("_", "").replace("'", "")
    return int(digits) if digits.isdigit() else 0
