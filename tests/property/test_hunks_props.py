"""Property tests over generated test files: honest edits give no finding, and each weakening
transform applied to a generated test gives its rule."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planegate.analysis.hunks.analyze import analyze_file, compare_sources
from planegate.analysis.hunks.placement import Context
from planegate.findings import Finding

PROPERTY_SETTINGS = settings(derandomize=True, max_examples=100, deadline=None, database=None)
HONEST = ("add test", "add assert", "rename local", "reformat", "reorder", "add case", "tighten")
TOLERANCES = ("1e-06", "1e-09", "0.001")
NAMES = ("result", "value", "got", "out")
RAISES = 'ValueError, match="negative"'


@dataclass(frozen=True)
class Check:
    kind: str
    number: int
    tolerance: str = "1e-06"


@dataclass(frozen=True)
class GenTest:
    name: str
    var: str
    args: tuple[int, ...]
    checks: tuple[Check, ...]
    cases: tuple[int, ...] = ()
    bounds: tuple[int, int] | None = None
    max_examples: int | None = None
    raises: str | None = None
    decorators: tuple[str, ...] = ()
    prelude: tuple[str, ...] = ()
    guard: str | None = None
    is_async: bool = False


@dataclass(frozen=True)
class Style:
    spaced: bool = False
    wrapped: bool = False


def render_check(check: Check, var: str, style: Style) -> str:
    if check.kind == "eq":
        text = f"{var} == {check.number}"
    elif check.kind == "gt":
        text = f"{var} > {check.number}"
    elif check.kind == "ne":
        text = f"{var} != {check.number}"
    elif check.kind == "approx":
        text = f"{var} == pytest.approx({check.number}.5, rel={check.tolerance})"
    elif check.kind == "true":
        return "assert True"
    else:
        text = f"compute({check.number}) >= 0"
    return f"assert ({text})" if style.spaced else f"assert {text}"


def render_test(test: GenTest, style: Style) -> str:
    lines = list(test.decorators)
    if test.cases:
        cases = ", ".join(str(case) for case in test.cases)
        if style.wrapped:
            lines.append(f'@pytest.mark.parametrize(\n    "n",\n    [{cases},],\n)')
        else:
            lines.append(f"@pytest.mark.parametrize('n', [{cases}])")
    if test.max_examples is not None:
        lines.append(f"@settings(max_examples={test.max_examples})")
    if test.bounds is not None:
        low, high = test.bounds
        lines.append(f"@given(st.integers(min_value={low}, max_value={high}))")
    params = ", ".join(name for name, on in (("n", test.cases), ("x", test.bounds)) if on)
    keyword = "async def" if test.is_async else "def"
    lines.append(f"{keyword} {test.name}({params}):")
    body = [f"    {line}" for line in test.prelude]
    args = ", ".join(str(arg) for arg in test.args)
    body.append(
        f"    {test.var} = compute( {args} )"
        if style.spaced
        else f"    {test.var} = compute({args})"
    )
    indent = "    "
    if test.guard:
        body.append(f"    {test.guard}")
        indent = "        " if test.guard.endswith(":") else indent
    for check in test.checks:
        body.append(indent + render_check(check, test.var, style))
        if style.spaced:
            body.append("")
    if test.raises:
        body.append(f"{indent}with pytest.raises({test.raises}):")
        body.append(f"{indent}    compute(-1)")
    return "\n".join(lines + body).rstrip() + "\n"


HEADER = (
    "import pytest\n"
    "from hypothesis import assume, given, settings, strategies as st\n"
    "from calc import compute\n"
)


def render(tests: list[GenTest], style: Style = Style()) -> str:
    gap = "\n\n\n" if style.spaced else "\n\n"
    return HEADER + gap + gap.join(render_test(test, style) for test in tests)


def analyze(base: str, head: str) -> list[Finding]:
    return analyze_file(
        "tests/test_gen.py", base, head, plane="property", owner="@owner", fixture_plane=False
    )


checks = st.builds(
    Check,
    kind=st.sampled_from(["eq", "gt", "ne", "approx", "call"]),
    number=st.integers(min_value=0, max_value=999),
    tolerance=st.sampled_from(TOLERANCES),
)


@st.composite
def gen_test(draw: st.DrawFn, name: str, *, full: bool = False) -> GenTest:
    """A plain test; `full` gives it every feature a weakening transform may need."""
    kinds = ["eq", "gt", "ne", "approx", "call"]
    found = draw(st.lists(checks, min_size=1, max_size=4, unique_by=lambda c: (c.kind, c.number)))
    if full:
        required = [Check(kind, draw(st.integers(1000, 1999))) for kind in kinds]
        found = required + [c for c in found if c.kind not in kinds]
    shape = "cases" if full else draw(st.sampled_from(["plain", "cases", "given"]))
    cases = tuple(draw(st.lists(st.integers(0, 50), min_size=2, max_size=5, unique=True)))
    return GenTest(
        name=name,
        var=draw(st.sampled_from(NAMES)),
        args=tuple(draw(st.lists(st.integers(0, 9), min_size=1, max_size=3))),
        checks=tuple(found),
        cases=cases if shape == "cases" else (),
        bounds=(0, draw(st.integers(10, 100))) if shape == "given" or full else None,
        max_examples=draw(st.sampled_from([None, 200, 500])) if shape == "given" else None,
        raises=RAISES if full or draw(st.booleans()) else None,
    )


@st.composite
def modules(draw: st.DrawFn) -> list[GenTest]:
    count = draw(st.integers(min_value=1, max_value=4))
    return [draw(gen_test(f"test_case_{index}")) for index in range(count)]


@st.composite
def with_target(draw: st.DrawFn) -> tuple[list[GenTest], int]:
    tests = draw(modules())
    target = draw(gen_test("test_target", full=True))
    position = draw(st.integers(min_value=0, max_value=len(tests)))
    tests.insert(position, target)
    return tests, position


# Honest edits ------------------------------------------------------------------------------


def add_test(tests: list[GenTest], extra: GenTest) -> list[GenTest]:
    return [*tests, dataclasses.replace(extra, name="test_added")]


def add_assert(tests: list[GenTest], index: int, check: Check) -> list[GenTest]:
    test = tests[index]
    return _put(tests, index, dataclasses.replace(test, checks=(*test.checks, check)))


def rename_local(tests: list[GenTest], index: int) -> list[GenTest]:
    test = tests[index]
    return _put(tests, index, dataclasses.replace(test, var=test.var + "_renamed"))


def add_case(tests: list[GenTest], index: int) -> list[GenTest]:
    test = tests[index]
    if not test.cases:
        return tests
    return _put(tests, index, dataclasses.replace(test, cases=(*test.cases, 999)))


def tighten(tests: list[GenTest], index: int) -> list[GenTest]:
    test = tests[index]
    tighter = tuple(
        dataclasses.replace(c, tolerance=f"{float(c.tolerance) / 10:g}")
        if c.kind == "approx"
        else c
        for c in test.checks
    )
    return _put(tests, index, dataclasses.replace(test, checks=tighter))


def _put(tests: list[GenTest], index: int, test: GenTest) -> list[GenTest]:
    return [test if i == index else other for i, other in enumerate(tests)]


@pytest.mark.parametrize("edit", HONEST)
@PROPERTY_SETTINGS
@given(
    tests=modules(),
    extra=gen_test("test_extra"),
    check=checks,
    pick=st.integers(min_value=0, max_value=10),
)
def test_honest_edits_give_no_finding(
    tests: list[GenTest],
    extra: GenTest,
    check: Check,
    pick: int,
    edit: str,
) -> None:
    index = pick % len(tests)
    base = render(tests)
    style = Style()
    if edit == "add test":
        changed = add_test(tests, extra)
    elif edit == "add assert":
        changed = add_assert(tests, index, dataclasses.replace(check, number=check.number + 5000))
    elif edit == "rename local":
        changed = rename_local(tests, index)
    elif edit == "reformat":
        changed, style = tests, Style(spaced=True, wrapped=True)
    elif edit == "reorder":
        changed = list(reversed(tests[index:] + tests[:index]))
    elif edit == "add case":
        changed = add_case(tests, index)
    else:
        changed = tighten(tests, index)
    head = render(changed, style)
    assert analyze(base, head) == [], (edit, head)


@PROPERTY_SETTINGS
@given(tests=modules(), style=st.builds(Style, spaced=st.booleans(), wrapped=st.booleans()))
def test_all_honest_edits_together_give_no_finding(tests: list[GenTest], style: Style) -> None:
    changed = list(reversed(tests))
    for index in range(len(changed)):
        changed = rename_local(add_case(tighten(changed, index), index), index)
    changed = add_assert(changed, 0, Check("eq", 4242))
    assert analyze(render(tests), render(changed, style)) == []


# Weakening transforms ----------------------------------------------------------------------

Transform = Callable[[GenTest], GenTest | None]


def _drop_check(test: GenTest) -> GenTest:
    return dataclasses.replace(test, checks=test.checks[1:])


def _vacuous(test: GenTest) -> GenTest:
    return dataclasses.replace(test, checks=(Check("true", 0), *test.checks[1:]))


def _loosen(test: GenTest) -> GenTest:
    loose = tuple(
        dataclasses.replace(c, tolerance="0.5") if c.kind == "approx" else c for c in test.checks
    )
    return dataclasses.replace(test, checks=loose)


WEAKENINGS: dict[str, tuple[str, Transform]] = {
    "skip decorator": (
        "PG501",
        lambda t: dataclasses.replace(t, decorators=("@pytest.mark.skip(reason='later')",)),
    ),
    "skip call": ("PG501", lambda t: dataclasses.replace(t, prelude=("pytest.skip('later')",))),
    "xfail through a variable": (
        "PG501",
        lambda t: dataclasses.replace(t, decorators=("@LATER",)),
    ),
    "assert removed": ("PG502", _drop_check),
    "assert made vacuous": ("PG503", _vacuous),
    "early return": ("PG504", lambda t: dataclasses.replace(t, guard="return")),
    "if False": ("PG504", lambda t: dataclasses.replace(t, guard="if False:")),
    "raises broadened": ("PG505", lambda t: dataclasses.replace(t, raises="Exception")),
    "match removed": ("PG505", lambda t: dataclasses.replace(t, raises="ValueError")),
    "shadowed by a duplicate": ("PG512", lambda t: t),
    "tolerance loosened": ("PG506", _loosen),
    "parametrize case removed": ("PG508", lambda t: dataclasses.replace(t, cases=t.cases[1:])),
    "test deleted": ("PG509", lambda _t: None),
    "renamed to check_": ("PG510", lambda t: dataclasses.replace(t, name="check_target")),
    "made async": ("PG511", lambda t: dataclasses.replace(t, is_async=True)),
    "max_examples lowered": ("PG513", lambda t: dataclasses.replace(t, max_examples=3)),
    "assume added": ("PG514", lambda t: dataclasses.replace(t, prelude=("assume(x > 1)",))),
    "strategy narrowed": (
        "PG516",
        lambda t: dataclasses.replace(t, bounds=(5, (t.bounds or (0, 10))[1])),
    ),
}


def _apply(tests: list[GenTest], position: int, case: str) -> str:
    transform = WEAKENINGS[case][1]
    changed = transform(tests[position])
    rest = [t for i, t in enumerate(tests) if i != position]
    if changed is None:
        return render(rest)
    out = [changed if i == position else t for i, t in enumerate(tests)]
    if case == "shadowed by a duplicate":
        out.append(dataclasses.replace(changed, checks=(Check("eq", 1),)))
    text = render(out)
    if case == "xfail through a variable":
        text = text.replace(HEADER, HEADER + "\nLATER = pytest.mark.xfail(strict=False)\n")
    return text


@pytest.mark.parametrize("case", sorted(WEAKENINGS))
@PROPERTY_SETTINGS
@given(module=with_target(), reformat=st.booleans())
def test_each_weakening_gives_its_rule(
    module: tuple[list[GenTest], int], case: str, reformat: bool
) -> None:
    tests, position = module
    base = render(tests, Style(spaced=reformat))
    head = _apply(tests, position, case)
    rules = {finding.rule for finding in analyze(base, head)}
    assert WEAKENINGS[case][0] in rules, (case, rules, head)


@pytest.mark.parametrize("case", sorted(WEAKENINGS))
@PROPERTY_SETTINGS
@given(module=with_target())
def test_weakening_findings_point_at_the_target(
    module: tuple[list[GenTest], int], case: str
) -> None:
    tests, position = module
    head = _apply(tests, position, case)
    rule = WEAKENINGS[case][0]
    found = [f for f in analyze(render(tests), head) if f.rule == rule]
    assert found
    assert all(f.nodeid is None or "target" in f.nodeid for f in found), found
    assert all(f.path == "tests/test_gen.py" and f.line for f in found)


@pytest.mark.parametrize("case", sorted(WEAKENINGS))
@PROPERTY_SETTINGS
@given(module=with_target())
def test_blanking_unchanged_blocks_gives_the_same_findings(
    module: tuple[list[GenTest], int], case: str
) -> None:
    tests, position = module
    base, head = render(tests), _apply(tests, position, case)
    ctx = Context("tests/test_gen.py", "@owner", "property", False, False, False)
    fast = compare_sources(ctx, base, head, use_blocks=True)
    assert fast == compare_sources(ctx, base, head, use_blocks=False)
    assert fast
