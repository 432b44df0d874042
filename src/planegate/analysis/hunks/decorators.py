"""What decorators say about a test: skip marks, parametrize cases, Hypothesis settings."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from planegate.analysis.hunks.calls import CallReader
from planegate.analysis.hunks.facts import Example, Params, Skip
from planegate.analysis.hunks.keys import key
from planegate.analysis.hunks.marks import skip_key, skip_mark
from planegate.analysis.hunks.parsed_module import Module, last_part, short, truth


@dataclass
class Decorated:
    skips: list[Skip] = field(default_factory=list)
    params: list[Params] = field(default_factory=list)
    given: list[tuple[str, ast.expr]] = field(default_factory=list)
    settings: dict[str, ast.expr] = field(default_factory=dict)
    has_settings: bool = False
    examples: list[Example] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    autouse: bool = False
    invariant: bool = False


def _root_call(node: ast.expr) -> ast.expr:
    """`example(1).via("x")` -> `example(1)`."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Call)
    ):
        node = node.func.value
    return node


def read_decorators(
    module: Module, decorators: list[ast.expr], reader: CallReader | None
) -> Decorated:
    """What a function's or class's decorators say; `reader` also reads the calls in them."""
    out = Decorated()
    for decorator in decorators:
        mark = skip_mark(module, decorator)
        if mark:
            out.skips.append(Skip(f"@{mark}", decorator.lineno, skip_key(module, decorator, mark)))
            continue
        root = _root_call(decorator)
        target = root.func if isinstance(root, ast.Call) else root
        name = module.dotted(target) or ""
        last = last_part(name)
        if reader is not None:
            reader.exprs([decorator], None)
        if isinstance(root, ast.Call):
            _called(module, decorator, root, last, out)
        else:
            out.invariant = out.invariant or last == "invariant"
    return out


def _called(module: Module, decorator: ast.expr, root: ast.Call, last: str, out: Decorated) -> None:
    if last == "parametrize":
        parsed = parametrize(module, root)
        if parsed:
            out.params.append(parsed)
    elif last == "given":
        out.given.extend((str(index), arg) for index, arg in enumerate(root.args))
        out.given.extend((kw.arg, kw.value) for kw in root.keywords if kw.arg)
    elif last == "settings":
        out.has_settings = True
        out.settings.update({kw.arg: kw.value for kw in root.keywords if kw.arg})
    elif last == "example":
        out.examples.append(Example(key(decorator), short(decorator), decorator.lineno))
    elif last in ("seed", "reproduce_failure"):
        out.seeds.append(f"@{last}({', '.join(short(arg) for arg in root.args)})")
    elif last == "fixture":
        out.autouse = any(kw.arg == "autouse" and truth(kw.value) is True for kw in root.keywords)
    elif last == "invariant":
        out.invariant = True


def parametrize(module: Module, call: ast.Call) -> Params | None:
    if len(call.args) < 2:
        names_node = next((kw.value for kw in call.keywords if kw.arg == "argnames"), None)
        values_node = next((kw.value for kw in call.keywords if kw.arg == "argvalues"), None)
    else:
        names_node, values_node = call.args[0], call.args[1]
    if names_node is None or values_node is None:
        return None
    argnames = _argnames(names_node)
    values = module.resolve(values_node)
    if not isinstance(values, ast.List | ast.Tuple):
        return Params(argnames, call.lineno, None, key(values))
    known: dict[int, str] = {}  # the cases' keys, reused in the key of the whole list
    cases = tuple((_case_key(module, element, known), element) for element in values.elts)
    return Params(argnames, call.lineno, cases, key(values, known=known))


def _argnames(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ",".join(part.strip() for part in node.value.split(",") if part.strip())
    if isinstance(node, ast.List | ast.Tuple):
        return ",".join(
            str(element.value) for element in node.elts if isinstance(element, ast.Constant)
        )
    return short(node)


def _case_key(module: Module, node: ast.expr, known: dict[int, str]) -> str:
    if isinstance(node, ast.Call) and last_part(module.dotted(node.func)) == "param":
        return "".join(_known_key(arg, known) for arg in node.args)
    if isinstance(node, ast.Tuple | ast.List) and len(node.elts) == 1:
        return _known_key(node.elts[0], known)
    return _known_key(node, known)


def _known_key(node: ast.expr, known: dict[int, str]) -> str:
    found = known[id(node)] = key(node, known=known)
    return found
