"""Run-time probes for the flake sweep: a pytest plugin handed to pytest.main() in the child.

The probes change how a session runs, never what it reports (the channel plugin reports):

- `order`: "collected" (as collected), "reverse", "shuffle" (a `random.Random(order_seed)`
  shuffle) or "given" (the nodeids of `given` first, in that order; the rest after, as
  collected);
- `only`: run only these nodeids (the rest are deselected; a nodeid not collected is no error);
- `stop_after`: run only the tests up to and including this nodeid (the rest are deselected),
  so a recorded order can be replayed up to the test it made fail;
- `rng_seed`: before each test, seed `random` (and numpy's global generator when numpy is
  imported) from the seed and the nodeid, so an outcome depends on the seed, not the order;
- `block_network`: refuse every IPv4/IPv6 connection (`socket.socket.connect`/`connect_ex`,
  `socket.create_connection`) and append `{"nodeid", "address"}` to the file `record`.
"""

from __future__ import annotations

import errno
import hashlib
import json
import random
import socket
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pytest

from planegate.freeze.child.sweep_options import ProbeOptions, ProbeOrder

if TYPE_CHECKING:
    from planegate.runner.child.plugin_api import PluginContext

_INET = (socket.AF_INET, socket.AF_INET6)


def test_seed(run_seed: int, nodeid: str) -> int:
    """The seed one test gets in a run seeded with `run_seed` (64 bits, stable everywhere)."""
    digest = hashlib.sha256(f"{run_seed}:{nodeid}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


test_seed.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def reorder(nodeids: list[str], order: ProbeOrder, order_seed: int, given: list[str]) -> list[str]:
    """The nodeids in the order a probe runs them (pure; the plugin applies it to items)."""
    if order == "reverse":
        return list(reversed(nodeids))
    if order == "shuffle":
        shuffled = list(nodeids)
        random.Random(order_seed).shuffle(shuffled)
        return shuffled
    if order == "given":
        present = set(nodeids)
        first = [n for n in given if n in present]
        chosen = set(first)
        return first + [n for n in nodeids if n not in chosen]
    return list(nodeids)


def plugin(options: Mapping[str, Any], _context: PluginContext, /) -> object:
    """The probes of one session, for the options the sweep wrote (`ProbeOptions.as_dict`).

    Raises ValueError for an unknown order.
    """
    return ProbesPlugin(options)


class ProbesPlugin:
    """The probes of one session; the child hands in the options as the JSON object it read.

    Raises ValueError for an unknown order.
    """

    def __init__(self, options: ProbeOptions | Mapping[str, Any]) -> None:
        if not isinstance(options, ProbeOptions):
            options = ProbeOptions.from_mapping(options)
        self._options = options
        self._current = ""
        self._saved: dict[str, Any] = {}

    # pluggy passes a hook implementation only the arguments it names.
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        probe = self._options
        by_id = {item.nodeid: item for item in items}
        ordered = reorder(list(by_id), probe.order, probe.order_seed, list(probe.given))
        if probe.only is not None:
            ordered = [n for n in ordered if n in probe.only]
        if probe.stop_after is not None and probe.stop_after in ordered:
            ordered = ordered[: ordered.index(probe.stop_after) + 1]
        chosen = set(ordered)
        dropped = [item for item in items if item.nodeid not in chosen]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = [by_id[n] for n in ordered]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._current = item.nodeid
        if self._options.rng_seed is None:
            return
        value = test_seed(self._options.rng_seed, item.nodeid)
        random.seed(value)
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed(value % 2**32)

    def pytest_sessionstart(self) -> None:
        if not self._options.block_network:
            return
        self._saved = {
            "connect": socket.socket.connect,
            "connect_ex": socket.socket.connect_ex,
            "create_connection": socket.create_connection,
        }
        socket.socket.connect = self._connect_refuser()  # type: ignore[method-assign]
        socket.socket.connect_ex = self._connect_ex_refuser()  # type: ignore[method-assign]
        socket.create_connection = self._create_refuser()

    def pytest_sessionfinish(self) -> None:
        for name, original in self._saved.items():
            target: Any = socket if name == "create_connection" else socket.socket
            setattr(target, name, original)
        self._saved = {}

    # -- the refusals: closures over the plugin and the original methods

    def _connect_refuser(self) -> Callable[..., None]:
        plugin, original = self, self._saved["connect"]

        def connect(sock: socket.socket, address: Any) -> None:
            if sock.family not in _INET:
                original(sock, address)
                return
            plugin._note(address)
            raise OSError(errno.ENETUNREACH, "network blocked by the planegate sweep probe")

        return connect

    def _connect_ex_refuser(self) -> Callable[..., int]:
        plugin, original = self, self._saved["connect_ex"]

        def connect_ex(sock: socket.socket, address: Any) -> int:
            if sock.family not in _INET:
                return int(original(sock, address))
            plugin._note(address)
            return errno.ENETUNREACH

        return connect_ex

    def _create_refuser(self) -> Callable[..., socket.socket]:
        plugin = self

        def create_connection(address: Any, *_args: Any, **_kwargs: Any) -> socket.socket:
            plugin._note(address)
            raise OSError(errno.ENETUNREACH, "network blocked by the planegate sweep probe")

        return create_connection

    def _note(self, address: Any) -> None:
        if self._options.record is None:
            return
        line = json.dumps({"nodeid": self._current, "address": repr(address)})
        with open(self._options.record, "a", encoding="utf-8") as stream:
            stream.write(line + "\n")
