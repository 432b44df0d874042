"""The probe options, as a property: they survive the JSON trip to the child."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from planegate.freeze.child.sweep_options import PROBE_ORDERS, ProbeOptions

NAMES = st.text(st.characters(codec="utf-8"), max_size=8)
OPTIONS = st.builds(
    ProbeOptions,
    order=st.sampled_from(PROBE_ORDERS),
    order_seed=st.integers(0, 2**31),
    given=st.lists(NAMES, max_size=4).map(tuple),
    only=st.none() | st.frozensets(NAMES, max_size=4),
    stop_after=st.none() | NAMES,
    rng_seed=st.none() | st.integers(0, 2**31),
    block_network=st.booleans(),
    record=st.none() | NAMES,
)


@settings(derandomize=True, max_examples=200)
@given(OPTIONS)
def test_probe_options_survive_the_json_trip_to_the_child(options: ProbeOptions) -> None:
    sent = json.loads(json.dumps(options.as_dict()))
    assert ProbeOptions.from_mapping(sent) == options
