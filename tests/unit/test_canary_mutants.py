"""The sampled canaries' breaking of production functions: every reference raises and the
function is put back; only plain functions found by qualified name are broken."""

from __future__ import annotations

from types import ModuleType

import pytest

from planegate.probes.canaries.child import sampled

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


def test_a_broken_function_raises_for_every_reference_and_is_put_back() -> None:
    module = module_of(BREAKABLE)
    add = sampled.function_named(module, "add")
    assert add is not None and sampled.breakable(add)
    alias, held = module.add, [module.add]
    original = add.__code__
    add.__code__ = sampled.raiser(original, "state not ready (ab12cd)")
    try:
        for call in (alias, held[0], module.__dict__["add"]):
            with pytest.raises(RuntimeError, match=r"state not ready \(ab12cd\)") as raised:
                call(1, b=2)
            last = raised.traceback[-1]
            assert str(last.path) == "/tree/calc/core.py" and last.frame.code.name == "add"
            assert last.lineno + 1 in (4, 5)  # the def's own lines, as the function's
    finally:
        add.__code__ = original
    assert module.add(1, 2) == 3


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
