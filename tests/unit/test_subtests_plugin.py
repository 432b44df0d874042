"""Subtests decide their test: a plugin-style passing parent still fails on its subtest."""

from __future__ import annotations

from planegate.runner import subtests


def test_a_plugin_style_passing_parent_still_fails_on_its_subtest() -> None:
    failed = {"outcome": "failed", "subtest": "[x]", "message": "E   assert 1 == 2\nmore"}
    kind, message = subtests.verdict("passed", "", [failed])
    assert kind == "failed" and message.startswith("E   subtest [x]: assert 1 == 2")
    assert subtests.verdict("error", "boom", [failed]) == ("error", "boom")
    assert subtests.verdict("passed", "", []) == ("passed", "")
    skipped = {"outcome": "skipped", "subtest": "(m=1)", "message": "Skipped: no"}
    assert subtests.verdict("passed", "", [skipped])[0] == "skipped"
    assert subtests.verdict("xfailed", "why", [skipped]) == ("xfailed", "why")
