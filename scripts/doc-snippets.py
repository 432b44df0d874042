#!/usr/bin/env python3
"""doc-snippets.py - write every workflow snippet of README.md and docs/*.md to a folder.

usage: scripts/doc-snippets.py OUT_DIR

Each ```yaml block that is a whole workflow (it has `on:` and `jobs:`) becomes
OUT_DIR/.github/workflows/<doc>-<n>.yml, so the same linters as the repository's own
workflows (actionlint, zizmor, check-jsonschema) can check what users copy. A zizmor
configuration lets `planegate/planegate@vX` stay a release tag (the release tag is what pins
the image: docs/action-inputs.md); every other action must be pinned by SHA.

Lint them: scripts/doc-snippets.py /tmp/snippets && cd /tmp/snippets && git init -q &&
/work/shared/tools/local-container.sh lint
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```ya?ml\n(.*?)^```", re.S | re.M)
ZIZMOR = """\
rules:
  unpinned-uses:
    config:
      policies:
        "planegate/*": ref-pin
        "*": hash-pin
"""


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def workflows(text: str) -> list[str]:
    found = []
    for block in BLOCK.findall(text):
        if re.search(r"^on:", block, re.M) and re.search(r"^jobs:", block, re.M):
            found.append(block)
    return found


def snippets() -> dict[str, str]:
    """{file name: workflow text} for every workflow snippet of the documentation."""
    out: dict[str, str] = {}
    for doc in documents():
        for n, block in enumerate(workflows(doc.read_text("utf-8")), start=1):
            out[f"{doc.stem.lower()}-{n}.yml"] = block
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 64
    folder = Path(argv[0]) / ".github" / "workflows"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in snippets().items():
        (folder / name).write_text(text, "utf-8")
    (folder.parent / "zizmor.yml").write_text(ZIZMOR, "utf-8")
    print(f"doc-snippets: {len(snippets())} workflows in {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
