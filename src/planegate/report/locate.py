"""Where a failing test failed: the line a PG101/PG102 annotation goes on.

The run's result stream carries pytest's failure text (its long repr). Its entries end in
`path:LINE: ...` lines; the last one in the test's own file is the failing line of the test
(an assert, or the call into a helper that failed). Without one (a collection error, a
failure text that names no line of that file), the test's `def` line in the base's source
is used, so an annotation never lands on line 1 by default.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable

from planegate import syntax
from planegate.findings import Finding
from planegate.report import Report

RULES = ("PG101", "PG102")

Reader = Callable[[str], "bytes | None"]


def failure_line(longrepr: str, path: str) -> int | None:
    """The line of the last `path:LINE:` entry in pytest's failure text, if any."""
    pattern = re.compile(rf"^(?:\./)?{re.escape(path)}:(\d+):", re.M)
    found = pattern.findall(longrepr)
    return int(found[-1]) if found else None


def def_line(source: str, nodeid: str) -> int | None:
    """The `def` line of the test `path::Class::test[params]` in `source`."""
    try:
        tree: ast.AST = syntax.parse(source)
    except (SyntaxError, ValueError):
        return None
    *classes, name = nodeid.split("::")[1:] or [""]
    name = name.split("[", 1)[0]
    scope = tree
    for cls in classes:
        found = _child(scope, ast.ClassDef, cls)
        if found is None:
            return None
        scope = found
    test = _child(scope, (ast.FunctionDef, ast.AsyncFunctionDef), name)
    return test.lineno if isinstance(test, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _child(
    scope: ast.AST, kind: type[ast.AST] | tuple[type[ast.AST], ...], name: str
) -> ast.AST | None:
    for node in ast.iter_child_nodes(scope):
        if isinstance(node, kind) and getattr(node, "name", None) == name:
            return node
    return None


def line_of(finding: Finding, message: str, read: Reader) -> int | None:
    if finding.path is None:
        return None
    line = failure_line(message, finding.path)
    if line is not None or finding.nodeid is None:
        return line
    data = read(finding.path)
    return None if data is None else def_line(data.decode("utf-8", "replace"), finding.nodeid)


def place_failures(report: Report, message_of: Callable[[str], str], read: Reader) -> Report:
    """The report with a line on every failing-test finding that had none."""
    steps = []
    for result in report.steps:
        findings = []
        for finding in result.findings:
            if finding.rule in RULES and finding.line is None and finding.nodeid:
                line = line_of(finding, message_of(finding.nodeid), read)
                finding = dataclasses.replace(finding, line=line)
            findings.append(finding)
        steps.append(dataclasses.replace(result, findings=tuple(findings)))
    return dataclasses.replace(report, steps=tuple(steps))
