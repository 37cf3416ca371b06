#!/bin/sh
# Entry point of the PostgreSQL stand-in (postgres.Dockerfile). On an empty PGDATA it creates the
# cluster as the official postgres image does: superuser POSTGRES_USER (default postgres) with the
# password from POSTGRES_PASSWORD or the file POSTGRES_PASSWORD_FILE, database POSTGRES_DB
# (default: the user's name), scram-sha-256 for every TCP client, trust on the local socket.
# Then it runs the server in the foreground, listening on every interface of the container.
set -eu

if [ "${1:-}" = postgres ]; then
  shift
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
    password="$(cat "$POSTGRES_PASSWORD_FILE")"
  else
    password="${POSTGRES_PASSWORD:-}"
  fi
  if [ -z "$password" ]; then
    echo "postgres-entrypoint: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2
    exit 2
  fi
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile="$(mktemp)"
    printf '%s\n' "$password" >"$pwfile"
    initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-local=trust \
      --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    if [ "$db" != postgres ]; then
      pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
      psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -q -c "CREATE DATABASE \"$db\"" >/dev/null
      pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    fi
    echo "postgres-entrypoint: initialised $PGDATA (user $user, database $db)" >&2
  fi
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
