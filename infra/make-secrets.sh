#!/bin/sh
# Creates the secrets docker-compose.yml reads (infra/secrets/, ignored by git), once: the
# PostgreSQL password, the DATABASE_URL the services use (it embeds that password) and the
# operator credential (64 hex, world-spec §2.2) and the log's checkpoint signing key (64 hex: an
# Ed25519 seed, RFC 8032; the ledger derives the key and its origin from it, issue 12). Existing
# files are kept, so re-running is safe.
# The directory is 0700 (no other host user can reach the files); the files are 0444 because
# compose bind-mounts a file secret with its host mode and the services run as the image's
# non-root user.
set -eu

dir="$(cd "$(dirname "$0")" && pwd)/secrets"
mkdir -p "$dir"
chmod 0700 "$dir"

hex() { od -An -tx1 -N "$1" /dev/urandom | tr -d ' \n'; }

if [ ! -f "$dir/postgres_password" ]; then
  hex 24 >"$dir/postgres_password"
fi
if [ ! -f "$dir/database_url" ]; then
  printf 'postgres://world:%s@postgres:5432/world\n' "$(cat "$dir/postgres_password")" >"$dir/database_url"
fi
if [ ! -f "$dir/operator_token" ]; then
  hex 32 >"$dir/operator_token"
  echo >>"$dir/operator_token"
fi
if [ ! -f "$dir/log_key" ]; then
  hex 32 >"$dir/log_key"
  echo >>"$dir/log_key"
fi
chmod 0444 "$dir/postgres_password" "$dir/database_url" "$dir/operator_token" "$dir/log_key"
echo "secrets in $dir: postgres_password, database_url, operator_token, log_key"
