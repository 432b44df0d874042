"""A tiny shop library: the production code the demo's patches change."""
