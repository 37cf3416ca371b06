#!/bin/sh
# Entry point of every World image, run by tini (PID 1). Secrets arrive as files
# (/run/secrets/*, compose secrets): DATABASE_URL_FILE names the file holding DATABASE_URL, which
# is exported before the service starts, so no secret is ever baked into an image or written in
# docker-compose.yml. `exec` hands PID 2 to node, so tini's forwarded SIGTERM reaches the service
# itself (graceful drain, DESIGN.md §5). A misconfiguration exits 2, like the services' own
# configuration errors.
set -eu

if [ -n "${DATABASE_URL_FILE:-}" ]; then
  if [ -n "${DATABASE_URL:-}" ]; then
    echo "entrypoint: DATABASE_URL and DATABASE_URL_FILE are both set; set one" >&2
    exit 2
  fi
  if [ ! -r "$DATABASE_URL_FILE" ]; then
    echo "entrypoint: DATABASE_URL_FILE $DATABASE_URL_FILE cannot be read" >&2
    exit 2
  fi
  # $(cat) drops the trailing newline a secret file usually ends with.
  DATABASE_URL="$(cat "$DATABASE_URL_FILE")"
  export DATABASE_URL
  unset DATABASE_URL_FILE
fi

exec "$@"
