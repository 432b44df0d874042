"""YAML with limits: aliases counted and their expansion sized, nesting capped, a key given
twice refused; every failure a `Problem` naming the line and the key (see `planegate.loading`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, CollectionStartEvent, Event, ScalarEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from planegate.errors import InputDataError
from planegate.loading import (
    CONFIG,
    PURE_YAML,
    ErrorClass,
    Limits,
    Problem,
    _lone_surrogate,
    _one_line,
    _text_or_raise,
)

try:  # libyaml's parser, when PyYAML was built with it (as its wheels are)
    from yaml._yaml import CParser

    _FAST = True
except ImportError:  # pragma: no cover - a PyYAML built without libyaml

    class CParser(Reader, Scanner, Parser):  # type: ignore[no-redef]
        """PyYAML's own parser, in place of libyaml's (never used: `_FAST` is off)."""

        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)

    _FAST = False
_NON_PRINTABLE = Reader.NON_PRINTABLE


@dataclass(frozen=True)
class YamlDocument:
    value: Any
    node: Node | None  # the composed tree, for line numbers (None: an empty document)


class _Refused(yaml.YAMLError):
    def __init__(self, reason: str, line: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


class _Limits(Composer):
    """A composer that counts aliases, sizes their expansion, caps depth, refuses a key twice;
    it composes the events of whichever parser it is mixed with."""

    peek_event: Callable[[], Event]  # the parser's

    def _set_limits(self, limits: Limits) -> None:
        self.limits = limits
        self._aliases = 0
        self._open: set[str] = set()
        self._sizes: dict[int, int] = {}
        self._keys: list[str] = []  # the path to the node being composed

    def _refuse(self, reason: str, line: int | None = None) -> _Refused:
        if line is None:
            mark = self.peek_event().start_mark
            line = mark.line + 1 if mark is not None else 1
        where = _path(self._keys)
        return _Refused(f"{where}: {reason}" if where else reason, line)

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            node = self._alias(parent, index, event)
        else:
            anchor = (
                event.anchor if isinstance(event, (ScalarEvent, CollectionStartEvent)) else None
            )
            self._keys.append(_label(parent, index))
            if len(self._keys) > self.limits.max_depth:
                raise self._refuse(f"nested deeper than {self.limits.max_depth} levels")
            if anchor is not None:
                self._open.add(anchor)
            try:
                node = super().compose_node(parent, index)
            finally:
                self._keys.pop()
                if anchor is not None:
                    self._open.discard(anchor)
            self._count(node)
        if node is not None and isinstance(parent, MappingNode) and index is None:
            self._check_duplicate(parent, node)
        return node

    def _alias(self, parent: Node | None, index: Any, event: AliasEvent) -> Node | None:
        self._aliases += 1
        if self._aliases > self.limits.max_aliases:
            raise self._refuse(f"more than {self.limits.max_aliases} aliases")
        if event.anchor in self._open:
            raise self._refuse(f"alias *{_printable(str(event.anchor))} is inside its own anchor")
        return super().compose_node(parent, index)

    def _count(self, node: Node | None) -> None:
        if node is None:
            return
        size = 1
        if isinstance(node, SequenceNode):
            size += sum(self._sizes.get(id(child), 1) for child in node.value)
        elif isinstance(node, MappingNode):
            size += sum(
                self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1) for k, v in node.value
            )
        self._sizes[id(node)] = size
        if max(size, len(self._sizes)) > self.limits.max_nodes:  # nodes so far: bounded memory
            raise self._refuse(
                f"holds more than {self.limits.max_nodes} values (aliases counted expanded)",
                node.start_mark.line + 1,
            )

    def _check_duplicate(self, mapping: MappingNode, key: Node) -> None:
        if not isinstance(key, ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
            return
        for earlier, _ in mapping.value:
            same = isinstance(earlier, ScalarNode) and earlier.tag == key.tag
            if same and earlier.value == key.value:
                first = earlier.start_mark.line + 1
                name = _path([*self._keys, _printable(str(key.value))])
                raise _Refused(
                    f"duplicate key {name} (first on line {first})", key.start_mark.line + 1
                )


def _printable(text: str) -> str:
    return text if text.isprintable() else repr(text)[1:-1]


def _label(parent: Node | None, index: Any) -> str:
    if isinstance(parent, SequenceNode):
        return f"[{index}]"
    if isinstance(parent, MappingNode) and isinstance(index, ScalarNode):
        return _printable(str(index.value))
    return ""


def _path(labels: list[str]) -> str:
    text = ""
    for label in labels:
        if label.startswith("["):
            text += label
        elif label:
            text += f".{label}" if text else label
    return text if len(text) <= 120 else "…" + text[-119:]


class _LimitedLoader(_Limits, yaml.SafeLoader):
    """PyYAML's own reader, scanner and parser: every error message is theirs."""

    def __init__(self, stream: str, limits: Limits) -> None:
        yaml.SafeLoader.__init__(self, stream)
        self._set_limits(limits)


class _FastLimitedLoader(_Limits, Composer, CParser, SafeConstructor, Resolver):
    """libyaml's scanner and parser (many times faster on a configuration listing thousands
    of nodeids) under the same composer, constructor and resolver: the same values. A node
    with an explicit tag is left to PyYAML's parser (the two read `!` differently)."""

    def __init__(self, stream: str, limits: Limits) -> None:
        CParser.__init__(self, stream)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        Composer.__init__(self)
        self._set_limits(limits)

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, (ScalarEvent, CollectionStartEvent)) and event.tag is not None:
            line = getattr(event.start_mark, "line", -1) + 1  # PyYAML reads it, unless too large
            raise _Refused("an explicit tag (read only in a text of at most 1 MiB)", line)
        return super().compose_node(parent, index)


class _Aliased(Exception):
    """The tree libyaml composed has an alias: `_Limits` must compose it, seeing each alias."""


class _NativeLoader(CParser, SafeConstructor, Resolver):
    """libyaml composes the whole tree, with no Python call per event; the limits are then
    checked on the tree, with the refusals (reason, key and line) `_Limits` gives. A tree
    with an alias raises `_Aliased`: only the events tell where an alias stands."""

    def __init__(self, stream: str, limits: Limits) -> None:
        CParser.__init__(self, stream)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self.limits = limits

    def get_single_node(self) -> Node | None:
        node: Node | None = super().get_single_node()
        if node is not None:
            _TreeCheck(self.limits).visit(node, [""])
        return node


class _TreeCheck:
    """Depth, duplicate keys and the node count of an alias-free tree, in `_Limits`' order
    (the recursion is as deep as `max_depth` allows)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.seen: set[int] = set()
        self.done = 0  # nodes composed, children before their parent

    def visit(self, node: Node, keys: list[str]) -> None:
        if id(node) in self.seen:
            raise _Aliased
        self.seen.add(id(node))
        if len(keys) > self.limits.max_depth:
            reason = f"nested deeper than {self.limits.max_depth} levels"
            raise _Refused(_where(keys, reason), node.start_mark.line + 1)
        if isinstance(node, SequenceNode):
            for index, child in enumerate(node.value):
                self.visit(child, [*keys, f"[{index}]"])
        elif isinstance(node, MappingNode):
            self.mapping(node, keys)
        self.done += 1
        if self.done > self.limits.max_nodes:
            reason = f"holds more than {self.limits.max_nodes} values (aliases counted expanded)"
            raise _Refused(_where(keys[:-1], reason), node.start_mark.line + 1)

    def mapping(self, node: MappingNode, keys: list[str]) -> None:
        first_lines: dict[tuple[str, str], int] = {}
        for key, value in node.value:
            self.visit(key, [*keys, ""])
            label = ""
            if isinstance(key, ScalarNode):
                label = _printable(str(key.value))
                if key.tag != "tag:yaml.org,2002:merge":
                    _first_of_its_name(key, first_lines, [*keys, label])
            self.visit(value, [*keys, label])


def _first_of_its_name(
    key: ScalarNode, first_lines: dict[tuple[str, str], int], name: list[str]
) -> None:
    line, slot = key.start_mark.line + 1, (key.tag, key.value)
    first = first_lines.get(slot)
    if first is not None:
        raise _Refused(f"duplicate key {_path(name)} (first on line {first})", line)
    first_lines[slot] = line


def _where(keys: list[str], reason: str) -> str:
    where = _path(keys)
    return f"{where}: {reason}" if where else reason


def yaml_document(text: str, limits: Limits = CONFIG, *, exact_marks: bool = False) -> YamlDocument:
    """The one YAML document in `text` with its node tree, or Problem. libyaml reads it when
    PyYAML was built with it; up to `PURE_YAML` (PyYAML's parser takes 2.5 µs a byte), a text
    it refuses, or with a tab or a character PyYAML's reader refuses (where the two disagree),
    is read by PyYAML's parser, so a refusal's message is PyYAML's, and so is `exact_marks`
    (lines for an error message: values agree, positions of empty nodes may differ)."""
    if _FAST and len(text) > PURE_YAML and not _NON_PRINTABLE.search(text):
        return _libyaml(text, limits)
    if _FAST and not exact_marks and "\t" not in text and not _NON_PRINTABLE.search(text):
        with contextlib.suppress(Problem):
            return _libyaml(text, limits)
    return _compose(_LimitedLoader, text, limits)


def _libyaml(text: str, limits: Limits) -> YamlDocument:
    """libyaml composes the tree when it has no explicit tag (the two parsers read `!`
    differently) and no alias; else its events are composed under `_Limits`."""
    if "!" not in text:
        with contextlib.suppress(_Aliased):
            return _compose(_NativeLoader, text, limits)
    return _compose(_FastLimitedLoader, text, limits)


def _compose(
    kind: type[_LimitedLoader | _FastLimitedLoader | _NativeLoader], text: str, limits: Limits
) -> YamlDocument:
    try:
        loader = kind(text, limits)
    except yaml.YAMLError as error:  # the reader refuses control characters up front
        raise Problem(_one_line(str(error).splitlines()[0])) from None
    try:
        node = loader.get_single_node()
        value = loader.construct_document(node) if node is not None else None
    except _Refused as refused:
        raise Problem(refused.reason, refused.line) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        raise Problem(_one_line(str(problem)), line) from None
    except (ValueError, RecursionError) as error:  # an int over the digit limit, and the like
        raise Problem(f"unreadable value ({_one_line(str(error).split(';')[0])})") from None
    finally:
        loader.dispose()
    if _lone_surrogate(value):
        raise Problem("a string holds an unpaired surrogate escape (not Unicode text)")
    return YamlDocument(value, node)


def load_yaml(
    data: bytes | str,
    source: str,
    *,
    error: ErrorClass = InputDataError,
    limits: Limits = CONFIG,
    hint: str | None = None,
    exact_marks: bool = False,
) -> YamlDocument:
    """A YAML file's one document; any problem raises `error` naming file, line and key."""
    text = _text_or_raise(data, source, error, limits)
    try:
        return yaml_document(text, limits, exact_marks=exact_marks)
    except Problem as problem:
        raise error(f"{problem.where(source)}: not valid YAML: {problem.reason}", hint) from None
