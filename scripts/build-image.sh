#!/usr/bin/env bash
# build-image.sh - build the planegate container image from this checkout.
#
# The Docker build itself never resolves or downloads a Python package: this script fills
# wheelhouse/ on the host first (planegate's own wheel, plus every pin of requirements.lock
# as a binary wheel for CPython 3.12 on each target architecture), and the Dockerfile installs
# exactly that set with --no-index. The same path serves CI, the release, `make image-smoke`
# and the action's fallback build when the prebuilt image cannot be pulled.
#
# usage: scripts/build-image.sh TAG [docker build args...]
# env:   PLANEGATE_ARCHES   architectures to fetch wheels for (default: the host's, e.g.
#                           "x86_64"; the release passes "x86_64 aarch64")
#        PLANEGATE_PYTHON   interpreter used to build the wheel and run pip (default python3)
#        PLANEGATE_DOCKER   docker command (default docker); set to "" to only fill wheelhouse/
#        PLANEGATE_BASE     an image to build on instead of the Dockerfile's pinned base (an
#                           engine without a registry: python:3.12-slim, a local stand-in);
#                           the build then uses a copy of the Dockerfile with its `AS base`
#                           line's image replaced
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:?usage: build-image.sh TAG [docker build args...]}
shift
python=${PLANEGATE_PYTHON:-python3}
arches=${PLANEGATE_ARCHES:-$(uname -m)}
docker_cmd=${PLANEGATE_DOCKER-docker}
wheelhouse=$here/wheelhouse

rm -rf "$wheelhouse"
mkdir -p "$wheelhouse"
"$python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$wheelhouse" "$here"
for arch in $arches; do
	plats=()
	# Debian bookworm (the base image) has glibc 2.36: accept manylinux tags up to that.
	for ((m = 36; m >= 17; m--)); do plats+=(--platform "manylinux_2_${m}_${arch}"); done
	plats+=(--platform "manylinux2014_${arch}")
	"$python" -m pip download --quiet --disable-pip-version-check --no-deps \
		--only-binary=:all: --implementation cp --python-version 3.12 "${plats[@]}" \
		--dest "$wheelhouse" -r "$here/requirements.lock"
done
echo "build-image.sh: wheelhouse has $(find "$wheelhouse" -name '*.whl' | wc -l) wheels for: $arches"
[[ -n $docker_cmd ]] || exit 0
dockerfile=$here/Dockerfile
if [[ -n ${PLANEGATE_BASE:-} ]]; then
	dockerfile=$(mktemp /tmp/planegate-dockerfile.XXXXXX)
	trap 'rm -f "$dockerfile"' EXIT
	sed -E "s#^FROM [^ ]+ AS base\$#FROM ${PLANEGATE_BASE} AS base#" "$here/Dockerfile" >"$dockerfile"
	grep -qx "FROM ${PLANEGATE_BASE} AS base" "$dockerfile" ||
		{ echo "build-image.sh: the Dockerfile has no 'FROM ... AS base' line to replace" >&2; exit 1; }
fi
# --network=host: the Dockerfile's apt-get needs the network on engines without a bridge.
$docker_cmd build --network=host -f "$dockerfile" -t "$tag" "$@" "$here"
