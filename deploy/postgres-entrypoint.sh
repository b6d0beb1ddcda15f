#!/bin/sh
# postgres:16-alpine stand-in on Debian's PostgreSQL 15: the official image's contract, in small. On an
# empty $PGDATA: initdb with POSTGRES_USER (default postgres) and POSTGRES_PASSWORD, password auth over TCP,
# then POSTGRES_DB created; then `postgres` runs as the postgres user, listening on every address.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ "${1:-}" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "docker-entrypoint: POSTGRES_PASSWORD is not set" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA"
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  # A private socket while the database is made: the health check (pg_isready) says "not ready" till then.
  sockdir="$(mktemp -d)"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -k $sockdir" -w start
  if [ "$POSTGRES_DB" != postgres ]; then
    echo 'CREATE DATABASE :"db"' |
      psql -q -h "$sockdir" -U "$POSTGRES_USER" -d postgres -v ON_ERROR_STOP=1 -v db="$POSTGRES_DB"
  fi
  pg_ctl -D "$PGDATA" -w stop
  rmdir "$sockdir"
  echo "docker-entrypoint: database $POSTGRES_DB ready for $POSTGRES_USER"
fi
if [ "${1:-}" = postgres ]; then
  shift
  exec postgres -c listen_addresses='*' "$@"
fi
exec "$@"
