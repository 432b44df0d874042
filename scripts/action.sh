#!/usr/bin/env bash
# action.sh - the host side of the planegate composite action (action.yml calls it).
#
#   action.sh prepare   refuse a runner without Linux and Docker, pick the image (the
#                       digest-pinned prebuilt one, else build it from the action's own
#                       Dockerfile and say so), make the shared folders, copy the event-file and
#                       ca-bundle inputs where phase 1 cannot write, refuse a checkout that
#                       persisted credentials into .git/config
#   action.sh fetch     gate mode, before phase 1: main's digest artifact, downloaded with the
#                       token by planegate alone (no project code runs), into a folder phase 1
#                       gets read-only; without one, phase 1 runs the base's tests itself
#   action.sh run       phase 1, untrusted: the `setup` command and the tests, in a container
#                       with NO token, no file-command paths and no runner tokens; the
#                       workspace read-only; the setup and the tests as a user of their own,
#                       planegate isolated as the user that alone can write the exchange
#                       folder (docker/phase1.sh, the image's planegate-phase1)
#   action.sh judge     phase 2, trusted: the token, the original workspace read-only and the
#                       exchange folder read-only; never executes project code
#
# Every value arrives as an environment variable set by action.yml's `env:` blocks and is
# handed to docker by name (-e NAME), never spliced into a command line. The exact variables
# each phase receives are listed in docs/action-contract.md.
set -euo pipefail

die() {
	printf '::error title=planegate::%s\n' "$*"
	exit 1
}

# Values go to $GITHUB_OUTPUT with a random delimiter, so no value can end the record early.
output() {
	local delimiter
	delimiter="planegate_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
	printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"
}

# The uid the containers run as: the runner's own (it owns the workspace) unless that is root,
# in which case the image's unprivileged user. In phase 1 this is planegate's user.
container_user() {
	if [[ $(id -u) == 0 ]]; then printf '10001:10001'; else printf '%s:%s' "$(id -u)" "$(id -g)"; fi
}

# The uid phase 1's setup and tests run as: 10002 (the image's planegate-project), never
# planegate's own.
project_user() {
	local uid=10002
	[[ ${1%%:*} != "$uid" ]] || uid=10003
	printf '%s:%s' "$uid" "$uid"
}

# Docker options common to both phases: no new privileges, no capabilities, bounded pids.
hardening=(--rm --init --cap-drop ALL --security-opt no-new-privileges --pids-limit 4096)
# Phase 1 starts as root with these only, to copy the workspace for the setup and switch users
# (docker/phase1.sh); none of them reaches the setup or the tests.
phase1_caps=(--cap-add CHOWN --cap-add DAC_READ_SEARCH --cap-add SETUID --cap-add SETGID
	--cap-add SETPCAP --cap-add KILL)
# Phase 1's tests run in bubblewrap (docs/security.md), which needs a user namespace and a fresh
# /proc: Docker's default seccomp profile refuses the first, its masked /proc paths the second,
# and its AppArmor profile (where AppArmor is on) the mounts. Measured on Docker 28.2:
# the first two are needed (AppArmor was off); the capabilities stay as above, reach no test.
phase1_sandbox=(--security-opt seccomp=unconfined --security-opt systempaths=unconfined
	--security-opt apparmor=unconfined)
# PLANEGATE_DOCKER_NETWORK (host side, optional): e.g. "host" where the engine has no bridge.
if [[ -n ${PLANEGATE_DOCKER_NETWORK:-} ]]; then hardening+=(--network "$PLANEGATE_DOCKER_NETWORK"); fi

# One line, and what to do instead: the action runs two containers, so it needs Linux and Docker.
need_docker() {
	local where="runner OS ${RUNNER_OS:-unknown}"
	if [[ ${RUNNER_OS:-Linux} != Linux ]]; then
		die "planegate needs a Linux runner with Docker ($where): use runs-on: ubuntu-24.04, or run the CLI without the action: pipx run --spec git+https://github.com/planegate/planegate planegate gate --base main"
	fi
	if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
		die "planegate needs Docker on the runner and found none usable ($where; 'docker info' failed): use a GitHub-hosted ubuntu runner, install Docker on this self-hosted runner, or run the CLI without the action: pipx run --spec git+https://github.com/planegate/planegate planegate gate --base main"
	fi
}

# stage NAME VALUE: copy an input file (relative to the working directory) into $dir/in, which
# phase 1 never mounts writable, so the judge reads what the workflow named and nothing else.
stage() {
	local name=$1 given=$2 dir=$3 workdir=$4
	[[ -n $given ]] || return 0
	[[ $given == /* ]] || given=$workdir/$given
	[[ -f $given ]] || die "$name $given does not exist"
	cp "$given" "$dir/in/$name"
	chmod 0644 "$dir/in/$name"
}

prepare() {
	case ${INPUT_MODE:-} in gate | digest | sweep | report | merge) ;; *)
		die "mode must be gate, digest, sweep, report or merge, got '${INPUT_MODE:-}'" ;;
	esac
	if [[ -n ${INPUT_SHARD:-} && ${INPUT_MODE:-} != gate ]]; then
		die "the shard input belongs to gate mode (the merge job uses mode merge), got mode '${INPUT_MODE:-}'"
	fi
	case ${INPUT_DIGEST_UPLOAD:-v4} in v4 | v3 | off) ;; *)
		die "digest-upload must be v4, v3 or off, got '${INPUT_DIGEST_UPLOAD:-}'" ;;
	esac
	need_docker
	local workspace=${GITHUB_WORKSPACE:?} workdir
	workdir=$(cd "$workspace/${INPUT_WORKING_DIRECTORY:-.}" && pwd) ||
		die "working-directory '${INPUT_WORKING_DIRECTORY:-}' does not exist in the workspace"
	case $workdir/ in "$workspace"/*) ;; *) die "working-directory must stay inside the workspace" ;; esac
	if git -C "$workdir" config --get-regexp '^http\..*\.extraheader$' >/dev/null 2>&1; then
		die "the checkout persisted a token in .git/config; the untrusted phase would see it. Use actions/checkout with persist-credentials: false"
	fi

	local dir=${RUNNER_TEMP:?}/planegate-${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-1}-$$
	mkdir -p "$dir/exchange" "$dir/out" "$dir/in" "$dir/main"
	# written by phase 1's planegate alone (the judge's user too); never by the project's user
	chmod 0700 "$dir/exchange"
	if [[ $(id -u) == 0 ]]; then chown "$(container_user)" "$dir/exchange"; fi
	chmod 0755 "$dir/in" "$dir/main"
	if [[ $(id -u) == 0 ]]; then chown "$(container_user)" "$dir/main"; fi
	stage event.json "${INPUT_EVENT_FILE:-}" "$dir" "$workdir"
	# a private CA: the input, else the runner's REQUESTS_CA_BUNDLE (GitHub Enterprise Server)
	stage ca-bundle.pem "${INPUT_CA_BUNDLE:-${REQUESTS_CA_BUNDLE:-}}" "$dir" "$workdir"

	local image=${INPUT_IMAGE:-$PLANEGATE_IMAGE_PIN}
	if docker image inspect "$image" >/dev/null 2>&1 || docker pull --quiet "$image" >/dev/null 2>&1; then
		echo "planegate: using image $image"
	else
		local built
		built="planegate-action:local-$(cd "$GITHUB_ACTION_PATH" && git rev-parse --short=12 HEAD 2>/dev/null || echo dev)"
		echo "::notice title=planegate::image $image is not available; building $built from $GITHUB_ACTION_PATH/Dockerfile (slower: pin a published image or set the image input)"
		"$GITHUB_ACTION_PATH/scripts/build-image.sh" "$built" ${PLANEGATE_BUILD_ARGS:-} ||
			die "could not pull $image nor build the planegate image from $GITHUB_ACTION_PATH/Dockerfile (the build needs PyPI and a Debian mirror): use a released tag (@vX.Y.Z pins a published image), or mirror the image and set the image input (docs/recipes.md)"
		image=$built
	fi
	output image "$image"
	output dir "$dir"
	output workdir "$workdir"
}

# Print a container's output without letting GitHub read workflow commands in it.
guarded() {
	local token
	token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	echo "::stop-commands::$token"
	local status=0
	"$@" || status=$?
	echo "::$token::"
	return "$status"
}

# Mounts and variables of the staged inputs (event-file, ca-bundle), read-only, for one phase.
staged=()
staged_inputs() {
	local dir=$1
	staged=()
	if [[ -f $dir/in/event.json ]]; then
		export INPUT_EVENT_FILE=/github/in/event.json
		staged+=(-v "$dir/in/event.json:$INPUT_EVENT_FILE:ro" -e INPUT_EVENT_FILE)
	fi
	if [[ -f $dir/in/ca-bundle.pem ]]; then
		export INPUT_CA_BUNDLE=/github/in/ca-bundle.pem
		export REQUESTS_CA_BUNDLE=$INPUT_CA_BUNDLE SSL_CERT_FILE=$INPUT_CA_BUNDLE PIP_CERT=$INPUT_CA_BUNDLE
		staged+=(-v "$dir/in/ca-bundle.pem:$INPUT_CA_BUNDLE:ro" -e INPUT_CA_BUNDLE)
		staged+=(-e REQUESTS_CA_BUNDLE -e SSL_CERT_FILE -e PIP_CERT)
	fi
}

run_phase() {
	local dir=${PLANEGATE_DIR:?} image=${PLANEGATE_IMAGE_REF:?} workspace=${GITHUB_WORKSPACE:?}
	if [[ $INPUT_MODE == report || $INPUT_MODE == merge ]]; then
		echo "planegate: mode $INPUT_MODE executes nothing; phase 1 skipped"
		output exit-code 0
		return 0
	fi
	# Phase 1 reads the workspace read-only; the setup works in a copy of its own, in the container.
	local user
	user=$(container_user)
	local event_mount=()
	if [[ -n ${GITHUB_EVENT_PATH:-} && -f $GITHUB_EVENT_PATH ]]; then
		event_mount=(-v "$GITHUB_EVENT_PATH:/github/event.json:ro" -e GITHUB_EVENT_PATH=/github/event.json)
	fi
	export INPUT_PHASE=run PLANEGATE_EXCHANGE=$dir/exchange HOME=/tmp/planegate-home
	export PLANEGATE_SETUP=${INPUT_SETUP:-} PLANEGATE_GATE_USER=$user
	PLANEGATE_PROJECT_USER=$(project_user "$user")
	export PLANEGATE_PROJECT_USER
	# the workspace may belong to another uid than planegate's (a root runner)
	export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0=$workspace
	export GIT_CONFIG_KEY_1=safe.directory GIT_CONFIG_VALUE_1=$PLANEGATE_WORKDIR
	staged_inputs "$dir"
	local main=()
	if [[ -f $dir/main/planegate-digest.json ]]; then
		export PLANEGATE_MAIN_DIGEST=/github/main
		main=(-v "$dir/main:$PLANEGATE_MAIN_DIGEST:ro" -e PLANEGATE_MAIN_DIGEST)
	fi
	local status=0
	guarded docker run "${hardening[@]}" "${phase1_caps[@]}" "${phase1_sandbox[@]}" --user 0:0 \
		-v "$workspace:$workspace:ro" -v "$dir/exchange:$dir/exchange" "${event_mount[@]}" "${staged[@]}" "${main[@]}" \
		-w "$PLANEGATE_WORKDIR" \
		-e HOME -e CI=true -e GITHUB_ACTIONS=true -e GITHUB_WORKSPACE \
		-e GITHUB_EVENT_NAME -e GITHUB_REPOSITORY -e GITHUB_SHA -e GITHUB_REF \
		-e GIT_CONFIG_COUNT -e GIT_CONFIG_KEY_0 -e GIT_CONFIG_VALUE_0 -e GIT_CONFIG_KEY_1 -e GIT_CONFIG_VALUE_1 \
		-e INPUT_PHASE -e INPUT_MODE -e INPUT_CONFIG -e INPUT_BASE -e INPUT_HEAD -e INPUT_SHARD \
		-e INPUT_WORKING_DIRECTORY -e INPUT_BROKEN_HERE -e PLANEGATE_EXCHANGE -e PLANEGATE_SETUP \
		-e PLANEGATE_GATE_USER -e PLANEGATE_PROJECT_USER \
		--entrypoint planegate-phase1 "$image" || status=$?
	echo "planegate: phase 1 (untrusted) exited $status"
	output exit-code "$status"
}

# Main's digest for phase 1, fetched with the token by planegate alone: the same container
# settings as the judge's, the workspace read-only, and only $dir/main writable.
fetch_phase() {
	local dir=${PLANEGATE_DIR:?} image=${PLANEGATE_IMAGE_REF:?} workspace=${GITHUB_WORKSPACE:?}
	[[ $INPUT_MODE == gate ]] || return 0
	local user event_mount=()
	user=$(container_user)
	if [[ -n ${GITHUB_EVENT_PATH:-} && -f $GITHUB_EVENT_PATH ]]; then
		event_mount=(-v "$GITHUB_EVENT_PATH:/github/event.json:ro" -e GITHUB_EVENT_PATH=/github/event.json)
	fi
	export INPUT_PHASE=fetch PLANEGATE_MAIN_DIGEST=/github/main HOME=/tmp/planegate-home
	export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0=$workspace
	export GIT_CONFIG_KEY_1=safe.directory GIT_CONFIG_VALUE_1=$PLANEGATE_WORKDIR
	staged_inputs "$dir"
	docker run "${hardening[@]}" --user "$user" --read-only --tmpfs /tmp \
		-v "$workspace:$workspace:ro" -v "$dir/main:$PLANEGATE_MAIN_DIGEST" "${event_mount[@]}" "${staged[@]}" \
		-w "$PLANEGATE_WORKDIR" \
		-e HOME -e CI=true -e GITHUB_ACTIONS=true -e GITHUB_WORKSPACE -e GITHUB_TOKEN \
		-e GITHUB_API_URL -e GITHUB_SERVER_URL -e GITHUB_REPOSITORY -e GITHUB_REPOSITORY_ID \
		-e GITHUB_EVENT_NAME -e GITHUB_SHA -e GITHUB_REF -e GITHUB_HEAD_REF -e GITHUB_BASE_REF \
		-e GIT_CONFIG_COUNT -e GIT_CONFIG_KEY_0 -e GIT_CONFIG_VALUE_0 -e GIT_CONFIG_KEY_1 -e GIT_CONFIG_VALUE_1 \
		-e INPUT_PHASE -e INPUT_MODE -e INPUT_CONFIG -e INPUT_BASE -e INPUT_HEAD \
		-e INPUT_DIGEST_ARTIFACT -e INPUT_AGENT_AUTHORS -e INPUT_AGENT_LABELS -e INPUT_SHARD \
		-e INPUT_WORKING_DIRECTORY -e PLANEGATE_MAIN_DIGEST \
		"$image" || echo "::warning title=planegate::main's digest was not fetched; phase 1 runs the base's tests itself"
	return 0
}

judge_phase() {
	local dir=${PLANEGATE_DIR:?} image=${PLANEGATE_IMAGE_REF:?} workspace=${GITHUB_WORKSPACE:?}
	local report=$dir/out/planegate-report.json
	if [[ $INPUT_MODE == report ]]; then
		local given=${PLANEGATE_REPORT_FILE:-}
		[[ -n $given ]] || die "mode report needs the report-file input"
		[[ $given == /* ]] || given=$PLANEGATE_WORKDIR/$given
		[[ -f $given ]] || die "report-file $PLANEGATE_REPORT_FILE does not exist"
		cp "$given" "$dir/exchange/report.json"
		export INPUT_REPORT_FILE=$dir/exchange/report.json
	else
		export INPUT_REPORT_FILE=$report
	fi
	local user name
	user=$(container_user)
	local mounts=(-v "$workspace:$workspace:ro" -v "$dir/exchange:$dir/exchange:ro" -v "$dir/out:$dir/out")
	local files=()
	for name in GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_EVENT_PATH; do
		local path=${!name:-}
		[[ -n $path && -e $path ]] || continue
		local mode=rw
		[[ $name == GITHUB_EVENT_PATH ]] && mode=ro
		[[ $user != 10001:10001 || $mode == ro ]] || chmod a+rw "$path"
		mounts+=(-v "$path:/github/file/$name:$mode")
		files+=(-e "$name=/github/file/$name")
	done
	chmod 0777 "$dir/out"
	export INPUT_PHASE=judge PLANEGATE_EXCHANGE=$dir/exchange PLANEGATE_OUT=$dir/out
	export HOME=/tmp/planegate-home
	export PLANEGATE_RUN_EXIT=${PLANEGATE_RUN_EXIT:-}
	# the repository may be the working-directory below the workspace, owned by another uid
	export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0=$workspace
	export GIT_CONFIG_KEY_1=safe.directory GIT_CONFIG_VALUE_1=$PLANEGATE_WORKDIR
	staged_inputs "$dir"
	local status=0
	docker run "${hardening[@]}" --user "$user" --read-only --tmpfs /tmp \
		"${mounts[@]}" "${files[@]}" "${staged[@]}" -w "$PLANEGATE_WORKDIR" \
		-e HOME -e CI=true -e GITHUB_ACTIONS=true -e GITHUB_WORKSPACE -e GITHUB_TOKEN \
		-e GITHUB_API_URL -e GITHUB_SERVER_URL -e GITHUB_GRAPHQL_URL \
		-e GITHUB_REPOSITORY -e GITHUB_REPOSITORY_ID -e GITHUB_REPOSITORY_OWNER \
		-e GITHUB_EVENT_NAME -e GITHUB_SHA -e GITHUB_REF -e GITHUB_HEAD_REF -e GITHUB_BASE_REF \
		-e GITHUB_RUN_ID -e GITHUB_RUN_ATTEMPT -e GITHUB_WORKFLOW -e GITHUB_JOB -e GITHUB_ACTOR \
		-e GIT_CONFIG_COUNT -e GIT_CONFIG_KEY_0 -e GIT_CONFIG_VALUE_0 -e GIT_CONFIG_KEY_1 -e GIT_CONFIG_VALUE_1 \
		-e INPUT_PHASE -e INPUT_MODE -e INPUT_CONFIG -e INPUT_BASE -e INPUT_HEAD \
		-e INPUT_DIGEST_ARTIFACT -e INPUT_COMMENT -e INPUT_ANNOTATIONS -e INPUT_MENTION_OWNERS \
		-e INPUT_CHECK_NAME -e INPUT_COMMENT_AUTHOR -e INPUT_AGENT_AUTHORS -e INPUT_AGENT_LABELS \
		-e INPUT_SARIF -e INPUT_BROKEN_HERE -e INPUT_WORKING_DIRECTORY -e INPUT_REPORT_FILE -e INPUT_SHARD \
		-e PLANEGATE_EXCHANGE \
		-e PLANEGATE_OUT \
		-e PLANEGATE_RUN_EXIT \
		"$image" || status=$?
	if [[ $INPUT_MODE != report && -f $report ]]; then
		local final=$report
		if [[ -n ${PLANEGATE_REPORT_FILE:-} ]]; then
			final=$PLANEGATE_REPORT_FILE
			[[ $final == /* ]] || final=$PLANEGATE_WORKDIR/$final
			cp "$report" "$final"
		fi
		output report-path "$final"
	fi
	if [[ $INPUT_MODE == digest && -f $dir/out/planegate-digest.json ]]; then
		output digest-path "$dir/out/planegate-digest.json"
	fi
	if [[ -n ${INPUT_SHARD:-} && -f $dir/out/planegate-shard.json ]]; then
		local index=${INPUT_SHARD%%/*} total=${INPUT_SHARD##*/}
		output shard-path "$dir/out/planegate-shard.json"
		output shard-artifact "planegate-shard-${index//[^0-9]/}-of-${total//[^0-9]/}"
	fi
	echo "planegate: phase 2 (judge) exited $status"
	return "$status"
}

case ${1:-} in
prepare) prepare ;;
fetch) fetch_phase ;;
run) run_phase ;;
judge) judge_phase ;;
*) echo "usage: action.sh prepare|fetch|run|judge" >&2 && exit 64 ;;
esac
