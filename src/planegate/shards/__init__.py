"""`gate --shard K/N` and `gate --merge`: the scoring tests split across machines.

- `slicing.py`: which nodeids shard K of N runs (pure, deterministic);
- `run.py`: one shard's run of its slice, and its evidence;
- `evidence.py`: the evidence file (`planegate-shard/1`), written and read back as untrusted;
- `merge.py`: the shards' evidence checked against git and each other, judged once;
- `combine.py`: their executions folded into one (pure).

docs/runner.md#sharding says what runs where.
"""
