"""Python's parser in the gate's process: one parse at a time.

CPython 3.11 counts how deep the syntax tree it is building goes in state that every thread
shares, and a parse that another thread's parse interleaves with can fail with `SystemError:
AST constructor recursion depth mismatch` (python/cpython#106905, pytest-dev/pytest#10763).
The gate parses on several threads at once (the hunks step's scan beside the test child, the
check of main's source from its digest, the main thread), so each of its parses and literal
evaluations goes through here and holds one lock (ruff's banned-api keeps `ast.parse` and
`ast.literal_eval` out of the rest of the package; the test child's modules, one thread of
the project's, use `ast` directly)."""

from __future__ import annotations

import ast
import threading
from typing import Any

_PARSING = threading.Lock()


def parse(source: str | bytes) -> ast.Module:
    """`ast.parse(source)`, alone in the process."""
    with _PARSING:
        return ast.parse(source)  # noqa: TID251


def literal(node_or_text: ast.AST | str) -> Any:
    """`ast.literal_eval`, alone in the process (a text is parsed first)."""
    with _PARSING:
        return ast.literal_eval(node_or_text)  # noqa: TID251
