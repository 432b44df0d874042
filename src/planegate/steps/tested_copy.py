"""PG211 for the inventory step: the head makes the test run import another copy of a package
the base ships (config/shipped.py says where each package ships from and which copy the run
would import)."""

from __future__ import annotations

from planegate.config import shipped
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.pyimports import Layout
from planegate.runner import pytest_ini


def findings(ctx: GitFacts) -> list[Finding]:
    if not any(change.status in ("A", "D") or change.old_path for change in ctx.changes):
        return []  # only an added, removed or renamed file can change which copy is imported
    metadata = shipped.declared(ctx.base.text("pyproject.toml"), ctx.base.text("setup.cfg"))
    pythonpath = pytest_ini.pythonpath(pytest_ini.base_options(ctx.base.read))
    found = shipped.shadows(Layout.of(ctx.base.files), Layout.of(ctx.head.files), pythonpath,
                            metadata)  # fmt: skip
    return [
        Finding(
            "PG211",
            Step.INVENTORY,
            Severity.ERROR,
            f"the tests would import {shadow.name} from {shadow.tested or '.'}/, not from "
            f"{shadow.shipped or '.'}/ that the base ships: {shadow.path} is the copy tested",
            path=shadow.path,
            owner=ctx.who.of_plane_map(),
        )
        for shadow in found
    ]
