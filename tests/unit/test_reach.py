"""The reach review: each capability found whatever its spelling, honest code left alone."""

from __future__ import annotations

import ast

import pytest

from planegate.analysis import reach_table
from planegate.analysis.prodscan import DataPaths, scan_change
from planegate.analysis.reach import Review, review
from planegate.findings import Severity

OWN = frozenset({"calc"})


def found(source: str) -> list[tuple[int, str, str]]:
    return [(r.line, r.capability.rule, r.capability.risk) for r in review(ast.parse(source), OWN)]


@pytest.mark.parametrize(
    ("source", "line", "rule"),
    [
        # frames and tracebacks
        ("import sys\ncaller = sys.exc_info()[2].tb_frame.f_back\n", 2, "PG590"),
        ("def f(g):\n    return g.gi_frame\n", 2, "PG590"),
        ("def f(c):\n    return c.cr_frame.f_locals\n", 2, "PG590"),
        ("def f(t):\n    return getattr(t, 'tb_' + 'frame')\n", 2, "PG590"),
        ("import operator\nup = operator.attrgetter('f_back')\n", 2, "PG590"),
        ("from sys import _getframe as g\n\n\ndef f():\n    return g(1)\n", 5, "PG590"),
        ("import inspect as i\nstack = i.stack()\n", 2, "PG590"),
        ("s = __import__('sys')\nf = s._getframe()\n", 2, "PG590"),
        (
            "import signal\n\n\ndef on_alarm(signum, frame):\n    seen.append(frame)\n\n\n"
            "signal.signal(signal.SIGALRM, on_alarm)\n",
            8,
            "PG590",
        ),
        ("import signal\nsignal.signal(signal.SIGALRM, lambda n, f: f)\n", 2, "PG590"),
        # interpreter state
        ("import sys\nfound = [k for k in sys.modules if k]\n", 2, "PG591"),
        ("import sys\nm = sys.modules[name]\n", 2, "PG591"),
        ("import sys\nm = vars(sys)\n", 2, "PG592"),
        ("from sys import modules\nm = list(modules)\n", 2, "PG591"),
        ("x = getattr(__import__('s' + 'ys'), 'mod' + 'ules')\n", 1, "PG591"),
        ("import importlib\nm = importlib.import_module('sys').__dict__['modules']\n", 2, "PG591"),
        ("import gc\n", 1, "PG591"),
        ("walk = getattr(__import__(''.join(['g', 'c'])), 'get_objects')\n", 1, "PG591"),
        ("import sys\nsys.settrace(None)\n", 2, "PG591"),
        # builtins under another name
        ("run = exec\n\n\ndef f(code):\n    run(code)\n", 5, "PG593"),
        ("import builtins\n\n\ndef f(code):\n    getattr(builtins, 'exec')(code)\n", 5, "PG593"),
        ("def f(code):\n    __builtins__['exec'](code)\n", 2, "PG593"),
        # a name bound twice may reach either value
        ("import os as m\nm = __import__('sys')\nx = m.modules\n", 3, "PG591"),
        ("a = 's' + 'ys'\nm = __import__(a)\na = 'mod' + 'ules'\nx = getattr(m, a)\n", 4, "PG593"),
        # dunder reach
        ("def f(fn):\n    return fn.__globals__\n", 2, "PG592"),
        ("def f(o, k):\n    o.__class__ = k\n", 2, "PG592"),
        ("def f(fn, g):\n    fn.__code__ = g.__code__\n", 2, "PG592"),
        ("import json\nns = json.__dict__\n", 2, "PG592"),
        ("b = vars(__builtins__)\n", 1, "PG592"),
        ("import numpy.testing\nnumpy.testing.assert_allclose = print\n", 2, "PG595"),
        ("import runpy\nrunpy.run_path('docs/conf.py')\n", 2, "PG593"),
        ("def f(x):\n    return x['__glob' + 'als__']\n", 2, "PG592"),
        # computed names
        ("def f(code):\n    exec(code)\n", 2, "PG593"),
        ("def f(s):\n    return eval(s)\n", 2, "PG593"),
        ("import importlib\n\n\ndef f(n):\n    return importlib.import_module(n)\n", 5, "PG593"),
        ("def f(n):\n    return __import__(n)\n", 2, "PG593"),
        ("import json\n\n\ndef f(n):\n    return getattr(json, n)\n", 5, "PG593"),
        ("exec('import gc')\n", 1, "PG591"),  # literal code is read as code
        # native and serialized code
        ("import ctypes\n", 1, "PG594"),
        ("from ctypes import pythonapi\n", 1, "PG594"),
        ("import pickle\n\n\ndef f(b):\n    return pickle.loads(b)\n", 5, "PG594"),
        ("import marshal\n\n\ndef f(b):\n    return marshal.loads(b)\n", 5, "PG594"),
        # outside the project
        ("import json\njson.dumps = repr\n", 2, "PG595"),
        ("import logging\nsetattr(logging, 'info', print)\n", 2, "PG595"),
        ("import sys\nsys.modules['json'].dumps = repr\n", 2, "PG595"),
        (
            "import signal\n\n\nclass App:\n    def stop(self, signum, frame):\n"
            "        self.seen = frame\n\n    def run(self):\n"
            "        signal.signal(signal.SIGTERM, self.stop)\n",
            9,
            "PG590",
        ),
        ("from json import JSONEncoder\nJSONEncoder.default = repr\n", 2, "PG595"),
        ("import sys\nname = '_py' + 'test'\n", 2, "PG595"),
        ("name = f\"{'hypo'}thesis\"\n", 1, "PG595"),
        ("name = 'tsetyp'[::-1]\n", 1, "PG595"),
        ("name = '{}{}'.format('py', 'test')\n", 1, "PG595"),
        ("name = chr(112) + 'ytest'\n", 1, "PG595"),
        ("path = '/proc/' + str(pid)\n", 1, "PG595"),
        ("path = '/proc/self/status'\n", 1, "PG595"),
    ],
)
def test_each_capability_is_found_high(source: str, line: int, rule: str) -> None:
    assert (line, rule, "high") in found(source)


@pytest.mark.parametrize(
    ("source", "rule"),
    [
        ("def f(o, n):\n    return getattr(o, n)\n", "PG593"),
        ("def f(o, n, v):\n    setattr(o, n, v)\n", "PG593"),
        ("ns = globals()\n", "PG593"),
        ("import sys\nloaded = 'numpy' in sys.modules\n", "PG591"),
        ("import sys\nnp = sys.modules.get('numpy')\n", "PG591"),
        ("def f(fn):\n    return fn.__code__.co_varnames\n", "PG592"),
        ("def f(cls):\n    return cls.__subclasses__()\n", "PG592"),
        ("exec('x = 1')\n", "PG593"),
        (
            "import importlib\n\n\ndef f(n):\n"
            "    return importlib.import_module(f'{__name__}.{n}')\n",
            "PG593",
        ),
        ("TOOL = 'pytest'\n", "PG595"),
        ("import nox\nnox.options.sessions = ['lint']\n", "PG595"),
        ("def f(cell, value):\n    cell.cell_contents = value\n", "PG592"),
        ("import signal\nsignal.signal(signal.SIGTERM, handlers.stop)\n", "PG590"),
    ],
)
def test_a_medium_reach_is_a_warning(source: str, rule: str) -> None:
    kinds = {(r, risk) for _, r, risk in found(source)}
    assert (rule, "medium") in kinds
    assert not {risk for _, risk in kinds} & {"high"}


HONEST = '''\
"""Literal names, the module itself, dataclasses and logging: nothing to review."""
import dataclasses
import importlib
import json
import logging
import signal
import sys

import calc.core

log = logging.getLogger(__name__)
codec = importlib.import_module("json")
this = sys.modules[__name__]
calc.core.TABLE = {}


@dataclasses.dataclass(frozen=True)
class Money:
    cents: int

    def name(self) -> str:
        return getattr(self, "cents").__class__.__name__


def on_term(signum, frame):
    log.info("stopping on %s", signum)


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, signal.SIG_DFL)


def dump(value: object) -> str:
    try:
        return json.dumps(value)
    except TypeError as error:
        raise ValueError(str(error)).with_traceback(error.__traceback__) from None
'''


def test_honest_code_is_not_reviewed() -> None:
    assert found(HONEST) == []


def test_what_the_base_had_is_not_new_and_the_reviewer_owns_the_finding() -> None:
    base = "import sys\n\n\ndef caller():\n    return sys._getframe(2).f_code.co_name\n"
    head = base + "\n\ndef mods():\n    return sorted(sys.modules)\n"
    findings = scan_change("calc/x.py", base, head, DataPaths(), "@author",
                           review=Review("@planes-owner", OWN))  # fmt: skip
    assert [(f.rule, f.line, f.owner, f.severity) for f in findings] == [
        ("PG591", 9, "@planes-owner", Severity.ERROR)
    ]
    assert findings[0].message.endswith("(a person reviews this line)")


def test_a_write_into_the_projects_own_module_is_not_foreign() -> None:
    assert found("import calc.core\ncalc.core.LIMIT = 3\n") == []
    assert found("import json\njson.LIMIT = 3\n") == [(2, "PG595", "high")]
    assert found("import shop\nshop.LIMIT = 3\n") == [(2, "PG595", "medium")]


def test_a_renamed_variable_does_not_make_an_old_reach_new() -> None:
    base = "def load(f, about):\n    exec(f.read(), about)\n"
    head = "def load(handle, ABOUT):\n    exec(handle.read(), ABOUT)\n"
    assert scan_change("calc/x.py", base, head, DataPaths(), "a") == []
    changed = "def load(handle, ABOUT):\n    exec(handle.decode(), ABOUT)\n"
    assert [f.rule for f in scan_change("calc/x.py", base, changed, DataPaths(), "a")] == ["PG593"]


def test_a_line_an_older_rule_stops_is_not_reported_twice() -> None:
    head = "import sys\n\n\ndef f():\n    return sys._getframe(1)\n"
    rules = [f.rule for f in scan_change("calc/x.py", None, head, DataPaths(), "a")]
    assert rules == ["PG553"]


def test_every_row_of_the_table_names_a_rule_of_the_review() -> None:
    rows = [
        *reach_table.ATTRIBUTES.values(),
        *reach_table.WRITTEN_ATTRIBUTES.values(),
        *reach_table.NAMES.values(),
        *reach_table.MODULES.values(),
        *(row for _, row in reach_table.COMPUTED_ARGUMENTS.values()),
    ]
    assert {row.rule for row in rows} <= {f"PG59{n}" for n in range(6)}
    assert {row.risk for row in rows} == {"high", "medium"}
