"""The observed signs: a fixture test surviving its perturbed data (PG106), production code
opening what main's tests read (PG562), a harness change no line made (PG107), a process or
a foreign function production code started (PG563, PG564), each weighed against what main
shows under the same conditions.

- `record.py`: what main's run records of them for the digest (`planegate digest`);
- `on_main.py`: what main shows of the head's signs (the digest's record, or sessions on the
  base's tree);
- `compare.py`: what main showed (`MainsSigns`) and the pure comparisons; `lines.py`: whether
  a line of the tree is main's own;
- `findings.py`: the findings, each weighed against main; `spawned.py`: those of process
  starts and foreign-function loads; `unseen.py`: locked files opened where the audit hook
  cannot see (PG565, from the kernel's count);
- `wire.py`: their part of `run.json`.

Nothing here runs inside the test child.
"""
