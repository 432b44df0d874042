"""Every parser, fed generated bad input: a documented exit, a one-line message, under 5 s."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.bad_input_cases import EVENT, EXITS, SEEDS, SHA, one_safe_line, outcome, seed_value
from planegate import loading
from planegate.errors import PlanegateError
from planegate.github import event_payload as event_mod
from planegate.loading import yamldoc

TARGETS = sorted(SEEDS)
EVENT_KEYS = ("pull_request", "workflow_run", "repository", "before", "after", "number")

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
@given(
    edits=st.lists(st.tuples(st.floats(0, 1), st.binary(max_size=4), st.integers(0, 3)), max_size=6)
)
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
    replacements=st.lists(st.tuples(st.floats(0, 1), JSON_VALUES), min_size=1, max_size=2),
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


@given(
    name=st.sampled_from(event_mod.SUPPORTED_EVENTS),
    payload=st.dictionaries(st.sampled_from(EVENT_KEYS), JSON_VALUES, max_size=4),
    uploaded=st.none() | st.dictionaries(st.sampled_from(EVENT_KEYS), JSON_VALUES, max_size=3),
)
def test_any_event_payload_under_any_supported_name(
    name: str, payload: dict[str, Any], uploaded: dict[str, Any] | None
) -> None:
    try:
        event_mod.parse_event(name, payload, repository="octo/demo", sha="", uploaded=uploaded)
    except PlanegateError as error:
        assert error.exit_code == 65 and one_safe_line(error.message), error.message


WORKFLOW_RUN = {
    "workflow_run": {
        "head_sha": SHA,
        "actor": {"login": "coder[bot]"},
        "head_repository": {"full_name": "octo/demo"},
        "pull_requests": [
            {"number": 1, "head": {"sha": SHA, "ref": "p"}, "base": {"sha": SHA, "ref": "main"}}
        ],
    },
    "repository": {"id": 7, "full_name": "octo/demo"},
}


@given(
    where=st.floats(0, 1),
    replacement=JSON_VALUES,
    uploaded=st.booleans(),
)
def test_a_workflow_run_event_with_a_value_replaced(
    where: float, replacement: Any, uploaded: bool
) -> None:
    paths = _paths(WORKFLOW_RUN)
    payload = _replace(WORKFLOW_RUN, paths[int(where * (len(paths) - 1))], replacement)
    upload = _replace(EVENT, _paths(EVENT)[int(where * (len(_paths(EVENT)) - 1))], replacement)
    try:
        event_mod.parse_event(
            "workflow_run",
            payload,
            repository="octo/demo",
            sha="",
            uploaded=upload if uploaded else None,
        )
    except PlanegateError as error:
        assert error.exit_code == 65 and one_safe_line(error.message), error.message


@given(text=YAML_TEXT)
def test_yaml_like_text_as_the_configuration(text: str, folder: Path) -> None:
    check("config", text.encode("utf-8", "surrogatepass"), folder)


def _read(read: Callable[[], yamldoc.YamlDocument]) -> tuple[str, Any]:
    try:
        document = read()
    except loading.Problem as problem:
        return "refused", (problem.reason, problem.line)
    return "read", document.value


@given(text=YAML_TEXT)
def test_libyaml_and_pyyaml_read_the_configuration_alike(text: str) -> None:
    """The configuration is read with libyaml's parser when PyYAML has it: a text both read
    has the same value, and one libyaml refuses gets PyYAML's own message and line. (libyaml
    reads a few malformed texts PyYAML refuses: docs/configuration.md.)"""
    assert yamldoc._FAST  # PyYAML's wheels are built with libyaml
    pure = _read(lambda: yamldoc._compose(yamldoc._LimitedLoader, text, loading.CONFIG))
    fast = _read(lambda: yamldoc.yaml_document(text, loading.CONFIG))
    if fast[0] == "refused" or pure[0] == "read":
        assert repr(fast) == repr(pure)


# Block YAML of nested mappings and lists, with keys that repeat: depth, count and duplicates.
YAML_TREE = st.recursive(
    st.sampled_from(["1", "x", "'q'", "", "[]", "{}", "[a, a]", "{a: 1, a: 2}"]),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=4).map(lambda items: ["-", *items])
        | st.lists(
            st.tuples(st.sampled_from(["a", "b", "c", "d", "'a'", "1"]), inner),
            min_size=1,
            max_size=4,
        )
    ),
    max_leaves=30,
)
TIGHT = loading.Limits(max_depth=5, max_nodes=12)


def _block(tree: Any, indent: int = 0) -> str:
    pad = " " * indent
    if isinstance(tree, str):
        return f" {tree}\n"
    if tree and tree[0] == "-":
        return "\n" + "".join(f"{pad}-{_block(item, indent + 2)}" for item in tree[1:])
    return "\n" + "".join(f"{pad}{key}:{_block(value, indent + 2)}" for key, value in tree)


@given(tree=YAML_TREE, tight=st.booleans())
def test_libyaml_s_own_tree_is_held_to_the_same_limits(tree: Any, tight: bool) -> None:
    """libyaml composes an alias-free tree itself, and the limits are checked on the tree:
    the same value, or the same refusal (reason, key and line), as composing its events."""
    text = "root:" + _block(tree)
    limits = TIGHT if tight else loading.CONFIG
    native = _read(lambda: yamldoc._compose(yamldoc._NativeLoader, text, limits))
    events = _read(lambda: yamldoc._compose(yamldoc._FastLimitedLoader, text, limits))
    assert repr(native) == repr(events)


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
