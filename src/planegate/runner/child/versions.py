"""Writes to the namespaces a report depends on, seen through each dict's version tag.

A check of bindings at checkpoints cannot see a write that is undone in between (a finalizer,
a one-shot stand-in, a signal handler). CPython (3.6 to 3.13) gives every dict a version tag
that takes a new value from a global counter on each change of the dict, and a write of the
object already bound changes nothing. The tags are read all at once from a view of the memory
that holds them (`reader`): one machine word per namespace, read between every two reports.
A namespace whose tag moved is compared with its snapshot (every key, every value's identity):
- nothing differs: it was rebound and restored in between: reported, naming the namespace;
- a test module's binding differs (any value, data included) and the new value's code is not
  main's tests' (a data value: unless the module's own functions assign that name with
  `global`): reported, naming the binding; the harness's own data bindings (flags,
  caches) change freely, and its code bindings are named by `integrity.check`. A test
  module's `__warningregistry__` (a plain dict the warnings machinery adds) is not reported.
Where the tag cannot be read (an interpreter without one, another layout: `usable` is False)
only the identity checks run; docs/runner.md says so.
"""

from __future__ import annotations

import ctypes
import dis
import functools
import itertools
import operator
from collections.abc import Callable, Mapping, Sequence
from types import CodeType, FunctionType, ModuleType, SimpleNamespace
from typing import Any

from planegate.runner.child import frames

# what a test module's binding may be rebound to without a report: nothing of the patch's
_MISSING = object()
# where the interpreter's warnings machinery keeps, in the globals of the module a warning is
# attributed to, which warnings it has shown: a test module gains one the first time code it
# calls warns with that module as the warning's place (a deprecation the patch adds)
_REGISTRY = "__warningregistry__"


def make(audit: SimpleNamespace) -> SimpleNamespace:
    offset = _offset()
    return SimpleNamespace(
        audit=audit,
        offset=offset,
        usable=offset is not None,
        labels=[],
        dicts=[],
        views=[],
        keys=[],
        values=[],
        tests=[],
        stamps=[],  # each namespace's tag when it was last compared
        index_of={},  # id of a watched dict -> its index
        hot=(),  # the harness's namespaces' indexes, read at every check
        hot_read=tuple,  # the harness's namespaces' tags, read in one call (`reader`)
        hot_last=(),
        test_of={},  # nodeid -> the index of its module's namespace
        read=operator.attrgetter("value"),
        moved=_moved_positions,
        is_=operator.is_,
        map=map,
        all=all,
        tuple=tuple,
        len=len,
    )


def _offset() -> int | None:
    """Where a dict keeps its version tag (after the object header and `ma_used`), checked on
    dicts made here: it must move on every change, hold still otherwise, and count up."""
    if not hasattr(ctypes, "c_uint64"):  # pragma: no cover - every CPython has it
        return None
    offset = ctypes.sizeof(ctypes.c_void_p) * 2 + ctypes.sizeof(ctypes.c_ssize_t)
    first: dict[str, object] = {}
    second: dict[str, object] = {}
    try:
        tag = ctypes.c_uint64.from_address(id(first) + offset)
        other = ctypes.c_uint64.from_address(id(second) + offset)
        seen = [tag.value]
        for value in (1, 2, 2, 3):
            first["k"] = value
            seen.append(tag.value)
        del first["k"]
        seen.append(tag.value)
        second["k"] = 1
    except (OSError, ValueError, TypeError):  # pragma: no cover - a platform without the view
        return None
    moved = seen[0] < seen[1] < seen[2] == seen[3] < seen[4] < seen[5] < other.value
    return offset if moved and len(set(seen)) == 5 else None


def _watch(v: SimpleNamespace, label: str, mapping: Mapping[str, Any], test: bool) -> None:
    """Watch one namespace from now on (a module's dict; a test module's when `test`)."""
    if not v.usable or type(mapping) is not dict or id(mapping) in v.index_of:
        return
    v.index_of[id(mapping)] = len(v.dicts)
    v.labels.append(label)
    v.dicts.append(mapping)  # kept alive here: the view reads its memory
    v.views.append(ctypes.c_uint64.from_address(id(mapping) + v.offset))
    v.keys.append(tuple(mapping))
    v.values.append(tuple(mapping.values()))
    v.tests.append(test)
    v.stamps.append(v.views[-1].value)


def watch_modules(v: SimpleNamespace, modules: Mapping[str, object], test: bool) -> None:
    for name, module in modules.items():
        if isinstance(module, ModuleType):
            _watch(v, name, vars(module), test)
    v.hot = tuple(index for index, test in enumerate(v.tests) if not test)
    v.hot_read = reader([ctypes.addressof(v.views[index]) for index in v.hot])
    v.hot_last = tuple(v.stamps[index] for index in v.hot)


def reader(addresses: Sequence[int]) -> Callable[[], tuple[int, ...]]:
    """The 64-bit word at each address, all read in one call in C: a view of the span of
    memory that holds them, indexed by an `itemgetter` (a ctypes view's `.value` per word
    costs twice as much). The caller keeps the objects at those addresses alive."""
    if not addresses:
        return tuple
    base = min(addresses)
    offsets = [address - base for address in addresses]
    if any(offset % 8 for offset in offsets):  # pragma: no cover - dicts are 8-aligned
        views = [ctypes.c_uint64.from_address(address) for address in addresses]
        return functools.partial(_values, views)
    span = (ctypes.c_char * (max(offsets) + 8)).from_address(base)
    words = memoryview(span).cast("B").cast("Q")
    indexes = [offset // 8 for offset in offsets]
    get = operator.itemgetter(*indexes) if len(indexes) > 1 else operator.itemgetter(*indexes * 2)
    read: Callable[[], tuple[int, ...]] = functools.partial(get, words)
    return read if len(indexes) > 1 else functools.partial(_first, read)


def _values(views: list[Any]) -> tuple[int, ...]:  # pragma: no cover - see `reader`
    return tuple(view.value for view in views)


def _first(read: Callable[[], tuple[int, ...]]) -> tuple[int, ...]:
    return read()[:1]


def _moved_positions(before: tuple[int, ...], after: tuple[int, ...]) -> Any:
    """The positions where two tuples of tags differ, found in C."""
    return itertools.compress(itertools.count(), map(operator.ne, before, after))


def assign(v: SimpleNamespace, spaces: Mapping[str, Mapping[str, Any]]) -> None:
    """Which test module's namespace each nodeid reads (checked with that test's reports)."""
    for nodeid, mapping in spaces.items():
        index = v.index_of.get(id(mapping))
        if index is not None:
            v.test_of[nodeid] = index


def rebase(v: SimpleNamespace) -> None:
    """Take every watched namespace as it is now, unreported (the end of collection)."""
    v.keys = [v.tuple(mapping) for mapping in v.dicts]
    v.values = [v.tuple(mapping.values()) for mapping in v.dicts]
    v.stamps = [view.value for view in v.views]
    v.hot_last = tuple(v.stamps[index] for index in v.hot)


def tags(v: SimpleNamespace) -> tuple[int, ...]:
    """Every watched namespace's tag now (for `settle`)."""
    found: tuple[int, ...] = v.tuple(v.map(v.read, v.views))
    return found


def settle(v: SimpleNamespace, before: tuple[int, ...]) -> None:
    """After a run the harness makes inside the session (a sampled canary's broken run of a
    test that ran before; `before`: the tags as it began): a namespace it rebound and
    restored (freezegun's `datetime` in every module, a `monkeypatch`) is taken as it is,
    unreported, since where such a run lands is drawn at random and main's run cannot show
    the same. Test modules' namespaces only: the harness's are checked at the broken test's
    own checkpoints inside the run, as in the scoring run, and a harness swap undone between
    them (a report forged for the broken run alone) stays named. A namespace that had moved
    before the run began, or that it left changed, stays for the next check."""
    for index, view in enumerate(v.views):
        tag = view.value
        if not v.tests[index] or tag == before[index] or before[index] != v.stamps[index]:
            continue
        mapping, keys, values = v.dicts[index], v.keys[index], v.values[index]
        if v.len(mapping) == v.len(keys) and v.all(
            v.map(v.is_, values, v.map(mapping.get, keys, (_MISSING,) * v.len(keys)))
        ):
            v.stamps[index] = tag
    v.hot_last = tuple(v.stamps[index] for index in v.hot)


def check(v: SimpleNamespace, when: str, nodeid: str = "") -> None:
    """The harness's namespaces, and the namespace of `nodeid`'s module, against their tags
    at their last check: one read per namespace, a comparison only where a tag moved."""
    now = v.hot_read()
    if now != v.hot_last:
        for position in v.moved(v.hot_last, now):
            _compare(v, v.hot[position], when)
            v.stamps[v.hot[position]] = now[position]
        v.hot_last = now
    index = v.test_of.get(nodeid)
    if index is not None:
        _check_one(v, index, when)


def check_all(v: SimpleNamespace, when: str) -> None:
    """Every test module's namespace too (at the end of the session)."""
    check(v, when)
    for index, test in enumerate(v.tests):
        if test:
            _check_one(v, index, when)


def _check_one(v: SimpleNamespace, index: int, when: str) -> None:
    tag = v.views[index].value
    if tag != v.stamps[index]:
        _compare(v, index, when)
        v.stamps[index] = tag


def _compare(v: SimpleNamespace, index: int, when: str) -> None:
    mapping, keys, values = v.dicts[index], v.keys[index], v.values[index]
    label = v.labels[index]
    same = v.len(mapping) == v.len(keys) and v.all(
        v.map(v.is_, values, v.map(mapping.get, keys, (_MISSING,) * v.len(keys)))
    )
    if same:
        _report(v, f"{label} rebound and restored {when}", None)
    elif v.tests[index]:
        _test_bindings(v, label, dict(zip(keys, values, strict=True)), mapping, when)
    v.keys[index] = v.tuple(mapping)
    v.values[index] = v.tuple(mapping.values())


def _test_bindings(
    v: SimpleNamespace, label: str, old: dict[str, Any], now: Mapping[str, Any], when: str
) -> None:
    """A test module's namespace as collected: a binding whose new value is not main's tests'
    own code (data included: a test's expected value lives there) is named."""
    own: frozenset[str] | None = None
    for key in sorted(set(old) | set(now)):
        before, after = old.get(key, _MISSING), now.get(key, _MISSING)
        if before is after or (key == _REGISTRY and type(after) is dict):
            continue
        kind = frames.origin(v.audit, after)[0] if after is not _MISSING else None
        if kind == frames.TESTS:
            continue
        own = _own_globals(now) if own is None else own
        if kind is None and key in own:
            continue  # a name the module's own functions assign (`global counter`)
        verb = "removed" if after is _MISSING else "added" if before is _MISSING else "replaced"
        _report(v, f"{label}.{key} {verb} {when}", after)


def _own_globals(space: Mapping[str, Any]) -> frozenset[str]:
    """The names a module's own functions (and its classes' methods) store or delete as
    globals: read from their code objects, nested ones included."""
    codes = []
    for value in list(space.values()):
        if type(value) is FunctionType:
            codes.append(value.__code__)
        elif type(value) is type:
            items = type.__dict__["__dict__"].__get__(value).values()
            codes += [f.__code__ for f in items if type(f) is FunctionType]
    names: set[str] = set()
    while codes:
        code = codes.pop()
        codes += [c for c in code.co_consts if type(c) is CodeType]
        names.update(
            str(i.argval) for i in dis.get_instructions(code) if i.opname in _GLOBAL_WRITES
        )
    return frozenset(names)


_GLOBAL_WRITES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL"})


def _report(v: SimpleNamespace, event: str, value: object) -> None:
    kind, path, line = frames.origin(v.audit, value) if value is not None else (None, "", 0)
    rel = frames.relative(v.audit, path) if kind in (frames.PRODUCTION, frames.PSEUDO) else ""
    frames.record(v.audit, f"harness changed: {event}", None, rel, line if rel else 0)
