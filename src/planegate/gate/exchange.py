"""The run phase's results as data (`run.json`), read back by the judge phase.

The run phase executes project code, so the judge treats this file as untrusted input: it
checks its shape and its commits, and recomputes everything git can tell it by itself. The
run phase's planegate process writes it (`write_file`: a temporary file renamed into place,
no symlink followed); in the action nothing else can write the folder (docs/security.md).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from planegate import loading, wire
from planegate.errors import InputDataError, ServiceUnavailable
from planegate.probes.answers import wire as answers_wire
from planegate.probes.answers.wire import AnswerProbes
from planegate.runner import session, traced
from planegate.runner.rerun import Rerun
from planegate.signs import wire as signs_wire
from planegate.steps.run_facts import Execution
from planegate.wire import codec

SCHEMA = wire.RUN.name
FILE_NAME = "run.json"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def to_json(execution: Execution) -> str:
    return wire.RUN.dump(to_value(execution))


def to_value(execution: Execution) -> dict[str, Any]:
    """The execution as a JSON value (also a shard's evidence holds it)."""
    return {"schema": SCHEMA, **codec.encode(execution)}


def write(folder: Path, execution: Execution) -> Path:
    return write_file(folder, FILE_NAME, to_json(execution))


def write_file(folder: Path, name: str, text: str) -> Path:
    """`text` as `folder/name`, atomically: a new file of a random name in the folder, then
    renamed over `name`. Neither step follows a symlink: one planted at `name` is replaced,
    never written through, and a folder that is itself a symlink is refused."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
    except OSError as error:
        raise ServiceUnavailable(f"{folder}: cannot write there: {error.strerror}") from None
    temp = f".{name}.{secrets.token_hex(8)}"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(text.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
    except OSError as error:
        raise ServiceUnavailable(f"{folder / name}: cannot be written: {error.strerror}") from None
    finally:
        os.close(dir_fd)
    return folder / name


def read(folder: Path, vouched: Mapping[str, list[str]] | None = None) -> Execution:
    """The run phase's execution; the base inventory main's digest vouches for (`vouched`)
    replaces the one the file says: the file was written after project code ran."""
    path = folder / FILE_NAME
    try:
        if path.stat().st_size > loading.RUN.max_bytes:
            raise InputDataError(f"{path}: larger than {loading.RUN.max_bytes} bytes")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputDataError(
            f"{path}: missing: the run phase left no results", "see the run step's log"
        ) from None
    except OSError as error:
        raise InputDataError(f"{path}: cannot be read: {error.strerror}") from None
    execution = from_json(data, str(path))
    return execution if vouched is None else replace(execution, base_inventory=vouched)


def from_json(text: str | bytes, source: str) -> Execution:
    # checked as the values are converted (wire.RUN: its schema documents the shape)
    return from_value(wire.RUN.load(text, source), source)


def from_value(data: Any, source: str) -> Execution:
    """An execution from a JSON value already loaded (with limits) from `source`."""
    try:
        return _execution(data)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        message = f"{source}: not a {SCHEMA} file ({type(error).__name__}: {error})"
        raise InputDataError(message) from None


# keys an older run.json may lack (or hold null for): each reads as its field's default, which
# excuses nothing (no base session, no probes); every other key must be there
OPTIONAL: codec.Optional = {
    Execution: frozenset({"on_base", "timings", "answers", "mains_signs"}),
    session.RunResult: frozenset({"extra", "opened"}),
    Rerun: frozenset({"refused"}),
    traced.Reads: frozenset({"launches", "via"}),
    **signs_wire.OPTIONAL,
}


def _execution(data: Any) -> Execution:
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"schema is not {SCHEMA!r}")
    hooks: codec.Hooks = {AnswerProbes: answers_wire.from_dict, Mapping[str, Any]: _extra}
    return codec.decode(Execution, data, hooks=hooks, optional=OPTIONAL)


def _extra(value: Any) -> dict[str, Any]:
    """The child's extra records by kind (imports, repeat): objects, checked for shape only."""
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise TypeError("expected an object of objects")
    return {str(kind): dict(record) for kind, record in value.items()}
