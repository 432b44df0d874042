"""The sampled canaries' vocabulary and the pure part of choosing what may be broken
(`gate/canary_sample.py` plans and judges, `runner/sampled.py` breaks in the child).

`defs` lists a module's top-level and class-level functions by qualified name, as the child's
code objects name them (`Class.method`, nested classes included): a function of a file the
patch changed may be broken only when every `def` of its name reads the same on both sides.
The break is the same in the child and in a repro: every call raises an ordinary exception.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from planegate import sourcesize
from planegate.runner.answer_probes import ProbeFailure

EXCEPTION = "RuntimeError"
SAMPLED = "sampled canaries"  # the report's record of them
LIED = "sampled canary"  # PG125: passed with its function broken, fails so on main
UNTESTED = "sampled canary (main's test)"  # PG126: passes so on main too
UNCLOSED = "sampled canary run"  # PG127: the run sent no record of its sample
KINDS = (LIED, UNTESTED, UNCLOSED)


def defs(source: str) -> dict[str, list[ast.FunctionDef]]:
    """qualified name -> every top-level or class-level `def` of that name (async ones too,
    as a FunctionDef-like node, so a name defined twice is seen as ambiguous)."""
    module = sourcesize.parse(source)
    found: dict[str, list[ast.FunctionDef]] = {}
    if module is not None:
        for qualname, node in _walk(module.body, ""):
            found.setdefault(qualname, []).append(node)
    return found


def _walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.FunctionDef]]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield from _walk(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield f"{prefix}{node.name}", node  # type: ignore[misc]


def described(failure: ProbeFailure) -> tuple[str, str, int]:
    """(function, path, line) a sampled canary's message starts with: `name (path:line): `."""
    head = failure.message.split("): ", 1)[0]
    name, _, place = head.partition(" (")
    path, _, line = place.rpartition(":")
    return name, path, int(line) if line.isdigit() else 0
