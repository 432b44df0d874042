"""Skip what did not change: top-level `def`/`class` blocks whose text is the same on both
sides are blanked out before parsing, so the cost follows the size of the change.

This is only used when every import-time statement is identical on both sides (so the facts
of an unchanged function cannot differ), and the caller falls back to parsing the whole file
when the blanked sources do not parse or a changed block shares a name with a blanked one.

The base is cut into blocks whole; the head only where it differs from the base, the blocks
it starts and ends with being the base's (and what the base's say about both sides, once).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

# Lines at column 0 that may start a top-level statement: not indented, not a comment, not a
# closing bracket, string or continuation; `else:`/`except:` lines continue the statement above.
# Group 1: the line is a decorator; group 2: the name of the `def` or `class` it starts.
_START = re.compile(
    r"\n(?![ \t#)\]}\"'\f\\\n]|(?:else|elif|except|finally)\b)"
    r"(?:(@)|(?:async[ \t]+def|def|class)[ \t]+([A-Za-z_]\w*))?"
)


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    line: int
    name: str | None
    text: str


class Sparse(NamedTuple):
    base: str
    head: str
    # Module-level functions that assert, per side: calls to them still count as asserts.
    base_helpers: frozenset[str]
    head_helpers: frozenset[str]
    # The length of the text both sides start with that holds every import-time block (the
    # imports at the top, usually), 0 when there is no such text.
    header: int = 0


def blocks(text: str) -> list[Block]:
    out: list[Block] = []
    line = 1
    for start, end, name, body, raw in _cut(text):
        out.append(Block(start, end, line, name, body))
        line += raw.count("\n")
    return out


# A block: where it starts and ends, the name of its def or class (None: neither), its text
# without trailing whitespace (what is compared) and its text.
_Cut = tuple[int, int, str | None, str, str]


def _cut(text: str) -> list[_Cut]:
    """The blocks of `text`: each starts with its decorators; the first one, at 0, may be
    made of lines no statement starts on."""
    return _cut_range(text, 0, len(text))[0]


def _cut_range(text: str, begin: int, stop: int) -> tuple[list[_Cut], bool]:
    """The blocks of `text[begin:stop]`, where `begin` is 0 or a block's start and `stop` the
    end or a line's start; and whether decorators there still wait for their statement."""
    out: list[_Cut] = []
    start, name = begin, None  # the block being read
    in_decorators = False
    # The newline in front lets the first line start a block like any other; it also shifts
    # every match one place, so a match's start is its line's start in `text`.
    for match in _START.finditer("\n" + text, begin):
        position = match.start()
        if position >= stop:
            break
        decorator = match.lastindex == 1
        if decorator and in_decorators:
            continue
        if in_decorators:  # the statement the decorators are on
            name = match.group(2)
        else:
            if position != begin:
                raw = text[start:position]
                out.append((start, position, name, raw.rstrip(), raw))
            start, name = position, None if decorator else match.group(2)
        in_decorators = decorator
    raw = text[start:stop]
    out.append((start, stop, name, raw.rstrip(), raw))
    return out, in_decorators


def sparsify(base: str, head: str) -> Sparse | None:
    base_blocks = _cut(base)
    parts = _parts(base, head, base_blocks)
    if parts is None:
        return _sparse(base, head, base_blocks, _cut(head))
    return _sparse_parts(base, head, base_blocks, parts)


def _sparse(
    base: str, head: str, base_blocks: list[_Cut], head_blocks: list[_Cut]
) -> Sparse | None:
    """Both sides blanked, from all their blocks; None when their import-time blocks differ or
    a changed def or class shares a name with a blanked one."""
    blanked = _blank_both(base_blocks, head_blocks, frozenset())
    if blanked is None:
        return None
    base_out, head_out = blanked
    header = _shared_header(base, head, base_blocks, head_blocks)
    return Sparse(base_out, head_out, _helpers(base_blocks), _helpers(head_blocks), header)


class _Parts(NamedTuple):
    """Both sides as the blocks they share before the change, the blocks of the change on
    each side, and the blocks they share after it (in the base's places, `shift` before the
    head's)."""

    before: list[_Cut]
    base: list[_Cut]
    head: list[_Cut]
    after: list[_Cut]
    shift: int


def _parts(base: str, head: str, found: list[_Cut]) -> _Parts | None:
    """The base's blocks the head starts and ends with, and the head's blocks in between;
    None when the head has to be cut whole (decorators just before the shared end)."""
    first = _shared_before(head, found)
    shift = len(head) - len(base)
    begin = found[first][0]
    last = len(found)
    while last > first and _same_block(head, found[last - 1], shift):
        last -= 1
    while last < len(found) and found[last][0] + shift < begin:
        last += 1  # the two runs overlap in the head
    stop = found[last][0] + shift if last < len(found) else len(head)
    middle: list[_Cut] = []
    if begin < stop or last == len(found):  # (an empty head has one, empty, block)
        middle, waiting = _cut_range(head, begin, stop)
        if waiting and last < len(found):
            return None  # they would take the first shared block's name
    return _Parts(found[:first], found[first:last], middle, found[last:], shift)


def _shared_before(head: str, found: list[_Cut]) -> int:
    """How many of the base's blocks start the head as they are. A block is only known to
    end in the head where it ends in the base when the line after it (the next block's first
    one, complete) is the same too."""
    same = 0
    for start, _, _, _, raw in found:
        if not head.startswith(raw, start):
            break
        same += 1
    first = max(same - 1, 0)
    if first and first == len(found) - 1 and "\n" not in found[first][4]:
        first -= 1  # the base's last line goes on in the head
    return first


def _same_block(head: str, block: _Cut, shift: int) -> bool:
    """Whether `block` is in the head as it is, `shift` on, after the same newline."""
    start, _, _, _, raw = block
    moved = start + shift
    return start > 0 and moved > 0 and head.startswith(raw, moved) and head[moved - 1] == "\n"


def _sparse_parts(base: str, head: str, base_blocks: list[_Cut], parts: _Parts) -> Sparse | None:
    """`_sparse` on the change alone: the blocks both sides share around it are blanked (the
    defs and classes) or kept (the rest) on both."""
    before, base_middle, head_middle, after, shift = parts
    moved = [(start + shift, end + shift, name, body, raw) for start, end, name, body, raw in after]
    head_blocks = before + head_middle + moved
    start_out, start_names, start_texts, start_helpers = _blank_all(before)
    end_out, end_names, end_texts, end_helpers = _blank_all(after)
    if _repeats(base_middle, start_texts, end_texts) or _repeats(
        head_middle, start_texts, end_texts
    ):
        return _sparse(base, head, base_blocks, head_blocks)  # a text repeats: count them all
    blanked = _blank_both(base_middle, head_middle, start_names | end_names)
    if blanked is None:
        return None
    base_out, head_out = blanked
    header = _shared_header(base, head, base_blocks, head_blocks)
    helpers = start_helpers | end_helpers
    return Sparse(
        start_out + base_out + end_out,
        start_out + head_out + end_out,
        helpers | _helpers(base_middle),
        helpers | _helpers(head_middle),
        header,
    )


def _blank_both(
    base_blocks: list[_Cut], head_blocks: list[_Cut], also_blanked: set[str] | frozenset[str]
) -> tuple[str, str] | None:
    """The two sides with their shared defs and classes blanked; None when their import-time
    blocks differ or a changed def or class shares a name with a blanked one (`also_blanked`
    names more of those)."""
    base_context = [body for _, _, name, body, _ in base_blocks if name is None]
    head_context = [body for _, _, name, body, _ in head_blocks if name is None]
    if base_context != head_context:
        return None
    common = _common(base_blocks, head_blocks)
    base_out, base_blanked, base_changed = _blank(base_blocks, dict(common))
    head_out, head_blanked, head_changed = _blank(head_blocks, common)
    if (base_blanked | head_blanked | also_blanked) & (base_changed | head_changed):
        return None
    return base_out, head_out


def _blank_all(found: list[_Cut]) -> tuple[str, set[str], set[str], frozenset[str]]:
    """`_blank` of blocks whose defs and classes are all shared: the text, their names, their
    texts and `_helpers`."""
    pieces: list[str] = []
    names: set[str] = set()
    texts: set[str] = set()
    for _, _, name, body, raw in found:
        if name is None:
            pieces.append(raw)
        else:
            pieces.append("\n" * raw.count("\n"))
            names.add(name)
            texts.add(body)
    return "".join(pieces), names, texts, _helpers(found) if names else frozenset()


def _repeats(found: list[_Cut], *texts: set[str]) -> bool:
    """Whether a def or class of `found` has one of `texts`."""
    for _, _, name, body, _ in found:
        if name is not None and any(body in some for some in texts):
            return True
    return False


def _shared_header(base: str, head: str, base_blocks: list[_Cut], head_blocks: list[_Cut]) -> int:
    header = _header(base, base_blocks)
    if header != _header(head, head_blocks) or base[:header] != head[:header]:
        header = 0
    return header


def _header(text: str, found: list[_Cut]) -> int:
    """The length of the leading run of blocks that are not a def or class, when none of
    them comes after one (else 0)."""
    end = -1  # where the first def or class starts
    for start, _, name, _, _ in found:
        if name is not None:
            end = start if end < 0 else end
        elif end >= 0:
            return 0
    return len(text) if end < 0 else end


def _counts(items: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def _common(base: list[_Cut], head: list[_Cut]) -> dict[str, int]:
    """How many times each def or class text is on both sides."""
    left = _counts(body for _, _, name, body, _ in base if name)
    common: dict[str, int] = {}
    for _, _, name, body, _ in head:
        if name and left.get(body, 0) > 0:
            left[body] -= 1
            common[body] = common.get(body, 0) + 1
    return common


def _blank(found: list[_Cut], common: dict[str, int]) -> tuple[str, set[str], set[str]]:
    """Blank the blocks both sides share (counting them off `common`); return the text, blanked
    names and changed names."""
    pieces: list[str] = []
    blanked: set[str] = set()
    changed: set[str] = set()
    for _, _, name, body, raw in found:
        if name is not None and common.get(body, 0) > 0:
            common[body] -= 1
            pieces.append("\n" * raw.count("\n"))
            blanked.add(name)
        else:
            pieces.append(raw)
            if name is not None:
                changed.add(name)
    return "".join(pieces), blanked, changed


def _helpers(found: list[_Cut]) -> frozenset[str]:
    return frozenset(
        name
        for _, _, name, body, _ in found
        if name and not name.startswith("test") and "assert" in body
    )
