#!/usr/bin/env bash
# A PostgreSQL server on this host for tests and local use: its own cluster (not the distribution's), run
# as the postgres user, listening on 127.0.0.1 only, with a role infx (password infx, CREATEDB) and a database
# infx it owns (for `infx ingest --db postgres://infx:infx@127.0.0.1:5432/infx`). Run as root.
#
#   scripts/dev-postgres.sh install   apt-get install postgresql when no server binaries are found
#   scripts/dev-postgres.sh [start]   initdb on first use, start the server (idempotent), create the role and
#                                     database, print the URL tests use (the server's postgres database)
#   scripts/dev-postgres.sh status    whether it runs and answers; the URL
#   scripts/dev-postgres.sh stop      stop the server (fast shutdown)
#
# Environment: INFX_PG_PORT (default 5432), INFX_PG_DATA (default /var/lib/infx-postgres),
# INFX_PG_BIN (the folder holding initdb, pg_ctl, postgres, psql; default: the newest under /usr/lib/postgresql).
# Tests find the server through INFX_TEST_POSTGRES_URL (default postgres://infx:infx@127.0.0.1:5432/postgres).
set -euo pipefail

PORT="${INFX_PG_PORT:-5432}"
BASE="${INFX_PG_DATA:-/var/lib/infx-postgres}"
DATA="$BASE/data"
SOCK="$BASE/run"
LOG="$BASE/postgres.log"
PG_USER=postgres
URL="postgres://infx:infx@127.0.0.1:$PORT/postgres"

say() { echo "dev-postgres: $*"; }
die() {
  echo "dev-postgres: error: $*" >&2
  exit 1
}
need_root() { [ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo $0 ${1:-start})"; }

find_bin() {
  if [ -n "${INFX_PG_BIN:-}" ]; then
    [ -x "$INFX_PG_BIN/pg_ctl" ] || die "INFX_PG_BIN=$INFX_PG_BIN has no pg_ctl"
    echo "$INFX_PG_BIN"
    return 0
  fi
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
  if [ -n "$dir" ] && [ -x "$dir/pg_ctl" ]; then
    echo "$dir"
  elif command -v pg_ctl >/dev/null; then
    dirname "$(command -v pg_ctl)"
  else
    return 1
  fi
}

as_pg() { runuser -u "$PG_USER" -- "$@"; }
# psql as the superuser over the cluster's own socket directory (peer authentication)
psql_su() { as_pg "$BIN/psql" -h "$SOCK" -p "$PORT" -U "$PG_USER" -d postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
server_up() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -t 2 >/dev/null 2>&1; }
ours_running() { [ -f "$DATA/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }
url_works() { PGPASSWORD=infx "$BIN/psql" "$URL" -X -q -t -c 'select 1' >/dev/null 2>&1; }
psql_infx() { PGPASSWORD=infx "$BIN/psql" "$URL" -X -q -t -A -v ON_ERROR_STOP=1 "$@"; }
# the database infx, owned by infx (PostgreSQL 15+ lets only a database's owner create tables in public)
ensure_db() {
  [ "$(psql_infx -c "SELECT 1 FROM pg_database WHERE datname = 'infx'")" = 1 ] && return 0
  psql_infx -c 'CREATE DATABASE infx' || die "could not create the database infx"
}

cmd_install() {
  if find_bin >/dev/null; then
    say "PostgreSQL already installed ($("$(find_bin)/postgres" --version))"
    return 0
  fi
  need_root install
  command -v apt-get >/dev/null || die "no PostgreSQL server found and apt-get is not available: install PostgreSQL 13+ (set INFX_PG_BIN to its bin folder)"
  local log
  log="$(mktemp /tmp/dev-postgres-apt.XXXXXX.log)"
  say "installing postgresql with apt-get (log: $log)"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends postgresql >"$log" 2>&1; then
    say "install failed; running apt-get update and trying again"
    if ! { apt-get update -q && apt-get install -y -q --no-install-recommends postgresql; } >>"$log" 2>&1; then
      tail -n 40 "$log" >&2
      die "apt-get install postgresql failed (full log: $log)"
    fi
  fi
  say "installed: $("$(find_bin)/postgres" --version)"
}

init_cluster() {
  [ -s "$DATA/PG_VERSION" ] && return 0
  say "initdb $DATA (owner $PG_USER)"
  install -d -o "$PG_USER" -g "$PG_USER" -m 0700 "$BASE" "$DATA"
  as_pg "$BIN/initdb" -D "$DATA" -U "$PG_USER" --auth-local=peer --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >"$BASE/initdb.log" 2>&1 ||
    as_pg "$BIN/initdb" -D "$DATA" -U "$PG_USER" --auth-local=peer --auth-host=scram-sha-256 \
      -E UTF8 --locale=C >"$BASE/initdb.log" 2>&1 || {
    cat "$BASE/initdb.log" >&2
    die "initdb failed"
  }
  cat >>"$DATA/postgresql.conf" <<EOF
# Written by infx scripts/dev-postgres.sh: a development server, loopback only; durability traded for speed.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$SOCK'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
}

cmd_start() {
  BIN="$(find_bin)" || die "PostgreSQL is not installed: run $0 install"
  if url_works; then
    ensure_db
    say "already running and accepting infx on 127.0.0.1:$PORT — nothing to do"
    echo "$URL"
    return 0
  fi
  need_root start
  id "$PG_USER" >/dev/null 2>&1 || die "no '$PG_USER' user (the PostgreSQL package creates it; or useradd --system $PG_USER)"
  if server_up && ! ours_running; then
    # Another server on the port (e.g. the distribution's own cluster, started by its package): use it when
    # its superuser answers on the usual socket, else give up rather than fight over the port.
    if as_pg "$BIN/psql" -h /var/run/postgresql -p "$PORT" -U "$PG_USER" -d postgres -X -q -c 'select 1' >/dev/null 2>&1; then
      say "a server not started by this script already listens on 127.0.0.1:$PORT; using it"
      SOCK=/var/run/postgresql
    else
      die "something else already listens on 127.0.0.1:$PORT (the distribution's cluster? stop it, or set INFX_PG_PORT)"
    fi
  elif ! ours_running; then
    init_cluster
    install -d -o "$PG_USER" -g "$PG_USER" -m 0755 "$SOCK"
    say "starting postgres on 127.0.0.1:$PORT (data $DATA, log $LOG)"
    touch "$LOG" && chown "$PG_USER:$PG_USER" "$LOG"
    as_pg "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -o "-p $PORT" -w -t 60 start >/dev/null || {
      tail -n 30 "$LOG" >&2
      die "postgres failed to start (log: $LOG)"
    }
  fi
  psql_su -c "DO \$\$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'infx') THEN
        CREATE ROLE infx LOGIN CREATEDB PASSWORD 'infx';
      ELSE
        ALTER ROLE infx LOGIN CREATEDB PASSWORD 'infx';
      END IF;
    END \$\$;
    GRANT pg_signal_backend TO infx;" || die "could not create the role infx"
  url_works || die "the server runs but $URL does not connect (see $LOG)"
  ensure_db
  say "up: $("$BIN/postgres" --version); store results with --db ${URL%/postgres}/infx"
  echo "$URL"
}

cmd_stop() {
  BIN="$(find_bin)" || die "PostgreSQL is not installed"
  need_root stop
  if ours_running; then
    as_pg "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null
    say "stopped"
  else
    say "not running"
  fi
}

cmd_status() {
  BIN="$(find_bin)" || die "PostgreSQL is not installed: run $0 install"
  if url_works; then
    say "running on 127.0.0.1:$PORT, role infx connects"
    echo "$URL"
  elif server_up; then
    say "a server answers on 127.0.0.1:$PORT but $URL does not connect (run: sudo $0 start)"
    return 1
  else
    say "not running (start it: sudo $0 start)"
    return 1
  fi
}

case "${1:-start}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  -h | --help | help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) die "unknown command '$1' (install, start, stop, status)" ;;
esac
