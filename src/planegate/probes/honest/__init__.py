"""Honest values: every value main's asserts compare in the scoring run is checked for
equality that answers yes to anything, and for a comparison the patch's class bends."""
