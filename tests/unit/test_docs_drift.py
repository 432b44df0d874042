"""Docs that must stay in step with the code."""

from __future__ import annotations

from pathlib import Path

from planegate import exitcodes
from planegate.rules import RULES, catalogue_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_findings_catalogue_is_generated_from_the_rules() -> None:
    text = (ROOT / "docs/findings.md").read_text("utf-8")
    assert text == catalogue_markdown(), "run `make docs`"
    for rule_id in RULES:
        assert f"### {rule_id}\n" in text


def test_every_rule_id_belongs_to_its_steps_exit_code() -> None:
    for rule_id, rule in RULES.items():
        assert rule_id.startswith(f"PG{rule.step.exit_code}"), rule_id


def test_readme_opens_with_the_two_setup_commands() -> None:
    head = (ROOT / "README.md").read_text("utf-8").splitlines()[:8]
    assert any(line.startswith("make demo") for line in head)
    assert any(line.startswith("make test") for line in head)
    assert (ROOT / ".ci/run").read_text("utf-8").strip().endswith("exec make test")


def test_every_exit_code_is_explained() -> None:
    codes = {entry.code for entry in exitcodes.EXIT_CODES}
    assert codes == {0, 1, 2, 3, 4, 5, 6, 64, 65, 69, 70, 78}


def _keys(schema: dict[str, object], prefix: str = "") -> list[str]:
    found = []
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            key = f"{prefix}{name}"
            nested = isinstance(sub, dict) and "properties" in sub
            found += _keys(sub, key + ".") if nested else [key]
    return found


def test_every_configuration_key_is_documented() -> None:
    from planegate.config.load import schema

    text = (ROOT / "docs/configuration.md").read_text("utf-8")
    keys = _keys(schema())
    assert "pytest.triage_runs" in keys
    missing = [key for key in keys if f"`{key}`" not in text]
    assert missing == []
