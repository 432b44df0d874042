"""Values a JSON Schema surely accepts, told without jsonschema: importing it and building its
validator cost the gate about 25 ms before the head's test child could start, on a
configuration and a digest that are almost always valid.

`surely_valid(value, schema)` is True only when Draft 2020-12 validation finds no error in
`value`; False means "not sure", and the caller asks jsonschema, whose errors are the ones
reported. It knows the keywords planegate's own schemas use and is strict where jsonschema
is lenient (an `integer` is an `int`, never `1.0`; `enum` and `const` match a value of the
same type only; a `$ref` is a `#/$defs/NAME`): any keyword it does not know, and any value
it is unsure of, makes it unsure, never wrong.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

# keywords that never make a value invalid (annotations, and `$defs`, read through `$ref`)
ANNOTATIONS = frozenset(
    {"$schema", "$comment", "$defs", "title", "description", "default", "examples"}
    | {"patternMessage"}  # planegate's own: the message for a value its `pattern` refuses
)
_SCALARS = (str, int, float, bool, type(None))
_JSON = frozenset({dict, list, *_SCALARS})  # exactly: jsonschema checks a subclass too
_TYPES: Mapping[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),  # `type(True) is bool`: a boolean is no integer here
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


class _Unsure(Exception):
    """Raised where jsonschema may find an error: the caller asks it."""


def surely_valid(value: Any, schema: Mapping[str, Any] | bool) -> bool:
    """True only when jsonschema (Draft 2020-12) finds no error in `value` against `schema`;
    False when it may find one."""
    try:
        _Walk(schema).check(value, schema)
    except _Unsure:
        return False
    except RecursionError:  # a value nested too deep for this walk: jsonschema decides
        return False
    return True


def _require(holds: bool) -> None:
    if not holds:
        raise _Unsure


# keyword -> the types of value it applies to, and what must hold of (value, its argument)
_LIMITS: Mapping[str, tuple[tuple[type, ...], Callable[[Any, Any], bool]]] = {
    "minItems": ((list,), lambda value, n: type(n) is int and len(value) >= n),
    "maxItems": ((list,), lambda value, n: type(n) is int and len(value) <= n),
    "minLength": ((str,), lambda value, n: type(n) is int and len(value) >= n),
    "maxLength": ((str,), lambda value, n: type(n) is int and len(value) <= n),
    "minimum": ((int, float), lambda value, bound: _number(bound) and not value < bound),
    "maximum": ((int, float), lambda value, bound: _number(bound) and not value > bound),
    "exclusiveMinimum": ((int, float), lambda value, bound: _number(bound) and value > bound),
    "exclusiveMaximum": ((int, float), lambda value, bound: _number(bound) and value < bound),
    "pattern": ((str,), lambda value, p: isinstance(p, str) and re.search(p, value) is not None),
}


def _number(bound: Any) -> bool:
    return type(bound) in (int, float)


def _among(value: Any, allowed: Any) -> bool:
    """`value` is one of `allowed`, a scalar of the same type (1 is not True, nor 1.0)."""
    if type(value) not in _SCALARS or not isinstance(allowed, list):
        return False
    return any(type(option) is type(value) and option == value for option in allowed)


class _Walk:
    """One value's walk through a schema whose `$defs` are those of `root`."""

    def __init__(self, root: Mapping[str, Any] | bool) -> None:
        self.root = root
        defs = root.get("$defs") if isinstance(root, dict) else None
        self.defs: Mapping[str, Any] = defs if isinstance(defs, dict) else {}

    def check(self, value: Any, schema: Mapping[str, Any] | bool) -> None:
        if schema is True:
            return
        _require(isinstance(schema, dict) and type(value) in _JSON)
        assert isinstance(schema, dict)  # for the type checker: `_require` held
        for keyword, expected in schema.items():
            if keyword in ANNOTATIONS:
                continue
            if keyword in _LIMITS:
                kinds, holds = _LIMITS[keyword]
                _require(type(value) not in kinds or holds(value, expected))
            elif keyword == "enum":
                _require(_among(value, expected))
            elif keyword == "const":
                _require(_among(value, [expected]))
            else:
                self._structure(value, keyword, expected, schema)

    def _structure(
        self, value: Any, keyword: str, expected: Any, schema: Mapping[str, Any]
    ) -> None:
        if keyword == "type":
            names = [expected] if isinstance(expected, str) else expected
            _require(isinstance(names, list) and all(name in _TYPES for name in names))
            _require(any(type(value) in _TYPES[name] for name in names))
            _require(type(value) is not float or math.isfinite(value))
        elif keyword == "$ref":
            _require(isinstance(expected, str) and expected.startswith(_DEFS))
            name = expected[len(_DEFS) :]
            _require(name in self.defs and "/" not in name and "~" not in name)
            self.check(value, self.defs[name])
        elif keyword == "$id":  # a resource of its own below the root: `$ref`s differ
            _require(schema is self.root)
        elif keyword in ("if", "then", "else"):
            self._conditional(value, keyword, expected, schema)
        elif type(value) is dict:
            self._object(value, keyword, expected, schema)
        elif type(value) is list and keyword == "items":
            _require("prefixItems" not in schema)
            for item in value:
                self.check(item, expected)
        else:
            _require(keyword in _APPLY_ELSEWHERE)  # a keyword of objects or arrays only

    def _conditional(
        self, value: Any, keyword: str, expected: Any, schema: Mapping[str, Any]
    ) -> None:
        if keyword != "if":
            _require("if" in schema)  # checked with `if`; without one they do nothing
            return
        holds = self._holds(value, expected)  # every branch the value may take must accept it
        if holds is not False:
            self.check(value, schema.get("then", True))
        if holds is not True:
            self.check(value, schema.get("else", True))

    def _holds(self, value: Any, schema: Any) -> bool | None:
        """Whether `value` is valid against `schema`: None when not sure either way."""
        try:
            self.check(value, schema)
        except _Unsure:
            return False if _refuted(value, schema) else None
        return True

    def _object(
        self, value: dict[Any, Any], keyword: str, expected: Any, schema: Mapping[str, Any]
    ) -> None:
        if keyword == "properties":
            _require(isinstance(expected, dict))
            for key, sub in expected.items():
                if key in value:
                    self.check(value[key], sub)
        elif keyword == "additionalProperties":
            named = schema.get("properties", {})
            _require("patternProperties" not in schema and isinstance(named, dict))
            for key, item in value.items():
                if key not in named:
                    self.check(item, expected)
        elif keyword == "required":
            _require(isinstance(expected, list) and all(key in value for key in expected))
        else:
            _require(keyword == "items")  # an array's keyword: nothing to check in an object


def _refuted(value: Any, schema: Any) -> bool:
    """Whether `value` is sure to be invalid against `schema`: an object without a property
    `required` lists, or with one whose value is sure to be invalid against `properties`; a
    string unequal to a string `const`."""
    if not isinstance(schema, dict):
        return False
    if type(value) is str and type(schema.get("const")) is str:
        return bool(value != schema["const"])
    if type(value) is not dict:
        return False
    required, properties = schema.get("required", []), schema.get("properties", {})
    if isinstance(required, list) and any(key not in value for key in required):
        return True
    if not isinstance(properties, dict):
        return False
    return any(key in value and _refuted(value[key], sub) for key, sub in properties.items())


_DEFS = "#/$defs/"
# the structural keywords that apply to one kind of value and are known here
_APPLY_ELSEWHERE = frozenset({"properties", "additionalProperties", "required", "items"})
