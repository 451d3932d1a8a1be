#!/bin/sh
# The PostgreSQL server the catalog and web suites run against a second
# time (tests/CMakeLists.txt): Debian's, in a temporary directory, as the
# unprivileged postgres user when run as root, listening on a Unix socket
# only, with durability off (a test cluster lives for one ctest run).
#   pg_server.sh start STATE   writes the socket directory to STATE
#   pg_server.sh stop STATE    stops the server and removes its directory
#   pg_server.sh standby STATE OUT
#                              a hot standby of it (pg_basebackup -R) on a
#                              socket directory of its own, written to OUT:
#                              the read-replica test's (doc/deploy.md)
#   pg_server.sh stop-standby OUT
# A failure to start fails the fixture, and with it every test needing it.
set -eu
action=$1
state=$2

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || {
  echo "pg_server.sh: no PostgreSQL server (apt-get install postgresql)" >&2
  exit 1
}

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || {
      echo "pg_server.sh: running as root, but there is no postgres user to run the server" >&2
      exit 1
    }
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case $action in
  start)
    # A server left by an interrupted run is stopped first.
    [ -f "$state" ] && "$0" stop "$state" || true
    dir=$(mktemp -d /tmp/errdex-pg.XXXXXX)
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    if ! as_postgres "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C -N \
      >"$dir/initdb.log" 2>&1; then
      cat "$dir/initdb.log" >&2
      exit 1
    fi
    if ! as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
      "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off \
       -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start \
      >/dev/null; then
      cat "$dir/server.log" >&2
      exit 1
    fi
    echo "$dir" >"$state"
    echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on $dir"
    ;;
  stop)
    [ -f "$state" ] || exit 0
    dir=$(cat "$state")
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir" "$state"
    ;;
  standby)
    primary=$(cat "$state")
    out=$3
    dir=$(mktemp -d /tmp/errdex-pg-standby.XXXXXX)
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    # initdb's pg_hba.conf lets local replication connections in (trust).
    if ! as_postgres "$bin/pg_basebackup" -h "$primary" -U postgres -D "$dir/data" -R \
      -X stream -c fast --no-sync >"$dir/basebackup.log" 2>&1; then
      cat "$dir/basebackup.log" >&2
      rm -rf "$dir"
      exit 1
    fi
    if ! as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
      "-c listen_addresses='' -c unix_socket_directories='$dir' -c hot_standby=on \
       -c hot_standby_feedback=on -c max_connections=200" start >/dev/null; then
      cat "$dir/server.log" >&2
      rm -rf "$dir"
      exit 1
    fi
    echo "$dir" >"$out"
    ;;
  stop-standby)
    [ -f "$state" ] || exit 0
    dir=$(cat "$state")
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir" "$state"
    ;;
  *)
    echo "usage: pg_server.sh start|stop STATE | standby STATE OUT | stop-standby OUT" >&2
    exit 2
    ;;
esac
