"""One loading path per format, with limits: every structured file planegate reads.

Bad input never crashes, hangs or hides: bytes must be UTF-8 (the error names the byte
offset), files and nesting are capped, YAML aliases are counted and their expansion sized,
and a key given twice is refused (the error names both lines). Each failure is one line
naming the file, the line and, where known, the key; it raises the caller's error class
(ConfigError, exit 78, for planegate.yml; InputDataError, exit 65, for data files).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
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

from planegate import schemas
from planegate.errors import InputDataError, PlanegateError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

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

KiB = 1024
MiB = 1024 * KiB


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 64 * MiB
    max_depth: int = 32
    max_aliases: int = 64  # YAML only
    max_nodes: int = 100_000  # YAML only: nodes after alias expansion


CONFIG = Limits(max_bytes=16 * MiB, max_nodes=300_000)
MANIFEST = Limits(max_bytes=16 * MiB)
DIGEST = Limits(max_bytes=64 * MiB)
REPORT = Limits(max_bytes=64 * MiB)
EVENT = Limits(max_bytes=32 * MiB)  # GitHub caps webhook payloads at 25 MB
RUN = SHARD = Limits(max_bytes=512 * MiB)  # run.json, and a shard's evidence that holds one
LEDGER_LINE = Limits(max_bytes=1 * MiB)
PURE_YAML = 1 * MiB  # the largest text PyYAML's pure-Python parser reads (yaml_document)

ErrorClass = type[PlanegateError]


class Problem(ValueError):
    """Why a text is not a valid document: a reason, and where (1-based line and column)."""

    def __init__(self, reason: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.column = column

    def where(self, source: str) -> str:
        return f"{source}:{self.line}" if self.line else source


# --------------------------------------------------------------------------- bytes


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def utf8_text(data: bytes | str, limits: Limits = Limits()) -> str:
    """The text of `data`: UTF-8 only (a leading byte-order mark is dropped), within the cap."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > limits.max_bytes:
        raise Problem(f"{size} bytes, over the limit of {_size(limits.max_bytes)}")
    if isinstance(data, str):
        text = data
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            bad = data[error.start]
            raise Problem(
                f"not UTF-8: byte 0x{bad:02x} at byte offset {error.start}", line
            ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _size(count: int) -> str:
    if count % MiB == 0:
        return f"{count // MiB} MiB"
    return f"{count // KiB} KiB" if count % KiB == 0 else f"{count} bytes"


# --------------------------------------------------------------------------- JSON


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return obj


def _constant(name: str) -> Any:
    raise Problem(f"{name} is not a JSON value")


def json_value(text: str, limits: Limits = Limits()) -> Any:
    """The JSON value of `text`, or Problem: syntax, duplicate key, depth, or a huge number."""
    try:
        value = json.loads(text, object_pairs_hook=_unique, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise Problem(error.msg, error.lineno, error.colno) from None
    except Problem:
        raise
    except _Duplicate as dup:
        raise Problem(f"duplicate key {dup.key!r}", *_key_position(text, dup.key)) from None
    except RecursionError:
        raise Problem(
            f"nested deeper than {limits.max_depth} levels", *_deep_position(text, limits)
        ) from None
    except ValueError as error:  # an integer over Python's digit limit
        raise Problem(f"unreadable number ({str(error).split(';')[0]})") from None
    if _too_deep(value, limits.max_depth):
        raise Problem(
            f"nested deeper than {limits.max_depth} levels", *_deep_position(text, limits)
        )
    if _SURROGATE.search(text) and _lone_surrogate(value):
        raise Problem("a string holds an unpaired surrogate escape (not Unicode text)")
    return value


def _lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return False


def _too_deep(value: Any, limit: int) -> bool:
    level = [value] if isinstance(value, (dict, list)) else []
    for _ in range(limit):
        below: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            below += [child for child in children if type(child) in _CONTAINERS]
        if not below:
            return False
        level = below
    return True


_CONTAINERS = (dict, list)
_SURROGATE = re.compile(r"\\[uU]0*[dD][89a-fA-F]")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:]', re.DOTALL)


def _deep_position(text: str, limits: Limits) -> tuple[int | None, int | None]:
    """Where nesting first goes past the limit; (None, None) when the scan cannot tell."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limits.max_depth:
                return _position(text, match.start())
        elif token in "]}":
            depth -= 1
    return None, None


def _key_position(text: str, key: str) -> tuple[int | None, int | None]:
    """Where an object first repeats `key`: a scan of keys per open object."""
    objects: list[set[str] | None] = []
    pending: re.Match[str] | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == ":" and pending is not None and objects and objects[-1] is not None:
            name = _string(pending.group())
            if name == key and name in objects[-1]:
                return _position(text, pending.start())
            objects[-1].add(name)
        elif token in "[{":
            objects.append(set() if token == "{" else None)
        elif token in "]}" and objects:
            objects.pop()
        pending = match if token.startswith('"') else None
    return None, None


def _string(token: str) -> str:
    try:
        return str(json.loads(token))
    except ValueError:
        return token


def load_json(
    data: bytes | str,
    source: str,
    *,
    error: ErrorClass = InputDataError,
    limits: Limits = DIGEST,
    hint: str | None = None,
    schema: str | None = None,
) -> Any:
    """A JSON file's value; any problem raises `error` with one line naming file and line
    (or key path, for a value that breaks the packaged `schema`: then with `hint`)."""
    text = _text_or_raise(data, source, error, limits)
    try:
        value = json_value(text, limits)
    except Problem as problem:
        raise error(f"{problem.where(source)}: not valid JSON: {problem.reason}") from None
    wrong = schemas.problem(value, schema) if schema is not None else None
    if wrong is not None:
        raise error(f"{source}: {wrong}", hint)
    return value


def _text_or_raise(data: bytes | str, source: str, error: ErrorClass, limits: Limits) -> str:
    try:
        return utf8_text(data, limits)
    except Problem as problem:
        raise error(f"{problem.where(source)}: {problem.reason}") from None


# --------------------------------------------------------------------------- TOML


def toml_value(text: str, limits: Limits = CONFIG) -> dict[str, Any]:
    """A TOML document (pyproject.toml), or Problem: syntax, or nested too deeply."""
    try:
        value: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise Problem(_one_line(str(error))) from None
    except RecursionError:
        raise Problem(f"nested deeper than {limits.max_depth} levels") from None
    if _too_deep(value, limits.max_depth):
        raise Problem(f"nested deeper than {limits.max_depth} levels")
    return value


# --------------------------------------------------------------------------- YAML


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


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


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
