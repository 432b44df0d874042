"""What main's digest says of main's source (its `source`): the gate of a patch on that tip
takes it instead of parsing main's tests before its run, and checks it against git's source
once the run has started. A digest that says less than main's source does fails the gate with
PG303, though the run it shaped passed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from helpers.repo_helper import TestRepo, run_cli
from helpers.seed_project import (
    CORE,
    RENDER_BUG_HELPER_LOOSENED,
    findings,
    gate_json,
    seed_project,
)
from planegate.repo.digest_format import root_hash


def digested(tmp_path: Path) -> tuple[TestRepo, Path, dict[str, Any]]:
    """The seed layout with main's digest written beside it (not in the tree)."""
    repo = seed_project(tmp_path / "seed")
    out = tmp_path / "digest.json"
    done = run_cli("-C", str(repo.root), "digest", "-q", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return repo, out, json.loads(out.read_text("utf-8"))


def test_mains_digest_says_what_mains_source_does_and_an_honest_patch_passes_with_it(
    tmp_path: Path,
) -> None:
    repo, out, digest = digested(tmp_path)
    assert digest["source"] == {
        "imported": ["tests/__init__.py", "tests/helpers.py"],
        "shipped": [],
        "tests": {
            "tests/test_golden.py": [
                ["test_label_golden", "function"],
                ["test_render_golden", "function"],
            ],
            "tests/test_props.py": [["test_add_commutes", "hypothesis"]],
        },
    }
    repo.branch("honest")
    repo.commit("a comment", {"calc/core.py": "# the core\n" + CORE})
    code, report = gate_json(repo.root, "--digest", str(out))
    assert code == 0, findings(report)
    assert str(report["digest_source"]).endswith("matches git at the base tip")


def refused(
    repo: TestRepo, out: Path, digest: dict[str, Any], files: dict[str, str | bytes]
) -> dict[str, object]:
    """The gate of a patch (`files` committed on a branch) with `digest` as main's: exit 3,
    and the one PG303 finding, returned."""
    out.write_text(json.dumps(digest), "utf-8")
    repo.branch("patch")
    repo.commit("the patch", files)
    code, report = gate_json(repo.root, "--digest", str(out))
    assert code == 3, findings(report)
    (disagree,) = findings(report, "PG303")
    return disagree


def test_a_digest_that_hides_a_helper_of_mains_tests_fails_the_gate(tmp_path: Path) -> None:
    """The attack: a digest whose every hash is git's, that leaves the helper out of what
    main's tests import (and so out of its protected files). Taken at its word, the helper is
    not main's evidence: the patch's looser helper runs and main's test passes on the bug."""
    repo, out, digest = digested(tmp_path)
    digest["source"]["imported"].remove("tests/helpers.py")
    del digest["files"]["tests/helpers.py"]
    digest["root"] = root_hash(digest["files"])
    disagree = refused(repo, out, digest, RENDER_BUG_HELPER_LOOSENED)
    assert disagree["path"] == "tests/helpers.py"
    assert "the modules main's tests import (in git only: tests/helpers.py)" in str(
        disagree["message"]
    )


def test_a_digest_that_names_other_test_functions_fails_the_gate(tmp_path: Path) -> None:
    """Main's test functions are what the sampled canaries choose from: a digest that names
    others (here: none of a file's) is refused the same way, on an honest patch too."""
    repo, out, digest = digested(tmp_path)
    digest["source"]["tests"]["tests/test_golden.py"] = []
    disagree = refused(repo, out, digest, {"calc/core.py": "# the core\n" + CORE})
    assert disagree["path"] == "tests/test_golden.py"
    assert "the test functions of main's scoring files (in tests/test_golden.py)" in str(
        disagree["message"]
    )


def test_a_digest_that_claims_production_code_as_a_helper_fails_the_gate(tmp_path: Path) -> None:
    """The other way round: a digest that names a production module among what main's tests
    import makes it main's evidence. The run then uses main's copy, not the patch's bug, and
    the patch's change to it reads as a change to evidence; PG303 names the digest as why."""
    repo, out, digest = digested(tmp_path)
    digest["source"]["imported"] = sorted([*digest["source"]["imported"], "calc/core.py"])
    digest["files"]["calc/core.py"] = _sha256(repo.root / "calc/core.py")
    digest["root"] = root_hash(digest["files"])
    bug: dict[str, str | bytes] = {"calc/core.py": CORE.replace("f'n={n}'", "f'N={n}'")}
    disagree = refused(repo, out, digest, bug)
    assert disagree["path"] == "calc/core.py"
    assert "the modules main's tests import (in the digest only: calc/core.py)" in str(
        disagree["message"]
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
