"""Honest values in the scoring run (child side): every comparison main's asserts make is
split (`operands.py`) and each value it compares checked (`values.py`) as the test runs.

The gate hands this plugin to the head's scoring run (probes/honest/wire.py). A `tryfirst`
`pytest_load_initial_conftests` wraps pytest's assertion rewriter and sets the check on
`_pytest.assertion.rewrite` before the gate's harness baseline (runner/child/integrity.py),
so code that replaces either later is reported like any other change to the harness. The
check never fails a test: what it finds goes out at the session's end in one `honest` record
(test -> what lied), and the gate judges it against main (probes/honest/run.py).
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import sys
from collections.abc import Callable, Generator, Mapping
from inspect import getattr_static
from types import FrameType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.probes.answers.child.strict_compare import REFLECTED, Checker
from planegate.probes.canaries.child.sampled import sides
from planegate.probes.honest.child import operands, values
from planegate.runner.child import frames

if TYPE_CHECKING:
    import pytest

    from planegate.runner.child.plugin_api import PluginContext

KIND = "honest"
MAX_PER_TEST = 8
MAX_TESTS = 200
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def plugin(options: Mapping[str, Any], context: PluginContext, /) -> object:
    """The plugin for the options the gate wrote (`wire.options`)."""
    suspects = tuple(str(p) for p in options.get("suspects", ()))
    state = SimpleNamespace(
        current="",
        found={},
        checked=0,
        side=sides(context.audit, options),
        checker=Checker(context.tree, suspects) if suspects else None,
        kinds={},
        getframe=sys._getframe,
    )
    check = _check(state)
    context.audit.ours.add(check)
    packages = packages_of(context.roots)
    hooks = {
        "pytest_load_initial_conftests": _install(context, check, packages),
        "pytest_runtest_protocol": _protocol(context.audit, state),
        "pytest_sessionfinish": _finish(context.emit, context.audit, state),
    }
    return context.module(KIND, hooks)


def packages_of(roots: tuple[str, ...] | list[str] | Any) -> frozenset[str]:
    """The project's top-level names: what each package root holds."""
    found: set[str] = set()
    for root in roots:
        try:
            entries = os.listdir(root)
        except OSError:
            continue
        for entry in entries:
            name = entry[:-3] if entry.endswith(".py") else entry
            if name.isidentifier():
                found.add(name)
    return frozenset(found)


def _install(
    context: PluginContext, check: Callable[..., tuple[Any, ...]], packages: frozenset[str]
) -> Callable[..., None]:
    import pytest

    tree = context.tree

    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(
        early_config: pytest.Config,  # noqa: ARG001 (pluggy passes it by name)
        *,
        _c: Any = check,
        _p: Any = packages,
        _t: str = tree,
    ) -> None:
        from _pytest.assertion import rewrite

        setattr(rewrite, operands.CHECK, _c)
        original = rewrite.rewrite_asserts

        def rewrite_asserts(mod: ast.Module, source: bytes, *args: Any, **kwargs: Any) -> None:
            path = str(args[0] if args else kwargs.get("module_path") or "")
            where = os.path.relpath(path, _t) if path.startswith(_t) else path
            # a module the split cannot read is rewritten as pytest does
            with contextlib.suppress(Exception):
                operands.transform(mod, where, _p, source)
            original(mod, source, *args, **kwargs)

        context.audit.ours.add(rewrite_asserts)
        rewrite.rewrite_asserts = rewrite_asserts

    return pytest_load_initial_conftests


def _protocol(audit: SimpleNamespace, state: SimpleNamespace) -> Callable[..., Any]:
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(
        item: pytest.Item, *, _a: Any = audit, _s: SimpleNamespace = state, _g: Any = frames.guard
    ) -> Generator[None, None, None]:
        if _g(_a, "pytest_runtest_protocol"):
            _s.current = item.nodeid
        try:
            yield
        finally:
            _s.current = ""

    return pytest_runtest_protocol


def _finish(emit: frames.Emit, audit: SimpleNamespace, state: SimpleNamespace) -> Any:
    def pytest_sessionfinish(
        *, _e: frames.Emit = emit, _a: Any = audit, _g: Any = frames.guard, _s: Any = state
    ) -> None:
        if _g(_a, "pytest_sessionfinish"):
            _e(KIND, {"tests": dict(_s.found), "checked": _s.checked})

    return pytest_sessionfinish


def _check(state: SimpleNamespace) -> Callable[..., tuple[Any, ...]]:
    def check(
        ops: str,
        info: tuple[Any, ...],
        *compared: Any,
        _s: SimpleNamespace = state,
        _plain: Callable[[tuple[Any, ...]], bool] = values.all_plain,
        _slow: Callable[..., None] = _examine,
    ) -> tuple[Any, ...]:
        _s.checked += 1
        if _plain(compared):
            return compared
        try:
            _slow(_s, ops, info, compared)
        except Exception:  # the check's own failure never changes what the test does
            return compared
        return compared

    return check


def _examine(
    s: SimpleNamespace, ops: str, info: tuple[Any, ...], compared: tuple[Any, ...]
) -> None:
    """Each value checked (in what the test made itself, only objects of the project's own
    classes); each pair, checked for a bent builtin."""
    made = info[3]
    split = ops.split(",")
    for index in range(len(compared)):
        how, liar = _anything(s, split, index, compared, made[index])
        if how is not None:
            _found(s, info, index, liar, values.ANYTHING, how)
    if s.checker is None:
        return
    for index, op in enumerate(split):
        if op in REFLECTED:
            found = _bent(s.checker, op, compared[index], compared[index + 1])
            if found is not None:
                side = index + found[0]
                _found(s, info, side, compared[side], values.BENT, found[1])


def _bent(checker: Checker, op: str, left: Any, right: Any) -> tuple[int, str] | None:
    """Which side bends the comparison, and how: one side a builtin value, or both of them
    builtin subclasses, each compared with the other as its plain builtin."""
    message = checker.problem(op, left, right)
    if message is not None:
        return (0 if type(left) not in values.FAST else 1), message
    for side, plain_left, plain_right in (
        (0, left, values.plain(right)),
        (1, values.plain(left), right),
    ):
        if plain_left is not None and plain_right is not None:
            message = checker.problem(op, plain_left, plain_right)
            if message is not None:
                return side, message
    return None


def _anything(
    s: SimpleNamespace, split: list[str], index: int, compared: tuple[Any, ...], made: bool
) -> tuple[str | None, Any]:
    """How the operand at `index` (or a value it holds) equals anything, and that value."""
    value = compared[index]
    op = split[index - 1] if index else split[0]
    if index and op in ("in", "not in"):
        needle = compared[index - 1]
        for member in values.members(value):
            if type(member) not in values.FAST and _checked(s, member, made):
                how = values.anything(member, needle)
                if how is not None:
                    return how, member
        return (values.contains_anything(value) if _checked(s, value, made) else None), value
    other = compared[index + 1] if index + 1 < len(compared) else compared[index - 1]
    if made:  # a stand-in for what the test asked for is returned whole, not inside it
        found = values.anything(value, other) if _checked(s, value, made) else None
        return found, value
    for leaf, counterpart in values.leaves(value, other):
        if _checked(s, leaf, made):
            how = values.anything(leaf, counterpart)
            if how is not None:
                return how, leaf
    return None, None


SKIPPED, CHECKED, PROJECTS = 0, 1, 2  # what `_checked` knows of a class


def _checked(s: SimpleNamespace, value: Any, made: bool) -> bool:
    """Whether a value is held to honest equality: never an approx or an object of main's test
    code; in what the test made itself (`mock.ANY` is its expectation), only an object of the
    project's own production code (a stand-in the test did not ask for)."""
    kind = type(value)
    known = s.kinds.get(id(kind))
    if known is None or known[0] is not kind:
        side = s.side(_class_file(kind))[0]
        how = SKIPPED if side == "test" or values.is_approx(value) else CHECKED
        known = (kind, PROJECTS if side == "prod" else how)
        s.kinds[id(kind)] = known
    return bool(known[1] == PROJECTS or (known[1] == CHECKED and not made))


def _class_file(kind: type) -> str:
    """Where a class's equality is written (its module's file when that is not Python code)."""
    code = getattr(getattr(kind, "__eq__", None), "__code__", None)
    if code is not None:
        return str(code.co_filename)
    filename = getattr(sys.modules.get(kind.__module__), "__file__", None)
    return filename if isinstance(filename, str) else ""


def _found(
    s: SimpleNamespace, info: tuple[Any, ...], index: int, value: Any, kind: str, how: str
) -> None:
    """One lying value of the running test, once per assert and operand."""
    where, texts, callees = info[0], info[1], info[2]
    if not s.current or (s.current not in s.found and len(s.found) >= MAX_TESTS):
        return
    entries = s.found.setdefault(s.current, [])
    key = (where, index)
    if len(entries) >= MAX_PER_TEST or any((e["where"], e["operand"]) == key for e in entries):
        return
    entries.append(
        {
            "where": where,
            "operand": index,
            "text": texts[index],
            "type": values.type_name(value),
            "kind": kind,
            "how": how,
            "producer": _producer(s, callees[index]),
        }
    )


def _producer(s: SimpleNamespace, callee: str) -> str:
    """The function a dotted callee names in the test's frame: `qualname (path:line)`."""
    if not callee or DOTTED.fullmatch(callee) is None:
        return ""
    try:
        frame: FrameType = s.getframe(4)  # _producer <- _found <- _examine <- check <- the test
    except ValueError:
        return ""
    first, *rest = callee.split(".")
    scopes = (frame.f_locals, frame.f_globals, frame.f_builtins)
    target = next((scope[first] for scope in scopes if first in scope), None)
    for part in rest:
        try:
            target = getattr_static(target, part)
        except AttributeError:
            return ""
    target = getattr(target, "__func__", target)
    code = getattr(target, "__code__", None)
    name = getattr(target, "__qualname__", callee)
    if code is None:
        return str(name)
    path = s.side(code.co_filename)[1] or code.co_filename
    return f"{name} ({path}:{code.co_firstlineno})"
