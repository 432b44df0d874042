"""`accept.surely_valid` never vouches for a value jsonschema refuses, on every schema
planegate validates against: values drawn from the schema itself (valid, or with a wrong
value, a missing or an extra key here and there)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from planegate.config import load as config_load
from planegate.schemas import accept

SCHEMAS = {
    "planegate.yml": config_load.schema(),
    **{
        name: json.loads(
            resources.files("planegate.schemas").joinpath(f"{name}.schema.json").read_text()
        )
        for name in ("digest", "digest-summary", "manifest", "report", "shard", "sweep", "verify")
    },
}

VALIDATORS = {name: jsonschema.Draft202012Validator(schema) for name, schema in SCHEMAS.items()}
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, -1, 1.0, 0.5, 2**40, float("nan"), float("inf"), "", "junit"]),
    st.integers(),
    st.floats(),
    st.text(max_size=6),
)
NOISE = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def drawn(
    schema: Any, root: dict[str, Any], depth: int = 0, noisy: bool = True
) -> st.SearchStrategy[Any]:
    """Values shaped by `schema`; when `noisy`, now and then wrong (NOISE in place of a value,
    a key too many or missing)."""
    if depth > 6 or not isinstance(schema, dict):
        return NOISE
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return drawn(root["$defs"][ref.removeprefix("#/$defs/")], root, depth + 1, noisy)
    shaped = _shaped(schema, root, depth, noisy)
    return st.one_of(*[shaped] * 7, NOISE) if noisy else shaped  # now and then any value


def _shaped(
    schema: dict[str, Any], root: dict[str, Any], depth: int, noisy: bool
) -> st.SearchStrategy[Any]:
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "object" or "properties" in schema:
        return _object(schema, root, depth, noisy)
    if kind == "array":
        items = st.lists(drawn(schema.get("items", True), root, depth + 1, noisy), max_size=3)
        return items.filter(lambda v: len(v) >= schema.get("minItems", 0))
    if kind == "string":
        pattern, least = schema.get("pattern"), schema.get("minLength", 0)
        text = st.from_regex(pattern, fullmatch=False) if pattern else st.text(max_size=10)
        text = text.filter(lambda v: len(v) >= least)
        return st.one_of(text, st.text(max_size=3)) if noisy else text
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -5))
        high = schema.get("maximum", 2**33)
        numbers = st.integers(int(low), int(high))
        return numbers | st.floats(low, high) if kind == "number" else numbers
    if kind == "boolean":
        return st.booleans()
    return NOISE


def _object(
    schema: dict[str, Any], root: dict[str, Any], depth: int, noisy: bool
) -> st.SearchStrategy[Any]:
    props = schema.get("properties", {})
    required = [key for key in schema.get("required", []) if key in props]
    extra = schema.get("additionalProperties", True)
    fixed = st.fixed_dictionaries(
        {key: drawn(props[key], root, depth + 1, noisy) for key in required},
        optional={
            k: drawn(v, root, depth + 1, noisy) for k, v in props.items() if k not in required
        },
    )
    keys = st.text(max_size=5).filter(lambda key: key not in props)
    more = st.dictionaries(
        keys, NOISE if extra is False else drawn(extra, root, depth + 1, noisy), max_size=2
    )
    mistakes = st.builds(_combined, fixed, more, st.sampled_from([None, *required]))
    if not noisy:
        return fixed if extra is False else st.builds(_combined, fixed, more, st.just(None))
    if extra is False:
        return st.one_of(*[fixed] * 5, mistakes)
    return st.one_of(*[fixed] * 2, st.builds(_combined, fixed, more, st.just(None)), mistakes)


def _combined(fixed: dict[str, Any], more: dict[str, Any], dropped: str | None) -> dict[str, Any]:
    """An object with more keys than the schema names, maybe without one it requires."""
    value = {**more, **fixed}
    if dropped is not None:
        del value[dropped]
    return value


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_value_it_vouches_for_is_one_jsonschema_accepts(name: str, data: st.DataObject) -> None:
    schema = SCHEMAS[name]
    value = data.draw(drawn(schema, schema, noisy=data.draw(st.booleans())))
    if accept.surely_valid(value, schema):
        event("vouched for")
        errors = list(VALIDATORS[name].iter_errors(value))
        assert errors == [], (value, [e.message for e in errors])
