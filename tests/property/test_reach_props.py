"""The reach review over generated spellings: every spelling of one capability (pieces
joined, formatted, reversed, spelled as character codes, bound to a name first, imported under
another name) is found with the same rule; literal-only honest uses are not."""

from __future__ import annotations

import ast
import itertools
import keyword

from hypothesis import given, settings
from hypothesis import strategies as st

from planegate.analysis import reach_table
from planegate.analysis.reach import review

PROPERTY_SETTINGS = settings(derandomize=True, max_examples=150, deadline=None, database=None)
IDENTIFIER = st.from_regex(r"[a-z][a-z0-9]{2,8}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name)
)


@st.composite
def pieces(draw: st.DrawFn, text: str) -> list[str]:
    """`text` cut into at least two pieces (no piece empty)."""
    cuts = draw(st.sets(st.integers(1, len(text) - 1), min_size=1, max_size=len(text) - 1))
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def spelled(draw: st.DrawFn, text: str) -> str:
    """An expression that folds to `text` without spelling it as one literal."""
    parts = draw(pieces(text))
    how = draw(st.sampled_from(["add", "join", "fstring", "percent", "format", "reverse", "chr"]))
    if how == "add":
        return " + ".join(repr(p) for p in parts)
    if how == "join":
        sep = draw(st.sampled_from(["", "'' "]))
        return (
            f"''.join([{', '.join(repr(p) for p in parts)}])"
            if not sep
            else (f"''.join(({', '.join(repr(p) for p in parts)},))")
        )
    if how == "fstring":
        return 'f"' + "".join("{" + repr(p) + "}" for p in parts) + '"'
    if how == "percent":
        return f"'{'%s' * len(parts)}' % ({', '.join(repr(p) for p in parts)},)"
    if how == "format":
        return f"'{'{}' * len(parts)}'.format({', '.join(repr(p) for p in parts)})"
    if how == "reverse":
        return f"{text[::-1]!r}[::-1]"
    return " + ".join(f"chr({ord(c)})" for c in text)


@st.composite
def bound(draw: st.DrawFn, text: str) -> tuple[str, str]:
    """(lines that bind a name, the expression to use): sometimes the spelling goes through
    a name first."""
    expression = draw(spelled(text))
    if draw(st.booleans()):
        name = draw(IDENTIFIER)
        return f"{name} = {expression}\n", name
    return "", expression


def rules(source: str) -> set[tuple[str, str]]:
    return {(r.capability.rule, r.capability.risk) for r in review(ast.parse(source))}


@PROPERTY_SETTINGS
@given(st.data())
def test_every_spelling_of_sys_modules_is_found(data: st.DataObject) -> None:
    before_module, module = data.draw(bound("sys"))
    before_attr, attr = data.draw(bound("modules"))
    importer = data.draw(st.sampled_from(["__import__", "importlib.import_module"]))
    source = (
        "import importlib\n" + before_module + before_attr
        + f"loaded = getattr({importer}({module}), {attr})\n"
    )  # fmt: skip
    assert ("PG591", "high") in rules(source), source


@PROPERTY_SETTINGS
@given(IDENTIFIER, st.sampled_from(["sys", "gc"]), st.booleans())
def test_an_aliased_import_is_found_under_any_name(alias: str, module: str, use: bool) -> None:
    reach = "modules" if module == "sys" else "get_objects()"
    source = f"import {module} as {alias}\nx = {alias}.{reach}\n" if use else (
        f"from {module} import {reach.rstrip('()')} as {alias}\nx = {alias}\n"
    )  # fmt: skip
    assert ("PG591", "high") in rules(source), source


@PROPERTY_SETTINGS
@given(st.data(), st.sampled_from(sorted(a for a, r in reach_table.ATTRIBUTES.items()
                                         if r.risk == "high")))  # fmt: skip
def test_every_spelling_of_a_frame_or_dunder_attribute_is_found(
    data: st.DataObject, attr: str
) -> None:
    before, name = data.draw(bound(attr))
    source = before + f"def f(thing):\n    return getattr(thing, {name})\n"
    assert (reach_table.ATTRIBUTES[attr].rule, "high") in rules(source), source


@PROPERTY_SETTINGS
@given(st.data(), st.sampled_from(sorted(reach_table.HARNESS)), st.sampled_from(["", ".main"]))
def test_a_harness_name_built_from_pieces_is_found(
    data: st.DataObject, harness: str, tail: str
) -> None:
    before, name = data.draw(bound(harness + tail))
    source = before + f"wanted = {name}\n"
    assert ("PG595", "high") in rules(source), source


@PROPERTY_SETTINGS
@given(st.data(), st.sampled_from(["gc", "ctypes", "marshal"]))
def test_a_module_imported_by_a_built_name_is_found(data: st.DataObject, module: str) -> None:
    before, name = data.draw(bound(module))
    use = {"gc": ".get_objects()", "ctypes": ".pythonapi", "marshal": ".loads(blob)"}[module]
    source = "import importlib\n" + before + f"x = importlib.import_module({name}){use}\n"
    assert {row for row in rules(source) if row[1] == "high"}, source


HONEST_ATTRIBUTES = IDENTIFIER.filter(
    lambda name: name not in reach_table.ATTRIBUTES and name not in reach_table.HARNESS
)
STDLIB = st.sampled_from(["json", "decimal", "fractions", "textwrap", "csv", "email.utils"])


@PROPERTY_SETTINGS
@given(HONEST_ATTRIBUTES, STDLIB, st.text(st.characters(codec="ascii"), max_size=30))
def test_literal_honest_uses_are_not_reviewed(attr: str, module: str, text: str) -> None:
    assume_text = text.strip()
    source = (
        "import importlib\nimport logging\nfrom dataclasses import dataclass\n\n"
        "log = logging.getLogger(__name__)\n"
        f"codec = importlib.import_module({module!r})\n"
        f"message = {text!r}\n\n\n@dataclass\nclass Row:\n    {attr}: int = 0\n\n\n"
        f"def read(row):\n    return getattr(row, {attr!r}, None)\n"
    )
    found = rules(source)
    if assume_text.startswith("/proc") or assume_text.split(".")[0] in reach_table.HARNESS:
        return  # the generated message itself names /proc or the harness
    assert found == set(), source
