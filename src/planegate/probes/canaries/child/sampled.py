"""Sampled canaries inside the scoring run (child side): a few of main's tests, chosen by the
gate, run as any test does and then once more with a production function they called broken.

The gate names test keys (`path::name`, `path::Class::name`), a seed, how many breaks, the
message of the break and which functions of the files the patch changed may be broken
(`SampleSpec`: probes/canaries/wire.py). For the first item of each named test (a
parametrized test, its first case):

1. the test runs as usual and reports through the channel like every other test; during its
   call phase a profile hook records the production functions entered straight from a
   test-side frame (a test module, a conftest, a helper, a test root, main's evidence);
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

import contextlib
import random
import sys
from collections.abc import Callable, Generator, Iterator, Mapping
from types import CodeType, FrameType, FunctionType, ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.runner.child import frames

if TYPE_CHECKING:
    import pytest

    from planegate.runner.child.plugin_api import PluginContext

KIND = "sampled"
MAX_CALLS = 64  # direct callees kept per test
KEPT_DUNDERS = frozenset({"__init__", "__call__"})
# a coroutine or async generator raises nothing at the call: it would only fail when awaited
ASYNC_FLAGS = 0x80 | 0x100 | 0x200
PLACEHOLDER = "\0sampled canary\0"
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
    from _pytest.runner import runtestprotocol

    state = SimpleNamespace(
        wanted=frozenset(str(t) for t in spec.get("tests", ())),
        force={str(k): (str(v[0]), str(v[1])) for k, v in dict(spec.get("force", {})).items()},
        only={str(k): frozenset(map(str, v)) for k, v in dict(spec.get("only", {})).items()},
        rng=random.Random(int(spec.get("seed", 0))),
        left=int(spec.get("breaks", 0)),
        message=str(spec.get("message", "")),
        side=sides(audit, spec),
        audit=audit,
        protocol=runtestprotocol,
        taken=set(),
        tracing=None,  # the code objects the running sampled test entered, while it runs
        done={},
    )

    def pytest_sessionfinish(
        *, _e: frames.Emit = emit, _a: Any = audit, _g: Any = frames.guard, _s: Any = state
    ) -> None:
        if _g(_a, "pytest_sessionfinish"):
            _e(KIND, {"tests": dict(_s.done)})

    return {
        "pytest_runtest_call": _call_hook(audit, state),
        "pytest_runtest_protocol": _protocol_hook(audit, state),
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
        if codes is None or not _g(_a, "pytest_runtest_call"):
            yield
            return
        previous = _get()
        ours = profiler(codes, _s.side, previous)
        _set(ours)
        try:
            yield
        finally:
            if _get() is ours:
                _set(previous)

    return pytest_runtest_call


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
        key = nodeid.split("[", 1)[0]
        if key in _s.taken or (key not in _s.wanted and nodeid not in _s.wanted):
            return None
        if not _g(_a, "pytest_runtest_protocol"):
            return None
        _s.taken.add(key)
        item.ihook.pytest_runtest_logstart(nodeid=nodeid, location=item.location)
        codes: dict[CodeType, None] = {}
        _s.tracing = codes
        try:
            # torn down as any test (pytest's plugins expect each setup to get its teardown):
            # the broken run sets up again what this teardown took down
            reports = _protocol(item, nextitem=nextitem, log=True)
        finally:
            _s.tracing = None
        try:
            _s.done[nodeid] = _broken_run(_s, item, nextitem, reports, codes)
        except Exception as error:  # the harness's own failure: never the session's end
            _s.done[nodeid] = {"why": f"the broken run could not be made: {type(error).__name__}"}
        item.ihook.pytest_runtest_logfinish(nodeid=nodeid, location=item.location)
        return True

    return pytest_runtest_protocol


def _broken_run(
    s: SimpleNamespace,
    item: pytest.Item,
    nextitem: pytest.Item | None,
    reports: list[Any],
    codes: dict[CodeType, None],
) -> dict[str, Any]:
    """The test once more with one function broken (the record's entry); nothing runs when
    the first run did not pass or nothing can be broken."""
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
    function, path = target
    s.left -= 1
    original = function.__code__
    seen: list[bool] = []
    s.audit.muted = seen  # the channel keeps this run's reports (subtests' too) out of the stream
    function.__code__ = raiser(original, s.message)
    try:
        with _first_failure_only(item):
            again = s.protocol(item, nextitem=nextitem, log=False)
    finally:
        function.__code__ = original
        s.audit.muted = None
    failed = any(r.failed for r in again) or any(seen)
    line = original.co_firstlineno
    return {**entry, "function": [path, qualname_of(original), line], "failed": failed}


@contextlib.contextmanager
def _first_failure_only(item: pytest.Item) -> Iterator[None]:
    """A Hypothesis test stops at its first failing example in the broken run: no shrinking
    (which can take longer than the test) and nothing saved to the example database."""
    test = getattr(item, "obj", None)
    test = getattr(test, "__func__", test)  # a test method: its function holds the settings
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if current is None or type(test) is not FunctionType or "hypothesis" not in sys.modules:
        yield
        return
    from hypothesis import Phase, settings

    quick = settings(current, phases=(Phase.explicit, Phase.generate), database=None)
    test._hypothesis_internal_use_settings = quick  # type: ignore[attr-defined]
    try:
        yield
    finally:
        test._hypothesis_internal_use_settings = current  # type: ignore[attr-defined]


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


def _template(*_args: Any, **_kwargs: Any) -> None:
    raise RuntimeError("\0sampled canary\0")  # PLACEHOLDER: a constant of the code object


def raiser(code: CodeType, message: str) -> CodeType:
    """A code object that raises `RuntimeError(message)` whatever it is called with, named,
    placed and numbered as `code` (tracebacks read as the function's own)."""
    template = _template.__code__
    consts = tuple(message if c == PLACEHOLDER else c for c in template.co_consts)
    changes: dict[str, Any] = {
        "co_consts": consts,
        "co_name": code.co_name,
        "co_filename": code.co_filename,
        "co_firstlineno": code.co_firstlineno,
    }
    if hasattr(code, "co_qualname"):
        changes["co_qualname"] = code.co_qualname
    return template.replace(**changes)


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
) -> Callable[[FrameType, str, Any], None]:
    """A profile hook keeping, in the order first entered, the production code objects
    entered straight from a test-side frame; the hook it replaced is still called."""

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and len(codes) < MAX_CALLS and frame.f_back is not None:
            code, caller = frame.f_code, frame.f_back.f_code.co_filename
            if side(code.co_filename)[0] == "prod" and side(caller)[0] == "test":
                codes.setdefault(code, None)
        if chained is not None:
            chained(frame, event, arg)

    return profile
