"""Containment checks that run nothing: a file written into a watched folder is a change;
committed bytecode and modules linking out are named."""

from __future__ import annotations

from pathlib import Path

from planegate.runner import contain, treescan


def test_a_file_written_into_a_watched_folder_is_a_change(tmp_path: Path) -> None:
    before = contain.interpreter_snapshot(str(tmp_path))
    (tmp_path / "git").write_text("#!/bin/sh\n")
    after = contain.interpreter_snapshot(str(tmp_path))
    assert contain.changed(before, after) == [str(tmp_path / "git")]
    assert contain.changed(after, contain.interpreter_snapshot(str(tmp_path))) == []


def test_committed_bytecode_and_modules_linking_out_are_named(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "pkg" / "__pycache__").mkdir(parents=True)
    outside.mkdir()
    (outside / "mod.py").write_text("x = 1\n")
    (tree / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (tree / "pkg" / "b.pyc").write_bytes(b"\0")
    (tree / "pkg" / "inside.py").write_text("y = 2\n")
    (tree / "pkg" / "c.py").symlink_to(outside / "mod.py")
    (tree / "pkg" / "d.py").symlink_to(tree / "pkg" / "inside.py")
    (tree / "linked").symlink_to(outside)
    (tree / "data.txt").symlink_to(outside / "mod.py")  # not a module
    found = dict((path, event) for event, path in treescan.suspicious(tree))
    assert set(found) == {"pkg/__pycache__/a.cpython-311.pyc", "pkg/b.pyc", "pkg/c.py", "linked"}
    assert found["pkg/c.py"].startswith("a module that is a symlink out of the tree")
    assert treescan.suspicious(tree, {"pkg/b.pyc"}) != treescan.suspicious(tree)
