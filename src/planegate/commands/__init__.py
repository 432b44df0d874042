"""One thin shell per verb: read files, call the pure core, print, return an exit code.

Each verb module has `run(args)`; heavy cores (the gate, the sweep, GitHub) are imported
inside it, so `planegate explain` does not pay for them. `planegate.cli` holds the table.
"""
