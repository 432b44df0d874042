"""Every parser, fed generated bad input: a documented exit, a one-line message, under 5 s."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bad_input_cases import EXITS, SEEDS, one_safe_line, outcome, seed_value

TARGETS = sorted(SEEDS)

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
YAML_TEXT = st.text(alphabet="ab: -&*![]{}|>#'\"\n\t,?%@`\\\x00é\u2028", max_size=300)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def check(target: str, data: bytes, folder: Path) -> None:
    start = time.monotonic()
    code, message = outcome(target, data, folder)
    assert time.monotonic() - start < 5
    assert code in EXITS[target], message
    if code:
        assert message and one_safe_line(message), message


@pytest.mark.parametrize("target", TARGETS)
@given(data=st.binary(max_size=2_000))
def test_any_bytes(target: str, data: bytes, folder: Path) -> None:
    check(target, data, folder)


@pytest.mark.parametrize("target", TARGETS)
@given(edits=st.lists(st.tuples(st.floats(0, 1), st.binary(max_size=4), st.integers(0, 3))))
def test_a_seed_with_bytes_changed(
    target: str, edits: list[tuple[float, bytes, int]], folder: Path
) -> None:
    data = SEEDS[target]
    for where, insert, remove in edits:
        at = int(where * len(data))
        data = data[:at] + insert + data[at + remove :]
    check(target, data, folder)


@pytest.mark.parametrize("target", TARGETS)
@given(
    replacements=st.lists(st.tuples(st.floats(0, 1), JSON_VALUES), min_size=1, max_size=3),
)
def test_a_seed_with_values_replaced(
    target: str, replacements: list[tuple[float, Any]], folder: Path
) -> None:
    """Any JSON value anywhere in a valid document (the whole document included)."""
    value = seed_value(target, SEEDS[target])
    for where, replacement in replacements:
        paths = list(_paths(value))
        path = paths[int(where * (len(paths) - 1))]
        value = _replace(value, path, replacement)
    check(target, (json.dumps(value) + "\n").encode(), folder)


@given(text=YAML_TEXT)
def test_yaml_like_text_as_the_configuration(text: str, folder: Path) -> None:
    check("config", text.encode("utf-8", "surrogatepass"), folder)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, (dict, list)):
        children = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in children:
            found += _paths(child, (*prefix, key))
    return found


def _replace(value: Any, path: tuple[Any, ...], replacement: Any) -> Any:
    if not path:
        return replacement
    copy = json.loads(json.dumps(value))
    holder = copy
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = replacement
    return copy
