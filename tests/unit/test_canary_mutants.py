"""The sampled canaries' breaking of production functions: every reference returns a wrong
value (or raises as the function would) and the function is put back; only plain functions
found by qualified name are broken."""

from __future__ import annotations

from types import ModuleType

import pytest

from planegate.probes.canaries.child import breaks, sampled

CORE = (
    "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n\n\n"
    "class Counter:\n    def __init__(self):\n        self.seen = []\n\n"
    "    def count(self, item):\n        self.seen.append(item)\n        return len(self.seen)\n"
)
EXAMPLES = (
    "from calc.core import Counter, add\n\n\n"
    "def test_add_small():\n    assert add(2, 3) == 5\n\n\n"
    "class TestCounter:\n    def test_counts(self):\n        counter = Counter()\n"
    "        counter.count('a')\n        assert counter.count('b') == 2\n"
)


# --- the break itself (in this process: the child's own functions) ---

BREAKABLE = (
    "import functools\n\n\ndef add(a, b):\n    return a + b\n\n\n"
    "class C:\n    class Inner:\n        def deep(self):\n            return 1\n\n"
    "    @staticmethod\n    def static(x):\n        return x\n\n"
    "    def __init__(self):\n        self.x = 1\n\n"
    "    def __repr__(self):\n        return 'C'\n\n\n"
    "async def later():\n    return 1\n\n\ndef outer():\n    y = 1\n\n"
    "    def inner():\n        return y\n\n    return inner\n\n\n"
    "closure = outer()\n"
)


def module_of(source: str) -> ModuleType:
    module = ModuleType("calc_core")
    exec(compile(source, "/tree/calc/core.py", "exec"), module.__dict__)
    return module


def test_a_broken_function_returns_a_wrong_value_for_every_reference_and_is_put_back() -> None:
    module = module_of(BREAKABLE)
    add = sampled.function_named(module, "add")
    assert add is not None and sampled.breakable(add)
    alias, held = module.add, [module.add]
    original = add.__code__
    add.__code__ = breaks.broken(add)
    try:
        # an int, off by one, then by two...: an ordinary wrong value, and never the same
        # wrong value twice (a property comparing two calls fails too)
        assert [call(1, b=2) for call in (alias, held[0], module.__dict__["add"])] == [4, 5, 6]
        assert module.add("ab", "c") == "abccccc" and module.add([1], [2]) == [1, 2] + [None] * 5
        assert module.add(0.1, 0.2) != pytest.approx(0.3)
        assert add.__code__.co_filename == "/tree/calc/core.py" and add.__name__ == "add"
    finally:
        add.__code__ = original
    assert module.add(1, 2) == 3


RAISES = (
    "class Invalid(Exception):\n    pass\n\n\n"
    "def check(value):\n    if value < 0:\n        raise Invalid(value)\n    value += 1\n\n\n"
    "def fail(value):\n    raise KeyError(value)\n"
)


def test_a_function_without_a_value_to_bend_raises_its_own_exception_in_its_own_frame() -> None:
    module = module_of(RAISES)
    check, fail = module.check, module.fail
    check.__code__, fail.__code__ = breaks.broken(check), breaks.broken(fail)
    with pytest.raises(module.Invalid) as raised:
        check(3)  # returns None: the exception its code names, the argument as its message
    assert str(raised.value) == "3"
    last = raised.traceback[-1]
    assert str(last.path) == "/tree/calc/core.py" and last.frame.code.name == "check"
    assert last.lineno + 1 == 6  # the function's first line of body, not the template's
    # what the original raises is swallowed: a test expecting it fails too
    assert fail(1) is None


BENDABLE = [True, False, 0, -2, 7, 0.0, -2.0, 1e300, float("inf"), 1j, "", "x", b"", b"ab"]
BENDABLE += [[], [1], (), (1, 2), {}, {"a": 1}, set(), {1}, frozenset({2})]


@pytest.mark.parametrize("value", BENDABLE, ids=[repr(v) for v in BENDABLE])
def test_every_bent_value_has_its_type_and_differs(value: object) -> None:
    bent = [breaks.wrong(value, call) for call in (1, 2, 3)]
    assert all(b is not None and type(b[0]) is type(value) and b[0] != value for b in bent)
    if type(value) is not bool:
        assert bent[0] != bent[1] != bent[2]


def test_other_values_are_not_bent() -> None:
    assert breaks.wrong(None) is None and breaks.wrong(object()) is None


def test_only_plain_functions_found_by_qualified_name_are_broken() -> None:
    module = module_of(BREAKABLE)
    deep = sampled.function_named(module, "C.Inner.deep")
    static = sampled.function_named(module, "C.static")
    init = sampled.function_named(module, "C.__init__")
    assert deep is not None and static is not None and init is not None
    assert all(sampled.breakable(f) for f in (deep, static, init))
    rep = sampled.function_named(module, "C.__repr__")
    later = sampled.function_named(module, "later")
    closure = sampled.function_named(module, "closure")
    assert rep is not None and not sampled.breakable(rep)  # a special method
    assert later is not None and not sampled.breakable(later)  # async: raises only when awaited
    assert closure is not None and not sampled.breakable(closure)  # its code has free variables
    assert sampled.function_named(module, "functools") is None  # a module, not a function
    assert sampled.function_named(module, "outer.<locals>.inner") is None
    assert sampled.function_named(module, "C.x") is None


# --- the gate, on real repositories ---


# --- the profile hook that finds what a sampled test calls directly ---

PRODUCTION = (
    "def add(a, b):\n    return twice(a) // 2 + b\n\n\ndef twice(x):\n    return 2 * x\n\n\n"
    "class Box:\n    def __init__(self, value):\n        self.value = value\n\n\n"
    "def made():\n    return Box(1)\n"
)
TEST_SIDE = (
    "def test_rows(core):\n    total = 0\n    for n in range(5):\n"
    "        total += core.add(n, 1)\n    return total\n\n\n"
    "def helper(core, weakref):\n    box = core.made()\n    return weakref.ref(box)\n"
)


def test_the_profile_hook_keeps_direct_callees_of_test_frames_and_holds_no_finished_frame() -> None:
    import gc
    import sys
    import weakref

    core = module_of(PRODUCTION)
    tests = ModuleType("test_rows")
    exec(compile(TEST_SIDE, "/tree/tests/test_rows.py", "exec"), tests.__dict__)

    def side(filename: str) -> tuple[str, str]:
        path = filename.removeprefix("/tree/")
        return ("prod", path) if path.startswith("calc/") else ("test", path)

    codes: dict[object, None] = {}
    hook, forget = sampled.profiler(codes, side)  # type: ignore[arg-type]
    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        assert tests.test_rows(core) == 15
        # a helper's frame called production code, then returned: neither it nor its
        # locals may outlive the call because of the hook (a weak-reference test sees it)
        ref = tests.helper(core, weakref)
        gc.collect()
        collected = ref() is None
    finally:
        sys.setprofile(previous)
        forget()
    assert collected
    # add and made are called from test-side frames; twice only from add; Box.__init__ from
    # made (production): not direct
    names = [sampled.qualname_of(code) for code in codes]  # type: ignore[arg-type]
    assert names == ["add", "made"]
