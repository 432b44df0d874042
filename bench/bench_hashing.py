"""Streaming sha256 of a large file: time and peak memory against reading it whole."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

SIZE_MB = 256
CHILD = """
import hashlib, resource, sys, time
from pathlib import Path
path, mode = Path(sys.argv[1]), sys.argv[2]
start = time.perf_counter()
if mode == "stream":
    from planegate.repo.hashing import file_sha256
    digest = file_sha256(path)
else:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, digest)
"""


def measure(path: Path, mode: str) -> tuple[float, int, str]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), mode], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), int(out[1]), out[2]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.bin"
        block = hashlib.sha256(b"planegate").digest() * 32768  # 1 MiB
        with path.open("wb") as stream:
            for _ in range(SIZE_MB):
                stream.write(block)
        whole_time, whole_rss, whole = measure(path, "whole")
        stream_time, stream_rss, streamed = measure(path, "stream")
    assert whole == streamed
    print(
        f"{SIZE_MB} MiB file: streaming {stream_time:.2f} s, {stream_rss / 1024:.0f} MiB peak; "
        f"read-whole {whole_time:.2f} s, {whole_rss / 1024:.0f} MiB peak"
    )
    print(
        f"time ratio stream/whole: {stream_time / whole_time:.2f}x; "
        f"memory ratio: {stream_rss / whole_rss:.2f}x"
    )


if __name__ == "__main__":
    main()
