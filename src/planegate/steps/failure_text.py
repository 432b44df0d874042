"""The one line a failing test's finding carries: pytest's assertion, with a real difference
when pytest's own shortening made the two sides print alike.

pytest shortens long operands (`'apple x2  20...xxxxx' == 'apple x2  20...xxxxx'`), so two
different strings can read the same; the diff it prints below (`- ` lines are the right-hand
side, `+ ` lines the left) says where they part. That first differing pair is added."""

from __future__ import annotations

MAX_LINE = 200
MAX_SIDE = 55  # two sides and the words around them leave 40 characters of the assertion


def first_line(message: str) -> str:
    """pytest's first `E` line (the assertion, not the diff hints after it), else the last
    line; when its two sides read alike, the first line where they differ."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    errors = [line[2:].strip() for line in lines if line.startswith("E ")]
    if not errors:
        return lines[-1][:MAX_LINE] if lines else ""
    head = errors[0]
    if not _reads_alike(head):
        return head[:MAX_LINE]
    left, right = _first_difference(errors[1:])
    if left is None or right is None:
        return head[:MAX_LINE]
    where = f" (first difference: left {_side(left)}, right {_side(right)})"
    return head[: max(40, MAX_LINE - len(where))] + where


def _reads_alike(line: str) -> bool:
    """`assert X == Y` whose operands print the same (pytest shortened both)."""
    text = line.split("assert ", 1)[-1] if "assert " in line else ""
    middle = len(text) // 2
    for at in (text.find(" == ", middle - 3), text.rfind(" == ", 0, middle + 3)):
        if at > 0 and text[:at] == text[at + 4 :]:
            return True
    return False


def _first_difference(diff: list[str]) -> tuple[str | None, str | None]:
    left = right = None
    for line in diff:
        if line.startswith("+ ") and left is None:
            left = line[2:]
        elif line.startswith("- ") and right is None:
            right = line[2:]
        if left is not None and right is not None:
            break
    return left, right


def _side(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= MAX_SIDE else shown[: MAX_SIDE - 4] + "...'"
