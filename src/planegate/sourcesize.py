"""How much Python source planegate parses: a file too big or too dense is never parsed.

`ast.parse` holds about 420 bytes of memory per token, whatever the file's size in bytes: a
512 KiB one-line list of numbers costs 220 MB, a 5 MiB one took 2.4 GB. So a file is refused
when it is over a byte limit (`analysis.max_file_bytes`) or when a cheap count of its tokens is
over `MAX_TOKENS` (at most about 130 MB of syntax tree); ordinary source holds one such
token for every four bytes or so, so the byte limit decides first for it.
"""

from __future__ import annotations

import ast
import re

from planegate import syntax

MAX_FILE_BYTES = 1024 * 1024
MAX_TOKENS = 300_000
# Words and single punctuation characters: at least one per token the parser sees (it counts
# the words of strings and comments too, which only errs on the side of parsing less).
_TOKEN = re.compile(r"\w+|[^\s\w]")


def size_of(text: str) -> int:
    """UTF-8 bytes of `text`, counted without encoding it when every character is ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def tokens_over(text: str, limit: int = MAX_TOKENS) -> bool:
    """Whether `text` holds more than `limit` tokens, counted without building them all."""
    if len(text) <= limit:  # every token is at least one character
        return False
    return any(count > limit for count, _ in enumerate(_TOKEN.finditer(text), start=1))


def refusal(text: str | None, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    """Why `text` is not parsed (its size or its density), or None when it may be."""
    if text is None:
        return None
    if len(text) > max_bytes // 4 and (size := size_of(text)) > max_bytes:
        return f"{size:,} bytes, over the analysis limit of {max_bytes:,} (analysis.max_file_bytes)"
    if tokens_over(text):
        return f"more than {MAX_TOKENS:,} tokens, over what planegate parses"
    return None


def parse(source: str, max_bytes: int = MAX_FILE_BYTES) -> ast.Module | None:
    """`source`'s syntax tree; None when it is refused by size or does not parse."""
    if refusal(source, max_bytes) is not None:
        return None
    try:
        return syntax.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
