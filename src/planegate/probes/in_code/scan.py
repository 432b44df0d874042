"""Production code that carries main's answers (pure; the hunks step reports PG570).

In a changed production file, constructs the head adds that reproduce what main's scoring
tests expect (probes/in_code/expected.py):

- a special case: an `if` (or `x if c else y`) whose condition compares with every literal
  input of one assert and whose branch returns (or assigns) that assert's answer;
- a table: a dict (or a list of 2-tuples) with an entry mapping an assert's inputs to its
  answer, when every entry does or two or more do;
- a copy of the goldens: a list, tuple, set or dict whose elements hold two or more lines of
  the locked goldens or specific expected values (at least half of its elements), or a
  string literal equal to the whole text of a multi-line golden.

Trivial values (0, 1, "", True, short strings) never count on their own; a lone literal
equal to one expected value (an error message the test checks) is not reported.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from planegate import sourcesize
from planegate.probes.in_code.expected import (
    Canon,
    Expectations,
    Pair,
    canon,
    literal,
    normalized,
    specific,
    trivial,
)

MAX_KEY = 200


@dataclass(frozen=True)
class Hit:
    line: int
    key: str  # the construct as written, to match base and head
    message: str


def added_tokens(base: str | None, head: str) -> set[str]:
    """The text of the non-trivial constants the head adds: test files and goldens that
    contain none of them cannot be mirrored, so they need not be read. Kept for the last
    files asked: the gate works them out beside the head's test child (steps/hunks.py), and
    the hunks step asks again after it."""
    return set(_added_tokens(base, head))


@functools.lru_cache(maxsize=32)
def _added_tokens(base: str | None, head: str) -> frozenset[str]:
    try:
        head_values = Counter(_constants(_parse(head)))
        base_values = Counter(_constants(_parse(base))) if base is not None else Counter()
    except (SyntaxError, ValueError):
        return frozenset()
    added = head_values - base_values
    return frozenset({str(value).strip() for value in added if not trivial(value)} - {""})


def _constants(tree: ast.AST) -> Iterator[Any]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)):
            yield node.value


def added_hits(base: str | None, head: str, expected: Expectations) -> list[Hit]:
    """Hits of the head that the base does not have (same construct, same text)."""
    try:
        head_hits = scan(head, expected)
    except (SyntaxError, ValueError):
        return []
    try:
        base_hits = scan(base, expected) if base is not None else []
    except (SyntaxError, ValueError):
        base_hits = []
    seen = Counter(hit.key for hit in base_hits)
    found = []
    for hit in head_hits:
        if seen[hit.key]:
            seen[hit.key] -= 1
        else:
            found.append(hit)
    return found


def _parse(source: str) -> ast.Module:
    """Raises ValueError for source that is too big or too dense to parse, or not Python."""
    tree = sourcesize.parse(source)
    if tree is None:
        raise ValueError("not parsed (size, density or syntax)")
    return tree


def scan(source: str, expected: Expectations) -> list[Hit]:
    tree = _parse(source)
    by_answer: dict[Canon, list[Pair]] = {}
    for pair in expected.pairs:
        if not trivial(pair.answer):
            by_answer.setdefault(canon(pair.answer), []).append(pair)
    docstrings = _docstrings(tree)
    hits: list[Hit] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp)):
            hits += _special_case(node, by_answer)
        elif isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
            hits += _table(node, by_answer) or _copies(node, expected)
        elif isinstance(node, ast.Constant) and id(node) not in docstrings:
            hits += _golden_text(node, expected)
    return sorted(hits, key=lambda hit: hit.line)


def _special_case(node: ast.If | ast.IfExp, by_answer: dict[Canon, list[Pair]]) -> list[Hit]:
    compared = _compared_literals(node.test)
    if not compared:
        return []
    for answer in _branch_answers(node):
        for pair in by_answer.get(canon(answer), ()):
            inputs = [canon(value) for value in pair.inputs]
            whole = canon(tuple(pair.inputs))
            mirrored = whole in compared or all(value in compared for value in inputs)
            if mirrored and not all(trivial(value) for value in pair.inputs):
                text = ast.unparse(node.test)
                return [
                    _hit(
                        node,
                        f"special case `{_short(text)}` -> {answer!r} is the exact input "
                        f"and answer of {pair.where}",
                    )
                ]
    return []


def _compared_literals(test: ast.AST) -> set[Canon]:
    found: set[Canon] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                ok, value = literal(operand)
                if ok:
                    found.add(canon(value))
                    if isinstance(value, (tuple, list)):
                        found.update(canon(item) for item in value)
    return found


def _branch_answers(node: ast.If | ast.IfExp) -> list[Any]:
    if isinstance(node, ast.IfExp):
        ok, value = literal(node.body)
        return [value] if ok else []
    answers = []
    for statement in node.body:
        if isinstance(statement, (ast.Return, ast.Assign)) and statement.value is not None:
            ok, value = literal(statement.value)
            if ok:
                answers.append(value)
    return answers


def _entries(node: ast.Dict | ast.List | ast.Tuple | ast.Set) -> list[tuple[Any, Any]] | None:
    """A dict's literal items, or a list of literal 2-tuples; None for anything else."""
    ok, value = literal(node)
    if not ok:
        return None
    if isinstance(value, dict):
        return list(value.items())
    pairs = isinstance(value, (list, tuple)) and bool(value)
    if pairs and all(isinstance(item, (list, tuple)) and len(item) == 2 for item in value):
        return [(item[0], item[1]) for item in value]
    return None


def _table(
    node: ast.Dict | ast.List | ast.Tuple | ast.Set, by_answer: dict[Canon, list[Pair]]
) -> list[Hit]:
    entries = _entries(node)
    if not entries:
        return []
    matched: list[Pair] = []
    for key, value in entries:
        keys = {canon(key)}
        for pair in by_answer.get(canon(value), ()):
            inputs = pair.inputs
            if canon(tuple(inputs)) in keys or (len(inputs) == 1 and canon(inputs[0]) in keys):
                matched.append(pair)
                break
    if len(matched) >= 2 or (matched and len(matched) == len(entries)):
        return [
            _hit(
                node,
                f"a table of {len(entries)} entries maps the inputs of main's tests to their "
                f"answers ({len(matched)} mirrored, first {matched[0].where})",
            )
        ]
    return []


def _copies(node: ast.Dict | ast.List | ast.Tuple | ast.Set, expected: Expectations) -> list[Hit]:
    ok, value = literal(node)
    if not ok:
        return []
    elements = list(value.values()) if isinstance(value, dict) else list(value)
    if len(elements) < 2:
        return []
    sources = _sources(elements, expected)
    if len(sources) >= 2 and 2 * len(sources) >= len(elements):
        where = ", ".join(sorted(set(sources.values()))[:3])
        return [
            _hit(
                node,
                f"a collection of {len(elements)} literals holds {len(sources)} of the "
                f"answers main's tests expect ({where})",
            )
        ]
    return []


def _sources(elements: Iterable[Any], expected: Expectations) -> dict[Canon, str]:
    """Each element that is a golden line, a golden's text or a specific expected value."""
    found: dict[Canon, str] = {}
    for element in elements:
        key = canon(element)
        if isinstance(element, str):
            where = expected.golden_lines.get(element.strip())
            where = where or expected.golden_texts.get(normalized(element))
            if where is not None and not trivial(element):
                found[key] = where
                continue
        if key in expected.values and specific(element):
            found[key] = expected.values[key]
    return found


def _golden_text(node: ast.Constant, expected: Expectations) -> list[Hit]:
    if not isinstance(node.value, str) or "\n" not in node.value.strip():
        return []
    path = expected.golden_texts.get(normalized(node.value))
    if path is None:
        return []
    return [_hit(node, f"a string literal holds the whole locked golden {path}")]


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _hit(node: ast.AST, message: str) -> Hit:
    key = f"{type(node).__name__}:{_short(ast.unparse(node), MAX_KEY)}"
    return Hit(getattr(node, "lineno", 1), key, message)


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
