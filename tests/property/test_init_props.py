"""Properties of init's pure core: the split keeps every test exactly once, in its plane's file,
and the proposed configuration puts every nodeid in the plane init chose for it."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from planegate.config import load as config
from planegate.config import planemap
from planegate.init.propose import NODEIDS, FilePlan, Proposal, render
from planegate.init.propose_ast import index
from planegate.init.split import Split, split_source

# A unit is a module-level test (given or not) or a class of tests; `helper` is the index of
# a module-level helper the test uses (or None).
Test = tuple[bool, "int | None"]
tests = st.tuples(st.booleans(), st.one_of(st.none(), st.integers(0, 2)))
units = st.one_of(
    tests.map(lambda t: ("function", [t])),
    st.lists(tests, min_size=1, max_size=4).map(lambda ts: ("class", ts)),
)
modules = st.lists(units, min_size=1, max_size=6)


def render_module(shape: list[tuple[str, list[Test]]]) -> tuple[str, set[str], set[str]]:
    """Source text, the qualnames of its @given tests, and those of its example tests."""
    lines = [  # stand-ins for Hypothesis, so the split modules can be executed here
        "import pytest",
        "",
        "",
        "def given(*strategies):",
        "    return lambda test: test",
        "",
        "",
        "class st:",
        "    integers = staticmethod(lambda: 0)",
        "",
        "HELPER_0 = 0",
        "HELPER_1 = 1",
        "HELPER_2 = st.integers()",
        "",
    ]
    given_names: set[str] = set()
    example_names: set[str] = set()
    for number, (kind, members) in enumerate(shape):
        indent, prefix = ("", "") if kind == "function" else ("    ", f"TestC{number}::")
        if kind == "class":
            lines += [f"class TestC{number}:", "    LIMIT = 3", ""]
        for position, (uses_given, helper) in enumerate(members):
            name = f"test_{number}_{position}"
            (given_names if uses_given else example_names).add(prefix + name)
            arguments = ["self"] if kind == "class" else []
            if uses_given:
                lines.append(f"{indent}@given(st.integers())")
                arguments.append("x")
            body = f"HELPER_{helper}" if helper is not None else "None"
            lines += [f"{indent}def {name}({', '.join(arguments)}):", f"{indent}    {body}", ""]
        lines.append("")
    return "\n".join(lines), given_names, example_names


def collected_names(source: str) -> dict[str, bool]:
    return {q: g for q, g in index(source).by_qualname.items() if q.split("::")[-1][:4] == "test"}


@given(modules)
def test_split_keeps_each_test_once_in_its_plane(shape: list[tuple[str, list[Test]]]) -> None:
    source, given_names, example_names = render_module(shape)
    result = split_source(source, given_names, "tests/test_m.py")
    assert isinstance(result, Split), result
    moved, remaining = collected_names(result.props), collected_names(result.remaining)
    assert set(moved) == given_names and all(moved.values())
    assert set(remaining) == example_names and not any(remaining.values())
    assert all(given for _, _, given in planemap.test_kinds(result.props))
    assert not any(given for _, _, given in planemap.test_kinds(result.remaining))
    for text in (result.props, result.remaining):
        exec(compile(ast.parse(text), "<split>", "exec"), {})  # both modules import


nodeid_parts = st.tuples(
    st.sampled_from(["tests/test_a.py", "tests/sub/test_b.py"]),
    st.one_of(st.none(), st.sampled_from(["TestX", "TestY"])),
    st.sampled_from(["test_one", "test_two", "test_three"]),
    st.one_of(st.none(), st.integers(0, 3)),
)


def nodeid(parts: tuple[str, str | None, str, int | None]) -> str:
    path, cls, name, param = parts
    return "::".join(p for p in (path, cls, name) if p) + (
        f"[{param}]" if param is not None else ""
    )


@given(st.dictionaries(nodeid_parts.map(nodeid), st.booleans(), min_size=1))
def test_per_nodeid_proposal_gives_every_nodeid_its_plane(planes: dict[str, bool]) -> None:
    by_function: dict[str, bool] = {}
    for item, uses_given in planes.items():  # one kind per function, as the source says
        planes[item] = by_function.setdefault(item.split("[", 1)[0], uses_given)
    proposal = Proposal()
    for path in sorted({item.split("::", 1)[0] for item in planes}):
        ids = [item for item in planes if item.startswith(path + "::")]
        props = tuple(item for item in ids if planes[item])
        examples = tuple(item for item in ids if not planes[item])
        proposal.add(FilePlan(path, NODEIDS, props, examples, "listed"))
    plane_map = planemap.PlaneMap(config.parse(render(proposal), "planegate.yml"))
    for item, uses_given in planes.items():
        assert plane_map.plane_of(item) == ("property" if uses_given else "fixture")
