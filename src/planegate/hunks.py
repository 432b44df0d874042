"""Test-hunk analysis: how a change to a test file weakens it (minimal skip/xfail check)."""

from __future__ import annotations

import ast

from planegate.findings import Finding, Severity, Step

_SKIP_CALLS = {"skip", "xfail", "importorskip", "skipTest"}
_SKIP_MARKS = {"skip", "skipif", "xfail"}


def is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (
        name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    )


def _skips(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in _SKIP_MARKS | _SKIP_CALLS:
            found.append((node.lineno, ast.unparse(node)))
    return found


def analyze_file(
    path: str,
    base_source: str | None,
    head_source: str | None,
    *,
    plane: str | None,
    owner: str,
    fixture_plane: bool,
    async_plugin: bool = False,
) -> list[Finding]:
    if head_source is None:
        return []
    try:
        before = _skips(base_source) if base_source is not None else []
        after = _skips(head_source)
    except SyntaxError:
        return []
    seen = [text for _, text in before]
    findings = []
    for line, text in after:
        if text in seen:
            seen.remove(text)
            continue
        findings.append(
            Finding(
                "PG501",
                Step.HUNKS,
                Severity.ERROR,
                f"{text} added",
                path=path,
                line=line,
                owner=owner,
                plane=plane,
            )
        )
    return findings
