#!/usr/bin/env bash
# Per-event costs behind the capacity plan in docs/operations/scaling.md, measured on this
# machine: the bench inputs (the simulator's week as gzip requests, scripts/bench.sh) posted to
# `pushledger serve` on a cluster of its own with durable settings (fsync and full-page writes
# on, as in production), telemetry and sends apart, then one rollup refresh. For each: server
# CPU-seconds, Postgres CPU-seconds and WAL bytes per event; then table + index bytes per row
# of every event table. CPU seconds, not wall time (the machine may be shared).
#   scripts/capacity.sh [INSTALLS]   (default 2000; CAPACITY_CONFIG=debug to skip the release build)
# CAPACITY_SHARDED=1 measures one shard of a sharded deployment instead: a directory database
# beside the shard, `serve --directory-url`; run both side by side for an A/B pair (each has a
# cluster of its own).
# Prints Markdown and saves it under bench/results/capacity-<time>.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/measure.sh
source scripts/measure.sh
log() { printf '==> %s\n' "$*" >&2; }

installs=${1:-2000}
config=${CAPACITY_CONFIG:-release}
app=com.example.shop
bindir=$(swift build -c "$config" --show-bin-path)
if [ ! -x "$bindir/pushledger" ] || [ ! -x "$bindir/pushledger-bench" ]; then
    log "Building ($config)"
    for product in pushledger pushledger-bench; do swift build -c "$config" --product $product >&2; done
fi
bin=$bindir/pushledger bench=$bindir/pushledger-bench

sharded=${CAPACITY_SHARDED:-}
cluster=capacity${sharded:+-sharded}
admin_url=$(DATABASE_URL= scripts/db.sh start "$cluster")
url=$(sed -E "s#/[^/?]*(\?|\$)#/capacity\1#" <<<"$admin_url")
postmaster=$(postmaster_of "$admin_url")
work=$root/.pgdata/$cluster-work
server=""
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    [ -n "${CAPACITY_KEEP:-}" ] || DATABASE_URL= scripts/db.sh destroy "$cluster"
    rm -rf "$work"
}
trap cleanup EXIT
q() { psql "$url" -qAtc "$1"; }

psql "$admin_url" -qc "drop database if exists capacity with (force)" -c "create database capacity" >&2
DATABASE_URL=$url "$bin" migrate --log-level warning
# Sharded: the database measured is the one shard; keys and the map live in the directory.
serve_db=(--database-url "$url")
if [ -n "$sharded" ]; then
    directory_url=$(sed -E "s#/[^/?]*(\?|\$)#/capacity_directory\1#" <<<"$admin_url")
    psql "$admin_url" -qc "drop database if exists capacity_directory with (force)" \
        -c "create database capacity_directory" >&2
    "$bin" --directory-url "$directory_url" migrate --log-level warning
    "$bin" --directory-url "$directory_url" shards add s1 "$url" --log-level warning
    "$bin" --directory-url "$directory_url" apps place $app --shard s1 --log-level warning
    serve_db=(--directory-url "$directory_url")
fi
q "select count(*) from pushledger_ensure_partitions(now() - interval '40 days', now() + interval '1 day')" >/dev/null

log "Generating the simulator's week ($installs installations)"
rm -rf "$work" && mkdir -p "$work"
eval "$("$bench" inputs --out "$work/all" --installs "$installs" | tr '\n' ' ')"
total_events=$events  # (the post below sets its own `events`)
# The same requests split by endpoint, so each is measured alone.
for kind in telemetry sends; do
    mkdir -p "$work/$kind"
    ln -s "$work"/all/*.gz "$work/$kind/"
    grep -P "\t/v1/$kind\t" "$work/all/manifest.tsv" >"$work/$kind/manifest.tsv"
done

export BENCH_TELEMETRY_KEY BENCH_SENDS_KEY
BENCH_TELEMETRY_KEY=$("$bin" "${serve_db[@]}" keys create --app $app --scope telemetry --log-level warning)
BENCH_SENDS_KEY=$("$bin" "${serve_db[@]}" keys create --app $app --scope sends --log-level warning)
port=$(scripts/free-port.sh)
"$bin" "${serve_db[@]}" serve --listen "127.0.0.1:$port" --log-level warning 2>"$work/serve.log" &
server=$!
wait_for_port "$port" "$server" "$work/serve.log"

rows=""
# measure KIND COUNT: posts the KIND requests; appends a row of per-event figures.
measure() {
    local wal0 cpu0 pg0 wal
    wal0=$(q "select pg_current_wal_lsn()") cpu0=$(cpu_seconds "$server") pg0=$(pg_cpu)
    eval "$("$bench" post --inputs "$work/$1" --port "$port" --connections 16)"
    wal=$(q "select pg_wal_lsn_diff(pg_current_wal_lsn(), '$wal0')")
    rows+="| $1 | $2 | $requests | $(calc "%.1f" "($(cpu_seconds "$server") - $cpu0) * 1000000 / $2") "
    rows+="| $(calc "%.1f" "($(pg_cpu_settled) - $pg0) * 1000000 / $2") | $(calc "%.0f" "$wal / $2") "
    rows+="| $events_per_s |"$'\n'
}
log "Posting telemetry ($telemetry_events events)"
measure telemetry "$telemetry_events"
log "Posting sends ($sends sends)"
measure sends "$sends"
kill -TERM "$server"; wait "$server" || true; server=""

log "Refreshing the rollups"
wal0=$(q "select pg_current_wal_lsn()") pg0=$(pg_cpu)
DATABASE_URL=$url "$bin" rollup --log-level warning >/dev/null
rollup_wal=$(q "select pg_wal_lsn_diff(pg_current_wal_lsn(), '$wal0')")
rollup_pg=$(calc "%.1f" "($(pg_cpu_settled) - $pg0) * 1000000 / $sends")

q "vacuum analyze" >/dev/null
sizes=$(psql "$url" -qAt -F ' | ' -c "
    with t(name) as (values ('event_ids'), ('sends'), ('settings_snapshots'), ('channel_states'),
                            ('permission_prompts'), ('experiment_exposures'), ('notification_receipts'),
                            ('notification_opens'), ('token_registrations'), ('installations'), ('push_tokens'),
                            ('send_rollups_daily'), ('failed_events'))
    select '| ' || t.name, r.n, pg_size_pretty(b.bytes),
           case when r.n > 0 then round(b.bytes::numeric / r.n) end || ' |'
      from t
     cross join lateral (select coalesce((select sum(pg_total_relation_size(p.relid))::bigint
                                            from pg_partition_tree(t.name::regclass) p where p.isleaf),
                                         pg_total_relation_size(t.name::regclass)) as bytes) b
     cross join lateral (select (xpath('/row/n/text()',
                                       query_to_xml('select count(*) as n from ' || t.name, false, true, '')
                                      ))[1]::text::bigint as n) r
     order by b.bytes desc")
total_bytes=$(q "select sum(pg_total_relation_size(c.oid)) from pg_class c join pg_namespace n on n.oid = c.relnamespace
                  where n.nspname = 'public' and c.relkind in ('r', 'm')")

psi=$(awk '/^some/ { sub("avg300=", "", $4); print $4 }' /proc/pressure/cpu 2>/dev/null || echo "?")
stamp=$(date -u +%Y-%m-%dT%H%M)
# The here-document is unquoted: a backslash at a line's end joins the next line to it (lines kept short).
report=$(cat <<EOF
# Capacity inputs, $stamp ($config build, $installs installations: $total_events events, $sends sends)\
${sharded:+, one shard of a sharded deployment (directory beside it)}

Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); load average \
$(cut -d' ' -f1-3 /proc/loadavg),
CPU pressure (PSI some avg300) $psi % during the run. Shared with other work: CPU-seconds per event
are the figures to use, events/s only says how busy the machine was.

| Requests | Events | HTTP requests | Server CPU-µs per event \
| Postgres CPU-µs per event | WAL bytes per event | Events/s (wall) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
$rows
Rollup refresh of the week: $rollup_pg Postgres CPU-µs and $(calc "%.0f" "$rollup_wal / $sends") WAL bytes per send.

| Table | Rows | Table + indexes | Bytes per row |
| --- | ---: | ---: | ---: |
$sizes

All tables: $(calc "%.0f" "$total_bytes / $total_events") bytes per event stored.
EOF
)
printf '%s\n' "$report"
mkdir -p bench/results
printf '%s\n' "$report" >"bench/results/capacity-$stamp${sharded:+-sharded}.md"
