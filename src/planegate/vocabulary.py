"""The closed sets of words planegate reads and writes, as types, and the sweep probes' options.

Each set is a `Literal` type (the values stay plain strings in JSON, YAML and reports) with
the tuple of its values beside it, in the order the docs list them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

Plane = Literal["property", "fixture", "freeze"]
PLANES: tuple[Plane, ...] = get_args(Plane)
# The planes whose tests vote; a frozen test runs in the shadow lane.
SCORING_PLANES: tuple[Plane, ...] = ("property", "fixture")

FlakeClass = Literal["timing", "order", "network", "rng", "env"]
FLAKE_CLASSES: tuple[FlakeClass, ...] = get_args(FlakeClass)

# How one sweep run orders the suite: run 0 as scored, run 1 reversed, later runs shuffled.
SweepMode = Literal["scoring", "reverse", "shuffle"]
SWEEP_MODES: tuple[SweepMode, ...] = get_args(SweepMode)

# What one nodeid did in one session ("missing": selected but never reported).
OutcomeName = Literal[
    "passed", "failed", "error", "skipped", "xfailed", "xpassed", "missing", "deselected"
]
OUTCOMES: tuple[OutcomeName, ...] = get_args(OutcomeName)

ProbeOrder = Literal["collected", "reverse", "shuffle", "given"]
PROBE_ORDERS: tuple[ProbeOrder, ...] = get_args(ProbeOrder)


@dataclass(frozen=True)
class ProbeOptions:
    """How the sweep's pytest plugin runs one session (runner/sweep_probes.py says what each
    option does). Crosses to the child process as a JSON object (`as_dict`/`from_mapping`)."""

    order: ProbeOrder = "collected"
    order_seed: int = 0
    given: tuple[str, ...] = ()
    only: frozenset[str] | None = None
    stop_after: str | None = None
    rng_seed: int | None = None
    block_network: bool = False
    record: str | None = None

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> ProbeOptions:
        """The options of a JSON object; absent keys take their defaults.

        Raises ValueError for an order that is not one of PROBE_ORDERS.
        """
        order = str(options.get("order", "collected"))
        if order not in PROBE_ORDERS:
            raise ValueError(f"unknown probe order {order!r}")
        only = options.get("only")
        stop = options.get("stop_after")
        seed = options.get("rng_seed")
        record = options.get("record")
        return cls(
            order=order,
            order_seed=int(options.get("order_seed", 0)),
            given=_strings(options.get("given", ())),
            only=frozenset(_strings(only)) if only is not None else None,
            stop_after=str(stop) if stop is not None else None,
            rng_seed=int(seed) if seed is not None else None,
            block_network=bool(options.get("block_network", False)),
            record=str(record) if record is not None else None,
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON object `from_mapping` reads back as these options."""
        return {
            "order": self.order,
            "order_seed": self.order_seed,
            "given": list(self.given),
            "only": sorted(self.only) if self.only is not None else None,
            "stop_after": self.stop_after,
            "rng_seed": self.rng_seed,
            "block_network": self.block_network,
            "record": self.record,
        }


def _strings(values: Iterable[object]) -> tuple[str, ...]:
    return tuple(str(value) for value in values)
