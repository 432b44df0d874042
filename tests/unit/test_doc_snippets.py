"""Workflow snippets of the docs: what users copy is pinned, opted in and complete.

`scripts/doc-snippets.py DIR` writes them out for actionlint and zizmor (see its header);
this test checks, without those tools, what must hold for every snippet.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("doc_snippets", ROOT / "scripts/doc-snippets.py")
assert _spec is not None and _spec.loader is not None
doc_snippets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(doc_snippets)

SNIPPETS: dict[str, str] = doc_snippets.snippets()
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$")
OURS = re.compile(r"^planegate/planegate@v\d+$")


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def _uses_lines(text: str) -> list[str]:
    return [m.strip() for m in re.findall(r"uses: (.+)$", text, re.M)]


def test_every_document_workflow_is_extracted() -> None:
    assert {"quickstart-1.yml", "quickstart-2.yml", "readme-1.yml"} <= set(SNIPPETS)
    assert {"recipes-1.yml", "recipes-2.yml"} <= set(SNIPPETS)


def test_third_party_actions_are_pinned_by_sha_with_a_version_comment() -> None:
    for name, text in SNIPPETS.items():
        for uses in _uses_lines(text):
            assert PINNED.match(uses) or OURS.match(uses), f"{name}: {uses}"
    for path in [ROOT / "action.yml", *sorted((ROOT / ".github/workflows").glob("*.yml"))]:
        for uses in _uses_lines(path.read_text("utf-8")):
            local = uses.startswith("./")
            assert local or PINNED.match(uses), f"{path.name}: {uses}"


def test_a_fork_head_checkout_opts_in_and_keeps_no_credentials() -> None:
    for name, text in SNIPPETS.items():
        workflow = yaml.safe_load(text)
        triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
        privileged = isinstance(triggers, dict) and (
            "pull_request_target" in triggers or "workflow_run" in triggers
        )
        for step in _steps(workflow):
            if not str(step.get("uses", "")).startswith("actions/checkout@"):
                continue
            given = step.get("with", {})
            assert given.get("persist-credentials") is False, name
            if privileged and "ref" in given:
                assert given.get("allow-unsafe-pr-checkout") is True, name


def test_the_fork_recipe_posts_with_the_event_file_and_sarif() -> None:
    post = yaml.safe_load(SNIPPETS["recipes-2.yml"])
    (action,) = [s for s in _steps(post) if str(s.get("uses", "")).startswith("planegate/")]
    assert action["with"]["mode"] == "report"
    assert action["with"]["event-file"].endswith("event.json")
    assert action["with"]["sarif"] == "upload"
    assert post["jobs"]["post"]["permissions"]["security-events"] == "write"
    pr = yaml.safe_load(SNIPPETS["recipes-1.yml"])
    (gate,) = [s for s in _steps(pr) if str(s.get("uses", "")).startswith("planegate/")]
    assert gate["with"]["github-token"] == ""


UNSAFE_CHECKOUT = re.compile(r"^ +allow-unsafe-pr-checkout: true(?P<comment> #.*)?$", re.M)
INLINE_IGNORE = re.compile(r"^ # zizmor: ignore\[unsafe-checkout\] \S.{8,}$")


def test_every_unsafe_checkout_records_zizmors_inline_ignore_with_its_reason() -> None:
    """zizmor reads `# zizmor: ignore[unsafe-checkout]` on the line it reports (the option's
    line), and the text after it is the reason a reviewer reads."""
    texts = dict(SNIPPETS)
    for path in sorted((ROOT / ".github/workflows").glob("*.yml")):
        texts[path.name] = path.read_text("utf-8")
    found = 0
    for name, text in texts.items():
        for match in UNSAFE_CHECKOUT.finditer(text):
            found += 1
            assert INLINE_IGNORE.match(match["comment"] or ""), f"{name}: {match[0].strip()}"
    assert found >= 5
