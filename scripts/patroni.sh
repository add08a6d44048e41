#!/usr/bin/env bash
# A project-local Patroni cluster on loopback: one etcd and two PostgreSQL 15 nodes (n1, n2)
# running deploy/patroni/patroni.yml (its bootstrap, timeouts and replication settings as
# shipped; addresses, folders and authentication made local). For the failover tests and for
# trying failover by hand.
#   scripts/patroni.sh start NAME         start etcd and both nodes (bootstrap the first time);
#                                         waits for a primary and a synchronous standby; prints
#                                         the multi-host DATABASE_URL
#   scripts/patroni.sh url NAME           print that URL
#   scripts/patroni.sh leader NAME        print the node that is primary now (n1 or n2), or nothing
#   scripts/patroni.sh sync NAME          print the node that is synchronous standby now, or nothing
#   scripts/patroni.sh kill NAME NODE     the node's machine dies: SIGKILL to Patroni, the
#                                         postmaster and every backend at once
#   scripts/patroni.sh kill-diverged NAME NODE  the same, after NODE (the primary) committed WAL
#                                         its standby never received: it must be rewound to rejoin
#   scripts/patroni.sh rewinds NAME NODE  how many times the node's Patroni ran pg_rewind
#   scripts/patroni.sh lag NAME NODE      MB etcd has the node (a running replica) behind the
#                                         primary's last recorded position, or nothing
#   scripts/patroni.sh crash NAME NODE    PostgreSQL alone dies (SIGKILL to postmaster and
#                                         backends); Patroni stays and restarts it in place
#   scripts/patroni.sh start-node NAME NODE  start Patroni on a node again (the machine is back)
#   scripts/patroni.sh switchover NAME    planned switchover to the synchronous standby
#   scripts/patroni.sh list NAME          patronictl list
#   scripts/patroni.sh diagnose NAME      patronictl list, who holds each node's ports, and the
#                                         last lines of each node's log (for a failed test)
#   scripts/patroni.sh destroy NAME       kill everything and delete the cluster's folder
set -euo pipefail

cmd=${1:-}
name=${2:-}
[ -n "$cmd" ] && [ -n "$name" ] || { sed -n '2,24p' "$0" >&2; exit 64; }
root=$(cd "$(dirname "$0")/.." && pwd)
bindir=/usr/lib/postgresql/15/bin
nodes=(n1 n2)

# PostgreSQL (and so Patroni) runs as the postgres user when we are root.
. "$root/scripts/lib/pg-folder.sh"
pg_folder "patroni-$name"

# A port of the Patroni block (scripts/free-port.sh), not one already handed out in this cluster.
free_port() { "$root/scripts/free-port.sh" --patroni $(cat "$dir"/*.port 2>/dev/null); }
port() { cat "$dir/$1.port"; }
ensure_port() { [ -s "$dir/$1.port" ] || free_port >"$dir/$1.port"; }

url() {
    local query="target_session_attrs=read-write&connect_timeout=2&sslmode=disable"
    echo "postgres://pushledger@127.0.0.1:$(port n1-pg),127.0.0.1:$(port n2-pg)/pushledger?$query"
}

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# 200 from a node's REST API path (/primary, /sync) or not.
api_ok() {
    curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$(port "$1-api")$2" 2>/dev/null | grep -qx 200
}

wait_for() {
    local what=$1 seconds=$2; shift 2
    for _ in $(seq 1 $((seconds * 10))); do "$@" && return 0; sleep 0.1; done
    echo "patroni: $what did not happen within $seconds s" >&2
    for n in "${nodes[@]}"; do [ -f "$dir/$n/patroni.log" ] && tail -n 40 "$dir/$n/patroni.log" >&2; done
    return 1
}

start_etcd() {
    alive "$dir/etcd.pid" && return 0
    ensure_port etcd-client; ensure_port etcd-peer
    local client="http://127.0.0.1:$(port etcd-client)" peer="http://127.0.0.1:$(port etcd-peer)"
    setsid etcd --name etcd1 --data-dir "$dir/etcd" --listen-client-urls "$client" --advertise-client-urls "$client" \
        --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" --initial-cluster "etcd1=$peer" \
        --initial-cluster-state new --log-outputs stderr >"$dir/etcd.log" 2>&1 </dev/null &
    echo $! >"$dir/etcd.pid"
    wait_for "etcd health" 30 curl -sf -m 1 "$client/health" -o /dev/null
}

# The node's Patroni file: deploy/patroni/patroni.yml with this node's name, addresses and
# folders, trust on loopback, and no fsync (a killed process loses nothing the kernel has):
# not in PostgreSQL, nor in pg_rewind (whose sync of the whole data folder takes seconds on a
# busy disk), through a bin folder of its own.
write_config() {
    local n=$1 nd="$dir/$1" tool
    "${as_pg[@]}" mkdir -p "$nd/run"
    mkdir -p "$nd/bin"
    for tool in "$bindir"/*; do ln -sf "$tool" "$nd/bin/"; done
    rm -f "$nd/bin/pg_rewind"
    # Patroni rewinds only if `pg_rewind --help` succeeds, and pg_rewind takes --help and
    # --version as its first argument alone: those pass through unchanged.
    cat >"$nd/bin/pg_rewind" <<EOF
#!/bin/sh
case "\${1:-}" in --help|-\?|--version|-V) exec $bindir/pg_rewind "\$@" ;; esac
exec $bindir/pg_rewind --no-sync "\$@"
EOF
    chmod 755 "$nd/bin/pg_rewind"
    "$nd/bin/pg_rewind" --help >/dev/null || { echo "patroni: $nd/bin/pg_rewind --help fails" >&2; exit 1; }
    cp "$root/deploy/patroni/pushledger-post-bootstrap.sh" "$nd/post-bootstrap.sh"
    chmod 755 "$nd/post-bootstrap.sh"
    /usr/bin/python3 - "$root/deploy/patroni/patroni.yml" "$nd/patroni.yml" "$name" "$n" "$nd" "$nd/bin" \
        "$(port "$n-pg")" "$(port "$n-api")" "$(port etcd-client)" <<'PY'
import sys, yaml
source, target, cluster, node, nd, bindir, pg, api, etcd = sys.argv[1:]
c = yaml.safe_load(open(source))
c["scope"] = "pushledger-" + cluster
c["name"] = node
c["restapi"] = {"listen": "127.0.0.1:" + api, "connect_address": "127.0.0.1:" + api}
c["etcd3"] = {"hosts": "127.0.0.1:" + etcd}
c["bootstrap"]["post_bootstrap"] = nd + "/post-bootstrap.sh"
c["bootstrap"]["dcs"]["postgresql"]["parameters"].update({"fsync": "off", "max_connections": 100})
p = c["postgresql"]
p.update({"listen": "127.0.0.1:" + pg, "connect_address": "127.0.0.1:" + pg, "data_dir": nd + "/data",
          "bin_dir": bindir, "pgpass": nd + "/pgpass"})
p["pg_hba"] = ["local all all trust", "host all all 127.0.0.1/32 trust", "host replication all 127.0.0.1/32 trust"]
p["parameters"]["unix_socket_directories"] = nd + "/run"
yaml.safe_dump(c, open(target, "w"), sort_keys=False)
PY
    [ ${#as_pg[@]} -eq 0 ] || chown -R postgres "$nd"
}

start_node() {
    local n=$1
    alive "$dir/$n/patroni.pid" && return 0
    ensure_port "$n-pg"; ensure_port "$n-api"
    "${as_pg[@]}" mkdir -p "$dir/$n"
    write_config "$n"
    # The shell writes its pid and becomes Patroni, so the pid file names Patroni itself.
    setsid "${as_pg[@]}" sh -c 'echo $$ >"$1/patroni.pid"; exec patroni "$1/patroni.yml"' sh "$dir/$n" \
        >>"$dir/$n/patroni.log" 2>&1 </dev/null &
    wait_for "$n's Patroni to start" 10 test -s "$dir/$n/patroni.pid"
}

# The primary by its REST API, else the leader etcd has as running: on a loaded machine a node has
# led for 50 s while its REST API never answered /primary within curl's 2 s.
leader() {
    for n in "${nodes[@]}"; do if api_ok "$n" /primary; then echo "$n"; return; fi; done
    patronictl_ list -f json 2>/dev/null | python3 -c '
import json, sys
for m in json.load(sys.stdin):
    if m.get("Role") == "Leader" and m.get("State") == "running":
        print(m["Member"])'
}
sync_standby() { for n in "${nodes[@]}"; do if api_ok "$n" /sync; then echo "$n"; return; fi; done; }
has_leader() { [ -n "$(leader)" ]; }
has_sync() { [ -n "$(sync_standby)" ]; }

# The postmaster's pid and its children's (the backends and auxiliary processes).
postgres_pids() {
    local pidfile="$dir/$1/data/postmaster.pid" pm
    [ -r "$pidfile" ] || return 0
    pm=$(head -n 1 "$pidfile")
    kill -0 "$pm" 2>/dev/null || return 0
    echo "$pm"
    pgrep -P "$pm" || true
}

patronictl_() { patronictl -c "$dir/n1/patroni.yml" "$@"; }
# recorded_lag NODE: how many MB etcd has the node behind the primary's last recorded position
# (what Patroni weighs against maximum_lag_on_failover before the node may take over); nothing
# while the node is not a running replica.
recorded_lag() {
    patronictl_ list -f json 2>/dev/null | python3 -c '
import json, sys
for m in json.load(sys.stdin):
    if m.get("Member") == sys.argv[1] and m.get("State") == "running" and isinstance(m.get("Lag in MB"), int):
        print(m["Lag in MB"])' "$1"
}

case "$cmd" in
start)
    [ -x "$bindir/initdb" ] && command -v patroni >/dev/null && command -v etcd >/dev/null \
        || { echo "patroni: needs postgresql-15, patroni and etcd-server" \
                "(scripts/deps.sh patroni etcd-server)" >&2; exit 1; }
    start_etcd
    for n in "${nodes[@]}"; do ensure_port "$n-pg"; ensure_port "$n-api"; done
    # n1 first: it bootstraps the cluster the first time, n2 then clones it.
    start_node n1
    wait_for "a primary" 90 has_leader
    start_node n2
    wait_for "a synchronous standby" 120 has_sync
    url
    ;;
url) url ;;
leader) leader ;;
sync) sync_standby ;;
kill | kill-diverged)
    n=${3:?node}
    receiver=
    if [ "$cmd" = kill-diverged ]; then
        # The standby stops receiving, the primary commits WAL locally that the standby never
        # gets, then dies: the old primary's history has diverged and only pg_rewind brings it back.
        standby=$(sync_standby)
        [ -n "$standby" ] && [ "$standby" != "$n" ] || { echo "patroni: no synchronous standby beside $n" >&2; exit 1; }
        receiver=$(postgres_pids "$standby" | xargs -r ps -o pid=,args= -p | awk '/walreceiver/ { print $1 }')
        [ -n "$receiver" ] || { echo "patroni: no WAL receiver on $standby" >&2; exit 1; }
        kill -STOP "$receiver"
        "${as_pg[@]}" "$bindir/psql" -X -q -h "$dir/$n/run" -p "$(port "$n-pg")" -U postgres -d postgres \
            -c "begin; set local synchronous_commit = local;
                select pg_logical_emit_message(true, 'pushledger-test', repeat('diverged', 4096)); commit;" >/dev/null
    fi
    # Collected first, then killed in one call: nothing of the node gets to react.
    pids=$( { cat "$dir/$n/patroni.pid" 2>/dev/null || true; postgres_pids "$n"; } | sort -u)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
    [ -z "$receiver" ] || kill -CONT "$receiver"
    ;;
lag) recorded_lag "${3:?node}" ;;
rewinds)
    # How often the node's Patroni has run pg_rewind.
    grep -c "running pg_rewind from" "$dir/${3:?node}/patroni.log" || true
    ;;
crash)
    n=${3:?node}
    pids=$(postgres_pids "$n")
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
    ;;
start-node) start_node "${3:?node}" ;;
switchover)
    from=$(leader); to=$(sync_standby)
    [ -n "$from" ] && [ -n "$to" ] || { echo "patroni: no primary and synchronous standby to switch over" >&2; exit 1; }
    patronictl_ switchover --leader "$from" --candidate "$to" --force >&2
    ;;
list) patronictl_ list ;;
diagnose)
    patronictl_ list 2>&1 || true
    for n in "${nodes[@]}"; do
        for p in "$n-pg" "$n-api"; do
            [ -s "$dir/$p.port" ] || continue
            echo "== $p $(port "$p"): $(ss -ltnpH "sport = :$(port "$p")" 2>/dev/null | awk '{print $NF}' | head -n 1)"
        done
        echo "== $n patroni.log"
        tail -n "${3:-40}" "$dir/$n/patroni.log" 2>/dev/null || true
    done
    ;;
destroy)
    for n in "${nodes[@]}"; do
        pids=$( { cat "$dir/$n/patroni.pid" 2>/dev/null || true; postgres_pids "$n"; } | sort -u)
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
    done
    if [ -s "$dir/etcd.pid" ]; then kill -9 "$(cat "$dir/etcd.pid")" 2>/dev/null || true; fi
    rm -rf "$dir"
    ;;
*) sed -n '2,24p' "$0" >&2; exit 64 ;;
esac
