"""`--format json` for the verbs a person runs beside the gate (verify, lint, ledger check,
digest, explain): one JSON object on stdout, checked against its schema before it is printed
(`schemas/<verb>.schema.json` documents each shape; each is one of `wire.OUTPUTS`)."""

from __future__ import annotations

import argparse
from typing import Any

from planegate.errors import InternalError


def wanted(args: argparse.Namespace) -> bool:
    return getattr(args, "format", "text") == "json"


def emit(schema: str, payload: dict[str, Any]) -> None:
    """Print `payload` as the output `schema` names; one that breaks its own schema is
    planegate's bug (exit 70). The codec is imported here, not at start-up."""
    from planegate import schemas, wire

    output = next(f for f in wire.OUTPUTS if f.schema == schema)
    problem = schemas.problem(payload, output.schema)
    if problem is not None:
        raise InternalError(f"the {output.schema} output breaks its schema: {problem}")
    print(output.dump(payload), end="")
