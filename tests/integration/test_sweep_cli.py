"""sweep, thaw and triage through the CLI on real repositories."""

from __future__ import annotations

import contextlib
import io
import json
import random
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main
from planegate.freeze import sweep as core
from planegate.freeze.child.sweep_probes import test_seed
from planegate.freeze.parse import parse
from planegate.freeze.write import evidence_hash

ORDER = "tests/fix/test_order.py::test_b_needs_a"
COIN = "tests/fix/test_coin.py::test_coin"
BROKEN = "tests/fix/test_broken.py::test_broken"

CONFIG = """\
version: 1
owner: "@org/plane-map"
planes:
  property:
    owner: "@org/props"
    paths: ["tests/prop/"]
  fixture:
    owner: "@org/goldens"
    paths: ["tests/fix/"]
  freeze:
    owner: "@org/flakes"
    max_fraction: 0.5
pytest:
  plugins: []
sandbox:
  network: true  # the flaky tests reach a server of the test's own on the host's loopback
"""

NET_TEST = """\
import socket

PORT = {port}


def test_server_answers():
    with socket.create_connection(("127.0.0.1", PORT), timeout=5) as conn:
        conn.sendall(b"ping")
        assert conn.recv(16) == b"pong"
"""


class EveryOtherServer:
    """A local TCP server answering only odd-numbered connections (1st, 3rd, ...)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                if self.connections % 2 == 1:
                    conn.recv(16)
                    conn.sendall(b"pong")

    def close(self) -> None:
        self.sock.close()


def coin_fails(run_seed: int) -> bool:
    return not random.Random(test_seed(run_seed, COIN)).random() < 0.5


def flapping_seed() -> int:
    """A sweep seed under which the coin test fails in some of the three runs but not all."""
    for seed in range(1000):
        seeds = [core.plan_sweep(3, seed, 0)[i].rng_seed for i in range(3)]
        outcomes = {coin_fails(s) for s in seeds}
        if len(outcomes) == 2:
            return seed
    raise AssertionError("no flapping seed below 1000")


def flaky_files(port: int) -> dict[str, str | bytes]:
    return {
        "planegate.yml": CONFIG,
        "pytest.ini": "[pytest]\ntestpaths = tests\n",
        "tests/fix/test_order.py": (
            "STATE = []\n\n\ndef test_a_sets_up():\n    STATE.append(1)\n\n\n"
            "def test_b_needs_a():\n    assert STATE, 'needs test_a_sets_up to run first'\n"
        ),
        "tests/fix/test_coin.py": (
            "import random\n\n\ndef test_coin():\n    assert random.random() < 0.5\n"
        ),
        "tests/fix/test_net.py": NET_TEST.format(port=port),
        "tests/fix/test_broken.py": "def test_broken():\n    assert 1 == 2\n",
        "tests/fix/test_stable.py": "def test_stable():\n    assert sum([1, 2]) == 3\n",
    }


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@dataclass(frozen=True)
class Swept:
    repo: TestRepo
    seed: int
    code: int
    out: str
    err: str
    server: EveryOtherServer

    def proposals(self) -> dict[str, dict[str, Any]]:
        path = self.repo.root / ".planegate" / "proposals.jsonl"
        lines = path.read_text().splitlines()
        return {obj["nodeid"]: obj for obj in map(json.loads, lines)}


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Swept]:
    server = EveryOtherServer()
    repo = TestRepo(tmp_path_factory.mktemp("sweep") / "flaky")
    repo.commit("a suite with flaky tests", flaky_files(server.port))
    seed = flapping_seed()
    code, out, err = run_cli("-C", str(repo.root), "sweep", "--seed", str(seed), "--write")
    yield Swept(repo, seed, code, out, err, server)
    server.close()


def copy_of(swept: Swept, tmp_path: Path) -> TestRepo:
    target = tmp_path / "copy"
    shutil.copytree(swept.repo.root, target)
    copy = TestRepo.__new__(TestRepo)
    copy.root = target
    return copy


# --------------------------------------------------------------------------- thaw and freeze


def test_thaw_of_a_still_flaky_test_appends_a_renew(swept: Swept, tmp_path: Path) -> None:
    repo = copy_of(swept, tmp_path)
    code, out, _ = run_cli("-C", str(repo.root), "thaw", ORDER, "--seed", "1", "-q")
    assert code == 0
    assert "failed on run 1: renewed" in out
    last = json.loads((repo.root / "freeze_ledger.jsonl").read_text().splitlines()[-1])
    assert last["event"] == "renew"
    assert last["nodeid"] == ORDER
    assert (last["runs"], last["failures"]) == (1, 1)
    assert "needs test_a_sets_up" in last["failure_signature"]
    assert (repo.root / ".planegate" / "evidence" / f"{last['evidence_hash']}.json").is_file()
    assert run_cli("-C", str(repo.root), "ledger", "check")[0] == 0


def test_thaw_of_a_now_stable_test_appends_a_thaw(swept: Swept, tmp_path: Path) -> None:
    repo = copy_of(swept, tmp_path)
    repo.commit(
        "the order test sets up its own state",
        {
            "tests/fix/test_order.py": "def test_a_sets_up():\n    pass\n\n\n"
            "def test_b_needs_a():\n    assert [1]\n"
        },
    )
    code, out, _ = run_cli("-C", str(repo.root), "thaw", ORDER, "--seed", "2", "-q")
    assert code == 0
    assert "passed 20 runs: thawed" in out
    text = (repo.root / "freeze_ledger.jsonl").read_text()
    last = json.loads(text.splitlines()[-1])
    assert last["event"] == "thaw"
    assert (last["runs"], last["failures"], last["mode"]) == (20, 0, "reverse")
    bundle = json.loads(
        (repo.root / ".planegate" / "evidence" / f"{last['evidence_hash']}.json").read_text()
    )
    assert len(bundle["attempts"]) == 20
    assert all(a["order"][-1] == ORDER for a in bundle["attempts"])
    assert ORDER not in parse(text, "freeze_ledger.jsonl").state()
    assert run_cli("-C", str(repo.root), "ledger", "check")[0] == 0


def test_thaw_of_a_test_that_is_not_frozen_is_usage(swept: Swept) -> None:
    code, _, err = run_cli("-C", str(swept.repo.root), "thaw", BROKEN, "-q")
    assert code == 64
    assert f"{BROKEN} is not frozen" in err


# --------------------------------------------------------------------------- triage


def test_triage_labels_regression_flaky_and_already_failing(tmp_path: Path) -> None:
    from planegate.config.from_git import load_config
    from planegate.freeze.triage import triage
    from planegate.repo.git import GitRepo

    server = EveryOtherServer()
    repo = TestRepo(tmp_path / "triage")
    base = repo.commit(
        "base",
        {
            "planegate.yml": CONFIG,
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "calc/__init__.py": "",
            "calc/core.py": (
                "def add(a, b):\n    return a + b\n\n\ndef ping():\n    return 'pong'\n"
            ),
            "tests/fix/test_calc.py": (
                "from calc.core import add, ping\n\n\n"
                "def test_add():\n    assert add(2, 2) == 4\n\n\n"
                "def test_ping():\n    assert ping() == 'pong'\n\n\n"
                "def test_old_bug():\n    assert add(1, 1) == 3\n"
            ),
        },
    )
    head_code = (
        "import socket\n\n\ndef add(a, b):\n    return a - b\n\n\ndef ping():\n"
        f"    with socket.create_connection(('127.0.0.1', {server.port}), timeout=5) as c:\n"
        "        c.sendall(b'ping')\n        return c.recv(16).decode()\n"
    )
    head = repo.commit(
        "patch",
        {
            "calc/core.py": head_code,
            "tests/fix/test_new.py": "def test_new():\n    assert False\n",
        },
    )
    git = GitRepo(repo.root)
    cfg = load_config(git, base, None, set(git.files(base)))
    ids = {
        name: f"tests/fix/test_calc.py::{name}"
        for name in ("test_add", "test_ping", "test_old_bug")
    }
    new = "tests/fix/test_new.py::test_new"
    try:
        result = triage(git, base, head, [*ids.values(), new], cfg)
    finally:
        server.close()
    assert result[ids["test_add"]].label == "regression"
    assert (result[ids["test_add"]].head_failures, result[ids["test_add"]].base_failures) == (3, 0)
    assert result[ids["test_ping"]].label == "flaky under the patch"
    assert result[ids["test_ping"]].head_failures == 1  # the server answers every other request
    assert result[ids["test_old_bug"]].label == "already failing on base"
    assert result[new].label == "regression"  # not on the base: judged by head alone
    repro = result[ids["test_add"]].repro
    assert repro.startswith(f"git checkout {head[:12]} && python -m pytest ")
    assert repro.endswith(ids["test_add"])


def test_many_tests_newly_failing_in_one_run_freeze_nothing(tmp_path: Path) -> None:
    victims = "".join(f"\n\ndef test_v{i}():\n    assert STATE\n" for i in range(6))
    repo = TestRepo(tmp_path / "trouble")
    repo.commit(
        "six tests that need the first",
        {
            "planegate.yml": CONFIG,
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "tests/fix/test_state.py": "STATE = []\n\n\ndef test_a():\n    STATE.append(1)\n"
            + victims,
        },
    )
    code, out, _ = run_cli("-C", str(repo.root), "sweep", "--runs", "2", "--seed", "5", "-q")
    assert code == 69
    assert "environment trouble, nothing proposed: run 2 (reverse): 6 tests newly failing" in out
    assert not (repo.root / ".planegate" / "proposals.jsonl").exists()
    assert not (repo.root / "freeze_ledger.jsonl").exists()


NET = "tests/fix/test_net.py::test_server_answers"


# --------------------------------------------------------------------------- acceptance


def test_sweep_proposes_the_three_flakes_with_their_classes(swept: Swept) -> None:
    proposals = swept.proposals()
    assert sorted(proposals) == sorted([ORDER, COIN, NET])
    assert proposals[ORDER]["flake_class"] == "order"
    assert proposals[COIN]["flake_class"] == "rng"
    assert proposals[NET]["flake_class"] == "network"
    for obj in proposals.values():
        assert 0.5 <= float(obj["class_confidence"]) <= 1
        assert obj["owner"] == "@org/flakes"
        assert obj["runs"] == 3
        assert 1 <= int(obj["failures"]) <= 2
    assert proposals[ORDER]["mode"] == "reverse"
    assert proposals[NET]["mode"] == "reverse"  # the server refuses every second connection
    assert proposals[NET]["failures"] == 1


def test_sweep_reports_the_always_failing_test_as_base_broken(swept: Swept) -> None:
    assert swept.code == 6
    assert f"base broken: {BROKEN} failed every run, and alone" in swept.out
    assert BROKEN not in swept.proposals()
    assert "the base is broken" in swept.err


def test_sweep_shows_progress_per_run_on_stderr(swept: Swept) -> None:
    for index, mode in enumerate(("scoring", "reverse", "shuffle"), start=1):
        assert f"run {index}/3 ({mode}): " in swept.err
    assert f"seed {swept.seed}" in swept.out


def test_evidence_bundles_hash_to_the_ledger_evidence_hash(swept: Swept) -> None:
    for nodeid, obj in swept.proposals().items():
        path = swept.repo.root / ".planegate" / "evidence" / f"{obj['evidence_hash']}.json"
        data = path.read_bytes()
        assert evidence_hash(data) == obj["evidence_hash"]
        bundle = json.loads(data)
        assert bundle["nodeid"] == nodeid
        assert [a["mode"] for a in bundle["attempts"]] == ["scoring", "reverse", "shuffle"]
        failing = [a for a in bundle["attempts"] if a["outcome"] == "failed"]
        assert len(failing) == obj["failures"]
        assert all(a["message"] for a in failing)
        assert all(nodeid in a["order"] for a in bundle["attempts"])
        assert bundle["probes"][0]["probe"] == "network"


def test_written_ledger_passes_ledger_check(swept: Swept) -> None:
    code, out, _ = run_cli("-C", str(swept.repo.root), "ledger", "check")
    assert code == 0
    assert "3 events, 3 frozen" in out
    text = (swept.repo.root / "freeze_ledger.jsonl").read_text()
    parsed = parse(text, "freeze_ledger.jsonl")
    assert parsed.ok
    assert set(parsed.state()) == {ORDER, COIN, NET}


def test_network_probe_never_reached_the_server(swept: Swept) -> None:
    replays = 0
    for obj in swept.proposals().values():
        path = swept.repo.root / ".planegate" / "evidence" / f"{obj['evidence_hash']}.json"
        for probe in json.loads(path.read_text())["probes"]:
            replays += NET in probe.get("order", [])
    blocked = json.loads(
        (
            swept.repo.root
            / ".planegate"
            / "evidence"
            / f"{swept.proposals()[NET]['evidence_hash']}.json"
        ).read_text()
    )["probes"][0]
    assert blocked["probe"] == "network"
    assert blocked["addresses"] == [repr(("127.0.0.1", swept.server.port))]
    # one connection per sweep run and per replay that ran it; none from the blocked probe
    assert swept.server.connections == 3 + replays


def test_freeze_command_appends_from_an_evidence_bundle(swept: Swept, tmp_path: Path) -> None:
    repo = copy_of(swept, tmp_path)
    (repo.root / "freeze_ledger.jsonl").unlink()
    evidence = swept.proposals()[COIN]["evidence_hash"]
    path = f".planegate/evidence/{evidence}.json"
    argv = ["-C", str(repo.root), "freeze", COIN, "--owner", "@org/dice", "--note", "seeded"]
    code, out, _ = run_cli(*argv, "--class", "rng", "--evidence", path, "--review-by", "2999-01-01")
    assert code == 0
    assert "froze tests/fix/test_coin.py::test_coin (rng, owner @org/dice)" in out
    (line,) = (repo.root / "freeze_ledger.jsonl").read_text().splitlines()
    event = json.loads(line)
    assert event["evidence_hash"] == evidence
    assert event["review_by"] == "2999-01-01"
    assert event["class_confidence"] == swept.proposals()[COIN]["class_confidence"]
    assert run_cli("-C", str(repo.root), "ledger", "check")[0] == 0
    code, _, err = run_cli(*argv, "--class", "rng", "--evidence", path)
    assert code == 65
    assert f"freeze_ledger.jsonl: cannot append the freeze of {COIN}: duplicate freeze" in err


def test_freeze_refuses_evidence_about_another_test(swept: Swept, tmp_path: Path) -> None:
    repo = copy_of(swept, tmp_path)
    evidence = swept.proposals()[COIN]["evidence_hash"]
    code, _, err = run_cli(
        "-C",
        str(repo.root),
        "freeze",
        NET,
        "--class",
        "network",
        "--owner",
        "@o",
        "--note",
        "n",
        "--evidence",
        f".planegate/evidence/{evidence}.json",
    )
    assert code == 65
    assert "the evidence is about 'tests/fix/test_coin.py::test_coin'" in err


def test_sweep_needs_at_least_one_run(swept: Swept) -> None:
    code, _, err = run_cli("-C", str(swept.repo.root), "sweep", "--runs", "0")
    assert code == 64
    assert "--runs 0: a sweep needs at least one run" in err
