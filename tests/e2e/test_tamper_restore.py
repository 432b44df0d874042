"""Swaps that restore themselves before anything looks: a binding main's tests read at run time
(`pytest.approx`, a builtin, a name in a test module, the runner's own globals) rebound while a
test runs and put back before its report is sent. A check of the bindings' state at
checkpoints sees nothing; the dict versions read around each call, and the outcome taken from
the call's own exception, do. Every name is built at run time, so no scan of the source sees
pytest, builtins or a frame walk by name.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.attack_helper import Shared, errors, reviewed, tamper_named

CORE = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def mean(xs):\n    return sum(xs) / len(xs)\n\n\n"
    "def scale(a, k):\n    return a * k\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)
MAIN = {
    "calc/core.py": CORE,
    "tests/prop/test_add_props.py": (
        "from hypothesis import given, strategies as st\n\nfrom calc.core import label\n\n\n"
        "@given(st.integers())\ndef test_label_names_the_number(n):\n"
        "    assert label(n) == 'n=' + str(n)\n"
    ),
    "tests/fix/test_core.py": (
        "import pytest\n\nfrom calc.core import add, mean, scale\n\n\n"
        "def test_add_floats():\n    assert add(0.1, 0.2) == pytest.approx(0.3)\n\n\n"
        "def test_mean():\n    xs = [1, 2, 3, 4]\n    assert mean(xs) == sum(xs) / len(xs)\n\n\n"
        "def test_scale():\n    assert scale(2, 3) == 6\n"
    ),
}
ADD_BUG = CORE.replace("return a + b", "return a - b")
MEAN_BUG = CORE.replace("return sum(xs) / len(xs)", "return (sum(xs) + 1) / len(xs)")
SCALE_BUG = CORE.replace("return a * k", "return a * k + 1")

# pytest.approx rebound to return a value equal to everything (mock.ANY's class); a finalizer
# puts the original back as soon as the assert drops that value, inside the test
APPROX = ADD_BUG.replace(
    "def add(a, b):\n",
    "import sys\nimport weakref\nfrom unittest import mock\n\n\n"
    "def _swap():\n    harness = sys.modules['py' + 'test']\n"
    "    real = getattr(harness, 'app' + 'rox')\n\n"
    "    def fake(*args, **kwargs):\n        value = type(mock.ANY)()\n"
    "        weakref.finalize(value, setattr, harness, 'app' + 'rox', real)\n"
    "        return value\n\n"
    "    setattr(harness, 'app' + 'rox', fake)\n\n\n"
    "def add(a, b):\n    _swap()\n",
)
# a one-shot builtins.sum that shares mean's bug and puts the real one back when it is used
ONE_SHOT_SUM = MEAN_BUG.replace(
    "def mean(xs):\n",
    "import sys\n\n\n"
    "def _swap():\n    space = vars(sys.modules['built' + 'ins'])\n    real = space['s' + 'um']\n\n"
    "    def fake(values, start=0):\n        space['s' + 'um'] = real\n"
    "        return real(values, start) + 1\n\n"
    "    space['s' + 'um'] = fake\n\n\n"
    "def mean(xs):\n    _swap()\n",
)
# the test module's own namespace given a sum that shares the bug (and takes it back)
MODULE_SUM = MEAN_BUG.replace(
    "def mean(xs):\n",
    "import sys\n\n\n"
    "def _swap():\n    for module in list(sys.modules.values()):\n"
    "        space = getattr(module, '__dict__', {})\n"
    "        if space.get('mean') is mean and space.get('__name__') != __name__:\n"
    "            def fake(values, start=0, space=space):\n"
    "                del space['s' + 'um']\n"
    "                return sum(values, start) + 1\n\n"
    "            space['s' + 'um'] = fake\n\n\n"
    "def mean(xs):\n    _swap()\n",
)
# a timer's signal handler walks the frame it is handed down to the runner's globals and
# rebinds the report class there for one report: the failing call is reported passed
SIGNAL = SCALE_BUG.replace(
    "def scale(a, k):\n",
    "import signal\n\n\n"
    "def _handler(number, frame):\n    while frame is not None:\n"
    "        space = frame.f_globals\n"
    "        if space.get('__name__') == '_py' + 'test.runner':\n"
    "            real = space['Test' + 'Report']\n\n"
    "            class _Green(real):\n                @classmethod\n"
    "                def from_item_and_call(cls, item, call):\n"
    "                    space['Test' + 'Report'] = real\n"
    "                    report = real.from_item_and_call(item, call)\n"
    "                    report.outcome = 'passed'\n                    report.longrepr = None\n"
    "                    return report\n\n"
    "            space['Test' + 'Report'] = _Green\n            return\n"
    "        frame = frame.f_back\n\n\n"
    "def _swap():\n    previous = signal.signal(signal.SIGALRM, _handler)\n"
    "    signal.setitimer(signal.ITIMER_REAL, 0.001)\n"
    "    while signal.getitimer(signal.ITIMER_REAL)[0] > 0:\n        pass\n"
    "    signal.signal(signal.SIGALRM, previous)\n\n\n"
    "def scale(a, k):\n    _swap()\n",
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("restore"), MAIN, "restore")


@pytest.mark.parametrize(
    ("name", "core", "failing"),
    [
        ("add-bug", ADD_BUG, "test_add_floats"),
        ("mean-bug", MEAN_BUG, "test_mean"),
        ("scale-bug", SCALE_BUG, "test_scale"),
    ],
)
def test_each_bug_alone_fails_the_gate(
    shared: Shared, capsys: pytest.CaptureFixture[str], name: str, core: str, failing: str
) -> None:
    shared.patch(name, {"calc/core.py": core})
    code, report = shared.gate(capsys)
    assert code == 1
    assert "PG101" in errors(report)
    assert failing in str(report)
    assert "PG107" not in errors(report)


# a deprecation attributed to its caller: the warnings machinery adds `__warningregistry__`
# to the globals of the test module that called it, a binding no code of the patch wrote
DEPRECATED = CORE.replace(
    "def scale(a, k):\n",
    "def scale(a, k):\n    import warnings\n\n"
    "    warnings.warn('scale() will take k first', DeprecationWarning, stacklevel=2)\n",
)


@pytest.mark.parametrize(
    ("name", "core"),
    [("honest", CORE.replace("return a * k", "return k * a")), ("deprecation", DEPRECATED)],
)
def test_an_honest_patch_passes(
    shared: Shared, capsys: pytest.CaptureFixture[str], name: str, core: str
) -> None:
    shared.patch(name, {"calc/core.py": core})
    code, report = shared.gate(capsys)
    assert (code, errors(report)) == (0, set())


@pytest.mark.parametrize(
    ("name", "core", "named"),
    [
        ("approx", APPROX, "pytest rebound and restored"),
        ("one-shot-sum", ONE_SHOT_SUM, "builtins rebound and restored"),
        ("module-sum", MODULE_SUM, "test_core rebound and restored"),
        ("signal-frame", SIGNAL, "_pytest.runner rebound and restored"),
    ],
)
def test_a_swap_restored_inside_the_test_fails_the_run_naming_the_namespace(
    shared: Shared, capsys: pytest.CaptureFixture[str], name: str, core: str, named: str
) -> None:
    shared.patch(name, {"calc/core.py": core})
    code, report = shared.gate(capsys)
    # the reach review stops the patch for a person (step 5); the run-time layer names it too
    assert reviewed(code, report), report
    assert not {"PG550", "PG553"} & errors(report)  # no name a scan could have seen
    found = tamper_named(report, f"harness changed: {named}")
    assert "during the call of tests/fix/test_core.py::" in found["message"]


def test_a_report_that_contradicts_its_calls_exception_is_sent_failed(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("signal-outcome", {"calc/core.py": SIGNAL})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # stopped for a person; the run-time layer below
    tamper_named(report, "tests/fix/test_core.py::test_scale was reported passed")
    assert "PG101" in errors(report)  # the test failed: its call raised
