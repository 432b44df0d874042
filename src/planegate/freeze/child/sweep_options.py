"""The sweep probes' options: what the parent's sweep plan (`freeze/sweep.py`) hands the
child's plugin (`freeze/child/sweep_probes.py`), as a JSON object both sides read."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

ProbeOrder = Literal["collected", "reverse", "shuffle", "given"]
PROBE_ORDERS: tuple[ProbeOrder, ...] = get_args(ProbeOrder)


@dataclass(frozen=True)
class ProbeOptions:
    """How the sweep's pytest plugin runs one session (`sweep_probes.py` beside this says what
    each option does). Crosses to the child process as a JSON object (`as_dict`/`from_mapping`)."""

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
