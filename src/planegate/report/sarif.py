"""SARIF 2.1.0 for code scanning (`github/codeql-action/upload-sarif`): one rule per PG id."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from planegate import untrusted, urls
from planegate.findings import Finding, Severity
from planegate.report import Report
from planegate.rules import RULES, Rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/planegate/planegate"
DEFAULT_CATEGORY = "planegate"
FINGERPRINT = "planegateFinding/v1"
# Code scanning drops results without a location; findings with no file point at the config.
DEFAULT_PATH = "planegate.yml"

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTICE: "note"}


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": "".join(word.capitalize() for word in rule.title.replace("/", " ").split()),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.why},
        "help": {"text": rule.how_to_fix, "markdown": rule.how_to_fix},
        "helpUri": urls.rule_help(rule.id),
        "defaultConfiguration": {"level": "error"},
        "properties": {"step": rule.step.value, "agent_may_fix": rule.agent_may_fix},
    }


def _text(value: str | None) -> str | None:
    return None if value is None else untrusted.inert_commands(untrusted.one_line(value))


def _result(finding: Finding, index: dict[str, int], default_path: str) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": finding.line or 1}
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": _LEVEL[finding.severity],
        "message": {"text": untrusted.inert_commands(untrusted.one_line(finding.message))},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _text(finding.path) or default_path},
                    "region": region,
                }
            }
        ],
        "properties": {
            "step": finding.step.value,
            "owner": _text(finding.owner),
            "plane": finding.plane,
            "nodeid": _text(finding.nodeid),
        },
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    result["partialFingerprints"] = {FINGERPRINT: fingerprint(finding)}
    return result


def fingerprint(finding: Finding) -> str:
    """The same finding on a later run of the same patch (or a rebased one): its rule, file
    and test, never its line (lines move) or its message when it names a test (failure text
    holds addresses and timings); code scanning matches alerts across runs by it."""
    what = finding.nodeid if finding.nodeid is not None else finding.message
    key = "\0".join((finding.rule, finding.path or "", what))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def to_sarif(
    report: Report,
    *,
    version: str = "0.1.0",
    default_path: str = DEFAULT_PATH,
    category: str = DEFAULT_CATEGORY,
) -> dict[str, Any]:
    """`category` tells code scanning which analysis the run belongs to (one per check: two
    planegate jobs in one repository must not close each other's alerts)."""
    rules = sorted(RULES.values(), key=lambda rule: rule.id)
    index = {rule.id: position for position, rule in enumerate(rules)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "planegate",
                        "version": version,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule_descriptor(rule) for rule in rules],
                    }
                },
                "automationDetails": {"id": f"{category}/"},
                "results": [_result(f, index, default_path) for f in report.findings],
                "properties": {
                    "verdict": report.verdict,
                    "exit_code": report.exit_code,
                    "digest_source": _text(report.digest_source),
                },
            }
        ],
    }


def render(report: Report, *, version: str = "0.1.0", category: str = DEFAULT_CATEGORY) -> str:
    return json.dumps(to_sarif(report, version=version, category=category), indent=2) + "\n"
