"""Sampled canaries inside the scoring run (child side): a few of main's tests, chosen by the
gate, run as any test does and then once more with a production function they called broken.

The gate names test keys (`path::name`, `path::Class::name`), a seed, how many breaks, the
message of the break and which functions of the files the patch changed may be broken
(`SampleSpec`: probes/canaries/wire.py). For the first item of each named test (a
parametrized test, its first case):

1. the test runs as usual and reports through the channel like every other test; during its
   call phase a profile hook records the production functions entered straight from a
   test-side frame (a test module, a conftest, a helper, a test root, main's evidence)
   (only while breaks are left: a test sampled after the last break runs unprofiled);
2. when it passed and breaks are left, one of those functions, chosen with the seed, is
   broken: its `__code__` is swapped for one that raises (keeping its name, file and first
   line), so every reference the tree holds to the function object calls the break;
3. the test runs again with its reports kept from the channel (subtests' too), and the
   function is put back. The session's `sampled` record says, for each test, what it called,
   what was broken and whether it failed.

A run on the base (`force`) breaks, for each named nodeid, the function the head's run broke,
found by file and qualified name, and records the test's direct calls on main as well.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Generator, Mapping
from types import CodeType, FrameType, FunctionType, ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.probes.canaries.child import breaks, shortened, undone
from planegate.runner.child import frames, versions

if TYPE_CHECKING:
    import pytest

    from planegate.runner.child.plugin_api import PluginContext

KIND = "sampled"
# the entries whose breaks are all run, sent once no break is left to run, while the session
# goes on: the gate can start main's confirmation of a break that passed before the run ends
SETTLED = "sampled_settled"
MAX_CALLS = 64  # direct callees kept per test
KEPT_DUNDERS = frozenset({"__init__", "__call__"})
# a coroutine or async generator raises nothing at the call: it would only fail when awaited
ASYNC_FLAGS = 0x80 | 0x100 | 0x200
NOT_PASSED, NOTHING, NO_BREAKS, NOT_FOUND = (
    "it did not pass",
    "it called no production function that can be broken",
    "no breaks left",
    "the function was not found",
)


def plugin(options: Mapping[str, Any], context: PluginContext, /) -> object:
    """The sampled canaries' plugin for the options the gate wrote (`SampleSpec.to_json`)."""
    return context.module(KIND, hooks(context.emit, context.audit, options))


def hooks(
    emit: frames.Emit, audit: SimpleNamespace, spec: Mapping[str, Any]
) -> dict[str, Callable[..., Any]]:
    import pytest
    from _pytest.runner import runtestprotocol

    state = SimpleNamespace(
        wanted=frozenset(str(t) for t in spec.get("tests", ())),
        force={str(k): (str(v[0]), str(v[1])) for k, v in dict(spec.get("force", {})).items()},
        only={str(k): frozenset(map(str, v)) for k, v in dict(spec.get("only", {})).items()},
        rng=random.Random(int(spec.get("seed", 0))),
        left=int(spec.get("breaks", 0)),
        side=sides(audit, spec),
        audit=audit,
        protocol=runtestprotocol,
        taken=set(),
        tracing=None,  # the code objects the running sampled test entered, while it runs
        done={},
        pending=[],  # broken runs waiting for their place: [item, function, path, entry, before]
        stop=None,  # during a broken run: its session, stopped at the first failed subtest
        undo=None,  # during a broken run: the process state it began with (undone.py)
        stopped=None,  # the session's `shouldfail` before it was set there
        emit=emit,
        settled=bool(spec.get("force")),  # a run that confirms (on the base) sends none
        expected=None,  # the keys of the sampled tests the session holds, once read
    )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(
        *, _e: frames.Emit = emit, _a: Any = audit, _g: Any = frames.guard, _s: Any = state
    ) -> None:
        if _g(_a, "pytest_sessionfinish"):
            _run_pending(_s, None)  # those placed after the last test: everything torn down
            _e(KIND, {"tests": dict(_s.done)})

    return {
        "pytest_runtest_call": _call_hook(audit, state),
        "pytest_runtest_logreport": _stop_hook(audit, state),
        "pytest_runtest_protocol": _protocol_hook(audit, state),
        "pytest_runtest_teardown": _undo_hook(state, "pytest_runtest_teardown"),
        "pytest_runtest_makereport": _undo_hook(state, "pytest_runtest_makereport"),
        "pytest_sessionfinish": pytest_sessionfinish,
    }


def _call_hook(audit: SimpleNamespace, state: SimpleNamespace) -> Callable[..., Any]:
    """While a sampled test's call phase runs (its first run only), the profile hook records
    what it enters; a profile hook already there keeps being called, and one installed during
    the test stays."""
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(
        *,
        _a: Any = audit,
        _s: SimpleNamespace = state,
        _g: Any = frames.guard,
        _get: Callable[[], Any] = sys.getprofile,
        _set: Callable[[Any], None] = sys.setprofile,
    ) -> Generator[None, None, None]:
        codes = _s.tracing
        if _s.stop is not None:
            try:
                yield
            finally:
                _resume(_s)  # before pytest's runner reads it to decide the teardown
            return
        if codes is None or not _g(_a, "pytest_runtest_call"):
            yield
            return
        previous = _get()
        ours, forget = profiler(codes, _s.side, previous)
        _set(ours)
        try:
            yield
        finally:
            if _get() is ours:
                _set(previous)
            forget()

    return pytest_runtest_call


def _stop_hook(audit: SimpleNamespace, state: SimpleNamespace) -> Callable[..., Any]:
    """In a broken run, the first failed subtest report of pytest's `subtests` fixture ends
    the test: the session's `shouldfail` is set for the rest of the call phase, which makes
    the fixture re-raise the failure (`_resume` puts it back). Whether one failed is all the
    run is asked; a subtest that passes or skips changes nothing."""
    import pytest

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(
        report: pytest.TestReport,
        *,
        _a: Any = audit,
        _s: SimpleNamespace = state,
        _g: Any = frames.guard,
    ) -> None:
        session = _s.stop
        if session is None or _s.stopped is not None or not report.failed:
            return
        if "_shouldfail" not in vars(session):  # a pytest whose flag could not be put back
            return
        if getattr(report, "context", None) is None or not _g(_a, "pytest_runtest_logreport"):
            return
        _s.stopped = (session.shouldfail,)
        if not session.shouldfail:
            session.shouldfail = "a sampled canary's broken run failed"

    return pytest_runtest_logreport


def _undo_hook(state: SimpleNamespace, name: str) -> Callable[..., Any]:
    """In a broken run, each report is built and the teardown starts with the interpreter as
    the run found it (`undone.py`): pytest's own reporting and teardown run as they would."""
    import pytest

    def undo(*, _s: SimpleNamespace = state, _r: Any = undone.restore) -> None:
        if _s.undo is not None:
            _r(_s.undo)

    undo.__name__ = name
    return pytest.hookimpl(tryfirst=True)(undo)


def _resume(s: SimpleNamespace) -> None:
    """The session's `shouldfail` as it was before a broken run's failed subtest set it."""
    if s.stopped is not None and s.stop is not None:
        if "_shouldfail" in vars(s.stop):
            vars(s.stop)["_shouldfail"] = s.stopped[0]  # its setter refuses to unset
        s.stopped = None


def _protocol_hook(audit: SimpleNamespace, state: SimpleNamespace) -> Callable[..., Any]:
    """Each sampled test's run, then its run with a function broken (`_broken_run`)."""
    import pytest
    from _pytest.runner import runtestprotocol

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(
        item: pytest.Item,
        nextitem: pytest.Item | None,
        *,
        _a: Any = audit,
        _s: SimpleNamespace = state,
        _g: Any = frames.guard,
        _protocol: Any = runtestprotocol,
    ) -> bool | None:
        nodeid = item.nodeid
        if _s.pending and _g(_a, "pytest_runtest_protocol"):
            _run_pending(_s, item)  # broken runs placed before this test
        if not _s.settled and _settled(_s, item) and _g(_a, "pytest_runtest_protocol"):
            _s.settled = True
            done = {n: dict(e) for n, e in _s.done.items() if "function" in e}
            _s.emit(SETTLED, {"tests": done})
        key = nodeid.split("[", 1)[0]
        if key in _s.taken or (key not in _s.wanted and nodeid not in _s.wanted):
            return None
        if not _g(_a, "pytest_runtest_protocol"):
            return None
        _s.taken.add(key)
        item.ihook.pytest_runtest_logstart(nodeid=nodeid, location=item.location)
        codes: dict[CodeType, None] = {}
        # with no break left (and none forced) what it calls decides nothing: not profiled
        _s.tracing = codes if _s.left > 0 or nodeid in _s.force else None
        try:
            # torn down as any test (pytest's plugins expect each setup to get its teardown):
            # the broken run sets up again what this teardown took down
            reports = _protocol(item, nextitem=nextitem, log=True)
        finally:
            _s.tracing = None
        entry = _planned(_s, item, reports, codes)
        if entry is not None:
            _s.done[nodeid] = entry
        item.ihook.pytest_runtest_logfinish(nodeid=nodeid, location=item.location)
        return True

    return pytest_runtest_protocol


def _planned(
    s: SimpleNamespace, item: pytest.Item, reports: list[Any], codes: dict[CodeType, None]
) -> dict[str, Any] | None:
    """The record's entry when nothing is to be broken; else None, with the broken run placed
    at a random later point of the session (`_place`)."""
    called = [s.side(code.co_filename)[1] for code in codes]
    entry: dict[str, Any] = {
        "calls": [[path, qualname_of(code)] for path, code in zip(called, codes, strict=True)]
    }
    passed = any(r.when == "call" and r.passed for r in reports)
    if not passed or any(r.failed for r in reports):
        return {**entry, "why": NOT_PASSED}
    if s.left <= 0 and item.nodeid not in s.force:
        return {**entry, "why": NO_BREAKS}
    target = _target(s, item.nodeid, codes)
    if target is None:
        return {**entry, "why": NOT_FOUND if item.nodeid in s.force else NOTHING}
    s.left -= 1
    s.pending.append([item, target[0], target[1], entry, _place(s, item)])
    return None


def _place(s: SimpleNamespace, item: pytest.Item) -> object:
    """A random later point of the session for the broken run: before a later test whose set-up
    can follow it (what the tests on both sides of that point share, the broken test holds
    too), or after the last test (None). The test right after is always such a point."""
    items = list(item.session.items)
    index = next((i for i, other in enumerate(items) if other is item), len(items) - 1)
    chain = item.listchain()
    for _ in range(16):
        at = s.rng.randint(index + 1, len(items))
        if at == len(items):
            return None
        shared = [
            n for n in items[at - 1].listchain() if any(n is m for m in items[at].listchain())
        ]
        if all(any(n is m for m in chain) for n in shared):
            return items[at]
    return items[index + 1] if index + 1 < len(items) else None


def _settled(s: SimpleNamespace, item: pytest.Item) -> bool:
    """Whether no more breaks can come: every broken run placed has run, and no break is left
    or every sampled test the session holds has run (`expected`: their keys, read from the
    session's items once)."""
    if s.pending:
        return False
    if s.left <= 0:
        return True
    if s.expected is None:
        s.expected = {
            i.nodeid.split("[", 1)[0]
            for i in item.session.items
            if i.nodeid in s.wanted or i.nodeid.split("[", 1)[0] in s.wanted
        }
    return bool(s.expected <= s.taken)


def _run_pending(s: SimpleNamespace, before: pytest.Item | None) -> None:
    """The broken runs placed before `before` (after the last test: None)."""
    due = [p for p in s.pending if p[4] is before or (before is None)]
    s.pending[:] = [p for p in s.pending if not any(p is d for d in due)]
    for index, (item, function, path, entry, _) in enumerate(due):
        # each run's teardown keeps only what the next one set up needs (the next broken run
        # at the same place, then `before`): pytest's set-up state holds what both share
        following = due[index + 1][0] if index + 1 < len(due) else before
        try:
            s.done[item.nodeid] = _broken_run(s, item, following, function, path, entry)
        except Exception as error:  # the harness's own failure: never the session's end
            s.done[item.nodeid] = {
                "why": f"the broken run could not be made: {type(error).__name__}"
            }


def _broken_run(
    s: SimpleNamespace,
    item: pytest.Item,
    nextitem: pytest.Item | None,
    function: FunctionType,
    path: str,
    entry: dict[str, Any],
) -> dict[str, Any]:
    """The test once more with `function` broken (`breaks.broken`): the record's entry."""
    original = function.__code__
    seen: list[bool] = []
    s.audit.muted = seen  # the channel keeps this run's reports (subtests' too) out of the stream
    trace = getattr(s.audit, "trace", None)
    reads = trace.reads if trace is not None else None
    if trace is not None:
        trace.reads = {}  # what the broken run opens is no test's reads (it runs inside another's)
    namespaces = getattr(s.audit, "versions", None)
    tags = versions.tags(namespaces) if namespaces is not None else ()
    function.__code__ = breaks.broken(function)
    s.stop = item.session
    try:
        with (
            undone.process_state(s),
            shortened.first_failure_only(item),
            shortened.first_subtest_only(item),
            shortened.plain_tracebacks(item),
        ):
            again = s.protocol(item, nextitem=nextitem, log=False)
    except Exception:  # pytest's own protocol broke off: its set-up state is left as the
        item.session._setupstate.teardown_exact(nextitem)  # next test's set-up needs it
        raise
    finally:
        _resume(s)
        s.stop = None
        function.__code__ = original
        if namespaces is not None:
            versions.settle(namespaces, tags)
        s.audit.muted = None
        if trace is not None:
            trace.reads = reads
    failed = any(r.failed for r in again) or any(seen)
    line = original.co_firstlineno
    return {**entry, "function": [path, qualname_of(original), line], "failed": failed}


def _target(
    s: SimpleNamespace, nodeid: str, codes: dict[CodeType, None]
) -> tuple[FunctionType, str] | None:
    if nodeid in s.force:
        path, qualname = s.force[nodeid]
        module = _module_at(s.side, path)
        function = None if module is None else function_named(module, qualname)
        return (function, path) if function is not None and breakable(function) else None
    options = list(codes)
    s.rng.shuffle(options)
    for code in options:
        path = s.side(code.co_filename)[1]
        allowed = s.only.get(path)
        if allowed is not None and qualname_of(code) not in allowed:
            continue  # the patch rewrote it: a break would judge the rewrite, not the run
        module = _module_at(s.side, path)
        function = None if module is None else function_named(module, qualname_of(code))
        if function is not None and function.__code__ is code and breakable(function):
            return function, path
    return None


def qualname_of(code: CodeType) -> str:
    """The function's qualified name (Python 3.11+); its bare name before."""
    return str(getattr(code, "co_qualname", code.co_name))


def _module_at(side: Callable[[str], tuple[str, str]], path: str) -> ModuleType | None:
    """The imported module of the tree's file `path` (plain module objects only: nothing of
    the patch runs to answer)."""
    for module in list(sys.modules.values()):
        if type(module) is not ModuleType:
            continue
        filename = module.__dict__.get("__file__")
        if isinstance(filename, str) and side(filename) == ("prod", path):
            return module
    return None


def function_named(module: ModuleType, qualname: str) -> FunctionType | None:
    """The function `qualname` names in the module, through class bodies (static and class
    methods unwrapped); None for anything else. Only dictionaries are read: no attribute
    lookup that could run code of the patch."""
    if "<" in qualname:
        return None
    namespace: Mapping[str, Any] = module.__dict__
    *owners, name = qualname.split(".")
    for owner in owners:
        value = namespace.get(owner)
        if not issubclass(type(value), type):
            return None
        namespace = type.__dict__["__dict__"].__get__(value)
    found = namespace.get(name)
    if isinstance(found, (staticmethod, classmethod)) and type(found) in (
        staticmethod,
        classmethod,
    ):
        found = found.__func__
    return found if type(found) is FunctionType else None


def breakable(function: FunctionType) -> bool:
    """A plain function whose code can be swapped: no closure, not async, not a special
    method other than `__init__` and `__call__` (a broken `__repr__` changes how the harness
    sees objects, not what the test checks)."""
    code = function.__code__
    name = code.co_name
    if name.startswith("__") and name.endswith("__") and name not in KEPT_DUNDERS:
        return False
    return function.__closure__ is None and not code.co_freevars and not code.co_flags & ASYNC_FLAGS


def sides(s: SimpleNamespace, spec: Mapping[str, Any]) -> Callable[[str], tuple[str, str]]:
    """filename -> (side, tree-relative path): side '' outside the tree, else test or prod."""
    test_files = frozenset(str(p) for p in spec.get("test_files", ()))
    test_dirs = tuple(str(p).strip("/") + "/" for p in spec.get("test_roots", ()))
    cache: dict[str, tuple[str, str]] = {}

    def side(filename: str) -> tuple[str, str]:
        known = cache.get(filename)
        if known is not None:
            return known
        if not filename.startswith(s.prefixes) or not filename.endswith(".py"):
            known = ("", "")
        else:
            path = frames.relative(s, filename)
            name = path.rsplit("/", 1)[-1]
            test_like = name == "conftest.py" or name.startswith("test_")
            test_like = test_like or name.endswith("_test.py") or path in test_files
            test_like = test_like or path.startswith(test_dirs)
            if test_like or frames.classify(s, filename) == frames.TESTS:
                known = ("test", path)
            else:
                known = ("prod", path)
        cache[filename] = known
        return known

    return side


def profiler(
    codes: dict[CodeType, None],
    side: Callable[[str], tuple[str, str]],
    chained: Callable[[FrameType, str, Any], object] | None = None,
) -> tuple[Callable[[FrameType, str, Any], None], Callable[[], None]]:
    """A profile hook keeping, in the order first entered, the production code objects
    entered straight from a test-side frame; the hook it replaced is still called.

    Reading a frame's `f_code` raises an audit event (the child's hook runs for each), so
    the caller's side is read once for as long as the same frame keeps calling (a test's
    loop over its cases), and the callee's code only when the caller is test-side. The
    caller is held only while it runs: dropped at its `return` event, and by `forget` (the
    second function returned) when the phase ends: no frame, nor its locals, outlives its
    call because of the hook."""
    last: list[Any] = [None, False]  # the last caller frame seen, and whether it is test-side

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            back = frame.f_back
            if back is not None and len(codes) < MAX_CALLS:
                if back is not last[0]:
                    last[0], last[1] = back, side(back.f_code.co_filename)[0] == "test"
                if last[1]:
                    code = frame.f_code
                    if side(code.co_filename)[0] == "prod":
                        codes.setdefault(code, None)
        elif event == "return" and frame is last[0]:
            last[0] = None
        if chained is not None:
            chained(frame, event, arg)

    def forget() -> None:
        last[0] = None

    return profile, forget
