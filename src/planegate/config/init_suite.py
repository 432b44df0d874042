"""`planegate init`: propose a planegate.yml for an existing suite, saying why for each file."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from planegate.config.planemap import _is_given


@dataclass
class Proposal:
    property_files: list[str] = field(default_factory=list)
    fixture_files: list[str] = field(default_factory=list)
    property_ids: list[str] = field(default_factory=list)
    fixture_ids: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: list[str] = field(default_factory=list)  # files tests read (runner/discover.py)

    @property
    def text(self) -> str:
        data: dict[str, Any] = {
            "version": 1,
            "owner": "unowned",
            "planes": {
                "property": {
                    "owner": "unowned",
                    "paths": self.property_files,
                    "nodeids": self.property_ids,
                },
                "fixture": {
                    "owner": "unowned",
                    "paths": self.fixture_files,
                    "nodeids": self.fixture_ids,
                    "data": self.data,
                },
                "freeze": {"owner": "unowned"},
            },
        }
        return (
            "# proposed by `planegate init`; review the owners and the mixed files.\n"
            + yaml.safe_dump(data, sort_keys=False)
        )


def test_ids(source: str, path: str) -> list[tuple[str, bool]]:
    """(nodeid, uses @given) for the module's test functions and test-class methods."""
    tree = ast.parse(source)
    found: list[tuple[str, bool]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            found.append((f"{path}::{node.name}", any(_is_given(d) for d in node.decorator_list)))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(
                    item, (ast.FunctionDef, ast.AsyncFunctionDef)
                ) and item.name.startswith("test"):
                    given = any(_is_given(d) for d in item.decorator_list)
                    found.append((f"{path}::{node.name}::{item.name}", given))
    return found


def propose(root: Path, tests: str) -> Proposal:
    proposal = Proposal()
    folder = root / tests
    files = sorted(
        p for p in folder.rglob("*.py") if p.name.startswith("test_") or p.name.endswith("_test.py")
    )
    for file in files:
        path = file.relative_to(root).as_posix()
        try:
            ids = test_ids(file.read_text("utf-8", "replace"), path)
        except SyntaxError as error:
            proposal.notes.append(f"{path}:{error.lineno}: does not parse; left unclassified")
            continue
        given = [nodeid for nodeid, uses in ids if uses]
        examples = [nodeid for nodeid, uses in ids if not uses]
        if given and examples:
            proposal.fixture_files.append(path)
            proposal.property_ids += given
            proposal.notes.append(
                f"{path}: MIXED — {len(given)} @given tests listed as property nodeids, "
                f"{len(examples)} example tests in the fixture plane; move the @given tests to a "
                "property file (the gate reports this file until it is split)"
            )
        elif given:
            proposal.property_files.append(path)
            proposal.notes.append(f"{path}: property ({len(given)} tests use Hypothesis @given)")
        else:
            proposal.fixture_files.append(path)
            proposal.notes.append(f"{path}: fixture ({len(examples)} example tests, no @given)")
    if not files:
        proposal.notes.append(f"{tests}/: no test files found")
    return proposal
