"""`planegate action` on the demo repository against the fake GitHub server, end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.fake_github import FakeGitHub, running
from helpers.github_support import action_env, demo_shop, phase_envs, read_outputs, run_action
from helpers.repo_helper import TestRepo
from planegate.gate.digest_check import build_digest
from planegate.repo import digest_format
from planegate.repo import git as gitrepo


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    root = tmp_path_factory.mktemp("action") / "shop"
    yield root, demo_shop(root, ("honest-fix", "added-skip"))


def pull_env(gh: FakeGitHub, tmp: Path, root: Path, head: str, base: str) -> dict[str, str]:
    gh.add_pull(1, head_sha=head, base_sha=base, author="coder[bot]")
    env = action_env(tmp, gh.api_url, gh.event_payload(1), working_directory=str(root))
    env["GITHUB_SHA"] = head
    return env


def test_honest_patch_gets_one_success_check_and_one_comment(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    with running() as gh:
        env = pull_env(gh, tmp_path, root, shas["honest-fix"], shas["main"])
        assert run_action(monkeypatch, env) == 0
        (check,) = gh.check_runs.values()
        assert (check["status"], check["conclusion"]) == ("completed", "success")
        (comment,) = gh.comments_on(1)
        assert comment["body"].startswith("<!-- planegate:report -->")
        outputs = read_outputs(tmp_path / "output.txt")
        assert (outputs["verdict"], outputs["exit-code"]) == ("pass", "0")
        assert "planegate" in (tmp_path / "summary.md").read_text()


def test_a_stray_artifact_for_a_commit_the_clone_lacks_is_refused_and_the_patch_passes(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    with running() as gh:
        env = pull_env(gh, tmp_path, root, shas["honest-fix"], shas["main"])
        env["INPUT_REPORT-FILE"] = str(tmp_path / "report.json")
        # a newer push to main this clone has not fetched, and a fork's artifact of that name
        stray = gh.add_artifact(head_sha="e" * 40, created_at="2030-01-01T00:00:00Z")
        fork = gh.add_artifact(head_sha="d" * 40, head_repo_id=9999)

        assert run_action(monkeypatch, env) == 0

        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "success"
        report = json.loads((tmp_path / "report.json").read_text())
        refused = [
            f["message"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG306"
        ]
        assert len(refused) == 2
        assert any(f"artifact {stray} " in m and "not in this clone" in m for m in refused)
        assert any(f"artifact {fork} " in m and "a fork" in m for m in refused)
        assert report["digest_source"].startswith("recomputed from git at the base tip")
        (comment,) = gh.comments_on(1)
        assert "PG306" in comment["body"]


def test_main_digest_artifact_reaches_the_gate_in_memory_and_matches_git(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    made = build_digest(gitrepo.GitRepo(root), shas["main"], None)
    with running() as gh:
        env = pull_env(gh, tmp_path, root, shas["honest-fix"], shas["main"])
        env["INPUT_REPORT-FILE"] = str(tmp_path / "report.json")
        artifact = gh.add_artifact(
            head_sha=shas["main"], payload=digest_format.to_json(made).encode()
        )

        assert run_action(monkeypatch, env) == 0

        report = json.loads((tmp_path / "report.json").read_text())
        source = report["digest_source"]
        assert source.startswith(f"artifact planegate-digest #{artifact} from push run ")
        assert source.endswith(
            f"(the base tip) (commit {shas['main'][:12]}); matches git at the base tip"
        )


def test_cheat_in_two_phases_fails_with_annotations_and_the_run_phase_holds_no_token(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    exchange = tmp_path / "exchange"
    with running() as gh:
        env = pull_env(gh, tmp_path, root, shas["added-skip"], shas["main"])
        run_env = {
            k: v
            for k, v in env.items()
            if k not in ("GITHUB_TOKEN", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")
        }
        run_env |= {"INPUT_PHASE": "run", "PLANEGATE_EXCHANGE": str(exchange)}
        assert run_action(monkeypatch, run_env) == 0
        assert not gh.log  # the run phase never talks to GitHub
        assert (exchange / "run.json").is_file()
        judge_env = env | {"INPUT_PHASE": "judge", "PLANEGATE_EXCHANGE": str(exchange)}
        assert run_action(monkeypatch, judge_env) == 3
        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "failure"
        annotations = gh.annotations[next(iter(gh.check_runs))]
        titles = {a["title"] for a in annotations}
        assert "PG301 · @demo/properties" in titles
        assert "PG501 · coder[bot]" in titles  # the pull request author owns step 5
        # the failing property test is annotated at its failing assert, not at line 1
        (failed,) = [a for a in annotations if a["title"].startswith("PG101")]
        source = (root / failed["path"]).read_text().splitlines()
        assert failed["start_line"] > 1
        assert "assert" in source[failed["start_line"] - 1]
        assert len(gh.comments_on(1)) == 1


def test_judge_without_run_results_fails_closed(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    with running() as gh:
        env = pull_env(gh, tmp_path, root, shas["honest-fix"], shas["main"])
        env |= {"INPUT_PHASE": "judge", "PLANEGATE_EXCHANGE": str(tmp_path / "empty")}
        assert run_action(monkeypatch, env) == 65
        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "failure"
        assert check["output"]["title"] == "planegate could not evaluate this pull request"


SUITE_CONFIG = "version: 1\nplanes:\n  property: {}\n  fixture:\n    paths: ['tests/']\n"


def _sweep_broken_main(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inputs: dict[str, str]
) -> tuple[int, FakeGitHub]:
    """`sweep` mode on a push to a main whose one test fails every run."""
    repo = TestRepo(tmp_path / "broken")
    head = repo.commit(
        "suite",
        {
            "planegate.yml": SUITE_CONFIG + "  freeze:\n    max_fraction: 0.5\n",
            "tests/test_broken.py": "def test_broken():\n    assert 1 == 2\n",
            "tests/test_fine.py": "def test_fine():\n    assert 2 == 2\n",
        },
    )
    with running() as gh:
        event = {
            "after": head,
            "before": "0" * 40,
            "ref": "refs/heads/main",
            "repository": gh.repository(),
        }
        env = action_env(
            tmp_path, gh.api_url, event, name="push", mode="sweep", working_directory=str(repo.root)
        )
        env |= {"GITHUB_SHA": head, **inputs}
        return run_action(monkeypatch, env), gh


def test_sweep_mode_reports_a_broken_base_without_posting_a_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, gh = _sweep_broken_main(tmp_path, monkeypatch, {})
    assert code == 6
    assert gh.check_runs == {}
    outputs = read_outputs(tmp_path / "output.txt")
    assert (outputs["verdict"], outputs["exit-code"]) == ("fail", "6")
    summary = (tmp_path / "summary.md").read_text()
    assert "tests/test_broken.py::test_broken" in summary
    assert "propose freeze" not in summary


def test_sweep_mode_with_broken_here_proposes_an_env_freeze(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`broken-here: true` is the maintainer's word that main passes in the project's own
    CI: the test failing every run here (under plain pytest too) is proposed, not broken."""
    code, gh = _sweep_broken_main(tmp_path, monkeypatch, {"INPUT_BROKEN-HERE": "true"})
    assert code == 0
    assert gh.check_runs == {}
    summary = (tmp_path / "summary.md").read_text()
    assert "propose freeze tests/test_broken.py::test_broken (env)" in summary
    assert "base broken" not in summary


def test_the_fetch_hands_mains_digest_to_phase_1_which_then_runs_no_base(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    made = build_digest(gitrepo.GitRepo(root), shas["main"], None)
    assert made.run is not None  # main's run is in the digest
    exchange, main = tmp_path / "exchange", tmp_path / "main"
    with running() as gh:
        env = pull_env(gh, tmp_path, root, shas["honest-fix"], shas["main"])
        payload = digest_format.to_json(made).encode()
        artifact = gh.add_artifact(head_sha=shas["main"], payload=payload)
        fetch_env, run_env, judge_env = phase_envs(env, main, exchange)
        assert run_action(monkeypatch, fetch_env) == 0
        assert not gh.check_runs  # the fetch posts nothing
        assert (main / digest_format.FILE_NAME).read_bytes() == payload
        said = (main / digest_format.SOURCE_NAME).read_text("utf-8")
        assert said.startswith(f"artifact planegate-digest #{artifact} from push run ")

        requests = len(gh.log)
        assert run_action(monkeypatch, run_env) == 0
        assert len(gh.log) == requests  # the run phase never talks to GitHub
        ran = (exchange / "run.json").read_text("utf-8")
        assert "main's run in the digest: " in ran  # the base's outcomes came from the digest

        assert run_action(monkeypatch, judge_env) == 0
        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "success"


def test_a_digest_whose_source_disagrees_with_git_fails_the_judge_after_a_run_that_took_it(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run phase takes what main's digest says of main's source and does not check it
    (it writes no finding); the judge phase checks it against git's and fails the gate."""
    root, shas = shop
    made = json.loads(
        digest_format.to_json(build_digest(gitrepo.GitRepo(root), shas["main"], None))
    )
    scoring = sorted(made["source"]["tests"])[0]
    made["source"]["tests"][scoring] = []  # none of the file's test functions named
    exchange, main = tmp_path / "exchange", tmp_path / "main"
    with running() as gh:
        env = pull_env(gh, tmp_path, root, shas["honest-fix"], shas["main"])
        gh.add_artifact(head_sha=shas["main"], payload=json.dumps(made).encode())
        fetch_env, run_env, judge_env = phase_envs(env, main, exchange)
        assert run_action(monkeypatch, fetch_env) == 0
        assert run_action(monkeypatch, run_env) == 0
        assert run_action(monkeypatch, judge_env) == 3
        (check,) = gh.check_runs.values()
        assert check["conclusion"] == "failure"
        disagree = [
            a for a in gh.annotations[next(iter(gh.check_runs))] if a["title"].startswith("PG303")
        ]
        assert [a["path"] for a in disagree] == [scoring]


def test_a_fetch_without_an_artifact_leaves_phase_1_to_run_the_base(
    shop: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shas = shop
    main = tmp_path / "main"
    with running() as gh:
        env = pull_env(gh, tmp_path, root, shas["honest-fix"], shas["main"])
        env |= {"INPUT_PHASE": "fetch", "PLANEGATE_MAIN_DIGEST": str(main)}
        assert run_action(monkeypatch, env) == 0
        assert not (main / digest_format.FILE_NAME).exists()
        assert not gh.check_runs
