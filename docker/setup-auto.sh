#!/bin/sh
# planegate-setup-auto - the default `setup` of the action: install the gated project's test
# dependencies inside the untrusted phase's container (PIP_PREFIX=/tmp/planegate-project).
#
#   pyproject.toml / setup.py / setup.cfg   pip install -e ".[EXTRA]" for the first extra
#                                           named test, tests, testing or dev that exists,
#                                           else pip install -e .
#   requirements*.txt at the top level      pip install -r each (test/dev ones included)
#
# Runs in the working directory. Exits non-zero when an install fails; the action then fails
# the check (the patch may have broken its own install) without running any test.
set -eu
installed=0
if [ -f pyproject.toml ] || [ -f setup.py ] || [ -f setup.cfg ]; then
	extra=$(python - <<'PY'
import sys
try:
    import tomllib
    with open("pyproject.toml", "rb") as handle:
        extras = tomllib.load(handle).get("project", {}).get("optional-dependencies", {})
except (OSError, ValueError):
    extras = {}
print(next((name for name in ("test", "tests", "testing", "dev") if name in extras), ""))
PY
)
	if [ -n "$extra" ]; then
		echo "planegate-setup-auto: pip install -e .[$extra]"
		python -m pip install --quiet -e ".[$extra]"
	else
		echo "planegate-setup-auto: pip install -e ."
		python -m pip install --quiet -e .
	fi
	installed=1
fi
for requirements in requirements*.txt; do
	[ -f "$requirements" ] || continue
	echo "planegate-setup-auto: pip install -r $requirements"
	python -m pip install --quiet -r "$requirements"
	installed=1
done
if [ "$installed" = 0 ]; then
	echo "planegate-setup-auto: no pyproject.toml, setup.py, setup.cfg or requirements*.txt; nothing to install"
fi
