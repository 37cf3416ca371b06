#!/bin/sh
# Builds World's service images (infra/Dockerfile) with BuildKit, tagged as docker-compose.yml
# names them: world-<app>:${WORLD_IMAGE_TAG:-latest}. Then `docker compose up -d --no-build`
# (or `docker-compose`, 1.29 included) runs them. infra/README.md, "Building the images".
#
# usage: sh infra/build-images.sh [gateway|planner|broker|ledger ...]   (default: all four)
#
#   WORLD_NODE_IMAGE     base image of both stages (default node:20.20-bookworm-slim)
#   WORLD_IMAGE_TAG      tag of the images (default latest)
#   WORLD_BUILD_NETWORK  network of the build steps (default: the builder's default); `host`
#                        where the registries are reachable from the host only
#   WORLD_BUILD_CA       a PEM file: the CA of a TLS-intercepting proxy, passed to the build as
#                        the secret `build_ca` (never stored in an image)
#   WORLD_BUILD_TARGET   build only up to this stage (e.g. `build`, to inspect it)
#
# BuildKit comes from `docker buildx` when installed, otherwise from a Docker CLI older than 23
# (which has it built in, DOCKER_BUILDKIT=1), e.g. Debian's docker.io at /usr/bin/docker;
# WORLD_DOCKER names the CLI to use. Run from anywhere; the context is the repository root.
set -eu

root="$(cd "$(dirname "$0")/.." && pwd)"
apps="${*:-ledger broker planner gateway}"
for app in $apps; do
  case "$app" in
    gateway | planner | broker | ledger) ;;
    *)
      echo "build-images: the app must be gateway, planner, broker or ledger (got \"$app\")" >&2
      exit 2
      ;;
  esac
done

builder=""
for cli in ${WORLD_DOCKER:-docker /usr/bin/docker}; do
  command -v "$cli" >/dev/null 2>&1 || continue
  if "$cli" buildx version >/dev/null 2>&1; then
    builder="$cli buildx build --load"
    break
  fi
  version="$("$cli" version --format '{{.Client.Version}}' 2>/dev/null || true)"
  major="${version%%.*}"
  case "$major" in
    '' | *[!0-9]*) continue ;;
  esac
  if [ "$major" -lt 23 ]; then
    builder="env DOCKER_BUILDKIT=1 $cli build"
    break
  fi
done
if [ -z "$builder" ]; then
  echo "build-images: no BuildKit builder: install docker buildx, or set WORLD_DOCKER to a Docker CLI with BuildKit" >&2
  exit 2
fi

set -- --file "$root/infra/Dockerfile"
if [ -n "${WORLD_NODE_IMAGE:-}" ]; then set -- "$@" --build-arg "WORLD_NODE_IMAGE=$WORLD_NODE_IMAGE"; fi
if [ -n "${WORLD_BUILD_NETWORK:-}" ]; then set -- "$@" --network "$WORLD_BUILD_NETWORK"; fi
if [ -n "${WORLD_BUILD_TARGET:-}" ]; then set -- "$@" --target "$WORLD_BUILD_TARGET"; fi
if [ -n "${WORLD_BUILD_CA:-}" ]; then
  if [ ! -r "$WORLD_BUILD_CA" ]; then
    echo "build-images: WORLD_BUILD_CA $WORLD_BUILD_CA cannot be read" >&2
    exit 2
  fi
  set -- "$@" --secret "id=build_ca,src=$WORLD_BUILD_CA"
fi

tag="${WORLD_IMAGE_TAG:-latest}"
for app in $apps; do
  echo "build-images: world-$app:$tag" >&2
  # shellcheck disable=SC2086 # $builder is a command and its leading words
  $builder "$@" --build-arg "APP=$app" --tag "world-$app:$tag" "$root"
done
