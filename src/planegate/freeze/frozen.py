"""Which nodeids a ledger freezes: all the gate reads of the ledger before the head's test
child is started, so the modules that parse a ledger are imported only when there is one."""

from __future__ import annotations


def frozen_nodeids(text: str | None, path: str) -> dict[str, str]:
    """nodeid -> owner of every nodeid frozen after the fold (invalid lines change nothing)."""
    if not text:
        return {}
    from planegate.freeze.parse import parse  # a ledger's modules: only for a ledger

    return {nodeid: state.owner for nodeid, state in parse(text, path).state().items()}
