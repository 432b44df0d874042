#!/bin/sh
# planegate-phase1 - the untrusted phase of the action inside its container: nothing the
# project installs runs inside planegate, and nothing the project runs can write run.json.
#
# scripts/action.sh starts it as root with only CAP_CHOWN, CAP_DAC_READ_SEARCH, CAP_SETUID,
# CAP_SETGID, CAP_SETPCAP and CAP_KILL (no-new-privileges, every other capability dropped).
# Root does no more than this:
#
#   1. folders: the exchange folder and planegate's HOME owned by planegate's user, mode 0700;
#      the project's prefix (PIP_PREFIX) and HOME owned by the project's user;
#   2. a copy of the workspace (mounted read-only) for the setup, owned by the project's user:
#      the setup may write into its working directory, never into the repository planegate
#      reads;
#   3. `setup` as the project's user, with no capability, in the copy's working directory;
#      then every process of that user is killed (nothing the setup started runs on);
#   4. `python -I -B -m planegate action` as planegate's user, with CAP_SETUID, CAP_SETGID,
#      CAP_KILL and CAP_SETPCAP only (ambient), enough to start the tests as the project's
#      user with every capability dropped (runner/contain.py) and to kill what they leave.
#      -I: no user site, no PYTHON* variable, no current folder on sys.path; the project's
#      site folders are never on planegate's sys.path, so no .pth there runs in it. They
#      reach the test child only, as PLANEGATE_PROJECT_SITE.
#
# Settings (environment): PLANEGATE_GATE_USER and PLANEGATE_PROJECT_USER (uid:gid, both
# non-root, different), PLANEGATE_SETUP (auto, none or a shell command), PLANEGATE_EXCHANGE,
# GITHUB_WORKSPACE (the read-only workspace), INPUT_WORKING_DIRECTORY, PIP_PREFIX (the image
# sets it), HOME (planegate's), PLANEGATE_COPY (where the setup's copy goes).
set -eu

fail() {
	echo "planegate: $*"
	exit 69
}

gate=${PLANEGATE_GATE_USER:?}
project=${PLANEGATE_PROJECT_USER:?}
prefix=${PIP_PREFIX:?}
source=${GITHUB_WORKSPACE:?}
exchange=${PLANEGATE_EXCHANGE:?}
gate_home=${HOME:?}
copy=${PLANEGATE_COPY:-/tmp/planegate-workspace}
project_home=$prefix-home
workdir=${INPUT_WORKING_DIRECTORY:-.}

for who in "$gate" "$project"; do
	case $who in
	*[!0-9:]* | :* | *: | *:*:* | 0:* | *:0) fail "not an unprivileged uid:gid: '$who'" ;;
	*:*) ;;
	*) fail "not an unprivileged uid:gid: '$who'" ;;
	esac
done
[ "${gate%%:*}" != "${project%%:*}" ] || fail "the project's user must not be planegate's ($gate)"

# Root's own commands come from the image's folders only: the project's bin is left out.
project_path=$PATH
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF -e "$prefix/bin" -e '' | paste -sd: -)
export PATH
python=$(command -v python) || fail "no python on $PATH"

# as USER COMMAND...: COMMAND as USER (uid:gid), no supplementary group, no capability left.
as() {
	who=$1
	shift
	setpriv --reuid="${who%%:*}" --regid="${who##*:}" --clear-groups --inh-caps=-all \
		--ambient-caps=-all --bounding-set=-all --no-new-privs -- "$@"
}

# 1. folders
umask 022
mkdir -p "$gate_home" "$project_home" "$prefix" "$copy"
chmod 0700 "$gate_home" "$project_home"
chown "$gate" "$gate_home" "$exchange"
as "$gate" chmod 0700 "$exchange"
chown "$project" "$prefix" "$project_home"

# 2. the setup's copy of the workspace
cp -R -P --preserve=mode,timestamps,links "$source/." "$copy/"
chown -R -h "$project" "$copy"

# 3. setup, as the project's user
setup() {
	(cd "$copy/$workdir" && HOME=$project_home GITHUB_WORKSPACE=$copy PATH=$project_path \
		as "$project" "$@") || fail "setup failed"
}
case ${PLANEGATE_SETUP:-} in
"" | none) echo "planegate: setup skipped" ;;
auto) setup planegate-setup-auto ;;
*) setup sh -c "$PLANEGATE_SETUP" ;;
esac
# kill(-1) from the project's user reaches every process of that user, whatever its session
as "$project" sh -c 'kill -KILL -1' 2>/dev/null || true
as "$project" sh -c 'kill -KILL -1' 2>/dev/null || true

# 4. planegate, isolated, as its own user
site=$("$python" -I -c '
import sys, sysconfig
base = {"base": sys.argv[1], "platbase": sys.argv[1]}
names = ("purelib", "platlib")
print(":".join(dict.fromkeys(sysconfig.get_path(name, vars=base) for name in names)))
' "$prefix")
caps=-all,+setuid,+setgid,+kill,+setpcap
export HOME="$gate_home" PATH="$project_path" PLANEGATE_PROJECT_SITE="$site"
export PLANEGATE_CHILD_USER="$project"
unset PLANEGATE_SETUP
exec setpriv --reuid="${gate%%:*}" --regid="${gate##*:}" --clear-groups --inh-caps="$caps" \
	--ambient-caps="$caps" --bounding-set="$caps" --no-new-privs -- "$python" -I -B -m planegate action
