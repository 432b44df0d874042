"""planegate: gate pull requests written by coding agents."""

__version__ = "0.1.0"
