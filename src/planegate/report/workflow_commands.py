"""GitHub Actions workflow commands: `::error file=…,line=…,title=…::message`, escaped.

The runner unescapes `%25`, `%0D`, `%0A` in a command's message and also `%3A`, `%2C` in its
properties, so both sets must be escaped or a message can end the command early or forge
another one. (Output of the code under test is not printed from here: the action's shell,
`scripts/action.sh`, wraps phase 1's whole log in `::stop-commands::<token>`.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from planegate import untrusted
from planegate.findings import Finding, Severity
from planegate.rules import RULES

_DATA = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
_PROPERTY = (*_DATA, (":", "%3A"), (",", "%2C"))

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTICE: "notice"}


def escape_data(text: str) -> str:
    for raw, escaped in _DATA:
        text = text.replace(raw, escaped)
    return text


def escape_property(text: str) -> str:
    for raw, escaped in _PROPERTY:
        text = text.replace(raw, escaped)
    return text


def _unescape(text: str, table: tuple[tuple[str, str], ...]) -> str:
    # `%` last, so `%250A` becomes `%0A` and not a newline.
    for raw, escaped in reversed(table):
        text = text.replace(escaped, raw)
    return text


def unescape_data(text: str) -> str:
    """What the runner reads back from an escaped message (used to check the escaping)."""
    return _unescape(text, _DATA)


def unescape_property(text: str) -> str:
    return _unescape(text, _PROPERTY)


def command(
    name: str, message: str, properties: Mapping[str, str | int | None] | None = None
) -> str:
    props = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in (properties or {}).items()
        if value is not None and str(value) != ""
    )
    head = f"::{name} {props}" if props else f"::{name}"
    return f"{head}::{escape_data(message)}"


def finding_command(finding: Finding) -> str:
    rule = RULES.get(finding.rule)
    fix = f" Fix: {rule.how_to_fix}" if rule else ""
    return command(
        _LEVEL[finding.severity],
        f"{untrusted.inert_commands(untrusted.clean(finding.message))}{fix}",
        {
            "file": None if finding.path is None else untrusted.one_line(finding.path),
            "line": finding.line if finding.path else None,
            "title": f"{finding.rule} · {untrusted.one_line(finding.owner)}",
        },
    )


def finding_commands(findings: Iterable[Finding]) -> list[str]:
    return [finding_command(finding) for finding in findings]
