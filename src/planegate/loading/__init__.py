"""One loading path per format, with limits: every structured file planegate reads.

Bad input never crashes, hangs or hides: bytes must be UTF-8 (the error names the byte
offset), files and nesting are capped, YAML aliases are counted and their expansion sized,
and a key given twice is refused (the error names both lines). Each failure is one line
naming the file, the line and, where known, the key; it raises the caller's error class
(ConfigError, exit 78, for planegate.yml; InputDataError, exit 65, for data files).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from typing import Any

from planegate import schemas
from planegate.errors import InputDataError, PlanegateError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


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


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")
