"""Layout-free keys of syntax nodes (the text the comparisons are made on) and the walks
over a node's children that skip expression contexts and operators."""

from __future__ import annotations

import ast
from typing import NamedTuple

SEP = "\x1f"


def key(
    node: ast.AST,
    names: dict[str, str] | None = None,
    *,
    skip_keywords: frozenset[str] = frozenset(),
    known: dict[int, str] | None = None,
) -> str:
    """A layout-free fingerprint of a node.

    `known` maps `id(node)` to keys already made the same way for nodes of this tree: a
    sub-expression found there is not keyed again."""
    out: list[str] = []
    _tokens(node, names or {}, None, skip_keywords, out, known)
    return SEP.join(out)


class Flat(NamedTuple):
    """The tokens of a node, not yet joined, with what the keys of its parts need."""

    tokens: list[str]
    constants: list[int]  # where the tokens of its constants are
    parts: dict[int, tuple[int, int]]  # by id, where the tokens of each child (or item) are

    @property
    def key(self) -> str:
        return SEP.join(self.tokens)

    def part_keys(self, nodes: list[ast.expr], known: dict[int, str]) -> tuple[str, ...]:
        """The keys of `nodes`, children of the node (or items of a list it holds), each also
        noted in `known` by id."""
        out: list[str] = []
        for node in nodes:
            start, end = self.parts[id(node)]
            known[id(node)] = found = SEP.join(self.tokens[start:end])
            out.append(found)
        return tuple(out)

    def masked(self, key: str) -> str:
        """The key (`key`) with the constants hidden (to align edited literals)."""
        if not self.constants:
            return key
        out = list(self.tokens)
        for index in self.constants:
            out[index] = "#"
        return SEP.join(out)

    def constant_values(self) -> tuple[str, ...]:
        return tuple(map(self.tokens.__getitem__, self.constants))


def flat(node: ast.AST, names: dict[str, str], skip_keywords: frozenset[str]) -> Flat:
    """One pass for the key of `node`, the keys of its children and its masked key."""
    out: list[str] = []
    constants: list[int] = []
    parts: dict[int, tuple[int, int]] = {}
    if type(node) is ast.Name or type(node) is ast.Constant:
        _tokens(node, names, constants, skip_keywords, out, None)
        return Flat(out, constants, parts)
    out.append(type(node).__name__)
    out.append("(")
    for name in node._fields:  # as `_node_tokens`, noting where each child is
        value = getattr(node, name, None)
        if type(value) is list:
            out.append("[")
            for item in value:
                start = len(out)
                _tokens(item, names, constants, skip_keywords, out, None)
                parts[id(item)] = (start, len(out))
                out.append(",")
            out.append("]")
        else:
            start = len(out)
            _tokens(value, names, constants, skip_keywords, out, None)
            parts[id(value)] = (start, len(out))
        out.append(",")
    out.append(")")
    return Flat(out, constants, parts)


def contains(whole: str, part: str) -> bool:
    """Whether the node keyed `part` is a sub-expression of the node keyed `whole`."""
    return f"{SEP}{part}{SEP}" in f"{SEP}{whole}{SEP}"


def tokens(
    node: ast.AST, names: dict[str, str], *, skip_keywords: frozenset[str] = frozenset()
) -> list[str]:
    out: list[str] = []
    _tokens(node, names, None, skip_keywords, out, None)
    return out


def _tokens(
    value: object,
    names: dict[str, str],
    constants: list[int] | None,
    skip: frozenset[str],
    out: list[str],
    known: dict[int, str] | None,
) -> None:
    """`constants`, when given, collects where the constants' tokens are."""
    # `type(...) is` rather than isinstance: parsed trees hold no subclasses, and it is faster
    if type(value) is ast.Name:
        out.append(names.get(value.id, value.id))
    elif type(value) is ast.Constant:
        if constants is not None:
            constants.append(len(out))
        out.append(repr(value.value))
    elif type(value) is list:
        out.append("[")
        for item in value:
            _tokens(item, names, constants, skip, out, known)
            out.append(",")
        out.append("]")
    elif type(value) in _LEAVES:
        out.append(_LEAVES[type(value)])
    elif isinstance(value, ast.AST):
        _node_tokens(value, names, constants, skip, out, known)
    else:
        out.append(repr(value))


def _node_tokens(
    node: ast.AST,
    names: dict[str, str],
    constants: list[int] | None,
    skip: frozenset[str],
    out: list[str],
    known: dict[int, str] | None,
) -> None:
    if type(node) is ast.keyword and node.arg in skip:
        return
    done = known.get(id(node)) if known is not None else None
    if done is not None:
        if done:
            out.append(done)  # the node's tokens, already joined
        return
    out.append(type(node).__name__)
    out.append("(")
    for name in node._fields:
        value = getattr(node, name, None)
        if type(value) is str or value is None:  # names and absent parts: what `_tokens` does
            out.append(repr(value))
        elif type(value) in _LEAVES:
            out.append(_LEAVES[type(value)])
        else:
            _tokens(value, names, constants, skip, out, known)
        out.append(",")
    out.append(")")


# Nodes without fields (contexts, operators): their tokens, joined.
_LEAVES: dict[type, str] = {
    kind: f"{kind.__name__}{SEP}({SEP})"
    for base in (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
    for kind in base.__subclasses__()
    if not kind._fields
}


# Fields that never hold a node (names, flags), or only nodes no walk looks for: expression
# contexts and operators.
_NO_NODES = frozenset(
    {
        *("ctx", "op", "ops", "id", "attr", "arg", "name", "asname", "module", "level", "kind"),
        *("type_comment", "simple", "conversion", "is_async", "rest", "kwd_attrs", "tag"),
        "lineno",
    }
)
_CONSTANTS = (ast.Constant, ast.MatchSingleton)  # their `value` is a Python value
# Lists that may hold something else than nodes: `None` for a `**` in a dict or a keyword-only
# argument without default, names in `global`.
_MIXED_LISTS = frozenset({"keys", "kw_defaults", "names"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node class that can hold nodes, but contexts and operators."""
    found = _CHILD_FIELDS.get(kind)
    if found is None:
        fields: tuple[str, ...] = getattr(kind, "_fields", ())
        if kind in _CONSTANTS:
            fields = ()
        found = _CHILD_FIELDS[kind] = tuple(f for f in fields if f not in _NO_NODES)
    return found


def walk(node: ast.AST) -> list[ast.AST]:
    """The nodes `ast.walk` yields but expression contexts (`Load`, `Store`, `Del`) and
    operators, in the same breadth-first order, as a list (no generators: it runs on every
    changed function)."""
    return tree(node)[0]


def tree(node: ast.AST) -> tuple[list[ast.AST], list[int]]:
    """`walk(node)` and, for each node found, the index of its parent there (-1 for `node`)."""
    found = [node]
    parents = [-1]
    fields_of = _CHILD_FIELDS.get
    for index, current in enumerate(found):
        fields = fields_of(type(current))
        if fields is None:
            fields = _child_fields(type(current))
        for name in fields:
            value = getattr(current, name, None)
            if type(value) is list:
                if name in _MIXED_LISTS:
                    value = [item for item in value if isinstance(item, ast.AST)]
                found += value
                parents += [index] * len(value)
            elif isinstance(value, ast.AST):
                found.append(value)
                parents.append(index)
    return found, parents
