"""Screenshots of the PR comment and the check run, from the real rendered output.

Builds the demo's shop repository, gates two of its patches (an agent's real bug and an
agent's added skip), renders the comment and the check run summary exactly as the action
posts them (planegate.report.markdown), turns the markdown into HTML with markdown-it-py
(CommonMark plus tables, as GitHub renders them) under a small GitHub-like stylesheet, and
photographs each page with headless Chromium. `make screenshots` installs what this needs
and runs it; the pictures land in docs/images/ and the README shows them.

Usage: python scripts/screenshots.py [--out docs/images] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import html
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt

from planegate.demo import PATCHES, build
from planegate.gate import pipeline
from planegate.gate.context import GateOptions
from planegate.gate.digest_check import build_digest
from planegate.progress import QUIET
from planegate.repo import digest_format
from planegate.repo import git as gitrepo
from planegate.report import Report
from planegate.report.markdown import (
    MarkdownContext,
    check_title,
    render_check_summary,
    render_comment,
)

SHOWN = ("plain-bug", "added-skip")  # the comment shows the first, the check run the second
CONTEXT = MarkdownContext(repository="octo/shop", head_sha="0" * 40)
WIDTH = 1100  # heights per page below: the rendered panel and a margin
STYLE = """
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
       color: #1f2328; background: #fff; margin: 0; }
.frame { margin: 16px; border: 1px solid #d1d9e0; border-radius: 6px; }
.bar { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px;
       border-radius: 6px 6px 0 0; font-weight: 600; }
.bar span { font-weight: 400; color: #59636e; }
.body { padding: 8px 16px 16px; }
h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; font-size: 1.5em; }
h3 { font-size: 1.25em; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; vertical-align: top; overflow-wrap: break-word; }
tr:nth-child(2n) { background: #f6f8fa; }
code { background: #eff1f3; border-radius: 6px; padding: .2em .4em; font-size: 85%;
       font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
a { color: #0969da; text-decoration: none; }
"""


def reports(workdir: Path) -> dict[str, Report]:
    """The demo repository's main, its digest, and a gate of each patch in SHOWN."""
    root = workdir / "shop"
    root.mkdir()
    build(root)
    repo = gitrepo.GitRepo(root)
    digest = workdir / "planegate-digest.json"
    digest.write_text(digest_format.to_json(build_digest(repo, "main", None)), "utf-8")
    found: dict[str, Report] = {}
    for patch in (p for p in PATCHES if p.name in SHOWN):
        gitrepo.checkout(repo, "main")
        gitrepo.checkout(repo, patch.name, create=True)
        patch.edit(root)
        gitrepo.commit_all(repo, patch.what)
        options = GateOptions(root=root, base="main", head=patch.name, agent=True)
        found[patch.name] = pipeline.run(options, QUIET)
    return found


def page(bar: str, detail: str, markdown: str) -> str:
    """One GitHub-like panel: a title bar and the markdown rendered as GitHub would."""
    body = MarkdownIt("commonmark", {"html": True, "breaks": True}).enable("table").render(markdown)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{STYLE}</style></head>"
        f"<body><div class='frame'><div class='bar'>{html.escape(bar)} "
        f"<span>{html.escape(detail)}</span></div><div class='body'>{body}</div></div>"
        "</body></html>"
    )


def photograph(chromium: str, source: Path, target: Path, height: int) -> None:
    with tempfile.TemporaryDirectory(prefix="planegate-chromium-") as profile:
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                f"--window-size={WIDTH},{height}",
                f"--screenshot={target}",
                source.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="planegate-screenshots-") as temp:
        workdir = Path(temp)
        found = reports(workdir)
        bug, skip = found[SHOWN[0]], found[SHOWN[1]]
        pages = {
            "comment": (
                page("github-actions[bot] commented", "· planegate", render_comment(bug, CONTEXT)),
                940,
            ),
            "check-run": (
                page(check_title(skip), "· GitHub Actions", render_check_summary(skip, CONTEXT)),
                1060,
            ),
        }
        for name, (text, height) in pages.items():
            source = workdir / f"{name}.html"
            source.write_text(text, "utf-8")
            photograph(args.chromium, source, args.out / f"{name}.png", height)
            print(f"wrote {args.out / (name + '.png')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
