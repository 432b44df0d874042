"""Production code reaching the harness: heap and frame walks, harness patches, code that is
not a tracked source file. Every name is built at run time, so a scan of the source by name
sees no gc, no sys._getframe, no pytest; the audit hook and the integrity checks see what it
does. The reach review (PG590-PG595) stops each patch at step 5 by what it can do (exit 5);
the planes step still runs, and each test checks the run-time finding (PG107) on its own.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from helpers.attack_helper import BUG, COMMUTES, REWRITE, Shared, errors, reviewed, tamper_named

GC_WALK = (
    REWRITE + "\n\n_walk = getattr(__import__(''.join(['g', 'c'])), 'get_' + 'objects')\n"
    "_config = _config_in(_walk())\n"
    "if _config is not None:\n    _rewrite(_config)\n"
)
FRAME_WALK = (
    REWRITE + "\n\n_frame = _il.import_module('ins' + 'pect').currentframe()\n"
    "while _frame is not None:\n"
    "    _config = _config_in(list(_frame.f_locals.values()))\n"
    "    if _config is not None:\n        _rewrite(_config)\n        break\n"
    "    _frame = _frame.f_back\n"
)
TRACEBACK_WALK = (
    REWRITE + "\n\ntry:\n    raise LookupError\nexcept LookupError as _error:\n"
    "    _frame = _error.__traceback__.tb_frame\n"
    "while _frame is not None:\n"
    "    _config = _config_in(list(_frame.f_locals.values()))\n"
    "    if _config is not None:\n        _rewrite(_config)\n        break\n"
    "    _frame = _frame.f_back\n"
)
REPORT_PROPERTY = (
    "import importlib\n\n_reports = importlib.import_module('_py' + 'test.reports')\n\n\n"
    "def _get(self):\n"
    "    return 'passed' if self.nodeid.startswith('te' + 'sts/') else self.__dict__['_o']\n\n\n"
    "def _set(self, value):\n    self.__dict__['_o'] = value\n\n\n"
    "setattr(_reports.TestReport, 'out' + 'come', property(_get, _set))\n"
)
CODE_SWAP = (
    "import importlib\n\n_runner = importlib.import_module('_py' + 'test.runner')\n\n\n"
    "def _make(item, call):\n"
    "    report = TestReport.from_item_and_call(item, call)  # the runner's own globals\n"
    "    if report.nodeid.startswith('te' + 'sts/'):\n        report.outcome = 'passed'\n"
    "    return report\n\n\n"
    "setattr(getattr(_runner, 'pytest_runtest_' + 'makereport'), '__co' + 'de__', _make.__code__)\n"
)
STRATEGY_PATCH = (
    "import importlib\n\n_st = importlib.import_module('hypothesis.strate' + 'gies')\n"
    "vars(_st)['integers'] = lambda *a, **k: _st.just(0)\n"
)
BUILTINS_PATCH = (
    "import importlib\n\n_b = vars(importlib.import_module('built' + 'ins'))\n"
    "_real = _b['so' + 'rted']\n_b['so' + 'rted'] = lambda *a, **k: _real(*a, **k)\n"
)
ENCODED = base64.b64encode(GC_WALK.encode()).decode()
EXEC_DECODED = f"import base64\n\nexec(base64.b64decode('{ENCODED}').decode())\n"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("reach"))


def line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(
    ("name", "cheat", "event", "at"),
    [
        ("gc-walk", GC_WALK, "gc.get_objects (a heap walk)", "_config = _config_in(_walk())"),
        ("frame-walk", FRAME_WALK, "sys._getframe (a frame walk)", "currentframe()"),
        ("traceback-walk", TRACEBACK_WALK, "tb_frame (a frame taken from a", "tb_frame"),
        ("exec-decoded", EXEC_DECODED, "compile() of code that is not a tracked", "exec("),
    ],
)
def test_a_heap_or_frame_walk_to_pytests_config_is_recorded_where_it_happens(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    name: str,
    cheat: str,
    event: str,
    at: str,
) -> None:
    shared.patch(name, {"calc/core.py": BUG, "calc/__init__.py": cheat})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # stopped for a person; the run-time layer below
    assert not {"PG550", "PG553"} & errors(report)  # no name a scan could have seen
    found = tamper_named(report, event, "calc/__init__.py")
    assert found["line"] == line_of(cheat, at)
    assert f"at calc/__init__.py:{found['line']}" in found["message"]
    # the plugin it registered is named too; the property test was reported passed, and is
    # sent failed: its call raised
    tamper_named(report, "a pytest plugin registered from production code")
    tamper_named(report, f"{COMMUTES} was reported passed; its call raised")
    assert "PG101" in errors(report)


@pytest.mark.parametrize(
    ("name", "cheat", "event", "at"),
    [
        ("report-class", REPORT_PROPERTY, "_pytest.reports.TestReport.outcome added", "def _get"),
        ("strategy", STRATEGY_PATCH, "hypothesis.strategies.integers replaced", "vars(_st)"),
        ("builtins", BUILTINS_PATCH, "builtins.sorted replaced", "_b['so' + 'rted'] ="),
    ],
)
def test_a_patched_harness_attribute_is_named_with_the_code_that_replaced_it(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    name: str,
    cheat: str,
    event: str,
    at: str,
) -> None:
    shared.patch(name, {"calc/core.py": BUG, "calc/__init__.py": cheat})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # stopped for a person; the run-time layer below
    found = tamper_named(report, f"harness changed: {event}", "calc/__init__.py")
    assert found["line"] == line_of(cheat, at)


def test_a_harness_function_given_another_code_object_is_recorded(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("code-swap", {"calc/core.py": BUG, "calc/__init__.py": CODE_SWAP})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # stopped for a person; the run-time layer below
    # every test of the tree was reported passed, and the failing one sent failed
    assert "PG101" in errors(report)
    found = tamper_named(report, "__code__ of pytest_runtest_makereport replaced")
    assert (found["path"], found["line"]) == ("calc/__init__.py", line_of(CODE_SWAP, "setattr("))


def test_a_trampoline_through_the_harness_does_not_hide_the_caller(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    cheat = (
        "import importlib\n\n_pt = importlib.import_module('py' + 'test')\n"
        "_gc = importlib.import_module('g' + 'c')\n\n\n"
        "def add(a, b):\n    try:\n"
        "        _pt.raises(ZeroDivisionError, _gc.get_referrers, add)  # pytest calls it\n"
        "    except BaseException:\n        pass\n"
        "    return a - b\n\n\ndef label(n):\n    return f'n={n}'\n"
    )
    shared.patch("trampoline", {"calc/core.py": cheat})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # stopped for a person; the run-time layer below
    assert f"{COMMUTES} failed" in str(report)
    found = tamper_named(report, "gc.get_referrers (a heap walk)", "calc/core.py")
    assert found["line"] == line_of(cheat, "get_referrers")
