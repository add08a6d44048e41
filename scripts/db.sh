#!/usr/bin/env bash
# Project-local PostgreSQL 15 cluster for the demo and the tests.
#   scripts/db.sh start [NAME]   initialise (first time) and start cluster NAME (default: demo);
#                                prints the DATABASE_URL on stdout
#   scripts/db.sh stop [NAME]    stop it
#   scripts/db.sh destroy [NAME] stop it and delete its folder
#   scripts/db.sh url [NAME]     print its DATABASE_URL
#   scripts/db.sh resume [NAME]  start a stopped cluster again on the port it had (the fault tests
#                                stop Postgres under a running server and bring it back)
#   scripts/db.sh replica NAME PRIMARY
#                                start cluster NAME as a streaming hot standby of the running
#                                cluster PRIMARY (pg_basebackup -R the first time); prints its URL
# When the caller has DATABASE_URL set, nothing is started or stopped and that URL is used.
set -euo pipefail

cmd=${1:-start}
name=${2:-demo}
root=$(cd "$(dirname "$0")/.." && pwd)
bindir=/usr/lib/postgresql/15/bin

if [ -n "${DATABASE_URL:-}" ]; then
    [ "$cmd" = start ] || [ "$cmd" = url ] && echo "$DATABASE_URL"
    exit 0
fi

. "$root/scripts/lib/pg-folder.sh"
pg_folder "$name"
data="$dir/data"
sock="$dir/run"

# A free port below the kernel's ephemeral range (scripts/free-port.sh says why).
free_port() { "$root/scripts/free-port.sh"; }

url() { echo "postgres://pushledger@127.0.0.1:$(cat "$dir/port")/pushledger?sslmode=disable"; }

running() { [ -f "$data/PG_VERSION" ] && "${as_pg[@]}" "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; }

# Starts the cluster in $data on a free port. The primary side streams to standbys, and a move of
# an app between shards (`pushledger apps move`) decodes its WAL by logical replication:
# wal_level logical, with WAL senders, slots and workers for both.
start_server() {
    "${as_pg[@]}" mkdir -p "$sock"
    # The server options but the port, in pieces only to keep lines short.
    local opts="-k $sock -c listen_addresses=127.0.0.1 -c max_connections=1000 -c shared_buffers=256MB"
    opts+=" -c wal_level=logical -c max_wal_senders=16 -c max_replication_slots=16 -c max_logical_replication_workers=8"
    for attempt in 1 2 3 4 5; do
        free_port >"$dir/port"
        "${as_pg[@]}" "$bindir/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 -o "-p $(cat "$dir/port") $opts $1" \
            start >&2 && return 0
        # Taken between the check and the bind (another cluster starting): the next free port.
        if [ "$attempt" -lt 5 ] && tail -n 8 "$dir/server.log" | grep -q "Address already in use"; then
            echo "db: port $(cat "$dir/port") was taken meanwhile; trying another" >&2; continue
        fi
        tail -n 20 "$dir/server.log" >&2; exit 1
    done
}

case "$cmd" in
start)
    if [ ! -x "$bindir/initdb" ]; then
        echo "db: PostgreSQL 15 server not found in $bindir (run scripts/deps.sh)" >&2; exit 1
    fi
    if [ ! -f "$data/PG_VERSION" ]; then
        echo "db: initialising cluster '$name' in $data" >&2
        "${as_pg[@]}" "$bindir/initdb" -D "$data" -U pushledger --auth=trust -E UTF8 --locale=C.UTF-8 \
            >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    if ! running; then
        extra=""
        # The throwaway test cluster trades crash safety of Postgres itself for speed.
        [ "$name" = test ] && extra="-c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        start_server "$extra"
    fi
    port=$(cat "$dir/port")
    if ! "$bindir/psql" -h 127.0.0.1 -p "$port" -U pushledger -d postgres -tAc \
        "select 1 from pg_database where datname = 'pushledger'" | grep -q 1; then
        "$bindir/psql" -h 127.0.0.1 -p "$port" -U pushledger -d postgres -qc "create database pushledger" >&2
    fi
    url
    ;;
stop)
    if running; then "${as_pg[@]}" "$bindir/pg_ctl" -D "$data" -m fast -w stop >&2; fi
    ;;
destroy)
    if running; then "${as_pg[@]}" "$bindir/pg_ctl" -D "$data" -m immediate -w stop >&2 || true; fi
    rm -rf "$dir"
    ;;
url)
    [ -f "$dir/port" ] || { echo "db: cluster '$name' was never started" >&2; exit 1; }
    url
    ;;
resume)
    [ -f "$dir/port" ] && [ -f "$data/PG_VERSION" ] || { echo "db: cluster '$name' was never started" >&2; exit 1; }
    if ! running; then
        "${as_pg[@]}" "$bindir/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
            -o "-p $(cat "$dir/port") -k $sock -c listen_addresses=127.0.0.1 -c max_connections=100" \
            start >&2 || { tail -n 20 "$dir/server.log" >&2; exit 1; }
    fi
    url
    ;;
replica)
    primary=${3:?usage: scripts/db.sh replica NAME PRIMARY}
    primary_dir="$(dirname "$dir")/$primary"
    [ -f "$primary_dir/port" ] || { echo "db: cluster '$primary' was never started" >&2; exit 1; }
    if [ ! -f "$data/PG_VERSION" ]; then
        echo "db: copying cluster '$primary' into standby '$name'" >&2
        # -R writes primary_conninfo and standby.signal: the copy starts as a hot standby.
        "${as_pg[@]}" "$bindir/pg_basebackup" -h 127.0.0.1 -p "$(cat "$primary_dir/port")" -U pushledger \
            -D "$data" -R -X stream -c fast >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
    fi
    if ! running; then start_server "-c hot_standby=on"; fi
    url
    ;;
*)
    echo "usage: scripts/db.sh start|stop|destroy|url|resume [NAME] | replica NAME PRIMARY" >&2; exit 64
    ;;
esac
