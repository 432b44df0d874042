"""Sampled canaries: main's scoring tests run again inside the head's run with a production
function they call broken; each must fail."""
