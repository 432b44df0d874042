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
    starts: list[int] = []
    in_decorators = False
    candidates = [0, *(match.end() for match in _START.finditer(text))]
    for position in candidates:
        if position == len(text) or not _starts_statement(text, position):
            continue
        if text.startswith("@", position):
            if not in_decorators:
                starts.append(position)
            in_decorators = True
            continue
        if not in_decorators:
            starts.append(position)
        in_decorators = False
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    out: list[Block] = []
    line = 1
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(text)
        body = text[start:end]
        out.append(Block(start, end, line, _name(body), body.rstrip()))
        line += body.count("\n")
    return out


def _starts_statement(text: str, position: int) -> bool:
    if position:
        return True
    return _START.match("\n" + text[:16]) is not None


def _name(body: str) -> str | None:
    match = _HEADER.search(body)
    if match is None:
        return None
    # The header must be the block's first statement line, not a nested def.
    before = body[: match.start()]
    if before and not before.endswith("\n"):
        return None
    if any(
        not row.startswith("@") and row.strip() and row[0] not in " \t#)]}"
        for row in before.splitlines()
    ):
        return None
    return match.group(1)


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
