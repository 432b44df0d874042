# planegate action image. Build with scripts/build-image.sh, which fills wheelhouse/ first:
# this build installs only the wheels it is given and never resolves a dependency.
#
# The base is pinned by digest on the one FROM line below, where Dependabot updates it
# (.github/dependabot.yml, ecosystem docker: it reads FROM lines, never an ARG's default).
# Every stage starts from that stage. A build on an engine without a registry sets
# PLANEGATE_BASE=python:3.12-slim for scripts/build-image.sh, which then builds a copy of
# this file with that line's image replaced (a local stand-in).
FROM python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea AS base

# Stage 1: install the locked dependencies (--no-deps: nothing beyond the lock) and planegate
# from the wheelhouse into /install, so that the wheels never become a layer of the image.
FROM base AS install
COPY requirements.lock wheelhouse/ /wheelhouse/
RUN python -m pip install --no-cache-dir --disable-pip-version-check --prefix /install \
        --no-index --find-links /wheelhouse --no-deps -r /wheelhouse/requirements.lock \
    && python -m pip install --no-cache-dir --disable-pip-version-check --prefix /install \
        --no-index --no-deps /wheelhouse/planegate-*.whl

# Stage 2: git without Perl. Debian's git package pulls in Perl (about 50 MB) for commands
# planegate never runs (send-email, svn, the Perl-based helpers) and libcurl for remotes it
# never fetches. Only the git binary, its helper directory without those, and the templates
# are copied on; the image's own check below proves git runs and links.
FROM base AS git
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && mkdir -p /opt/git/usr/bin /opt/git/usr/lib /opt/git/usr/share/git-core \
    && cp -a /usr/bin/git /opt/git/usr/bin/ \
    && cp -a /usr/lib/git-core /opt/git/usr/lib/ \
    && cp -a /usr/share/git-core/templates /opt/git/usr/share/git-core/ \
    && core=/opt/git/usr/lib/git-core \
    && rm -rf "$core"/git-remote-http* "$core"/git-remote-ftp* "$core"/git-http-* \
        "$core"/git-imap-send "$core"/git-daemon "$core"/git-instaweb "$core"/mergetools \
    && grep -l -E '^#!.*perl' -- "$core"/* | xargs -r rm -f \
    && rm -rf /var/lib/apt/lists/*

# Stage 3: the interpreter with its debug symbols stripped (libpython, the standard library's
# extension modules; the wheels' own libraries are left as built): binutils lives only here.
FROM base AS strip
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
COPY --from=install /install /usr/local
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends binutils \
    && find /usr/local/lib/libpython3* /usr/local/lib/python3.12/lib-dynload /usr/local/bin/python3* \
        -type f -exec sh -c 'for f; do case $(head -c 4 "$f" | od -An -c | tr -d " ") in \
            177ELF) strip --strip-unneeded "$f" ;; esac; done' sh {} +

# Stage 4: the root file system: the base without its package caches, documentation and the
# standard library parts no test run uses (IDLE, tkinter, lib2to3, ensurepip), git, the
# stripped interpreter and packages, the phase-1 helpers and the two unprivileged users.
FROM base AS rootfs
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
COPY --from=strip /usr/local /usr/local
# git and bubblewrap (below) are the system programs planegate needs: git is Debian bookworm's
# build (the base digest pins the distribution), without Perl, from the stage above.
# setpriv (util-linux, in the base) switches users in phase 1.
COPY --from=git /opt/git/ /
COPY docker/setup-auto.sh /usr/local/bin/planegate-setup-auto
COPY docker/phase1.sh /usr/local/bin/planegate-phase1
# The gated project's test dependencies go to a prefix of their own (PIP_PREFIX below), owned
# by the project's user (10002) in phase 1. No interpreter adds it by itself: planegate runs
# isolated (python -I) and only its test child adds the prefix's site folder, after the
# harness, so a project can add modules but never shadow planegate, pytest or Hypothesis,
# and no .pth it installs runs inside planegate.
# bubblewrap is the test child's sandbox (docs/security.md); not set-uid: it needs user
# namespaces (the action passes what the engine must allow, docs/security.md).
# hadolint ignore=DL3008
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap \
    && chmod u-s /usr/bin/bwrap && bwrap --version \
    && python -m pip check && planegate --version && git --version && setpriv --version \
    && git init -q /tmp/probe && git -C /tmp/probe worktree list && rm -rf /tmp/probe \
    && chmod 0755 /usr/local/bin/planegate-setup-auto /usr/local/bin/planegate-phase1 \
    && useradd --uid 10001 --create-home --home-dir /home/planegate --shell /usr/sbin/nologin planegate \
    && useradd --uid 10002 --no-create-home --home-dir /tmp/planegate-project-home \
        --shell /usr/sbin/nologin planegate-project \
    && lib=/usr/local/lib/python3.12 \
    && rm -rf /usr/local/include /usr/local/lib/pkgconfig "$lib"/config-3.12-* \
        "$lib"/idlelib "$lib"/tkinter "$lib"/turtledemo "$lib"/test "$lib"/lib2to3 \
        "$lib"/pydoc_data "$lib"/ensurepip "$lib"/site-packages/pip/_vendor/distlib/*.exe \
        /usr/local/bin/idle* /usr/local/bin/2to3* \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/cache/debconf/* /var/log/* \
        /usr/share/doc/* /usr/share/man/* /usr/share/info/* /usr/share/locale/* \
        /usr/share/common-licenses /usr/share/bash-completion

# Stage 5: the image, one layer: only the final state of the root file system above, so
# what was removed or replaced there (the unstripped interpreter, apt's lists) takes no space.
FROM scratch

LABEL org.opencontainers.image.title="planegate" \
      org.opencontainers.image.description="Gate pull requests written by coding agents" \
      org.opencontainers.image.licenses="MIT"

# hadolint ignore=DL3067
COPY --from=rootfs / /

ENV LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_PREFIX=/tmp/planegate-project \
    PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/tmp/planegate-project/bin

USER 10001:10001
WORKDIR /home/planegate
ENTRYPOINT ["planegate", "action"]
