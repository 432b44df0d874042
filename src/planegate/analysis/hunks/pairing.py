"""Pair base and head functions: by qualified name first, then renames by body similarity."""

from __future__ import annotations

import difflib
from typing import NamedTuple

from planegate.analysis.hunks.keys import tokens
from planegate.analysis.hunks.parsed_module import FuncInfo, local_names

RENAME_RATIO = 0.6
# Past this many candidate pairs the quadratic similarity search only uses quick_ratio.
_EXACT_LIMIT = 400


class Pairing(NamedTuple):
    pairs: tuple[tuple[FuncInfo, FuncInfo], ...]
    removed: tuple[FuncInfo, ...]
    added: tuple[FuncInfo, ...]


def _body_tokens(info: FuncInfo) -> list[str]:
    names = local_names(info.node)
    out: list[str] = []
    for decorator in info.node.decorator_list:
        out.extend(tokens(decorator, names))
    for stmt in info.node.body:
        out.extend(tokens(stmt, names))
    return out


def pair_functions(base: dict[str, FuncInfo], head: dict[str, FuncInfo]) -> Pairing:
    pairs = [(base[name], head[name]) for name in base if name in head]
    lost = [info for name, info in base.items() if name not in head]
    new = [info for name, info in head.items() if name not in base]
    renamed = _renames(lost, new)
    paired_base = {id(b) for b, _ in renamed}
    paired_head = {id(h) for _, h in renamed}
    return Pairing(
        tuple(pairs + renamed),
        tuple(info for info in lost if id(info) not in paired_base),
        tuple(info for info in new if id(info) not in paired_head),
    )


def _renames(lost: list[FuncInfo], new: list[FuncInfo]) -> list[tuple[FuncInfo, FuncInfo]]:
    if not lost or not new:
        return []
    lost_tokens = [_body_tokens(info) for info in lost]
    new_tokens = [_body_tokens(info) for info in new]
    exact = len(lost) * len(new) <= _EXACT_LIMIT
    scored: list[tuple[float, int, int]] = []
    for i, before in enumerate(lost_tokens):
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(before)
        for j, after in enumerate(new_tokens):
            matcher.set_seq1(after)
            if matcher.real_quick_ratio() < RENAME_RATIO or matcher.quick_ratio() < RENAME_RATIO:
                continue
            ratio = matcher.ratio() if exact else matcher.quick_ratio()
            if ratio >= RENAME_RATIO:
                scored.append((ratio, i, j))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    used_lost: set[int] = set()
    used_new: set[int] = set()
    out: list[tuple[FuncInfo, FuncInfo]] = []
    for _, i, j in scored:
        if i in used_lost or j in used_new:
            continue
        used_lost.add(i)
        used_new.add(j)
        out.append((lost[i], new[j]))
    return out
