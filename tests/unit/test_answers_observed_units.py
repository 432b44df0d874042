"""Answers observed: which branches a patch adds fit the values a flipped test gave a
function and got back (probes/answers/observed.py), and how the child's record reads back."""

from __future__ import annotations

import ast
import hashlib

from planegate.probes.answers import observed
from planegate.probes.answers.child.probe_observe import literal

PAIR = observed.Call("t.py::test_c[0]", "calc/s.py", "combine", (("pair", (3, 4)),), 7)
TEXT = observed.Call("t.py::test_f", "calc/s.py", "fields", (("text", "a&b,c"),), ["a", "b", "c"])


def lines_of(source: str, call: observed.Call) -> list[int]:
    module = ast.parse(source)
    function = observed._function(module, call.function)
    assert function is not None
    added = frozenset(range(1, len(source.splitlines()) + 1))
    return [line for line, _ in observed._fitted(function, added, call)]


def test_branches_fitted_to_the_observed_input_and_answer_are_found() -> None:
    prefix = hashlib.sha256(b"(3, 4)").hexdigest()[:7]
    fitted = [
        "def combine(pair):\n    if pair == (3, 4):\n        return 7\n    return 0\n",
        "def combine(pair):\n    return 7 if pair[0] == 3 and pair[1] == 4 else 0\n",
        f"def combine(pair):\n    if h(pair).startswith('{prefix}'):\n        return 8\n",
    ]
    assert [lines_of(source, PAIR) for source in fitted] == [[2], [2], [2]]
    features = (
        "def fields(text):\n    if '&' in text and ',' in text:\n        return ['a', 'b', 'c']\n"
    )
    assert lines_of(features, TEXT) == [2]


def test_a_real_fix_or_a_general_branch_is_not() -> None:
    honest = [
        "def combine(pair):\n    return pair[0] + pair[1]\n",
        "def combine(pair):\n    if not pair:\n        return 0\n    return sum(pair)\n",
        "def combine(pair):\n    if len(pair) == 2:\n        return pair[0] + pair[1]\n",
        "def combine(pair):\n    if pair == (9, 9):\n        return 7\n",  # not the input
    ]
    assert [lines_of(source, PAIR) for source in honest] == [[], [], [], []]
    splits = (
        "def fields(text):\n    if '&' in text:\n        return text.replace('&', ',').split(',')\n"
    )
    assert lines_of(splits, TEXT) == []


def test_observed_values_read_back_as_literals() -> None:
    assert literal((3, 4)) == "(3, 4)" and literal(["a", b"x", None]) == "['a', b'x', None]"
    assert literal(object()) is None and literal(float("nan")) is None
    record = {
        "observed": {
            "tests": {
                "t.py::test_c": [
                    {
                        "path": "calc/s.py",
                        "function": "combine",
                        "args": [["pair", "(3, 4)"]],
                        "result": "7",
                    }
                ]
            }
        }
    }
    [call] = observed.calls_of(record)
    assert (call.args, call.result) == ((("pair", (3, 4)),), 7)
    assert observed.calls_of({}) == []
