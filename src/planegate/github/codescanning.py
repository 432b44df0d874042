"""Code scanning: the report's SARIF, uploaded with POST .../code-scanning/sarifs.

The upload needs `security-events: write`. It is filed under the commit the check run is on and
a full ref (`refs/pull/N/head` for a pull request, else GITHUB_REF), so the alerts show on the
pull request's files. A failed upload is a warning: it never changes the verdict's exit code.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip

from github.Repository import Repository

from planegate.github.client import CALL_ERRORS, describe
from planegate.github.posting import Destination, Posted
from planegate.report import Report, sarif

TOOL_NAME = "planegate"


def encode(text: str) -> str:
    """What the API wants in `sarif`: the file gzip-compressed, then base64-encoded."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), mtime=0)).decode("ascii")


def payload(
    report: Report, *, commit_sha: str, ref: str, category: str = sarif.DEFAULT_CATEGORY
) -> dict[str, object]:
    """`category` is the check's name: two planegate checks in one repository keep their own
    alerts (code scanning closes an alert only when the same category no longer reports it)."""
    return {
        "commit_sha": commit_sha,
        "ref": ref,
        "sarif": encode(sarif.render(report, category=category)),
        "tool_name": TOOL_NAME,
    }


def upload(repo: Repository | None, dest: Destination, report: Report, posted: Posted) -> Posted:
    """Upload the SARIF; the outcome is added to `posted` (an id, or a warning)."""
    if repo is None:
        return dataclasses.replace(
            posted, notes=(*posted.notes, "no token: the SARIF was not uploaded")
        )
    if not dest.ref or not dest.ref.startswith("refs/"):
        problem = f"sarif: no full ref to file the upload under (got {dest.ref!r})"
        return dataclasses.replace(posted, warnings=(*posted.warnings, problem))
    body = payload(report, commit_sha=dest.sha, ref=dest.ref, category=dest.check_name)
    try:
        _, data = repo.requester.requestJsonAndCheck(
            "POST", f"{repo.url}/code-scanning/sarifs", input=body
        )
    except CALL_ERRORS as error:
        hint = " (the job needs `security-events: write`)" if "403" in describe(error) else ""
        problem = f"sarif upload: {describe(error)}{hint}"
        return dataclasses.replace(posted, warnings=(*posted.warnings, problem))
    sarif_id = str(data.get("id")) if isinstance(data, dict) and data.get("id") else None
    return dataclasses.replace(posted, sarif_id=sarif_id)
