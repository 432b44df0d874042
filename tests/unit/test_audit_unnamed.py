"""Which opens the child's audit hook takes without resolving their path (`audit._unnamed`):
only an `O_TMPFILE` open (the whole flag: `O_TMPFILE` includes `O_DIRECTORY`, which alone
opens an existing folder) and TemporaryFile's own `io.open`, told by its frame."""

from __future__ import annotations

import io
import os
import tempfile
from types import SimpleNamespace
from typing import Any

from planegate.runner.child import audit


def state(frame: Any = None) -> SimpleNamespace:
    def getframe(_depth: int) -> Any:
        if frame is None:
            raise ValueError("call stack is not deep enough")
        return frame

    temporary = (tempfile.TemporaryFile.__code__, vars(tempfile), io, vars(io), io.open)
    return SimpleNamespace(getframe=getframe, temporary=temporary)


def frame_of(code: Any, namespace: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(f_code=code, f_globals=namespace)


def test_only_the_whole_tmpfile_flag_makes_an_open_unnamed() -> None:
    assert audit._unnamed(state(), os.O_TMPFILE | os.O_RDWR)
    assert audit._unnamed(state(), os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC)
    assert not audit._unnamed(state(), os.O_DIRECTORY | os.O_RDONLY)
    assert not audit._unnamed(state(), os.O_RDONLY)
    assert not audit._unnamed(state(), None)
    assert not audit._unnamed(state(), "r")


def test_temporaryfiles_own_open_is_told_by_its_code_and_globals() -> None:
    code, namespace = tempfile.TemporaryFile.__code__, vars(tempfile)
    flags = os.O_RDWR | os.O_CREAT | os.O_TRUNC
    assert audit._unnamed(state(frame_of(code, namespace)), flags)
    # the same code run with other globals, or another function in tempfile's
    assert not audit._unnamed(state(frame_of(code, dict(namespace))), flags)
    assert not audit._unnamed(state(frame_of(tempfile.mkstemp.__code__, namespace)), flags)


def test_a_replaced_io_or_open_is_no_temporaryfile(monkeypatch: Any) -> None:
    s = state(frame_of(tempfile.TemporaryFile.__code__, vars(tempfile)))  # found at install
    flags = os.O_RDWR | os.O_CREAT | os.O_TRUNC
    monkeypatch.setattr(tempfile, "_io", SimpleNamespace(open=io.open))
    assert not audit._unnamed(s, flags)
    monkeypatch.undo()
    monkeypatch.setattr(io, "open", lambda *_args, **_kwargs: None)
    assert not audit._unnamed(s, flags)
    monkeypatch.undo()
    assert audit._unnamed(s, flags)
