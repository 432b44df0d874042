"""Whether a line of the tree that ran is main's own: the same text on the base's tip and not
in a hunk the patch adds or changes (difflib over the two versions of the file); for such a
line, its number on the base; and whether the definition around a function is main's."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from planegate.analysis.definitions import def_chain, with_what_it_uses


def patch_lines(base: str | None, head: str | None) -> frozenset[int]:
    """1-based numbers of the head's lines the patch added or changed; every line when the
    base has no such file."""
    if head is None:
        return frozenset()
    new = head.splitlines()
    if base is None:
        return frozenset(range(1, len(new) + 1))
    matcher = difflib.SequenceMatcher(None, base.splitlines(), new, autojunk=False)
    changed: set[int] = set()
    for tag, _, _, start, end in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(range(start + 1, end + 1))
    return frozenset(changed)


def base_lines(base: str | None, head: str | None) -> dict[int, int]:
    """1-based head line -> the same line's number on the base, for the lines the patch
    left as they were (none when either side has no such file)."""
    if base is None or head is None:
        return {}
    matcher = difflib.SequenceMatcher(None, base.splitlines(), head.splitlines(), autojunk=False)
    found: dict[int, int] = {}
    for tag, old, _, new, end in matcher.get_opcodes():
        if tag == "equal":
            found.update((new + i + 1, old + i + 1) for i in range(end - new))
    return found


class MainsLines:
    """`is_mains(path, line)`, each file diffed once; `base_line(path, line)`;
    `definition_changed(path, line)`."""

    def __init__(self, base: Callable[[str], str | None], head: Callable[[str], str | None]):
        self._base, self._head = base, head
        self._changed: dict[str, frozenset[int] | None] = {}
        self._lines: dict[str, dict[int, int]] = {}

    def base_line(self, path: str, line: int) -> int | None:
        """The number on the base of a head line main already had, unchanged; None for a
        line the patch added or changed (or a file the base does not have)."""
        if path not in self._lines:
            self._lines[path] = base_lines(self._base(path), self._head(path))
        return self._lines[path].get(line)

    def is_mains(self, path: str, line: int) -> bool:
        if path not in self._changed:
            head = self._head(path)
            self._changed[path] = None if head is None else patch_lines(self._base(path), head)
        changed = self._changed[path]
        return changed is not None and line > 0 and line not in changed

    def on_base(self, path: str) -> bool:
        """Whether the base holds a file at `path`."""
        return self._base(path) is not None

    def definition_changed(self, path: str, line: int) -> bool:
        """Whether the patch changed the top-level function or class around the function
        defined at the head's `line`, or a top-level statement of its module it uses, in
        turn (True when there is none: code built at run time)."""
        head = self._head(path)
        chain = def_chain(head, line) if line > 0 else None
        if not chain:
            return True
        found = with_what_it_uses(head, chain[0])
        return found is None or found != with_what_it_uses(self._base(path), chain[0])
