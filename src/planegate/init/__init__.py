"""`planegate init`, `migrate` and discovery: collect a checkout's suite as the gate will,
propose a planegate.yml, split mixed files, and say what the tests read."""
