"""Skip what did not change: top-level `def`/`class` blocks whose text is the same on both
sides are blanked out before parsing, so the cost follows the size of the change.

This is only used when every import-time statement is identical on both sides (so the facts
of an unchanged function cannot differ), and the caller falls back to parsing the whole file
when the blanked sources do not parse or a changed block shares a name with a blanked one.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_HEADER = re.compile(r"(?:async[ \t]+def|def|class)[ \t]+([A-Za-z_]\w*)")
# Lines at column 0 that may start a top-level statement: not indented, not a comment, not a
# closing bracket, string or continuation; `else:`/`except:` lines continue the statement above.
_START = re.compile(r"\n(?![ \t#)\]}\"'\f\\\n]|(?:else|elif|except|finally)\b)")


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    line: int
    name: str | None
    text: str


@dataclass(frozen=True)
class Sparse:
    base: str
    head: str
    # Module-level functions that assert, per side: calls to them still count as asserts.
    base_helpers: frozenset[str]
    head_helpers: frozenset[str]


def blocks(text: str) -> list[Block]:
    # (start of the block, start of its first statement after any decorators)
    spans: list[list[int]] = []
    in_decorators = False
    candidates = [m.end() for m in _START.finditer(text)]
    if _starts_statement(text):
        candidates.insert(0, 0)
    for position in candidates:
        if position == len(text):
            continue
        if text.startswith("@", position):
            if not in_decorators:
                spans.append([position, -1])
            in_decorators = True
            continue
        if in_decorators:
            spans[-1][1] = position
        else:
            spans.append([position, position])
        in_decorators = False
    if not spans or spans[0][0] != 0:
        spans.insert(0, [0, -1])
    out: list[Block] = []
    line = 1
    header = _HEADER.match
    for number, (start, statement) in enumerate(spans):
        end = spans[number + 1][0] if number + 1 < len(spans) else len(text)
        body = text[start:end]
        found = header(text, statement, end) if statement >= 0 else None
        out.append(Block(start, end, line, found.group(1) if found else None, body.rstrip()))
        line += body.count("\n")
    return out


def _starts_statement(text: str) -> bool:
    return _START.match("\n" + text[:16]) is not None


def sparsify(base: str, head: str) -> Sparse | None:
    base_blocks, head_blocks = blocks(base), blocks(head)
    base_context = [b.text for b in base_blocks if b.name is None]
    head_context = [b.text for b in head_blocks if b.name is None]
    if base_context != head_context:
        return None
    common = Counter(b.text for b in base_blocks if b.name) & Counter(
        b.text for b in head_blocks if b.name
    )
    base_out, base_blanked, base_changed = _blank(base, base_blocks, Counter(common))
    head_out, head_blanked, head_changed = _blank(head, head_blocks, Counter(common))
    if (base_blanked | head_blanked) & (base_changed | head_changed):
        return None
    return Sparse(base_out, head_out, _helpers(base_blocks), _helpers(head_blocks))


def _blank(text: str, found: list[Block], common: Counter[str]) -> tuple[str, set[str], set[str]]:
    """Blank the blocks both sides share; return the text, blanked names and changed names."""
    pieces: list[str] = []
    blanked: set[str] = set()
    changed: set[str] = set()
    for block in found:
        piece = text[block.start : block.end]
        if block.name is not None and common[block.text] > 0:
            common[block.text] -= 1
            pieces.append("\n" * piece.count("\n"))
            blanked.add(block.name)
        else:
            pieces.append(piece)
            if block.name is not None:
                changed.add(block.name)
    return "".join(pieces), blanked, changed


def _helpers(found: list[Block]) -> frozenset[str]:
    return frozenset(
        block.name
        for block in found
        if block.name and not block.name.startswith("test") and "assert" in block.text
    )
