"""Text that the patch controls (test names, failure text, file names, child output), made inert.

Every rendering shows such text through these functions, so none of it can repaint a
terminal (ANSI escape sequences are removed, other control and bidirectional-override
characters shown as `\\xNN` / `\\uNNNN`), forge a GitHub workflow command (`::` at the start
of a line, `##[` anywhere), or render live in Markdown (links, images, HTML, @-mentions:
see `markdown`). `clean`, `one_line` and `inert_commands` are idempotent.
"""

from __future__ import annotations

import re
import unicodedata

# ECMA-48: CSI (ESC [ or the 8-bit CSI) with parameters, OSC/DCS/SOS/PM/APC strings up to
# their terminator (BEL or ST) or the end of the text, and the two-character escapes.
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)
# Control, format (bidirectional overrides, zero-width and tag characters), line and paragraph
# separators, and lone surrogates: shown escaped, never passed through.
_UNSAFE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_COMMAND_START = re.compile(r"^(\s*)(::)", re.MULTILINE)
_V1_COMMAND = "##["
# `#123`, `owner/repo#123` and `GH-123` link to (and leave a trace on) that issue: a word
# joiner after `#` or `GH` keeps the text and breaks the reference.
_REFERENCE = re.compile(r"(?<![&\w])#(?=\d)|(?<=\w)#(?=\d)|\bGH(?=-\d)", re.IGNORECASE)
_MARKDOWN = re.compile(r"[\\`\[\]<>&|@]|://|www\.", re.IGNORECASE)


def _escape(char: str) -> str:
    if char in "\n\t" or unicodedata.category(char) not in _UNSAFE:
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def clean(text: str) -> str:
    """No escape sequences, no control or invisible format characters but tab and newline;
    `\\r\\n` and a bare `\\r` (which would overwrite the line on a terminal) become newlines."""
    text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return "".join(map(_escape, text))


def one_line(text: str) -> str:
    """`clean`, on one line: newlines shown as `\\n`, tabs as spaces."""
    return clean(text).replace("\n", "\\n").replace("\t", " ")


def inert_commands(text: str) -> str:
    """No line the Actions runner reads as a workflow command: a backslash goes before a
    line's leading `::` (the runner trims leading whitespace first) and inside every `##[`."""
    text = text.replace(_V1_COMMAND, "##\\[")
    return _COMMAND_START.sub(r"\1\\\2", text)


def _markdown_escape(match: re.Match[str]) -> str:
    found = match.group()
    if found == "@":
        return "&#64;"  # no mention, and no notification
    if found in "<>&":
        return {"<": "&lt;", ">": "&gt;", "&": "&amp;"}[found]
    if found == "://":
        return ":\\/\\/"  # no autolink
    if found.lower() == "www.":
        return found[:3] + "\\."
    return "\\" + found


def markdown(text: str) -> str:
    """Untrusted text for one GitHub Markdown line (a table cell, a list item): no HTML,
    links, images, autolinks, code spans, table breaks, @-mentions or issue references; its own
    line breaks become `<br>`."""
    escaped = _MARKDOWN.sub(_markdown_escape, clean(text))
    escaped = _REFERENCE.sub("\\g<0>\u2060", escaped)
    return escaped.replace("\n", "<br>").replace("\t", " ")


def code_span(text: str) -> str:
    """Untrusted text as a Markdown code span whose fence no backtick inside can close."""
    body = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or longest else ""
    return f"{fence}{pad}{body}{pad}{fence}"
