# roofbot: roofline guard for LLM-inference benchmark records, as a GitHub Docker container action.
# One image serves every subcommand: the action runs `roofbot pr` (the default CMD, or `args:` in
# action.yml); `docker run IMAGE check --repo DIR --format json` checks a records repository.
#
# The default image has no chart: matplotlib and numpy would be more than half of what it adds,
# and every job pulls them. `--build-arg PLOT=true` builds the `plot` image (the `[plot]` extra,
# requirements-plot.lock); without it, the action's `plot: true` says in the log and the comment
# that the chart is not in this image, and everything else runs as before.
#
# Base image: pinned by digest (BASE_IMAGE), the multi-arch index of python:3.12-slim, so a
# rebuild of the same commit starts from the same bytes; to move it, take the new index digest
# (`docker buildx imagetools inspect python:3.12-slim`) and replace it here. The project's CI
# has no registry access: scripts/container.sh builds on a local stand-in tagged
# python:3.12-slim and passes that tag as BASE_IMAGE.
#
# No USER instruction: GitHub runs Docker actions as root (its docs say not to set USER) and mounts
# the workspace owned by the runner's user. The layout is non-root-safe all the same: everything is
# installed world-readable in the interpreter's own prefix, git's settings are system-wide, and
# nothing is written under $HOME, so `--user 65534` works too.

ARG BASE_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

# --- git: the binary alone, from Debian's package -------------------------------------------------
# roofbot runs only local plumbing (ls-tree, cat-file, diff; fetching is refused by its own
# `-c protocol.allow=never`), all built into /usr/bin/git, which links only libc, zlib and pcre2
# (all in the base). The package would bring perl (47 MB), curl and the helper programs too.
# The cost: dpkg in the image does not list git, so an image scanner does not see it; rebuild to
# take Debian's git updates, as for every other layer.
FROM ${BASE_IMAGE} AS git
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*

# --- build: the roofbot wheel, with a hash-pinned build backend that never reaches the runtime ---
FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY scripts/container/build-requirements.lock /tmp/build-requirements.lock
RUN pip install --no-cache-dir --require-hashes -r /tmp/build-requirements.lock
# Only what the wheel needs; hatchling force-includes templates/ into roofbot/templates.
COPY pyproject.toml README.md ./
COPY roofbot/ roofbot/
COPY templates/ templates/
RUN pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /dist .

# --- runtime --------------------------------------------------------------------------------------
FROM ${BASE_IMAGE}

# Bytecode is written here, at build time (below), never by a job: the workspace is the
# user's and the container's own files are thrown away after each run.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The workspace is mounted with another owner in Actions, so every directory is declared safe,
# system-wide (any user, no $HOME needed).
COPY --from=git /usr/bin/git /usr/bin/git
RUN git config --system --add safe.directory '*' \
 && git --version

# Runtime dependencies, pinned with hashes (`scripts/container.sh lock`), in their own layer so
# that source changes don't reinstall them. PLOT=true: the chart's too (requirements-plot.lock).
# --no-deps: the lock is the whole set. It leaves out cryptography (PyJWT's `crypto` extra, which
# PyGithub asks for to sign a GitHub App's JWT: 16 MB) and pycparser, which no run imports;
# roofbot authenticates with a token (LOCK_OMIT in scripts/container.sh says why).
ARG PLOT=false
COPY requirements.lock requirements-plot.lock /tmp/
RUN lock=/tmp/requirements.lock \
 && if [ "$PLOT" = true ]; then lock=/tmp/requirements-plot.lock; fi \
 && pip install --no-cache-dir --no-deps --require-hashes -r "$lock" \
 && rm /tmp/requirements*.lock

# python:3.12-slim ships its standard library without bytecode, so without this every container
# start would compile what roofbot imports (about half its start-up). pip compiled what it
# installed; this compiles the standard library, less what no roofbot run imports.
RUN python -m compileall -q -j 0 \
      -x '/(idlelib|tkinter|turtledemo|lib2to3|ensurepip|pydoc_data|test|tests|site-packages)/' \
      "$(python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"

COPY --from=build /dist/ /tmp/dist/
RUN pip install --no-cache-dir --no-deps /tmp/dist/*.whl \
 && rm -rf /tmp/dist \
 && roofbot --help >/dev/null

WORKDIR /github/workspace

# Last, so that a new revision does not invalidate the cached layers above.
# (scripts/container.sh build passes both from pyproject.toml and git.)
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="roofbot" \
      org.opencontainers.image.description="Roofline guard for repositories of LLM-inference benchmark records: no number physics forbids, no false alarms." \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/python:3.12-slim" \
      io.github.roofbot.plot="${PLOT}"

# On PATH (pip puts console scripts in the interpreter's bin folder), not a hard-coded path.
ENTRYPOINT ["roofbot"]
CMD ["pr"]
