"""GitHub REST requests per gate: `planegate action` end to end against a fake GitHub server.

Counts, by endpoint, the HTTP requests one `planegate action` run makes on a pull request of
the demo repository (`planegate demo`'s shop, src/planegate/demo/), with main's digest
published as the `planegate-digest` artifact, for three patches:
  honest-fix: passes (one check run, one sticky comment);
  added-skip: fails with a handful of findings (annotations in the check run's first request);
  many-files: fails with well over 50 findings (an agent's patch adding 120 test files to the
              fixture plane, each with a skipped test), so the annotations go 50 a request;
              then the same pull request is gated again, as after a re-run: the sticky
              comment is found and edited, not posted twice.
The server is the one the test suite uses (tests/helpers/fake_github.py, on 127.0.0.1: no
network); this script imports it and the demo helpers (tests/helpers/github_support.py) by
putting tests/ on sys.path, and checks every request against GitHub's OpenAPI description
as the tests do. The baseline is the fewest requests a gate can make: one to create its
check run; the goal: the check run takes one request per 50 annotations, at least one (DESIGN
§6), and the rest of the traffic does not grow with the findings.
Usage: python bench/bench_github.py
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers.fake_github import FakeGitHub, running
from helpers.github_support import action_env, demo_shop
from planegate.cli import main as planegate_main
from planegate.gate.digest_check import build_digest
from planegate.github.check_runs import PER_REQUEST
from planegate.repo import digest_format
from planegate.repo import git as gitrepo

MANY = 120  # test files the failing patch adds


def endpoint(method: str, path: str) -> str:
    """`PATCH /repos/{owner}/{repo}/check-runs/{id}` for a request's method and path."""
    path = re.sub(r"^/repos/[^/]+/[^/]+", "/repos/{owner}/{repo}", path)
    path = re.sub(r"/[0-9a-f]{40}(?=/|$)", "/{sha}", path)
    path = re.sub(r"/\d+(?=/|$)", "/{id}", path)
    return f"{method} {path}"


def many_files_patch(root: Path) -> str:
    """An agent's patch adding MANY fixture-plane test files, each with a skipped test."""
    repo = gitrepo.GitRepo(root)
    gitrepo.checkout(repo, "main")
    gitrepo.checkout(repo, "many-files", create=True)
    for index in range(MANY):
        (root / f"tests/fixture/test_added_{index:03d}.py").write_text(
            "import pytest\n\n\n@pytest.mark.skip(reason='later')\n"
            f"def test_added_{index}():\n    assert {index} == {index}\n"
        )
    sha = gitrepo.commit_all(repo, "adds skipped tests")
    gitrepo.checkout(repo, "main")
    return sha


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """Exactly `env`'s INPUT_* and GITHUB_* variables for the duration, then the old ones."""
    saved = dict(os.environ)
    for key in [k for k in os.environ if k.startswith(("INPUT_", "GITHUB_"))]:
        del os.environ[key]
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def gate_pull(gh: FakeGitHub, tmp: Path, root: Path, head: str, base: str) -> tuple[int, float]:
    """One `planegate action -q` on pull request 1 (head onto base): (exit code, seconds)."""
    gh.add_pull(1, head_sha=head, base_sha=base, author="coder[bot]")
    env = action_env(tmp, gh.api_url, gh.event_payload(1), working_directory=str(root))
    env["GITHUB_SHA"] = head
    started = time.perf_counter()
    with environment(env), contextlib.redirect_stdout(sys.stderr):
        code = planegate_main(["action", "-q"])
    return code, time.perf_counter() - started


def report(name: str, gh: FakeGitHub, since: tuple[int, int], code: int, seconds: float) -> bool:
    """Print the requests the server received after `since` (log and storage positions);
    True if the check run took one request per 50 annotations (at least one)."""
    entries, blobs = gh.log[since[0] :], gh.blob_requests[since[1] :]
    counts = Counter(endpoint(entry.method, entry.path) for entry in entries)
    sent = [
        annotation["title"].split(" ", 1)[0]
        for entry in entries
        if "/check-runs" in entry.path
        for annotation in (entry.json() or {}).get("output", {}).get("annotations", [])
    ]
    rules = ", ".join(f"{rule} {n}" for rule, n in sorted(Counter(sent).items()))
    print(
        f"{name}: exit {code}, {len(sent)} annotations{f' ({rules})' if rules else ''}, "
        f"{len(entries) + len(blobs)} requests ({seconds:.1f} s)"
    )
    for key, count in sorted(counts.items()):
        print(f"  {count:>3}  {key}")
    if blobs:
        print(f"  {len(blobs):>3}  GET (artifact storage) the digest zip after the 302")
    check_requests = sum(n for key, n in counts.items() if "/check-runs" in key)
    expected = max(1, math.ceil(len(sent) / PER_REQUEST))
    print(
        f"  check run: {check_requests} requests for {len(sent)} annotations "
        f"(goal: ceil({len(sent)}/{PER_REQUEST}) = {expected}; baseline: 1 request a gate)"
    )
    return check_requests == expected


def main() -> int:
    ok = True
    with tempfile.TemporaryDirectory(prefix="planegate-bench-") as scratch:
        root = Path(scratch) / "shop"
        shas = demo_shop(root, ("honest-fix", "added-skip"))
        shas["many-files"] = many_files_patch(root)
        digest = digest_format.to_json(build_digest(gitrepo.GitRepo(root), shas["main"], None))
        runs = [("honest-fix", 1), ("added-skip", 1), ("many-files", 2)]
        for index, (name, times) in enumerate(runs):
            with running() as gh:
                gh.add_artifact(head_sha=shas["main"], payload=digest.encode())
                for attempt in range(times):
                    tmp = Path(scratch) / f"run-{index}-{attempt}"
                    tmp.mkdir()
                    since = len(gh.log), len(gh.blob_requests)
                    code, seconds = gate_pull(gh, tmp, root, shas[name], shas["main"])
                    label = name if attempt == 0 else f"{name}, run again (a new check run, "
                    label += "" if attempt == 0 else "the sticky comment edited in place)"
                    ok &= report(label, gh, since, code, seconds)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
