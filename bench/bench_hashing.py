"""Streaming sha256 of a large file and of a git blob of the same size, against `sha256sum`.

Measures, best of --runs, each in a fresh process:
  file: planegate's `file_sha256` (repo/hashing.py) against the `sha256sum` command on the same
        file (the baseline); goal: planegate >= 0.9x sha256sum's throughput;
  blob: `GitRepo.sha256` (repo/git.py, the gate's path for protected files) against
        `git cat-file blob ID | sha256sum` on the same blob (the baseline: the same inflate).
planegate is timed around the call, in a child that has already imported it; the baselines
are timed as whole commands (their start-up is milliseconds). CPU time is user + system of
every process doing the work (git's `cat-file --batch` included on planegate's side). When
`openssl` is installed, `openssl dgst -sha256` on the file is printed as a second reference:
coreutils' sha256sum may not use the CPU's SHA instructions, OpenSSL (which Python's hashlib
calls) does. The planegate child's peak RSS is printed against its RSS before hashing: memory
must stay flat whatever the size. The file (default 1 GiB, `--size` in MiB) is a 1 MiB random
block repeated, written a block at a time to a temporary folder, so neither the bench nor the
baseline holds it in memory. The blob is committed with `core.compression=0`, which keeps the
setup cheap (deflating 1 GiB at git's default level takes minutes on a busy core); both sides
read the same stored object.
Usage: python bench/bench_hashing.py [--size MIB] [--runs N] [--no-git]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GOAL = 0.9  # planegate's throughput over sha256sum's
OPENSSL = "openssl dgst -sha256 -r big.bin"  # `-r`: sha256sum's output format
CHILD = """
import resource, sys, time
from pathlib import Path
mode, target = sys.argv[1], sys.argv[2]
if mode == "file":
    from planegate.repo.hashing import file_sha256
    hash_it = lambda: file_sha256(Path(target))
else:
    from planegate.repo.git import GitRepo
    repo = GitRepo(Path(target))
    head = repo.resolve("HEAD")
    repo.files(head)  # the commit's index, built once per gate: not the hashing
    hash_it = lambda: repo.sha256(head, "big.bin")
def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
wall, cpu, git_cpu = time.perf_counter(), time.process_time(), children()
digest = hash_it()
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if mode != "file":  # end git's `cat-file --batch` so its CPU time is counted too
    repo._repo.close()
    import gc; gc.collect()
    cpu += children() - git_cpu
print(wall, cpu, before, peak, digest)
"""


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds
    cpu: float  # user + system seconds of every process doing the work
    digest: str
    rss_before: int = 0  # KiB, planegate's child only
    rss_peak: int = 0


def write_file(path: Path, mib: int) -> None:
    """`mib` MiB of a repeated 1 MiB random block, written a block at a time."""
    block = os.urandom(1 << 20)
    with path.open("wb") as stream:
        for _ in range(mib):
            stream.write(block)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_baseline(command: str, cwd: Path) -> Timing:
    """A shell pipeline ending in sha256sum: wall time and the CPU of every process in it."""
    cpu, wall = _children_cpu(), time.perf_counter()
    out = subprocess.run(
        ["sh", "-c", command], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout
    return Timing(time.perf_counter() - wall, _children_cpu() - cpu, out.split()[0])


def run_planegate(mode: str, target: Path) -> Timing:
    """planegate's hashing in a fresh interpreter, timed around the call only (no start-up)."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(target)], capture_output=True, text=True, check=True
    ).stdout.split()
    return Timing(float(out[0]), float(out[1]), out[4], int(out[2]), int(out[3]))


def best(timings: list[Timing]) -> Timing:
    return min(timings, key=lambda timing: timing.wall)


def ratio(baseline: Timing, measured: Timing) -> float:
    """Throughput of `measured` over that of `baseline` (same bytes: time inverted)."""
    return baseline.wall / measured.wall


def make_repository(folder: Path, data: Path) -> tuple[Path, str, float]:
    """A repository whose one commit holds `data` as big.bin: (root, blob id, setup seconds)."""
    root = folder / "repo"
    started = time.perf_counter()
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    git += ["-c", "core.compression=0", "-c", "core.looseCompression=0"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    os.link(data, root / "big.bin")
    for args in (["add", "big.bin"], ["commit", "-qm", "big"]):
        subprocess.run([*git, *args], cwd=root, check=True)
    blob = subprocess.run(
        ["git", "rev-parse", "HEAD:big.bin"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    return root, blob, time.perf_counter() - started


def compare(label: str, runs: int, baseline: str, target: Path, mib: int) -> bool:
    """Baseline (a shell command run in `target`'s folder) against planegate on `target` (a
    file, or a repository whose HEAD holds big.bin): prints both; True if within the goal."""
    mode = "git" if target.is_dir() else "file"
    cwd = target if target.is_dir() else target.parent
    base_runs: list[Timing] = []
    ours_runs: list[Timing] = []
    for _ in range(runs):  # alternating, so the machine's load falls on both
        base_runs.append(run_baseline(baseline, cwd))
        ours_runs.append(run_planegate(mode, target))
    base, ours = best(base_runs), best(ours_runs)
    if {t.digest for t in base_runs + ours_runs} != {base.digest}:
        raise SystemExit(f"{label}: the digests differ")
    print(
        f"{label}: `{baseline}` best {base.wall:.2f} s "
        f"({mib / base.wall:.0f} MiB/s, CPU {base.cpu:.2f} s); planegate best {ours.wall:.2f} s "
        f"({mib / ours.wall:.0f} MiB/s, CPU {ours.cpu:.2f} s); "
        f"peak RSS {ours.rss_peak / 1024:.0f} MiB (before hashing {ours.rss_before / 1024:.0f} MiB)"
    )
    cpu_ratio = base.cpu / ours.cpu if ours.cpu else float("inf")
    ok = ratio(base, ours) >= GOAL
    print(
        f"{label}: throughput planegate/baseline {ratio(base, ours):.2f}x wall, "
        f"{cpu_ratio:.2f}x CPU; goal >= {GOAL}x -> {'within' if ok else 'UNDER'}"
    )
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="MiB (default 1024: 1 GiB)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-git", action="store_true", help="skip the git blob comparison")
    args = parser.parse_args(argv)
    if shutil.which("sha256sum") is None:
        print("sha256sum is not installed: nothing to compare with", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        data = folder / "big.bin"
        write_file(data, args.size)
        print(f"{args.size} MiB file, best of {args.runs}")
        ok = compare("file", args.runs, "sha256sum big.bin", data, args.size)
        if shutil.which("openssl"):
            reference = best([run_baseline(OPENSSL, folder) for _ in range(args.runs)])
            print(
                f"file: reference `{OPENSSL}` best {reference.wall:.2f} s "
                f"({args.size / reference.wall:.0f} MiB/s, CPU {reference.cpu:.2f} s)"
            )
        if not args.no_git:
            root, blob, setup = make_repository(folder, data)
            print(f"blob: git add + commit of the file took {setup:.1f} s")
            ok &= compare(
                "blob", args.runs, f"git cat-file blob {blob} | sha256sum", root, args.size
            )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
