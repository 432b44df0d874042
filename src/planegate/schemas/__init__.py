"""JSON Schemas of the files planegate writes and reads back, and one-line reasons a value
breaks them. Each `NAME.schema.json` here documents a format for users (docs/report.md)."""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@functools.cache
def validator(name: str) -> Any:
    """The JSON Schema validator of `name` (built once)."""
    import jsonschema

    text = resources.files("planegate.schemas").joinpath(f"{name}.schema.json").read_text("utf-8")
    return jsonschema.Draft202012Validator(json.loads(text))


def problem(value: Any, name: str) -> str | None:
    """The first way `value` breaks the schema `name`, as `key.path: what is wrong`, or None
    when it conforms."""
    error = next(iter(validator(name).iter_errors(value)), None)
    if error is None:
        return None
    where = _json_path(list(error.absolute_path), list(error.absolute_schema_path))
    where = where or "(top level)"
    if error.validator == "pattern":
        what = error.schema.get("title") or f"a match for {error.validator_value}"
        return f"{where} is not {what}: {_clip(_show(error.instance))}"
    return f"{where}: {_schema_reason(error)}"


def _json_path(parts: list[Any], schema_path: list[Any]) -> str:
    """`files['tests/a.json']`, `steps[0].findings`: a field by name, a data key quoted."""
    data_keys = [
        step == "additionalProperties"
        for step, before in zip(schema_path, [None, *schema_path[:-1]], strict=True)
        if step in ("additionalProperties", "items", "prefixItems") or before == "properties"
    ]
    text = ""
    for index, part in enumerate(parts):
        quoted = index < len(data_keys) and data_keys[index]
        if isinstance(part, int):
            text += f"[{part}]"
        elif quoted or not _KEY.fullmatch(str(part)):
            text += f"[{_clip(repr(str(part)))}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _schema_reason(error: Any) -> str:
    kind, expected, instance = error.validator, error.validator_value, error.instance
    if kind == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(expected)
        return f"expected {wanted}, got {_json_type(instance)}"
    if kind == "required":
        missing = next((key for key in expected if key not in instance), "?")
        return f"{missing!r} is missing"
    if kind == "const":
        return f"expected {json.dumps(expected)}, got {_clip(_show(instance))}"
    if kind == "enum":
        return (
            f"expected one of {', '.join(map(json.dumps, expected))}, got {_clip(_show(instance))}"
        )
    return _one_line(_clip(str(error.message), 200))


def _show(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        return type(value).__name__


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    if type(value) in names:
        return names[type(value)]
    return "number" if isinstance(value, (int, float)) else type(value).__name__


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")
