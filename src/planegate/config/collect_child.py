"""The child process of `planegate init`: pytest's own collection, written to a JSON file.

Run as `python -c ... OUT PYTEST_ARGS...` in the project's root. The items are read where the
gate's own plugin reads them (before `-m`/`-k` deselect anything), so the proposal covers the
nodeids the gate will see.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Generator
from typing import Any

import pytest


class Collector:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.errors: list[dict[str, str]] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> Generator[None, None, None]:
        self.items = [
            {
                "nodeid": item.nodeid,
                "hypothesis": _is_hypothesis(item),
                "function": isinstance(item, pytest.Function),
            }
            for item in items
        ]
        yield

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append({"nodeid": report.nodeid, "message": report.longreprtext[-4000:]})


def _is_hypothesis(item: pytest.Item) -> bool:
    try:
        return bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))
    except Exception:  # the project's own descriptors may raise; the source decides then
        return False


def main() -> int:
    out, args = sys.argv[1], sys.argv[2:]
    sys.path.insert(0, os.getcwd())  # what `python -m pytest` does for the project's imports
    collector = Collector()
    status = int(pytest.main(args, plugins=[collector]))
    data = {"status": status, "items": collector.items, "errors": collector.errors}
    with open(out, "w", encoding="utf-8") as stream:
        json.dump(data, stream)
    return 0
