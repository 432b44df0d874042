"""The patch's lines: the added and changed ones."""

from __future__ import annotations

from planegate.signs.lines import MainsLines, patch_lines


def test_patch_lines_are_the_added_and_changed_ones() -> None:
    base = "a\nb\nc\n"
    assert patch_lines(base, "a\nB\nc\nd\n") == {2, 4}
    assert patch_lines(base, "x\na\nb\nc\n") == {1}
    assert patch_lines(None, "a\nb\n") == {1, 2}
    assert patch_lines(base, base) == frozenset()
    files = {"old.py": "a\nb\n"}
    heads = {"old.py": "a\nb\nc\n", "new.py": "z\n"}
    mains = MainsLines(files.get, heads.get)
    assert mains.is_mains("old.py", 2) and not mains.is_mains("old.py", 3)
    assert not mains.is_mains("new.py", 1) and not mains.is_mains("gone.py", 1)
