#!/usr/bin/env bash
# Build and run roofbot's action image on a machine without a Docker engine.
#
# GitHub builds the Dockerfile with Docker; here (CI, developers' machines) there is no Docker
# daemon and no container registry, only Debian's mirror and PyPI.  So this script uses podman
# with runc and, because `python:3.12-slim` cannot be pulled, builds a *stand-in* image under that
# exact name from debootstrap + the host's CPython 3.12.  The stand-in is CI-only: never publish it.
# What it needs and why (runc, not crun; the rlimits podman may set; the stand-in base) is
# written next to each step below.
#
# Usage: scripts/container.sh deps|base|build|run ARGS...|check|size|lock
#   deps    install podman, runc and debootstrap from Debian (root, apt-get); the only command
#           that installs system packages, run by .ci/run, never by the test suite
#   base    build the stand-in docker.io/library/python:3.12-slim if missing (cached, idempotent)
#   build   podman build the project's Dockerfile as roofbot:ci (builds the base first if needed)
#   run     podman run roofbot:ci ARGS with $PWD at /github/workspace, --network none,
#           GITHUB_* and INPUT_* passed through (as the Actions runner does)
#   check   base + build + run `check --repo fixtures --format json` and compare it with the
#           host's `roofbot check`, then check that the run found every module's bytecode in
#           the image; prints "skip: <reason>" and exits 0 where podman is unusable
#   size    image size and layer count, against the base image
#   lock    regenerate requirements.lock, requirements-plot.lock and
#           scripts/container/build-requirements.lock (pip-tools); the two runtime locks
#           leave out LOCK_OMIT, which no run imports
#
# Environment: ROOFBOT_IMAGE (default roofbot:ci), ROOFBOT_PLOT=true (build the `plot` image, with
# the chart's matplotlib), ROOFBOT_CONTAINER_STATE (cache folder, default
# /var/tmp/roofbot-container), ROOFBOT_BASE_PYTHON (host CPython 3.12 prefix, default
# /root/.pyenv/versions/3.12.1), ROOFBOT_HOST_PYTHON (interpreter with roofbot importable, for
# `check`; default: `roofbot` on PATH, else python3 with the repo on PYTHONPATH),
# ROOFBOT_SKIP_CONTAINER=1 (check: skip).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IMAGE=${ROOFBOT_IMAGE:-roofbot:ci}
BASE_IMAGE=docker.io/library/python:3.12-slim
BASE_PYTHON=${ROOFBOT_BASE_PYTHON:-/root/.pyenv/versions/3.12.1}
STATE=${ROOFBOT_CONTAINER_STATE:-/var/tmp/roofbot-container}
SUITE=bookworm
# The stand-in's recipe: its image carries this label, and a cached stand-in with another value
# (an older recipe's) is rebuilt rather than trusted. Raise it whenever base() changes what it
# builds. 2: "/" and the interpreter's folders opened to non-root users (recipe 1 left "/" 0700
# under umask 077, so `--user 65534` found no program at all).
STANDIN_LABEL=io.github.roofbot.ci-stand-in
STANDIN_RECIPE=2
WORKSPACE=/github/workspace
# Shared libraries the CPython build and its extension modules link against (ldd of lib-dynload),
# less the X11/Tk ones only tkinter needs.
BASE_LIBS=libssl3,libffi8,libsqlite3-0,libbz2-1.0,liblzma5,zlib1g,libreadline8,libncursesw6,libtinfo6,libuuid1,libexpat1,libtirpc3,libnsl2,libcrypt1

log() { printf '%s\n' "container.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- podman -----------------------------------------------------------------------------------

# Install podman, runc and debootstrap from Debian (`deps`; .ci/run calls it, tests never do).
deps() {
  if command -v podman >/dev/null && command -v runc >/dev/null && command -v debootstrap >/dev/null
  then
    log "deps: podman, runc and debootstrap present"
    return 0
  fi
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    die "deps: podman/runc/debootstrap missing and apt-get not usable (needs root on Debian)"
  fi
  log "deps: installing podman runc debootstrap from Debian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    podman runc debootstrap >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        podman runc debootstrap >/dev/null 2>&1; } ||
    die "deps: apt-get install podman runc debootstrap failed"
}

# Print a reason and fail when podman can't be used. Nothing is installed here: `deps` does.
podman_reason() {
  if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
    echo "podman/runc not installed (scripts/container.sh deps installs them: root, Debian)"
    return 1
  fi
  setup_conf
  local err
  if ! err=$(podman info --format '{{.Host.OCIRuntime.Name}}' 2>&1); then
    echo "podman does not start: $(printf '%s' "$err" | tail -n 1)"
    return 1
  fi
  return 0
}

ensure_podman() {
  local reason
  reason=$(podman_reason) || die "$reason"
  setup_conf
}

# crun fails on this kernel's hybrid cgroups, so use runc; root here lacks CAP_SYS_RESOURCE, so
# podman must not raise rlimits above the current hard limits.
setup_conf() {
  [[ -n ${CONTAINERS_CONF:-} && ${CONTAINERS_CONF} == "$STATE/containers.conf" ]] && return 0
  mkdir -p "$STATE"
  local nofile
  nofile=$(ulimit -Hn)
  [[ $nofile == unlimited ]] && nofile=1048576
  cat >"$STATE/containers.conf" <<CONF
# Written by scripts/container.sh
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=4096:4096"]

[engine]
runtime = "runc"
CONF
  export CONTAINERS_CONF="$STATE/containers.conf"
}

# --- base: the stand-in python:3.12-slim ------------------------------------------------------

# The Debian mirror apt already uses: the first URI serving the bookworm suite, from one-line
# sources.list files or deb822 .sources files (files with other suffixes are ignored, as apt
# does); $1 picks another suite (e.g. bookworm-security).
apt_mirror() {
  local suite=${1:-$SUITE} f files=()
  [[ -f /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
  for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] && files+=("$f")
  done
  ((${#files[@]})) || return 1
  awk -v suite="$suite" '
    FNR == 1 { uris = ""; suites = "" }
    /^[[:space:]]*#/ { next }
    FILENAME ~ /\.list$/ {
      # deb [options] URI SUITE COMPONENTS...
      if ($1 != "deb") next
      i = 2
      if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
      if ($(i + 1) == suite) { print $i; exit }
      next
    }
    # deb822 stanzas: a blank line ends one
    /^[[:space:]]*$/ { uris = ""; suites = ""; next }
    tolower($1) == "uris:" { uris = $2 }
    tolower($1) == "suites:" { for (j = 2; j <= NF; j++) if ($j == suite) suites = suite }
    uris != "" && suites != "" { print uris; exit }
  ' "${files[@]}" | head -n 1 | grep .
}

# Whether the image under $BASE_IMAGE can be used as it is: absent → no; the real
# python:3.12-slim (no stand-in label) → yes; a stand-in → only if built by this recipe.
base_usable() {
  podman image exists "$BASE_IMAGE" || return 1
  local recipe
  recipe=$(podman image inspect --format "{{index .Labels \"$STANDIN_LABEL\"}}" "$BASE_IMAGE")
  case $recipe in
    "" | "<no value>") return 0 ;;
    "$STANDIN_RECIPE") return 0 ;;
  esac
  log "base: the cached stand-in was built by recipe '$recipe', this script's is" \
    "'$STANDIN_RECIPE': rebuilding it"
  return 1
}

base() {
  ensure_podman
  if base_usable; then
    log "base: $BASE_IMAGE present (cached)"
    return 0
  fi
  # One builder at a time (two test runs may start together); the other then finds it built.
  exec 8>"$STATE/base.lock"
  flock 8
  if base_usable 2>/dev/null; then
    log "base: $BASE_IMAGE present (built by a concurrent run)"
    exec 8>&-
    return 0
  fi
  command -v debootstrap >/dev/null ||
    die "base: debootstrap is not installed (scripts/container.sh deps installs it)"
  local mirror py rootfs t0
  mirror=$(apt_mirror) || die "no Debian mirror for $SUITE found in /etc/apt/sources.list{,.d/*}"
  py=$BASE_PYTHON/bin/python3.12
  [[ -x $py ]] || die "no CPython 3.12 at $BASE_PYTHON (set ROOFBOT_BASE_PYTHON)"
  t0=$(now)
  log "base: building stand-in $BASE_IMAGE from $mirror + $BASE_PYTHON (CI-only, never published)"
  mkdir -p "$STATE/debs"
  # Everything below is built world-readable whatever the caller's umask, and the root folder
  # is opened (mktemp -d makes it 0700): the image's "/" is this folder, and a non-root user
  # who can't traverse it finds no program at all ("executable file not found in $PATH").
  umask 022
  rootfs=$(mktemp -d "$STATE/rootfs.XXXXXX")
  chmod 755 "$rootfs"
  # shellcheck disable=SC2064  # expand now: rootfs is local
  trap "rm -rf '$rootfs'" EXIT
  debootstrap --variant=minbase --include="$BASE_LIBS" --cache-dir="$STATE/debs" \
    "$SUITE" "$rootfs" "$mirror" >"$STATE/debootstrap.log" 2>&1 ||
    { tail -n 20 "$STATE/debootstrap.log" >&2; die "debootstrap failed (log: $STATE/debootstrap.log)"; }

  # Like debian:bookworm-slim: no docs, man pages or translations; no apt caches.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
DPKG
  # ...and apt configured as in Debian's Docker images (debuerreotype): caches cleaned after
  # every install, compressed indexes, no translations.
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
  echo 'Acquire::GzipIndexes "true";' >"$rootfs/etc/apt/apt.conf.d/docker-gzip-indexes"
  echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
  echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$rootfs/etc/apt/apt.conf.d/docker-autoremove-suggests"
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$rootfs"/usr/share/{man,info,locale,lintian,linda,groff}/* \
    "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
    "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log
  # apt inside the image uses the host's mirror, with the updates and security suites if the
  # host lists them.
  local security
  security=$(apt_mirror "$SUITE-security" || true)
  {
    echo "deb $mirror $SUITE main"
    echo "deb $mirror $SUITE-updates main"
    [[ -n $security ]] && echo "deb $security $SUITE-security main"
  } >"$rootfs/etc/apt/sources.list"

  # CPython at the same prefix (it is linked against its own lib/), trimmed like the official
  # image (no tests, no .pyc, no static libpython); pip from ensurepip.  site-packages starts
  # empty.  Every folder down to it is opened so a non-root user can run the interpreter too.
  mkdir -p "$rootfs$BASE_PYTHON"
  tar -C "$BASE_PYTHON" \
    --exclude=./lib/python3.12/test --exclude='./lib/python3.12/site-packages/*' \
    --exclude=idle_test --exclude=tests --exclude='*.pyc' --exclude='libpython*.a' \
    --exclude=__pycache__ -cf - . | tar -C "$rootfs$BASE_PYTHON" -xf -
  local dir=$BASE_PYTHON
  while [[ $dir != / && $dir != . ]]; do
    chmod 755 "$rootfs$dir"
    dir=$(dirname "$dir")
  done
  # The host's CA bundle: PyPI is reached through a proxy with its own CA.
  mkdir -p "$rootfs/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  local name
  for name in python python3 pip pip3; do
    ln -sf "$BASE_PYTHON/bin/$name" "$rootfs/usr/local/bin/$name"
  done
  chroot "$rootfs" /usr/bin/env -i PATH="$BASE_PYTHON/bin:/usr/bin:/bin" \
    "$py" -m ensurepip --default-pip >"$STATE/ensurepip.log" 2>&1 ||
    die "ensurepip failed (log: $STATE/ensurepip.log)"
  find "$rootfs$BASE_PYTHON" -name __pycache__ -prune -exec rm -rf {} +

  tar -C "$rootfs" -cf - . | podman import --quiet \
    --change "ENV PATH=$BASE_PYTHON/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PYTHON_VERSION=3.12' \
    --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
    --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
    --change "LABEL $STANDIN_LABEL=$STANDIN_RECIPE" \
    --change 'CMD ["python3"]' \
    --message "CI-only stand-in for python:3.12-slim (debootstrap $SUITE + host CPython)" \
    - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
  exec 8>&-
  log "base: built $BASE_IMAGE in $(elapsed "$t0") s"
}

# --- build / run --------------------------------------------------------------------------------

build() {
  base
  local t0 version revision
  version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/pyproject.toml" | head -n 1)
  revision=$(git -C "$ROOT" rev-parse --verify -q HEAD 2>/dev/null || echo unknown)
  local previous
  previous=$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
  t0=$(now)
  podman build --pull=never --network host -f "$ROOT/Dockerfile" -t "$IMAGE" \
    --build-arg "VERSION=${version:-0.0.0}" --build-arg "REVISION=$revision" \
    --build-arg "PLOT=${ROOFBOT_PLOT:-false}" --build-arg "BASE_IMAGE=$BASE_IMAGE" \
    "$ROOT" >"$STATE/build.log" 2>&1 ||
    { tail -n 30 "$STATE/build.log" >&2; die "podman build failed (log: $STATE/build.log)"; }
  log "build: $IMAGE in $(elapsed "$t0") s"
  # Drop the image this build replaced (its cached layers stay for the next build).
  if [[ -n $previous && $previous != "$(podman image inspect --format '{{.Id}}' "$IMAGE")" ]]; then
    podman rmi "$previous" >/dev/null 2>&1 || true
  fi
}

# Run the image as the Actions runner does: workspace at /github/workspace, GITHUB_* and INPUT_*
# passed by name (values never appear on a command line), event and file-command paths mounted.
run() {
  setup_conf
  local ws=${ROOFBOT_WORKSPACE:-$PWD}
  local args=(--rm --network none -v "$ws:$WORKSPACE" -w "$WORKSPACE" -e "GITHUB_WORKSPACE=$WORKSPACE")
  local name value
  while IFS= read -r name; do
    case $name in
      GITHUB_WORKSPACE) ;;
      GITHUB_EVENT_PATH | GITHUB_OUTPUT | GITHUB_STEP_SUMMARY | GITHUB_ENV | GITHUB_PATH | GITHUB_STATE)
        value=${!name}
        if [[ -f $value ]]; then
          local dir=/github/workflow
          [[ $name == GITHUB_EVENT_PATH ]] || dir=/github/file_commands
          args+=(-v "$value:$dir/${value##*/}" -e "$name=$dir/${value##*/}")
        fi
        ;;
      *) args+=(-e "$name") ;;
    esac
  done < <(compgen -e | grep -E '^(GITHUB|INPUT)_' || true)
  [[ -n ${ROOFBOT_CONTAINER_USER:-} ]] && args+=(--user "$ROOFBOT_CONTAINER_USER")
  [[ -t 0 && -t 1 ]] && args+=(-it)
  podman run "${args[@]}" "$IMAGE" "$@"
}

# --- check: the container's JSON against the host's -------------------------------------------

host_roofbot() {
  if [[ -n ${ROOFBOT_HOST_PYTHON:-} ]]; then
    PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} "$ROOFBOT_HOST_PYTHON" -c \
      'import sys; from roofbot.cli import main; sys.exit(main())' "$@"
  elif command -v roofbot >/dev/null; then
    roofbot "$@"
  else
    PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} python3 -c \
      'import sys; from roofbot.cli import main; sys.exit(main())' "$@"
  fi
}

sed_literal() { printf '%s' "$1" | sed -e 's/[][\.*^$|/&]/\\&/g'; }

skip() {
  echo "skip: $*"
  exit 0
}

check() {
  [[ ${ROOFBOT_SKIP_CONTAINER:-} == 1 ]] && skip "ROOFBOT_SKIP_CONTAINER=1"
  local reason
  reason=$(podman_reason) || skip "$reason"
  setup_conf
  [[ -d $ROOT/fixtures ]] || die "no fixtures/ in $ROOT"
  if ! podman image exists "$BASE_IMAGE"; then
    [[ -x $BASE_PYTHON/bin/python3.12 ]] ||
      skip "no $BASE_IMAGE and no CPython 3.12 at $BASE_PYTHON to build its stand-in from"
    apt_mirror >/dev/null || skip "no $BASE_IMAGE and no Debian $SUITE mirror in the apt sources"
    command -v debootstrap >/dev/null ||
      skip "no $BASE_IMAGE and no debootstrap to build it (scripts/container.sh deps)"
  fi
  # Serialise concurrent checks on this machine: they share the image tag.
  exec 9>"$STATE/check.lock"
  flock 9
  build
  local out host_rc=0 ctr_rc=0 nonroot_rc=0 t0
  out=$(mktemp -d "$STATE/check.XXXXXX")
  cd "$ROOT"
  host_roofbot check --repo fixtures --format json >"$out/host.json" 2>"$out/host.err" || host_rc=$?
  t0=$(now)
  ROOFBOT_WORKSPACE=$ROOT run check --repo fixtures --format json >"$out/container.json" \
    2>"$out/container.err" </dev/null || ctr_rc=$?
  log "check: container run took $(elapsed "$t0") s"
  # The same again as an unprivileged user: the image must not depend on running as root.
  ROOFBOT_WORKSPACE=$ROOT ROOFBOT_CONTAINER_USER=65534:65534 run check --repo fixtures \
    --format json >"$out/nonroot.json" 2>"$out/nonroot.err" </dev/null || nonroot_rc=$?
  if [[ ! -s $out/host.json ]]; then
    cat "$out/host.err" >&2
    die "host roofbot printed no JSON (exit $host_rc)"
  fi
  # Only absolute paths may differ: the repo is at $ROOT on the host, $WORKSPACE in the container.
  local root_re ws_re name
  root_re=$(sed_literal "$ROOT")
  ws_re=$(sed_literal "$WORKSPACE")
  sed -e "s|$root_re|<workspace>|g" "$out/host.json" >"$out/host.norm.json"
  for name in container nonroot; do
    sed -e "s|$ws_re|<workspace>|g" "$out/$name.json" >"$out/$name.norm.json"
    if ! cmp -s "$out/host.norm.json" "$out/$name.norm.json"; then
      cat "$out/$name.err" >&2
      diff -u --label host "$out/host.norm.json" --label "$name" "$out/$name.norm.json" |
        head -n 60 >&2 || true
      die "$name JSON differs from the host's (exits: host $host_rc, container $ctr_rc, non-root $nonroot_rc; files in $out)"
    fi
  done
  if [[ "$ctr_rc/$nonroot_rc" != "$host_rc/$host_rc" ]]; then
    die "same JSON but exit codes differ: host $host_rc, container $ctr_rc, non-root $nonroot_rc"
  fi
  # The default image is chart-free: the `plot` extra is opt-in (ROOFBOT_PLOT=true, PLOT=true).
  if [[ ${ROOFBOT_PLOT:-false} != true ]]; then
    local found
    found=$(podman run --rm --network none --entrypoint python "$IMAGE" -c \
      'import importlib.util as u; print(*[m for m in ("matplotlib", "numpy") if u.find_spec(m)])') ||
      die "could not run python in $IMAGE"
    [[ -z $found ]] || die "the default image has $found installed (the chart is opt-in: PLOT=true)"
    echo "chart-free: the default image has neither matplotlib nor numpy"
  fi
  # Start-up: every module a run imports must have its bytecode in the image, or each start
  # compiles it again (the image sets PYTHONDONTWRITEBYTECODE=1). With writing allowed, a run in
  # a throw-away container writes a .pyc for each module that has none: there must be none.
  local compiled
  compiled=$(podman run --rm --network none -v "$ROOT:$WORKSPACE:ro" -w "$WORKSPACE" \
    -e PYTHONDONTWRITEBYTECODE= --entrypoint sh "$IMAGE" -c 'touch /tmp/.before &&
      roofbot --version >/dev/null && { roofbot check --repo fixtures --format json >/dev/null
      find / -xdev -name "*.pyc" -newer /tmp/.before; }') ||
    die "could not run the bytecode probe in $IMAGE"
  [[ -z $compiled ]] || die "compiled at each start (no bytecode in the image): $compiled"
  echo "bytecode: every module the fixtures check imports is compiled in the image"
  # The image this check ran, by id: a later test runs that one, whatever the tag points at then.
  echo "image: $(podman image inspect --format '{{.Id}}' "$IMAGE")"
  local bytes sum
  bytes=$(wc -c <"$out/host.norm.json")
  sum=$(sha256sum "$out/host.norm.json" | cut -c1-16)
  rm -rf "$out"
  echo "identical JSON: host and container, as root and as 65534 ($bytes bytes, sha256 $sum, exit $host_rc)"
}

# --- size -----------------------------------------------------------------------------------------

size() {
  setup_conf
  podman image exists "$IMAGE" || die "$IMAGE not built: run $0 build"
  local img_size img_layers base_size base_layers
  img_size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
  img_layers=$(podman image inspect --format '{{len .RootFS.Layers}}' "$IMAGE")
  base_size=$(podman image inspect --format '{{.Size}}' "$BASE_IMAGE")
  base_layers=$(podman image inspect --format '{{len .RootFS.Layers}}' "$BASE_IMAGE")
  awk -v i="$img_size" -v il="$img_layers" -v b="$base_size" -v bl="$base_layers" \
    -v img="$IMAGE" -v base="$BASE_IMAGE" 'BEGIN {
      printf "%-40s %9.1f MB  %2d layers\n", img, i / 1e6, il
      printf "%-40s %9.1f MB  %2d layers\n", base " (stand-in)", b / 1e6, bl
      printf "%-40s %+9.1f MB  %+2d layers\n", "added by the Dockerfile", (i - b) / 1e6, il - bl
    }'
  podman history --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" | cut -c1-120
}

# --- lock -------------------------------------------------------------------------------------------

# Distributions the runtime locks leave out, though a dependency asks for them: no roofbot run
# imports them, and the image installs its lock with --no-deps. cryptography (16 MB, a third of
# what the dependencies add) comes with PyJWT's `crypto` extra, which PyGithub requires to sign
# a GitHub App's JWT; roofbot authenticates with a token, and PyJWT imports cryptography only if
# it is installed. pycparser is what cffi uses to parse C declarations at run time; PyNaCl's
# bindings come compiled. tests/test_container.py::test_container_pr_job_end_to_end runs
# `roofbot pr` in the image end to end, which is what shows that nothing imports them.
LOCK_OMIT=(cryptography pycparser)

# Drop LOCK_OMIT's pins (a pin is its `name==` line and the indented lines under it) from the
# lock $1, and say so at its end.
omit_pins() {
  local lock=$1 tmp
  tmp=$(mktemp)
  awk -v omit="${LOCK_OMIT[*]}" '
    BEGIN { n = split(omit, names, " "); for (i = 1; i <= n; i++) drop[names[i]] = 1 }
    /^[^ #]/ { name = tolower($0); sub(/==.*/, "", name); skipping = (name in drop) }
    /^# Left out by scripts\/container.sh lock/ { exit }
    !skipping { print }
  ' "$lock" >"$tmp"
  {
    printf '# Left out by scripts/container.sh lock (LOCK_OMIT: no roofbot run imports them): %s.\n' \
      "${LOCK_OMIT[*]}"
    echo '# Install with --no-deps, as the Dockerfile does: this file is the whole set.'
  } >>"$tmp"
  mv "$tmp" "$lock"
}

# Regenerate the hash-pinned locks with pip-tools for CPython 3.12 on Linux (run on this machine).
# The machine's pip configuration (extra local indexes, constraints) is ignored: PyPI only.
lock() {
  local venv=$STATE/piptools
  [[ -x $venv/bin/pip-compile ]] || {
    "$BASE_PYTHON/bin/python3.12" -m venv "$venv"
    PIP_CONFIG_FILE=/dev/null "$venv/bin/pip" install -q 'pip-tools==7.*'
  }
  cd "$ROOT"
  # requirements.lock: the default image (no chart); requirements-plot.lock: the `plot` image
  # (PLOT=true), the same pins plus matplotlib's.
  local src out
  for out in requirements.lock requirements-plot.lock scripts/container/build-requirements.lock; do
    local extras=()
    src=pyproject.toml
    case $out in
      requirements-plot.lock)
        extras=(--extra plot)
        [[ -f $out ]] || cp requirements.lock "$out"  # start from the default image's pins
        ;;
      scripts/*) src=${out%.lock}.in ;;
    esac
    PIP_CONFIG_FILE=/dev/null CUSTOM_COMPILE_COMMAND="scripts/container.sh lock" \
      "$venv/bin/pip-compile" --quiet --generate-hashes --strip-extras --allow-unsafe \
      "${extras[@]}" \
      --no-emit-index-url --no-emit-find-links --newline=LF -o "$out" "$src"
    if [[ $out == requirements*.lock ]]; then omit_pins "$out"; fi
    log "lock: $out ($(grep -c '==' "$out") pins)"
  done
}

main() {
  local cmd=${1:-}
  [[ $# -gt 0 ]] && shift
  case $cmd in
    deps) deps ;;
    base) base ;;
    build) build ;;
    run) run "$@" ;;
    check) check ;;
    size) size ;;
    lock) lock ;;
    *)
      sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
      exit 2
      ;;
  esac
}

main "$@"
