"""sha256 of files and byte streams, in constant memory whatever their size."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import BinaryIO

CHUNK = 1 << 16


def stream_sha256(stream: BinaryIO) -> str:
    digest = hashlib.sha256()
    while chunk := stream.read(CHUNK):
        digest.update(chunk)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    with path.open("rb") as stream:
        return stream_sha256(stream)


def bytes_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
