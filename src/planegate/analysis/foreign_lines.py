"""Source lines of a test written in another language (C and C++, Go, Rust, JavaScript and
TypeScript, CMake), split into code and comment: the text view the non-Python hunk rules
(analysis/foreign_tests.py) compare. No parser: strings are not tracked, so a `//` inside a
string literal ends the code part early (a rule may then miss that line, never invent one)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

C_LIKE = frozenset(
    {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".go", ".rs"}
    | {".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"}
)
CMAKE = frozenset({".cmake"})
TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "testing", "unittests"})
TEST_NAME = re.compile(r"(^test_|_test\.|_tests\.|\.test\.|\.spec\.|^test\.|Test\.|Tests\.)")
_IF_ZERO = re.compile(r"^\s*#\s*if\s+(0|false)\b")
_IF_ANY = re.compile(r"^\s*#\s*if")
_ENDIF = re.compile(r"^\s*#\s*endif\b")


@dataclass(frozen=True)
class Line:
    """One line: its number, its code (comments removed) and its comment text."""

    number: int
    code: str
    comment: str


def language(path: str) -> str | None:
    """`c` (any brace language with // and /* */ comments), `cmake`, or None."""
    name = PurePosixPath(path).name
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in C_LIKE:
        return "c"
    if suffix in CMAKE or name == "CMakeLists.txt":
        return "cmake"
    return None


def is_foreign_test(path: str, protected: bool) -> bool:
    """A file the non-Python rules read: a source in one of their languages that is protected
    evidence, or lies in a test folder or has a test's name (Rust's tests live beside the code
    they test, so every Rust file is read)."""
    kind = language(path)
    if kind is None:
        return False
    parts = PurePosixPath(path).parts
    named = bool(TEST_NAME.search(parts[-1])) or any(p.lower() in TEST_FOLDERS for p in parts)
    return protected or named or path.endswith(".rs")


def split(text: str, kind: str) -> list[Line]:
    """Every line as code and comment; `#if 0` blocks of C count as comments."""
    if kind == "cmake":
        return [_cmake_line(number, raw) for number, raw in enumerate(text.splitlines(), 1)]
    lines: list[Line] = []
    in_block = False
    dead = 0  # depth of #if 0 blocks (and of #if blocks nested in them)
    for number, raw in enumerate(text.splitlines(), 1):
        if dead:
            dead += 1 if _IF_ANY.match(raw) else -1 if _ENDIF.match(raw) else 0
            lines.append(Line(number, "", raw.strip()))
            continue
        if _IF_ZERO.match(raw):
            dead = 1
            lines.append(Line(number, "", raw.strip()))
            continue
        code, comment, in_block = _c_line(raw, in_block)
        lines.append(Line(number, code.strip(), comment.strip()))
    return lines


def _cmake_line(number: int, raw: str) -> Line:
    code, _, comment = raw.partition("#")
    return Line(number, code.strip(), comment.strip())


def _c_line(raw: str, in_block: bool) -> tuple[str, str, bool]:
    code: list[str] = []
    comment: list[str] = []
    rest = raw
    while rest:
        if in_block:
            end = rest.find("*/")
            if end < 0:
                comment.append(rest)
                return "".join(code), " ".join(comment), True
            comment.append(rest[:end])
            rest, in_block = rest[end + 2 :], False
            continue
        line_at, block_at = rest.find("//"), rest.find("/*")
        if line_at >= 0 and (block_at < 0 or line_at < block_at):
            code.append(rest[:line_at])
            comment.append(rest[line_at + 2 :])
            break
        if block_at >= 0:
            code.append(rest[:block_at])
            rest, in_block = rest[block_at + 2 :], True
            continue
        code.append(rest)
        break
    return "".join(code), " ".join(comment), in_block
