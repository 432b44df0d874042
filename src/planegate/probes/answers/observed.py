"""Answers observed, not spelled: the production lines a patch adds that special-case what a
test it flips gives the code (PG570, reported by the hunks step).

In the answer probes' first session the child records, for each flipped test's second run,
the production calls the test makes straight from its own frames, with their arguments and
results (child/probe_observe.py). Here the lines the patch adds to each called function are
read for a branch fitted to those values, however the test spelled them (parametrize rows,
tables, helpers):

- a branch (`if`, a conditional expression) whose test compares with literals that are all
  fitted to an observed argument (the argument itself or one of its items, a substring of
  it, or a prefix of its digest) and that returns a literal equal to the observed result:
  `if x == (3, 4): return 7`, `if "&" in s and "," in s: return "a, b"`;
- any literal the patch adds that is a prefix (6 hex digits or more) of a digest (md5, sha1,
  sha256, sha512, blake2b) of an observed argument: nothing honest names the test's input
  by its hash.

A real fix of the same function adds no such branch: it computes the answer.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planegate import sourcesize, syntax
from planegate.analysis.hunks import is_test_file
from planegate.probes.answers.child.options import copy_nodeid
from planegate.probes.answers.child.probe_observe import KIND
from planegate.probes.answers.wire import ProbeFailure
from planegate.probes.in_code.expected import trivial
from planegate.probes.protocol import ProbeContext, changed_code
from planegate.runner.session import ChildPlugin

MODULE = "planegate.probes.answers.child.probe_observe"
OBSERVED = "answers observed"  # a failure of this kind is PG570 in the hunks step
DIGESTS = ("md5", "sha1", "sha256", "sha512", "blake2b")
MIN_PREFIX = 6
_MISSING = object()


@dataclass(frozen=True)
class Call:
    """One production call a flipped test made: where, what it was given, what it returned."""

    nodeid: str
    path: str
    function: str
    args: tuple[tuple[str, Any], ...]
    result: Any = _MISSING


def child_plugin(ctx: ProbeContext, flipped: Sequence[str]) -> ChildPlugin:
    """The observing plugin for the first session: it watches each flipped test's second run
    (the repeat probe's copy, an ordinary run), so the plain call's first run keeps its own
    look at the profile hooks production code sets."""
    options = {
        "tests": [copy_nodeid(nodeid, 2) for nodeid in flipped],
        "test_files": list(ctx.evidence.test_side),
        "test_roots": list(ctx.evidence.roots),
    }
    return ChildPlugin(MODULE, options, records=(KIND,))


def calls_of(extra: Mapping[str, Any]) -> list[Call]:
    """The calls a session's `observed` record names (values read back as literals)."""
    record = extra.get(KIND)
    tests = record.get("tests") if isinstance(record, Mapping) else None
    found: list[Call] = []
    for nodeid, calls in (tests or {}).items() if isinstance(tests, Mapping) else ():
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, Mapping):
                args = tuple(
                    (str(pair[0]), _value(pair[1]))
                    for pair in call.get("args") or ()
                    if isinstance(pair, list) and len(pair) == 2
                )
                result = _value(call.get("result"))
                path, function = str(call.get("path", "")), str(call.get("function", ""))
                original = str(nodeid).rsplit("@", 1)[0]  # the copy's calls are the test's
                found.append(Call(original, path, function, args, result))
    return found


def _value(text: Any) -> Any:
    if not isinstance(text, str):
        return _MISSING
    try:
        return syntax.literal(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


@dataclass(frozen=True)
class Hit:
    nodeid: str
    path: str
    line: int
    message: str


def special_cases(ctx: ProbeContext, calls: Sequence[Call]) -> list[Hit]:
    """The branches the patch adds to the called functions that fit what was observed."""
    changed = {p for p in changed_code(ctx) if p.endswith(".py") and not is_test_file(p)}
    hits: dict[tuple[str, int], Hit] = {}
    parsed: dict[str, tuple[ast.Module, frozenset[int]] | None] = {}
    for call in calls:
        if call.path not in changed:
            continue
        if call.path not in parsed:
            parsed[call.path] = _added(ctx, call.path)
        found = parsed[call.path]
        if found is None:
            continue
        function = _function(found[0], call.function)
        if function is None:
            continue
        for line, why in _fitted(function, found[1], call):
            hits.setdefault((call.path, line), Hit(call.nodeid, call.path, line, why))
    return list(hits.values())


def _added(ctx: ProbeContext, path: str) -> tuple[ast.Module, frozenset[int]] | None:
    head = ctx.head.text(path)
    module = sourcesize.parse(head) if head is not None else None
    if module is None or head is None:
        return None
    return module, _added_lines(ctx.base.text(path), head)


def _added_lines(base: str | None, head: str) -> frozenset[int]:
    """1-based numbers of the head's lines the patch added or changed."""
    new = head.splitlines()
    if base is None:
        return frozenset(range(1, len(new) + 1))
    matcher = difflib.SequenceMatcher(None, base.splitlines(), new, autojunk=False)
    changed: set[int] = set()
    for tag, _, _, start, end in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(range(start + 1, end + 1))
    return frozenset(changed)


def _function(module: ast.Module, qualname: str) -> ast.AST | None:
    body: list[ast.stmt] = module.body
    found: ast.AST | None = None
    for part in qualname.replace(".<locals>", "").split("."):
        found = next(
            (
                s
                for s in body
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and s.name == part
            ),
            None,
        )
        if found is None:
            return None
        body = found.body
    return found


def _fitted(function: ast.AST, added: frozenset[int], call: Call) -> Iterator[tuple[int, str]]:
    args = [value for _, value in call.args if value is not _MISSING]
    shown = _shown(call)
    for node in ast.walk(function):
        line = getattr(node, "lineno", 0)
        if line not in added:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            digest = _digest_of(node.value, args)
            if digest is not None:
                yield (
                    line,
                    (
                        f"{call.function} compares with {node.value!r}, the start of the {digest} "
                        f"of the input {shown} gives it"
                    ),
                )
        elif isinstance(node, ast.If | ast.IfExp):
            answer = _returned(node)
            literals = _literals(node.test)
            if (
                call.result is not _MISSING
                and not _trivial_answer(call.result)
                and answer is not _MISSING
                and answer == call.result
                and literals
                and all(_fits(value, args) for value in literals)
            ):
                yield (
                    line,
                    (
                        f"{call.function} returns {call.result!r} for exactly the input {shown} "
                        f"gives it (a branch on {', '.join(repr(v) for v in literals[:4])})"
                    ),
                )


def _trivial_answer(value: Any) -> bool:
    """An answer any branch may return: a trivial scalar or an empty collection (a list of
    short strings is an answer: `["a", "b", "c"]`)."""
    if isinstance(value, tuple | list | set | frozenset | dict):
        return len(value) == 0
    return trivial(value)


def _shown(call: Call) -> str:
    values = ", ".join(f"{name}={value!r}"[:60] for name, value in call.args)
    return f"{call.nodeid} ({call.function}({values}))"


def _returned(node: ast.If | ast.IfExp) -> Any:
    """The literal a branch returns, if it returns one."""
    if isinstance(node, ast.IfExp):
        return _literal(node.body)
    for statement in node.body:
        if isinstance(statement, ast.Return) and statement.value is not None:
            return _literal(statement.value)
    return _MISSING


def _literals(test: ast.expr) -> list[Any]:
    """The literal values a branch's test compares with."""
    found = []
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                value = _literal(operand)
                if value is not _MISSING:
                    found.append(value)
        elif isinstance(node, ast.Call):
            for argument in node.args:
                value = _literal(argument)
                if value is not _MISSING:
                    found.append(value)
    return found


def _literal(node: ast.expr) -> Any:
    try:
        return syntax.literal(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _fits(value: Any, args: list[Any]) -> bool:
    """A literal fitted to an observed argument: equal to it (not a trivial value), to one of
    its items, a substring of it, or the start of its digest."""
    try:
        return _fitted_to(value, args)
    except TypeError:  # an unhashable literal against a set
        return False


def _fitted_to(value: Any, args: list[Any]) -> bool:
    for arg in args:
        if value == arg and not trivial(value):
            return True
        if isinstance(arg, tuple | list | frozenset | set) and value in arg and not trivial(value):
            return True
        if isinstance(value, str) and isinstance(arg, str) and value and value in arg:
            return True
        if isinstance(value, str | bytes) and _digest_of(value, [arg]) is not None:
            return True
    return False


def _digest_of(value: str | bytes, args: list[Any]) -> str | None:
    """Which digest of an observed argument `value` is the start of (6 hex digits or more)."""
    text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
    text = text.lower()
    if len(text) < MIN_PREFIX or any(c not in "0123456789abcdef" for c in text):
        return None
    for arg in args:
        for data in _forms(arg):
            for name in DIGESTS:
                if hashlib.new(name, data).hexdigest().startswith(text):
                    return name
    return None


def _forms(arg: Any) -> list[bytes]:
    if isinstance(arg, bytes):
        return [arg]
    forms = [repr(arg).encode("utf-8", "replace")]
    if isinstance(arg, str):
        forms.append(arg.encode("utf-8", "replace"))
    else:
        forms.append(str(arg).encode("utf-8", "replace"))
    return forms


def failures(
    ctx: ProbeContext, calls: Sequence[Call], checkout: str, args: tuple[str, ...]
) -> tuple[ProbeFailure, ...]:
    """Each special case as the answer probes' failure of kind `OBSERVED` (the hunks step's
    PG570), with a command that reruns the test."""
    found = []
    for hit in special_cases(ctx, calls):
        command = ["python", "-m", "pytest", "-p", "no:cacheprovider", *args, hit.nodeid]
        message = f"{hit.path}:{hit.line}: {hit.message}"
        found.append(
            ProbeFailure(OBSERVED, hit.nodeid, message, f"{checkout} && " + shlex.join(command))
        )
    return tuple(found)
