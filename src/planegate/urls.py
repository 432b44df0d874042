"""Where the documentation lives for someone who installed the package: full URLs, never paths
inside a checkout the user does not have."""

from __future__ import annotations

HOME = "https://github.com/planegate/planegate"
DOCS = f"{HOME}/blob/main/docs"


def doc(page: str, anchor: str = "") -> str:
    """The URL of `docs/<page>` (with `#anchor` when given)."""
    return f"{DOCS}/{page}" + (f"#{anchor}" if anchor else "")


def rule_help(rule_id: str) -> str:
    """The catalogue entry of a rule id: docs/findings.md has one anchor per rule."""
    return doc("findings.md", rule_id.lower())
