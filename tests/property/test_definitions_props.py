"""A definition found by where it is, and what it uses of its module: the same on both sides
of a patch that only moves lines or changes what the definition does not use, different
when the patch changes the definition or anything it uses, in turn."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.analysis.definitions import def_chain, def_source, with_what_it_uses

NAMES = [f"f{n}" for n in range(5)]


@st.composite
def modules(draw: st.DrawFn) -> tuple[dict[str, list[str]], str]:
    """Functions f0..f4, each calling some of the others by name; a class using some."""
    calls = {
        name: draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True)) for name in NAMES
    }
    uses = draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
    calls["Finder"] = uses
    return calls, render(calls, {})


def render(calls: dict[str, list[str]], values: dict[str, int]) -> str:
    parts = []
    for name in NAMES:
        body = " + ".join([f"{callee}()" for callee in calls[name]] + [str(values.get(name, 1))])
        parts.append(f"def {name}():\n    return {body}\n")
    used = "".join(f"\n        {callee}()" for callee in calls["Finder"])
    parts.append(f"class Finder:\n    def find_spec(self, name):{used}\n        return None\n")
    return "\n\n".join(parts)


def closure(calls: dict[str, list[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += calls[name]
    return seen


@given(modules(), st.integers(min_value=1, max_value=6))
def test_moved_lines_change_nothing(module: tuple[dict[str, list[str]], str], moved: int) -> None:
    _, source = module
    shifted = "# a comment\n" * moved + source
    line = source.splitlines().index("    def find_spec(self, name):") + 1
    assert def_chain(source, line) == ("Finder", "find_spec")
    assert def_chain(shifted, line + moved) == ("Finder", "find_spec")
    assert with_what_it_uses(shifted, "Finder") == with_what_it_uses(source, "Finder")
    assert def_source(shifted, ("Finder", "find_spec")) == def_source(
        source, ("Finder", "find_spec")
    )


@given(modules(), st.sampled_from(NAMES))
def test_a_change_matters_exactly_when_the_class_uses_it(
    module: tuple[dict[str, list[str]], str], changed: str
) -> None:
    calls, source = module
    patched = render(calls, {changed: 2})
    used = closure(calls, "Finder")
    differs = with_what_it_uses(patched, "Finder") != with_what_it_uses(source, "Finder")
    assert differs == (changed in used)
