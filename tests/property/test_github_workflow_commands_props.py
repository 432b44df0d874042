"""Properties of github_workflow_commands (frozen seed)."""

from __future__ import annotations

from hypothesis import given

from helpers.github_workflow_commands_cases import (
    TEXT,
)
from planegate.report.workflow_commands import (
    command,
    escape_data,
    escape_property,
    unescape_data,
    unescape_property,
)


@given(TEXT)
def test_data_escaping_round_trips_and_keeps_no_raw_newline(text: str) -> None:
    escaped = escape_data(text)
    assert unescape_data(escaped) == text
    assert "\n" not in escaped and "\r" not in escaped


@given(TEXT)
def test_property_escaping_round_trips_and_keeps_no_separator(text: str) -> None:
    escaped = escape_property(text)
    assert unescape_property(escaped) == text
    assert not any(ch in escaped for ch in "\r\n:,")


@given(TEXT, TEXT)
def test_a_command_is_one_line_whose_parts_come_back(message: str, title: str) -> None:
    line = command("error", message, {"file": "a,b:c.py", "line": 3, "title": title})
    assert "\n" not in line and "\r" not in line
    head, _, data = line[2:].partition("::")
    name, _, props = head.partition(" ")
    assert name == "error"
    parsed = dict(p.split("=", 1) for p in props.split(","))
    assert unescape_property(parsed["file"]) == "a,b:c.py"
    assert parsed["line"] == "3"
    assert unescape_property(parsed.get("title", "")) == title
    assert unescape_data(data) == message
