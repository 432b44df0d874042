#!/usr/bin/env bash
# image-smoke.sh - build the image and run the action's two phases, as action.yml runs them
# (through scripts/action.sh), on fixture copies of the demo repository: an honest patch
# that must pass, a cheating one (rewritten golden file) that must fail with exit 3, and a
# hostile install (a production bug plus a build backend that plants code everywhere) that
# must fail with exit 1.
#
# Needs a Docker engine (here: /work/shared/tools/local-container.sh up). Run: make image-smoke
#
# Checks, in order:
#   1. the image builds and `planegate --version` in it prints the package version;
#   2. it runs as a non-root user;
#   3. phase 1 gets no token: with GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN and
#      ACTIONS_ID_TOKEN_REQUEST_TOKEN set on the "runner", the phase-1 container's environment
#      (printed by its setup command) holds none of them, no GITHUB_OUTPUT/ENV/PATH/
#      STEP_SUMMARY/STATE variable, and none of those files is mounted; the setup runs as a
#      user of its own that cannot write the exchange folder;
#   4. with `planegate action` in the image and a fake GitHub server, both phases on the honest
#      and the cheating patch: verdict and exit-code outputs, one check run each (success /
#      failure) and one sticky comment on the fake server;
#   5. the hostile install (scripts/fixture-hostile.py, setup: auto): the verdict is still
#      failure, exit 1; the planted code never ran inside planegate's own process; the test
#      child ran it (the project's .pth, after the harness) as the project's user; and nothing
#      it or the production code could write is the exchange folder, planegate's HOME, the
#      workspace or the interpreter's folders.
#
# Check 4 needs `planegate action` (docs/action-contract.md) and the fake GitHub server from
# the tests. It expects SMOKE_FAKE_GITHUB, a command (default below) that serves the fake API
# on 127.0.0.1, prints its base URL as the first line of stdout, and on SIGTERM writes its
# state as JSON ({"check_runs": [...], "comments": [...]}) to the file named by
# $FAKE_GITHUB_STATE. Until both exist, check 4 reports NOT RUN and the script exits 1;
# SMOKE_ALLOW_PARTIAL=1 makes that exit 0 (checks 1-3 still have to pass).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
python=${SMOKE_PYTHON:-$here/.venv/bin/python}
image=${SMOKE_IMAGE:-planegate:smoke}
fake_github=${SMOKE_FAKE_GITHUB:-env PYTHONPATH=tests $python -m helpers.fake_github --serve}
failures=0
pass() { printf 'image-smoke: ok    %s\n' "$*"; }
fail() {
	printf 'image-smoke: FAIL  %s\n' "$*"
	failures=$((failures + 1))
}

# wheels are fetched for CPython 3.12 (the image's Python): find a 3.12 that runs
build_python=${SMOKE_BUILD_PYTHON:-}
if [[ -z $build_python ]]; then
	for candidate in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
		if "$candidate" --version >/dev/null 2>&1; then
			build_python=$candidate
			break
		fi
	done
fi
[[ -n $build_python ]] || { echo "image-smoke: no python3.12 found (set SMOKE_BUILD_PYTHON)"; exit 69; }

docker info >/dev/null 2>&1 || { echo "image-smoke: no Docker engine (local-container.sh up)"; exit 69; }

# 1. build
# SMOKE_BASE: the base image (default the local stand-in python:3.12-slim; empty: the
# Dockerfile's pinned base, from a registry)
PLANEGATE_PYTHON=$build_python PLANEGATE_BASE=${SMOKE_BASE-python:3.12-slim} \
	"$here/scripts/build-image.sh" "$image" ${SMOKE_BUILD_ARGS:-} >/tmp/planegate-image-smoke-build.log 2>&1 ||
	{ tail -20 /tmp/planegate-image-smoke-build.log; echo "image-smoke: build failed"; exit 1; }
version=$("$python" -c 'import planegate; print(planegate.__version__)')
got=$(docker run --rm --entrypoint planegate "$image" --version)
[[ $got == "planegate $version" ]] && pass "image builds; --version says '$got'" || fail "--version said '$got', want 'planegate $version'"
size=$(docker image inspect --format '{{.Size}}' "$image")
echo "image-smoke: image size $((size / 1000000)) MB"
uid=$(docker run --rm --entrypoint id "$image" -u)
[[ $uid != 0 ]] && pass "image user is uid $uid" || fail "image runs as root"

# A fake runner: the variables and files GitHub's runner provides to a composite step.
scratch=$(mktemp -d /tmp/planegate-smoke.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
fake_runner() { # fake_runner NAME PATCH [hostile] -> prints the workspace
	local ws=$scratch/$1/workspace
	mkdir -p "$scratch/$1/temp" "$scratch/$1/files" "$ws"
	"$python" scripts/fixture-repo.py "$ws/repo" "$2" >/dev/null
	if [[ ${3:-} == hostile ]]; then "$python" scripts/fixture-hostile.py "$ws/repo"; fi
	: >"$scratch/$1/files/output"
	: >"$scratch/$1/files/summary"
	: >"$scratch/$1/files/env"
	local head base
	head=$(git -C "$ws/repo" rev-parse HEAD)
	base=$(git -C "$ws/repo" rev-parse main)
	cat >"$scratch/$1/files/event.json" <<JSON
{"action": "synchronize", "number": 7,
 "pull_request": {"number": 7, "head": {"sha": "$head", "ref": "patch", "repo": {"id": 1, "full_name": "demo/shop"}},
  "base": {"sha": "$base", "ref": "main", "repo": {"id": 1, "full_name": "demo/shop"}},
  "user": {"login": "coder[bot]"}, "labels": [{"name": "agent"}]},
 "repository": {"id": 1, "full_name": "demo/shop", "default_branch": "main"}}
JSON
}
runner_env() { # runner_env NAME -> the environment of one composite step
	local d=$scratch/$1
	printf '%s\n' \
		"GITHUB_ACTION_PATH=$here" "GITHUB_WORKSPACE=$d/workspace" "RUNNER_TEMP=$d/temp" \
		"GITHUB_OUTPUT=$d/files/output" "GITHUB_STEP_SUMMARY=$d/files/summary" \
		"GITHUB_ENV=$d/files/env" "GITHUB_PATH=$d/files/env" "GITHUB_STATE=$d/files/env" \
		"GITHUB_EVENT_PATH=$d/files/event.json" "GITHUB_EVENT_NAME=pull_request" \
		"GITHUB_REPOSITORY=demo/shop" "GITHUB_REPOSITORY_ID=1" "GITHUB_REPOSITORY_OWNER=demo" \
		"GITHUB_RUN_ID=1" "GITHUB_RUN_ATTEMPT=1" "GITHUB_SHA=$(git -C "$d/workspace/repo" rev-parse HEAD)" \
		"GITHUB_TOKEN=ghs_smoke_canary_token" "ACTIONS_RUNTIME_TOKEN=smoke_runtime_canary" \
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN=smoke_oidc_canary" "PLANEGATE_DOCKER_NETWORK=host" \
		"INPUT_IMAGE=$image" "INPUT_MODE=gate" "INPUT_BASE=main" "INPUT_CONFIG=" \
		"INPUT_WORKING_DIRECTORY=repo" "INPUT_COMMENT=always" "INPUT_ANNOTATIONS=true" \
		"INPUT_MENTION_OWNERS=false" "INPUT_CHECK_NAME=planegate" "INPUT_DIGEST_ARTIFACT=planegate-digest" \
		"PLANEGATE_IMAGE_PIN=ghcr.io/planegate/planegate@sha256:$(printf '0%.0s' {1..64})"
}
step_output() { # step_output NAME KEY -> last value written for KEY to the step's GITHUB_OUTPUT
	"$python" - "$scratch/$1/files/output" "$2" <<'PY'
import sys
lines, key, value = open(sys.argv[1]).read().split("\n"), sys.argv[2], ""
i = 0
while i < len(lines):
    line = lines[i]
    if "<<" in line:
        name, delim = line.split("<<", 1)
        end = lines.index(delim, i + 1)
        if name == key:
            value = "\n".join(lines[i + 1 : end])
        i = end + 1
        continue
    if "=" in line and line.split("=", 1)[0] == key:
        value = line.split("=", 1)[1]
    i += 1
print(value)
PY
}
action() { # action NAME STEP [VAR=VALUE...]
	local name=$1 step=$2
	shift 2
	env -i HOME="$HOME" PATH="$PATH" $(runner_env "$name") "$@" "$here/scripts/action.sh" "$step"
}

# 3. phase 1 gets no token
fake_runner envcheck honest-fix
action envcheck prepare >"$scratch/envcheck.log" 2>&1 || { cat "$scratch/envcheck.log"; fail "prepare"; }
dir=$(step_output envcheck dir)
workdir=$(step_output envcheck workdir)
# shellcheck disable=SC2016 # expanded inside the phase-1 container
action envcheck run PLANEGATE_DIR="$dir" PLANEGATE_IMAGE_REF="$image" PLANEGATE_WORKDIR="$workdir" \
	INPUT_SETUP='echo "setup-uid=$(id -u)"; echo ENV-BEGIN; env; echo ENV-END; echo LS-BEGIN; ls -a /github; echo LS-END; : >"$PLANEGATE_EXCHANGE/x" 2>/dev/null && echo EXCHANGE-WRITABLE; exit 0' \
	>>"$scratch/envcheck.log" 2>&1 || true
sed -n '/^ENV-BEGIN$/,/^ENV-END$/p' "$scratch/envcheck.log" >"$scratch/phase1.env"
if grep -q '^PLANEGATE_EXCHANGE=' "$scratch/phase1.env"; then
	leaks=$(grep -E '^(GITHUB_TOKEN|ACTIONS_RUNTIME_TOKEN|ACTIONS_ID_TOKEN_REQUEST_TOKEN|GITHUB_OUTPUT|GITHUB_ENV|GITHUB_PATH|GITHUB_STATE|GITHUB_STEP_SUMMARY|INPUT_GITHUB_TOKEN)=' "$scratch/phase1.env" || true)
	canary=$(grep -c -E 'smoke_canary_token|smoke_runtime_canary|smoke_oidc_canary' "$scratch/envcheck.log" || true)
	[[ -z $leaks && $canary == 0 ]] && pass "phase 1 environment has no token and no file-command variable" ||
		fail "phase 1 saw: $leaks (canary lines: $canary)"
	listing=$(sed -n '/^LS-BEGIN$/,/^LS-END$/p' "$scratch/envcheck.log" | grep -vx 'LS-BEGIN\|LS-END' | tr '\n' ' ')
	grep -qE 'output|summary' <<<"$listing" && fail "phase 1 sees file-command files: $listing" ||
		pass "phase 1 has no file-command files mounted ($listing)"
	setup_uid=$(sed -n 's/^setup-uid=//p' "$scratch/envcheck.log")
	[[ -n $setup_uid && $setup_uid != 0 && $setup_uid != 10001 ]] && pass "setup runs as uid $setup_uid, not planegate's" ||
		fail "setup ran as uid '$setup_uid'"
	grep -q '^EXCHANGE-WRITABLE$' "$scratch/envcheck.log" && fail "the setup could write the exchange folder" ||
		pass "the setup cannot write the exchange folder ($(stat -c '%a %u' "$dir/exchange"))"
else
	cat "$scratch/envcheck.log"
	fail "phase 1's setup did not run"
fi
grep -q '::stop-commands::' "$scratch/envcheck.log" && pass "phase 1 output is wrapped in stop-commands" || fail "phase 1 output not wrapped"

# 4. both phases against the fake GitHub server
if ! docker run --rm --entrypoint planegate "$image" action --help >/dev/null 2>&1; then
	echo "image-smoke: NOT RUN  both phases on honest and cheating patches: the image has no 'planegate action' yet"
	[[ ${SMOKE_ALLOW_PARTIAL:-0} == 1 && $failures == 0 ]] && exit 0
	exit 1
fi
state=$scratch/fake-github.json
coproc FAKE { FAKE_GITHUB_STATE=$state exec $fake_github; }
read -r api_url <&"${FAKE[0]}" || { fail "fake GitHub server did not start ($fake_github)"; exit 1; }
fake_pid=$FAKE_PID
gate_patch() { # gate_patch NAME PATCH WANT_VERDICT WANT_EXIT [hostile]
	fake_runner "$1" "$2" "${5:-}"
	action "$1" prepare >"$scratch/$1.log" 2>&1
	local d w setup=none
	d=$(step_output "$1" dir)
	w=$(step_output "$1" workdir)
	[[ ${5:-} != hostile ]] || setup=auto
	local common=(PLANEGATE_DIR="$d" PLANEGATE_IMAGE_REF="$image" PLANEGATE_WORKDIR="$w" INPUT_SETUP="$setup")
	action "$1" run "${common[@]}" >>"$scratch/$1.log" 2>&1 || true
	local run_exit status=0
	run_exit=$(step_output "$1" exit-code)
	action "$1" judge "${common[@]}" PLANEGATE_RUN_EXIT="$run_exit" GITHUB_API_URL="$api_url" \
		>>"$scratch/$1.log" 2>&1 || status=$?
	local verdict exit_code
	verdict=$(step_output "$1" verdict)
	exit_code=$(step_output "$1" exit-code)
	if [[ $verdict == "$3" && $exit_code == "$4" && $status == "$4" ]]; then
		pass "$2: verdict $verdict, exit $exit_code"
	else
		tail -30 "$scratch/$1.log"
		fail "$2: verdict '$verdict' exit '$exit_code' (step $status), want $3 / $4"
	fi
}
gate_patch honest honest-fix pass 0
gate_patch hostile plain-bug fail 1 hostile
# 5. what the planted code did, from phase 1's log and from run.json (the child's output)
hostile_dir=$(step_output hostile dir)
"$python" - "$scratch/hostile.log" "$hostile_dir/exchange" "$scratch/hostile/workspace" <<'PY' && pass "hostile install: never ran inside planegate; the test child ran it as the project's user and could write none of planegate's folders" || fail "hostile install: see above"
import json, os, re, sys
log, exchange, workspace = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
lines = [l for l in log.splitlines() if l.startswith("planegate-attack:")]
inside = [l for l in lines if "planegate=True" in l or "isolated=1" in l or "replaced" in l]
assert not inside, inside
assert sorted(os.listdir(exchange)) == ["run.json"], os.listdir(exchange)
run = json.load(open(os.path.join(exchange, "run.json")))
assert "forged" not in run, run
output = run["head_run"]["output"]
ran = re.findall(r"planegate-attack: \.pth ran: uid=(\d+) isolated=0 planegate=False", output)
assert ran and set(ran) == {"10002"}, (ran, output[:2000])
# the sandbox's own tmpfs folders (its /tmp, HOME, ...; printed from inside it) are not the image's
private = {m for f in re.findall(r"planegate-attack: .* private: (\[.*\])", output) for m in eval(f)}
in_sandbox = 0
for found in re.findall(r"planegate-attack: .* could write: (\[.*\])", output):
    for path in eval(found):
        if any(path == m or path.startswith(m.rstrip("/") + "/") for m in private):
            in_sandbox += 1
            continue
        bad = (exchange, "/tmp/planegate-home", workspace, "/usr/local", "/home/planegate")
        assert not any(path == b or path.startswith(b + "/") for b in bad), path
print("planted .pth ran in the child", len(ran), "times, as uid", ran[0], "-", in_sandbox,
      "writes landed in the sandbox's own tmpfs folders:", sorted(private))
PY
gate_patch cheat rewritten-golden fail 3
kill -TERM "$fake_pid" && wait "$fake_pid" || true
"$python" - "$state" <<'PY' && pass "fake GitHub: one check run per patch (success, failure, failure), one sticky comment edited in place" || fail "fake GitHub state: see above"
import json, sys
state = json.load(open(sys.argv[1]))
conclusions = sorted(run.get("conclusion") for run in state["check_runs"])
print("check runs:", conclusions, "comments:", len(state["comments"]))
assert conclusions == ["failure", "failure", "success"], conclusions
# both patches are pull request 7: the sticky comment is edited, never duplicated
assert len(state["comments"]) == 1, state["comments"]
assert "Exit 3" in state["comments"][0]["body"], state["comments"][0]["body"][:300]
PY
((failures == 0)) || { echo "image-smoke: $failures check(s) failed"; exit 1; }
echo "image-smoke: all checks passed"
