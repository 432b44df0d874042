"""Answer probes: the tests a patch flips (fail on main, pass on the patch) rerun with
strict comparisons, called plainly, repeated, alone and with fresh inputs."""
