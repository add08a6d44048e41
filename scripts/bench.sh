#!/usr/bin/env bash
# `make bench` (scripts/bench.sh) and `make bench-smoke` (scripts/bench.sh smoke): ingest and
# reports measured side by side in one run on one machine, printed as a Markdown table and
# saved under bench/results/ (full runs only). Ratios matter, not absolute times.
#   1. ingest: the simulator's week as gzip JSON requests (sends in batches of 500) posted to
#      `pushledger serve` over 32 connections, against `psql \copy` of exactly the rows it
#      stored into the same tables, twice: with the rollup queue's statement triggers as the
#      schema had them until the writer enqueued its own work (bench/sql/queue_triggers.sql, the
#      same whatever build is measured: the headline COPY) and with no trigger; against one
#      INSERT per row (a sample; one request's rows a transaction, then autocommit; 32
#      sessions); then the whole pipeline's phone-sized fleet (2.) without the follower, and the
#      week over 256 connections (peak RSS). Each run also reports the load generator's own CPU
#      (the client process's user + system per million events) and the machine's idle share
#      meanwhile (/proc/stat: near 0 % CPU-bound). Autovacuum is off in these databases
#      (bench/sql/bench.sql).
#   2. the whole pipeline: another fleet of the week as phone-sized telemetry requests (1-3
#      events) over many connections and its sends in batches of 500 over 4 more, at once, with
#      `pushledger rollup --follow` running: time to store everything and have it rolled up
#      against `psql \copy` of exactly the rows stored (with the queue's triggers and without),
#      how long after the last answer the rollups caught up, Postgres CPU split into ingest and
#      refresh (the refresh's is its Postgres CPU-µs per ingested event), the load generator's
#      CPU and the machine's idle share; then paced runs at fractions of that rate: the highest
#      with p99 < 1 s and the lag within the freshness.
#   3. reports: that week copied k-fold (new ids and tokens per copy) to 1x/2x/4x sends; the
#      rollup and the weekly report against SELECT count(*) over the week's sends, against
#      one input of the outcome engine alone (the sends joined with their receipts), against
#      reading every input of the engine once (count(*) of each), and the
#      rollup's grouping alone over sends already classified (the floor of a rollup that
#      would only aggregate). The rollup is a full rebuild; then one more hour of traffic
#      is written and refreshed incrementally, against the rebuild (smoke mode also checks
#      that the incremental rollups equal a rebuild).
#   4. keys: a client posting one-event requests with a known key, alone and then beside
#      connections posting a random key each request (each held until a read of the key table
#      that started after it arrived, then 401): the known key's latency beside the flood and
#      the key-table reads a second it cost.
# Smoke mode runs it all tiny on the caller's DATABASE_URL (make test) and checks it worked.
# BENCH_PARTS picks parts (default "ingest naive rss pipeline reports keys"; ingest always runs);
# BENCH_BASELINE_BIN=<another build's pushledger> adds its serve at 32 connections and on the
# phone-sized fleet, alternating with this build's BENCH_AB_ROUNDS times (default 1), and its
# serve and follower through the whole pipeline: an A/B in one run. The "Targets" table follows
# the ingest table: each target's figure of the run (and of the baseline). BENCH_SCALES
# (default "1 2 4") picks the reports' scales; BENCH_PREVIOUS=<a bench/results file> the run
# whose rollup figures are printed beside this one's (default: the newest with a rollup
# table). BENCH_SERVE_ARGS and BENCH_BASELINE_SERVE_ARGS: options added to this build's and the
# baseline's `serve` (an A/B of a setting: BENCH_BASELINE_BIN set to this build,
# BENCH_BASELINE_SERVE_ARGS="--writers 2").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

mode=${1:-full}
app=com.example.shop
case "$mode" in
full)
    installs=${BENCH_INSTALLS:-3000}; sends_1x=${BENCH_SENDS_1X:-250000}; naive_every=${BENCH_NAIVE_EVERY:-20}
    phone_connections=${BENCH_PHONE_CONNECTIONS:-48}; rates=${BENCH_RATES-0.5 0.75 1.0}; config=release
    key_seconds=10; key_flood=64 ;;
smoke)
    installs=12; sends_1x=300; naive_every=1; phone_connections=4; rates=0.5; config=debug
    key_seconds=2; key_flood=4 ;;
*) echo "usage: scripts/bench.sh [full|smoke]" >&2; exit 64 ;;
esac
log() { printf '==> %s\n' "$*" >&2; }
parts=" ${BENCH_PARTS:-ingest naive rss pipeline reports keys} "
part() { [[ $parts == *" $1 "* ]]; }
freshness=${BENCH_FRESHNESS:-$([ "$mode" = smoke ] && echo 2s || echo 60s)}
baseline_bin=${BENCH_BASELINE_BIN:-} baseline_name=${BENCH_BASELINE_NAME:-baseline}
read -ra serve_args <<<"${BENCH_SERVE_ARGS:-}"
read -ra baseline_serve_args <<<"${BENCH_BASELINE_SERVE_ARGS:-}"
# shellcheck source=scripts/measure.sh
source scripts/measure.sh

bindir=$(swift build -c "$config" --show-bin-path)
# Full runs build release; smoke runs reuse make test's debug build (or build what is missing).
if [ "$config" = release ] || [ ! -x "$bindir/pushledger" ] || [ ! -x "$bindir/pushledger-bench" ]; then
    log "Building ($config)"
    for product in pushledger pushledger-bench; do
        swift build -c "$config" --product $product 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2 || true
    done
fi
bin=$bindir/pushledger
benchbin=$bindir/pushledger-bench
[ -x "$bin" ] && [ -x "$benchbin" ] || { echo "bench: build the $config products first" >&2; exit 1; }

admin_url=${DATABASE_URL:-$(scripts/db.sh start bench)}
work=$root/.pgdata/bench-work-$mode
rm -rf "$work" && mkdir -p "$work/csv"
db_url() { sed -E "s#/[^/?]*(\?|\$)#/$1\1#" <<<"$admin_url"; }  # the same server, database $1
server=""
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    [ -n "${BENCH_KEEP:-}" ] && return  # keep the databases to look into them
    if [ -n "${follower:-}" ]; then kill -TERM "$follower" 2>/dev/null || true; wait "$follower" 2>/dev/null || true; fi
    for db in warm ingest base abphone copy copyfree naive naive_auto rss pipeline pipebase pipecopy pipecopyfree \
        reports; do
        psql "$admin_url" -qc "drop database if exists bench_$db with (force)" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT
fresh_db() {  # fresh_db NAME: migrated, partitions of the benchmark months created ahead
    psql "$admin_url" -qc "drop database if exists bench_$1 with (force)" -c "create database bench_$1" >&2
    DATABASE_URL=$(db_url "bench_$1") "$bin" migrate --log-level warning
    psql "$(db_url "bench_$1")" -qAtc "select count(*)
        from pushledger_ensure_partitions(now() - interval '40 days', now() + interval '1 day')" >/dev/null
    psql "$(db_url "bench_$1")" -qf bench/sql/bench.sql >/dev/null
}
q() { psql "$(db_url "bench_$1")" -qAtc "$2"; }
timed() {  # seconds
    psql "$(db_url "bench_$1")" -qAt -c '\timing on' -c "$2" | awk '/^Time:/ { printf "%.3f", $2 / 1000 }'
}

log "Generating the simulator's week ($installs installations) as gzip requests, and a warm-up fleet"
eval "$("$benchbin" inputs --out "$work/inputs" --installs "$installs" | tr '\n' ' ')"
"$benchbin" inputs --out "$work/warm" --installs $((installs / 2)) --seed 8 >/dev/null
log "week $week: $requests requests, $events events ($sends sends)"
log "Generating another fleet of the week as phone-sized telemetry requests (1-3 events)"
eval "$("$benchbin" inputs --out "$work/phone" --installs "$installs" --seed 11 --events-per-request 3 |
    sed 's/^/phone_/; s/ / phone_/g')"

# serve NAME [BIN]: starts pushledger serve (this build's, or BIN with the baseline's options)
# on bench_NAME; sets server, port and keys.
serve() {
    local serve_bin=${2:-$bin} extra=("${serve_args[@]}")
    [ -n "${2:-}" ] && extra=("${baseline_serve_args[@]}")
    export BENCH_TELEMETRY_KEY BENCH_SENDS_KEY
    BENCH_TELEMETRY_KEY=$(DATABASE_URL=$(db_url "bench_$1") "$bin" keys create --app $app --scope telemetry \
        --log-level warning)
    BENCH_SENDS_KEY=$(DATABASE_URL=$(db_url "bench_$1") "$bin" keys create --app $app --scope sends \
        --log-level warning)
    # A port may look free yet be taken by a client socket in TIME_WAIT: try another then.
    for _ in 1 2 3 4 5; do
        port=$(scripts/free-port.sh)
        # Every bench connection comes from 127.0.0.1: lift the per-address cap, and keep the
        # connection limit above the 256-connection run so no idle keep-alive is shed. One app
        # posts everything: its share of the queue is the whole queue, above the connections,
        # so no request is throttled (429) and every figure counts stored events only.
        DATABASE_URL=$(db_url "bench_$1") "$serve_bin" serve --listen "127.0.0.1:$port" --log-level warning \
            --per-address 512 --connections 512 --queue 512 --app-share 512 "${extra[@]}" 2>"$work/serve-$1.log" &
        server=$!
        for _ in $(seq 1 200); do
            kill -0 "$server" 2>/dev/null || break
            if (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET /readyz HTTP/1.0\r\n\r\n' >&3 &&
                head -c 12 <&3 | grep -q 200) 2>/dev/null; then break 2; fi
            sleep 0.1
        done
        wait "$server" 2>/dev/null || true
    done
    kill -0 "$server" 2>/dev/null ||
        { cat "$work/serve-$1.log" >&2; echo "bench: pushledger serve did not start" >&2; exit 1; }
}
postmaster=$(postmaster_of "$admin_url")
# post CONNECTIONS: the measured week over that many connections; sets the load generator's
# figures, and fails unless every request was answered 200. Sets too loadgen_cpu, the load
# generator's own CPU-s per million events (user + system of the pushledger-bench process,
# read from the subshell that waited for it), and idle_pct, the machine's idle share meanwhile.
post() {
    local figures connections=$1 jiffies0 loadgen_seconds=""
    shift
    jiffies0=$(machine_jiffies)
    figures=$("$benchbin" post --inputs "${inputs_dir:-$work/inputs}" --port "$port" \
        --connections "$connections" "$@" || exit
        printf '\nloadgen_seconds='; waited_cpu_seconds "$BASHPID") || { echo "bench: $figures" >&2; exit 1; }
    idle_pct=$(idle_share "$jiffies0")
    eval "$figures"
    loadgen_cpu=$(per_million 0 "$loadgen_seconds" "$events")
}
commits() { q "$1" "select xact_commit from pg_stat_database where datname = current_database()"; }
stop_server() { kill -TERM "$server"; wait "$server" || true; server=""; }

# Every measured path starts from the same database holding another fleet of that week,
# analysed (steady state: plans as on a live system, indexes not empty).
log "Warm-up: another fleet of the week ingested and analysed (not measured)"
fresh_db warm
serve warm
"$benchbin" post --inputs "$work/warm" --port "$port" --connections 32 >/dev/null
stop_server
# The derived state the writers left to later when they stopped, applied here: else the first
# writer on a copy would apply it, and its rows (warm sends re-resolved) would count as measured.
q warm "select pushledger_apply_derived_inputs()" >/dev/null
q warm "vacuum analyze"
q warm "select bench.autovacuum(false)" >/dev/null  # for every copy below (see bench/sql/bench.sql)
for db in ingest base copy copyfree naive naive_auto rss pipeline pipebase pipecopy pipecopyfree; do
    psql "$admin_url" -qc "drop database if exists bench_$db with (force)" \
        -c "create database bench_$db template bench_warm" >&2
done
# Rows written after this transaction id are the measured run's (xmin; a fresh cluster is far from wraparound).
mark=$(q ingest "select txid_current() % 4294967296")
measured="xmin::text::bigint > $mark"

# measure_ingest DB [BIN]: the week over 32 connections to serve on bench_DB; prints
# "events/s p50 p99 server-CPU-per-M Postgres-CPU-per-M peak-RSS transactions
# load-generator-CPU-per-M idle-%" and checks that every event was stored.
# With ab_phone set: the phone-sized fleet instead (telemetry over $phone_connections
# connections, sends over 4 more).
measure_ingest() {
    local cpu0 pg0 x0 cpu pgcpu rss xacts stored
    serve "$1" "${2:-}"
    x0=$(commits "$1") cpu0=$(cpu_seconds "$server") pg0=$(pg_cpu)
    if [ -n "${ab_phone:-}" ]; then
        inputs_dir=$work/phone post "$phone_connections" --sends-connections 4
    else
        post 32
    fi
    cpu=$(per_million "$cpu0" "$(cpu_seconds "$server")" "$events") pgcpu=$(per_million "$pg0" "$(pg_cpu)" "$events")
    rss=$(peak_rss_mib "$server")
    stop_server
    xacts=$(( $(commits "$1") - x0 ))
    stored=$(q "$1" "select count(*) from event_ids where $measured")
    [ "$stored" -eq "$events" ] || { echo "bench: $events events posted to bench_$1 but $stored stored" >&2; exit 1; }
    echo "$events_per_s $p50_ms $p99_ms $cpu $pgcpu $rss $xacts $loadgen_cpu $idle_pct"
}
ab_rows="" base_ingest_rates="" ingest_rates="" base_phone_rates="" phone_rates=""
# ab_row ROUND REQUESTS WRITER: a row of the A/B table from measure_ingest's figures in $work/measured.
ab_row() {
    local r p50 p99 c pc rss x lg idle
    read -r r p50 p99 c pc rss x lg idle <"$work/measured"
    ab_rows+="| $1 | $2 | $3 | $r | RATIO:$r | $c + $pc | $lg | $idle | $p50 / $p99 | $x |"$'\n'
}
# baseline_migrate DB: the baseline's own writer on its copy of the warm database. Every
# overload of the functions its writer files define is dropped first and those files applied
# again: a signature this build added (defaults included) would make the baseline's calls
# ambiguous. A baseline that stages gets its staging templates back (bench/sql/staging_shapes.sql).
baseline_migrate() {
    local dir names
    dir=$(cd "$(dirname "$baseline_bin")" && pwd -P)
    while [ "$dir" != / ] && [ ! -f "$dir/sql/definitions.list" ]; do dir=$(dirname "$dir"); done
    names=$(grep -hoiE 'create (or replace )?(function|procedure) [a-z_]+' "$dir"/sql/writer/*.sql |
        awk '{ printf "%s\x27%s\x27", sep, $NF; sep = "," }')
    q "$1" "do \$\$ declare r record; begin
        for r in select p.oid::regprocedure as f, p.prokind from pg_proc p where p.proname in ($names) loop
            execute format('drop %s %s', case r.prokind when 'p' then 'procedure' else 'function' end, r.f);
        end loop;
        delete from schema_definitions where path like 'writer/%';
    end \$\$" >/dev/null
    # A baseline that stages its batches gets the staging templates this build dropped.
    if [ -f "$dir/sql/writer/staging.sql" ] &&
        [ -z "$(q "$1" "select to_regclass('pushledger_stage_sends_shape')")" ]; then
        psql "$(db_url "bench_$1")" -q -v ON_ERROR_STOP=1 -f bench/sql/staging_shapes.sql >/dev/null
    fi
    DATABASE_URL=$(db_url "bench_$1") "$baseline_bin" migrate --log-level warning
}
[ -n "$baseline_bin" ] && baseline_migrate base
for round in $(seq 1 "${BENCH_AB_ROUNDS:-1}"); do
    if [ -n "$baseline_bin" ]; then
        log "Ingest A/B round $round: the baseline's serve, 32 connections"
        [ "$round" -gt 1 ] && { psql "$admin_url" -qc "drop database bench_base with (force)" \
                                    -c "create database bench_base template bench_warm" >&2
                                baseline_migrate base; }
        measure_ingest base "$baseline_bin" >"$work/measured"
        read -r r _ <"$work/measured"
        base_ingest_rates+=" $r"
        ab_row "$round" "the week, 32 connections" "$baseline_name"
    fi
    log "Ingest: pushledger serve, 32 connections"
    [ "$round" -gt 1 ] && psql "$admin_url" -qc "drop database bench_ingest with (force)" \
        -c "create database bench_ingest template bench_warm" >&2
    measure_ingest ingest >"$work/measured"
    read -r ingest_rate ingest_p50 ingest_p99 ingest_cpu ingest_pg_cpu rss_32 _ ingest_loadgen_cpu \
        ingest_idle <"$work/measured"
    ingest_rates+=" $ingest_rate"
    [ -n "$baseline_bin" ] && ab_row "$round" "the week, 32 connections" "this build"
done
# post sets events, requests and telemetry_requests: the week's are put back after other fleets.
week_events=$events week_requests=$requests week_telemetry_requests=$telemetry_requests
# Phone-sized requests, where a transaction's fixed cost is shared by the fewest events: the
# pipeline's fleet without the follower, each run on a fresh copy of the warm database. With a
# baseline, both sides in turn every round; without, this build's once.
ab_phone=1
for round in $(seq 1 "$([ -n "$baseline_bin" ] && echo "${BENCH_AB_ROUNDS:-1}" || echo 1)"); do
    for side in base this; do
        [ $side = base ] && [ -z "$baseline_bin" ] && continue
        psql "$admin_url" -qc "drop database if exists bench_abphone with (force)" \
            -c "create database bench_abphone template bench_warm" >&2
        log "Ingest${baseline_bin:+ A/B round $round}, phone-sized requests: $side"
        if [ $side = base ]; then
            baseline_migrate abphone
            measure_ingest abphone "$baseline_bin" >"$work/measured"
            read -r r _ <"$work/measured"
            base_phone_rates+=" $r"
            ab_row "$round" "phone-sized, $phone_connections + 4 connections" "$baseline_name"
        else
            measure_ingest abphone >"$work/measured"
            read -r phone_rate phone_p50 phone_p99 phone_cpu phone_pg_cpu _ _ phone_loadgen_cpu phone_idle \
                <"$work/measured"
            phone_rates+=" $phone_rate"
            [ -n "$baseline_bin" ] && ab_row "$round" "phone-sized, $phone_connections + 4 connections" "this build"
        fi
    done
done
ab_phone=""
phone_events=$events phone_telemetry_requests=$telemetry_requests
events=$week_events requests=$week_requests telemetry_requests=$week_telemetry_requests

# copy_into DB ROWS: copy_limit's \\copy commands ($copy_in) timed into bench_DB, which must then
# hold ROWS measured rows; sets load_time, load_cpu, load_client_cpu, load_idle.
copy_into() {
    local t0 pg0 jiffies0 client
    jiffies0=$(machine_jiffies) t0=$(now) pg0=$(pg_cpu)
    client=$(psql "$(db_url "bench_$1")" -q -v ON_ERROR_STOP=1 <<<"$copy_in" >/dev/null || exit
             waited_cpu_seconds "$BASHPID")
    load_time=$(since "$t0") load_idle=$(idle_share "$jiffies0")
    load_cpu=$(per_million "$pg0" "$(pg_cpu_settled)" "$events") load_client_cpu=$(per_million 0 "$client" "$events")
    [ "$(q "$1" "select bench.count_rows('$measured')")" -eq "$2" ] ||
        { echo "bench: \\copy into bench_$1 did not store the $2 rows exported" >&2; exit 1; }
}
# copy_limit FROM TO TO_FREE PREFIX: the rows the measured run stored in bench_FROM exported as
# CSV (PREFIX-TABLE.csv), then timed with their Postgres CPU as \`psql \\copy\` twice: into bench_TO
# with the rollup queue's statement triggers as the schema had them until the writer enqueued its
# own work (bench/sql/queue_triggers.sql: the same whatever build is measured; today's COPY), and
# into bench_TO_FREE with no trigger at all (bench.drop_triggers; foreign keys' checks stay).
# Sets copy_rows and, per side (copy_ and copy_free_), _time, _cpu and _client_cpu (Postgres's
# and psql's CPU-s per million $events) and _idle (the machine's idle share); fails unless both
# stored every row.
copy_limit() {
    local t cols copy_in="" stored
    for t in $(q "$1" "select array_to_string(bench.tables(), ' ')"); do
        cols=$(q "$1" "select bench.columns('$t')")
        psql "$(db_url "bench_$1")" \
            -qc "\\copy (select $cols from $t where $measured) to '$work/csv/$4-$t.csv' with (format csv)"
        copy_in+="\\copy $t ($cols) from '$work/csv/$4-$t.csv' with (format csv)"$'\n'
    done
    copy_rows=$(cat "$work"/csv/"$4"-*.csv | wc -l)
    stored=$(q "$1" "select bench.count_rows('$measured')")
    psql "$(db_url "bench_$2")" -q -v ON_ERROR_STOP=1 -f bench/sql/queue_triggers.sql >/dev/null
    q "$3" "select bench.drop_triggers(bench.tables())" >/dev/null
    if [ "$(q "$2" "select count(*) > 0 and bool_and(name like 'bench\_%')
                    from bench.triggers(bench.tables())")" != t ] ||
        [ "$(q "$3" "select count(*) from bench.triggers(bench.tables())")" != 0 ]; then
        echo "bench: bench_$2 should have the queue's triggers alone, bench_$3 no trigger" >&2; exit 1
    fi
    copy_into "$2" "$stored"
    copy_time=$load_time copy_cpu=$load_cpu copy_client_cpu=$load_client_cpu copy_idle=$load_idle
    copy_into "$3" "$stored"
    copy_free_time=$load_time copy_free_cpu=$load_cpu copy_free_client_cpu=$load_client_cpu copy_free_idle=$load_idle
}
log "Physical limit: psql \\copy of the same rows into the same tables, with and without the queue's triggers"
copy_limit ingest copy copyfree week
rows=$copy_rows copy_seconds=$copy_time copy_pg_cpu=$copy_cpu
copy_rate=$(calc "%.0f" "$events / $copy_seconds")
copy_free_seconds=$copy_free_time copy_free_pg_cpu=$copy_free_cpu
copy_free_rate=$(calc "%.0f" "$events / $copy_free_seconds")
for db in copy copyfree; do
    [ "$(q $db "select count(*) from sends")" -eq "$(q ingest "select count(*) from sends")" ] ||
        { echo "bench: copy into bench_$db lost rows" >&2; exit 1; }
done

if part naive; then
# A plain handler: one INSERT per row, as many sessions as the load generator has
# connections, run on every Nth row and rated per event; once with one transaction per
# request (the headline), once in autocommit (each INSERT its own transaction).
per_request=$(( (rows + requests - 1) / requests ))
q ingest "select * from bench.naive_inserts($naive_every, '$measured')" >"$work/naive.sql"
naive_rows=$(wc -l <"$work/naive.sql")
split -n r/32 "$work/naive.sql" "$work/naive-part-"
# naive_run DB ROWS_PER_TRANSACTION (0: autocommit): prints "seconds pg_cpu_per_M events_per_s
# client_cpu_per_M idle-%" (the client: the psql sessions and the awk feeding them).
naive_run() {
    local t0 pg0 seconds me=$BASHPID client0 client1 jiffies0 idle
    jiffies0=$(machine_jiffies) t0=$(now) pg0=$(pg_cpu) client0=$(waited_cpu_seconds "$me")
    for part in "$work"/naive-part-*; do
        awk -v n="$2" 'n == 0 { print; next } NR % n == 1 || n == 1 { print "begin;" } { print }
                       NR % n == 0 { print "commit;" }
                       END { if (n && NR % n) print "commit;" }' "$part" |
            psql "$(db_url "bench_$1")" -q -v ON_ERROR_STOP=1 >/dev/null &
    done
    wait
    client1=$(waited_cpu_seconds "$me") seconds=$(since "$t0") idle=$(idle_share "$jiffies0")
    echo "$seconds $(per_million "$pg0" "$(pg_cpu_settled)" "$((events * naive_rows / rows))")" \
        "$(calc "%.0f" "($events * $naive_rows / $rows) / $seconds")" \
        "$(per_million "$client0" "$client1" "$((events * naive_rows / rows))") $idle"
}
log "Naive peer: one INSERT per row (every ${naive_every}th row, $per_request a transaction, 32 sessions)"
read -r naive_seconds naive_pg_cpu naive_rate naive_client_cpu naive_idle < <(naive_run naive "$per_request")
log "Naive peer in autocommit"
read -r auto_seconds auto_pg_cpu auto_rate auto_client_cpu auto_idle < <(naive_run naive_auto 0)
fi

if part rss; then
log "Ingest again over 256 connections (peak RSS)"
serve rss
cpu0=$(cpu_seconds "$server") pg0=$(pg_cpu)
post 256
rss_256=$(peak_rss_mib "$server") rss_rate=$events_per_s rss_loadgen_cpu=$loadgen_cpu rss_idle=$idle_pct
rss_cpu=$(per_million "$cpu0" "$(cpu_seconds "$server")" "$events") \
    rss_pg_cpu=$(per_million "$pg0" "$(pg_cpu)" "$events")
stop_server
stored=$(q rss "select count(*) from event_ids where $measured")
[ "$stored" -eq "$events" ] ||
    { echo "bench: $events events posted over 256 connections but $stored stored" >&2; exit 1; }
fi

# The whole pipeline: another fleet of the week, its telemetry in phone-sized requests (1-3
# events, as an app start, a receipt or an open is posted) over $phone_connections connections and
# its sends in batches of 500 over 4 more, all at once, on the warm database with
# `pushledger rollup --follow` running (caught up on the warm data first). Measured: from the
# first request until the rollups had caught up with the last answer (nothing waits, and the
# last pass committed after that answer: the end it recorded, against the load generator's
# clock at its last answer); Postgres CPU of the follower's backends (refresh) apart
# from the rest of the cluster's (ingest); the load generator's CPU and the machine's idle share
# (storing, and the whole run); then `psql \copy` of exactly the rows stored, with the rollup
# queue's triggers and without.
# measure_pipeline DB [BIN]: that run on bench_DB with this build's serve and follower (or BIN's);
# sets the pipe_* figures and stops the server (the follower keeps running: $follower).
measure_pipeline() {
    local use_bin=${2:-$bin} passes0 cpu0 pg0 refresh0 follower_cpu0 t0 jiffies0 first_request last_answer
    local follower_backends stored pipe_pg_cpu caught_query
    DATABASE_URL=$(db_url "bench_$1") "$use_bin" rollup --log-level warning >/dev/null
    serve "$1" "${2:-}"
    DATABASE_URL=$(db_url "bench_$1") "$use_bin" rollup --follow --freshness "$freshness" --log-level info \
        2>"$work/follow-$1.log" &
    follower=$!
    for _ in $(seq 1 600); do grep -qs 'rollup pass' "$work/follow-$1.log" && break; sleep 0.1; done
    # The follower's backends (its own, and the second connection a pass classifies on, which
    # builds before it do not open): their Postgres CPU is the refresh's.
    follower_backends=$(q "$1" "select string_agg(pid::text, ' ') from pg_stat_activity
        where datname = current_database()
          and application_name in ('pushledger-rollup-follow', 'pushledger-rollup-second')")
    [ -n "$follower_backends" ] ||
        { cat "$work/follow-$1.log" >&2; echo "bench: the follower has no backend" >&2; exit 1; }
    passes0=$(grep -c 'rollup pass' "$work/follow-$1.log")
    cpu0=$(cpu_seconds "$server") pg0=$(pg_cpu) refresh0=$(backends_cpu_seconds "$follower_backends") \
        follower_cpu0=$(cpu_seconds "$follower")
    jiffies0=$(machine_jiffies) t0=$(now)
    inputs_dir=$work/phone post "$phone_connections" --sends-connections 4
    first_request=$first_request_unix last_answer=$last_answer_unix
    pipe_store_seconds=$seconds pipe_events=$events pipe_p99=$p99_ms pipe_tp99=$telemetry_p99_ms pipe_sp99=$sends_p99_ms
    pipe_loadgen_cpu=$loadgen_cpu pipe_store_idle=$idle_pct
    pipe_requests=$requests pipe_telemetry_requests=$telemetry_requests
    caught=""
    caught_query="select round((extract(epoch from pass_started_at) + pass_seconds - $last_answer)::numeric, 3)
        from rollup_refresh_state
        where extract(epoch from pass_started_at) + pass_seconds > $last_answer
          and (select lag_seconds from pushledger_rollup_status()) = 0"
    for _ in $(seq 1 3000); do
        caught=$(q "$1" "$caught_query")
        [ -n "$caught" ] && break
        sleep 0.2
    done
    [ -n "$caught" ] || { echo "bench: the rollups did not catch up within 10 minutes" >&2; exit 1; }
    # From the first request, as the table says: the load generator reads its request files
    # before it (about a quarter second for this fleet), which is not the pipeline's time. From
    # its launch too: the figure of runs up to 2026-12-07T1149.
    pipe_seconds=$(calc "%.3f" "$last_answer - $first_request + $caught") pipe_idle=$(idle_share "$jiffies0")
    pipe_launch_seconds=$(calc "%.3f" "$last_answer - $t0 + $caught")
    pipe_server_cpu=$(per_million "$cpu0" "$(cpu_seconds "$server")" "$pipe_events")
    pipe_refresh_cpu=$(per_million "$refresh0" "$(backends_cpu_seconds "$follower_backends")" "$pipe_events")
    pipe_pg_cpu=$(per_million "$pg0" "$(pg_cpu)" "$pipe_events")
    pipe_ingest_cpu=$((pipe_pg_cpu - pipe_refresh_cpu))
    pipe_follower_cpu=$(per_million "$follower_cpu0" "$(cpu_seconds "$follower")" "$pipe_events")
    pipe_passes=$(( $(grep -c 'rollup pass' "$work/follow-$1.log") - passes0 ))
    pipe_longest=$(grep 'rollup pass' "$work/follow-$1.log" | tail -n "$pipe_passes" |
        sed -nE 's/.* seconds=([0-9.]+).*/\1/p' | sort -n | tail -1)
    stored=$(q "$1" "select count(*) from event_ids where $measured")
    [ "$stored" -eq "$pipe_events" ] ||
        { echo "bench: $pipe_events events posted in the pipeline run but $stored stored" >&2; exit 1; }
    stop_server
}
pipe_ab_rows=""
if part pipeline; then
    if [ -n "$baseline_bin" ]; then
        # The baseline's writer and engine on its own copy, first; then this build's below.
        log "Whole pipeline A/B: the baseline's serve and follower"
        baseline_migrate pipebase
        measure_pipeline pipebase "$baseline_bin"
        kill -TERM "$follower"; wait "$follower" || true; follower=""
        base_pipe=("$pipe_events" "$pipe_store_seconds" "$pipe_seconds" "$caught" "$pipe_server_cpu"
                   "$pipe_ingest_cpu" "$pipe_refresh_cpu" "$pipe_p99" "$pipe_passes" "$pipe_loadgen_cpu"
                   "$pipe_store_idle" "$pipe_idle")
    fi
    log "Whole pipeline: phone-sized telemetry over $phone_connections connections, sends in 500s over 4," \
        "rollup --follow ($freshness)"
    measure_pipeline pipeline

    log "Physical limit of the pipeline: psql \\copy of its stored rows, with and without the queue's triggers"
    events=$pipe_events copy_limit pipeline pipecopy pipecopyfree pipe
    pipe_rows=$copy_rows pipe_copy_seconds=$copy_time pipe_copy_pg_cpu=$copy_cpu
    pipe_copy_free_seconds=$copy_free_time pipe_copy_free_pg_cpu=$copy_free_cpu

    # Paced: the same mix at fractions of that rate, each with fresh ids (another fleet), the
    # follower still running; p99 of the answers (from when each request was due) and the
    # largest lag seen (sampled every second).
    rate_rows=""
    best_rate=0
    seed=20
    for fraction in $rates; do
        seed=$((seed + 1))
        target=$(calc "%.0f" "$fraction * $pipe_events / $pipe_store_seconds")
        "$benchbin" inputs --out "$work/paced-$seed" --installs $((installs / 2)) --seed "$seed" \
            --events-per-request 3 >/dev/null
        serve pipeline
        (while :; do q pipeline "select lag_seconds from pushledger_rollup_status()"; sleep 1; done) \
            >"$work/lag-$seed" 2>/dev/null &
        sampler=$!
        inputs_dir=$work/paced-$seed post "$phone_connections" --sends-connections 4 --rate "$target"
        kill "$sampler"; wait "$sampler" 2>/dev/null || true
        stop_server
        max_lag=$(sort -n "$work/lag-$seed" | tail -1)
        ok=$(calc "%d" "($p99_ms < 1000 && ${max_lag:-0} < ${freshness%s} && $events_per_s >= 0.95 * $target) ? 1 : 0")
        [ "$ok" = 1 ] && [ "$target" -gt "$best_rate" ] && best_rate=$target
        rate_rows+="| $fraction× | $target | $events_per_s | $p50_ms | $p99_ms | $telemetry_p99_ms / $sends_p99_ms "
        rate_rows+="| ${max_lag:-0} | $idle_pct | $([ "$ok" = 1 ] && echo yes || echo no) |"$'\n'
        log "paced at $target events/s: $events_per_s events/s, p99 $p99_ms ms, largest lag ${max_lag:-0} s"
    done
    kill -TERM "$follower"; wait "$follower" || true; follower=""

    events=$week_events requests=$week_requests telemetry_requests=$week_telemetry_requests
fi

scales=${BENCH_SCALES-1 2 4}  # BENCH_SCALES= skips the reports
part reports || scales=""
[ -n "$scales" ] && log "Reports: the week copied k-fold"
fresh_db reports
for t in $(q ingest "select array_to_string(bench.tables(), ' ')"); do
    psql "$(db_url bench_reports)" \
        -qc "\\copy $t ($(q ingest "select bench.columns('$t')")) from '$work/csv/week-$t.csv' with (format csv)"
done
q reports "select bench.save_base()" >/dev/null
base_sends=$(q reports "select count(*) from sends")
monday_date=$(date -u -d "@$((monday * 86400))" +%F)
in_week() { echo "app_id = '$app' and $1 >= '$monday_date'::date and $1 < '$monday_date'::date + 7"; }  # in_week COLUMN
week_filter=$(in_week sent_at)
copies=1
report_rows=""
apart_rows=""
incr_rows=""
cause_rows=""
# The previous full run's figures, printed beside this run's: BENCH_PREVIOUS names its file, or
# the newest run in bench/results/ that has a rollup table (a run without the reports part has none).
previous=${BENCH_PREVIOUS:-$(find bench/results -maxdepth 1 -name '20*T[0-9][0-9][0-9][0-9].md' | sort -r \
    | while read -r f; do
        if awk -F'|' '$2 == " 1× " && NF == 16 { found = 1 } END { exit !found }' "$f"; then echo "$f"; break; fi
    done)}
prev_full() {
    [ -n "$previous" ] && awk -F'|' -v s=" $1× " '$2 == s && NF == 16 { gsub(/ /, "", $8); print $8 }' "$previous"
}
prev_incr() {
    [ -n "$previous" ] && awk -F'|' -v s=" $1× " '$2 == s && $3 ~ /%\)/ { gsub(/ /, "", $5); print $5 }' "$previous"
}
for scale in $scales; do
    want=$(( (sends_1x * scale + base_sends - 1) / base_sends ))
    t0=$(now)
    while [ "$copies" -lt "$want" ]; do q reports "select bench.clone($copies)" >/dev/null; copies=$((copies + 1)); done
    q reports "vacuum analyze" 2>/dev/null  # as autovacuum would have by the time a week is rolled up
    load_seconds=$(since "$t0")
    week_sends=$(q reports "select count(*) from sends where $week_filter")
    q reports "select pushledger_mark_rollups_dirty('$app', '$monday_date', '$monday_date'::date + 6)" >/dev/null
    q reports "select count(*) from sends where $week_filter" >/dev/null  # warm, as the rollup finds it
    scan_seconds=$(timed reports "select count(*) from sends where $week_filter")
    # One of the engine's inputs: the week's sends joined with their receipts, as Postgres plans it.
    join_seconds=$(timed reports "select count(*) from (select notification_id from sends where $week_filter) s
        left join notification_receipts r on r.app_id = '$app' and r.notification_id = s.notification_id")
    # Every input the outcome engine reads for the week, each counted once (sends; snapshots and
    # channel states of the week; receipts and opens from 32 days before it; installations):
    # the floor of any rollup that reads its inputs when it runs.
    inputs_seconds=$(timed reports "select (select count(*) from sends where $week_filter)
        + (select count(*) from settings_snapshots where $(in_week occurred_at))
        + (select count(*) from channel_states where $(in_week occurred_at))
        + (select count(*) from notification_receipts
            where app_id = '$app' and occurred_at >= '$monday_date'::date - 32)
        + (select count(*) from notification_opens
            where app_id = '$app' and occurred_at >= '$monday_date'::date - 32)
        + (select count(*) from installations where app_id = '$app')")
    t0=$(now) pg0=$(pg_cpu)
    DATABASE_URL=$(db_url bench_reports) "$bin" rollup --full --log-level warning >/dev/null
    rollup_seconds=$(since "$t0") rollup_cpu=$(calc "%.1f" "$(pg_cpu_settled) - $pg0")
    # The write floor of a rollup that keeps one row per send: the rebuilt send_outcomes copied
    # into an empty table the way a rebuild loads it (indexes dropped, built after the load).
    q reports "drop table if exists bench.outcomes_copy;
        create table bench.outcomes_copy (like send_outcomes including indexes)"
    write_seconds=$(timed reports "do \$\$ declare v text[]; begin v := pushledger_drop_indexes('bench.outcomes_copy');
        insert into bench.outcomes_copy select * from send_outcomes; perform pushledger_build_indexes(v); end \$\$")
    q reports "drop table bench.outcomes_copy"
    # One more hour of traffic (new sends, their receipts, late receipts of earlier days, new
    # snapshots), queued as the writer queues what it stores, then the incremental refresh that follows it
    # (after the vacuum autovacuum would have run on the rebuilt tables within that hour).
    q reports "vacuum analyze" 2>/dev/null
    IFS='|' read -r hour_events hour_share < <(q reports "select events, round((share * 100)::numeric, 2)
        from bench.next_hour('$app', '$monday_date', 0.006)")
    t0=$(now) pg0=$(pg_cpu)
    DATABASE_URL=$(db_url bench_reports) "$bin" rollup --format json --log-level warning \
        >"$work/incremental-$scale.json"
    incr_seconds=$(since "$t0") incr_cpu=$(calc "%.2f" "$(pg_cpu_settled) - $pg0")
    incr_sends=$(sed -nE 's/.*"reclassified_sends": ([0-9]+).*/\1/p' "$work/incremental-$scale.json")
    if [ "$mode" = smoke ]; then  # the incremental rollups equal a rebuild as of the same time
        as_of=$(q reports "select as_of from pushledger_rollup_status()")
        incremental=$(q reports "select bench.rollup_digest()")
        rebuilt=$(q reports "begin; select count(*) from pushledger_rollup_pass('$as_of', p_full => true);
            select bench.rollup_digest(); rollback;" | tail -1)
        [ "$incremental" = "$rebuilt" ] || { echo "bench: the incremental rollups differ from a rebuild" >&2; exit 1; }
    fi
    # How much of the week the v1.2 look-ups touched (sends with a cause, sends with a latency
    # bucket), and the v1.3 rule (unconfirmable sends, background pushes).
    IFS='|' read -r cause_sends latency_sends unconfirmable_sends background_sends < <(q reports "select
        count(*) filter (where cause is not null), count(*) filter (where latency_bucket is not null),
        count(*) filter (where outcome = 'unconfirmable'), count(*) filter (where push_type = 'background')
        from send_outcomes where app_id = '$app' and sent_at >= '$monday_date' and sent_at < '$monday_date'::date + 7")
    # Each table row below is one assignment, continued in column 0 inside its quotes: as appends,
    # a calc failing before the row's last one would stop the run (set -e).
    cause_rows+="| ${scale}× | $week_sends | $cause_sends ($(calc "%.1f" "100 * $cause_sends / $week_sends") %) \
| $latency_sends | $unconfirmable_sends | $background_sends | $rollup_seconds | $(prev_full "$scale" || true) \
| $incr_seconds | $(prev_incr "$scale" || true) |"$'\n'
    # A rollup that only aggregates (the outcomes already on the sends): its floor.
    q reports "select bench.classify_week('$app', '$monday_date')" >/dev/null
    q reports "vacuum analyze bench.classified"
    q reports "select count(r) from bench.classified_rollup r" >/dev/null  # warm
    aggregate_seconds=$(timed reports "select count(r) from bench.classified_rollup r")
    t0=$(now); DATABASE_URL=$(db_url bench_reports) "$bin" report weekly --app $app --week "$week" --log-level warning \
        >"$work/weekly-$scale.txt"
    report_seconds=$(since "$t0")
    grep -q . "$work/weekly-$scale.txt" || { echo "bench: empty weekly report" >&2; exit 1; }
    rolled=$(q reports "select coalesce(sum(sends), 0) from send_rollups_daily
        where app_id = '$app' and day >= '$monday_date' and day < '$monday_date'::date + 7")
    [ "$rolled" -eq "$week_sends" ] || { echo "bench: rollups count $rolled sends of $week_sends" >&2; exit 1; }
    report_rows+="| ${scale}× | $week_sends | $scan_seconds | $join_seconds | $inputs_seconds \
| $(calc "%.1f" "$inputs_seconds / $scan_seconds")× | $rollup_seconds \
| $(calc "%.1f" "$rollup_seconds / $scan_seconds")× | $(calc "%.1f" "$rollup_seconds / $inputs_seconds")× \
| $rollup_cpu | $aggregate_seconds | $(calc "%.1f" "$aggregate_seconds / $scan_seconds")× | $report_seconds \
| $load_seconds |"$'\n'
    rebuild_ratios+="${rebuild_ratios:+, }$(calc "%.1f" "$rollup_seconds / $write_seconds")× at ${scale}×"
    apart_rows+="| ${scale}× | $inputs_seconds | $write_seconds | $(calc "%.1f" "$write_seconds / $inputs_seconds")× \
| $(calc "%.1f" "$rollup_seconds / $inputs_seconds")× | $(calc "%.1f" "$rollup_seconds / $write_seconds")× |"$'\n'
    incr_rows+="| ${scale}× | $hour_events ($hour_share %) | $incr_sends | $incr_seconds \
| $(calc "%.1f" "100 * $incr_seconds / $rollup_seconds") % | $incr_cpu \
| $(calc "%.1f" "100 * $incr_cpu / ($rollup_cpu + 0.0001)") % |"$'\n'
    log "scale ${scale}x: $week_sends sends, scan ${scan_seconds}s, full rollup ${rollup_seconds}s," \
        "next hour ${incr_seconds}s, weekly report ${report_seconds}s"
done

# A 30-day silent-loss window from the rollups: the measured week's rollup rows copied onto the
# four weeks before it (the rollups' size grows with days and slices, not with sends), then
# `report silent-loss --source rollups` over [Monday - 23 days, Monday + 7 days) sliced by every
# dimension and by channel. Sets window_figure (a Markdown line for the results).
rollup_window_figure() {
    local from to all by_channel
    q reports "insert into send_rollups_daily
        select app_id, day - 7 * k, platform, channel, app_version, campaign, provider,
        sends, accepted, rejected, opened, received, pending, blocked_app, blocked_channel, unattributed, unconfirmed,
        token_invalid, to_invalid_token, as_of, refreshed_at, unattributed_uninstrumented
        from send_rollups_daily, generate_series(1, 4) k
        where app_id = '$app' and day >= '$monday_date' and day < '$monday_date'::date + 7
        on conflict do nothing" >/dev/null
    q reports "insert into instrumented_slices_daily select app_id, day - 7 * k, platform, app_version
        from instrumented_slices_daily, generate_series(1, 4) k
        where app_id = '$app' and day >= '$monday_date' and day < '$monday_date'::date + 7
        on conflict do nothing" >/dev/null
    from=$(date -u -d "$monday_date - 23 days" +%F) to=$(date -u -d "$monday_date + 7 days" +%F)
    silent_loss() {
        DATABASE_URL=$(db_url bench_reports) "$bin" report silent-loss --app $app --from "$from" --to "$to" \
            --source rollups --format json --log-level warning "$@" >"$work/silent-loss-30d.json"
    }
    silent_loss --by channel  # warm
    t0=$(now); silent_loss --by channel,platform,app_version,campaign,day,provider; all=$(since "$t0")
    grep -q '"source": "rollups"' "$work/silent-loss-30d.json" ||
        { echo "bench: silent loss not from the rollups" >&2; exit 1; }
    t0=$(now); silent_loss --by channel; by_channel=$(since "$t0")
    window_figure="**Silent loss, 30 days from the rollups** ($from to $to, "
    window_figure+="$(q reports "select count(*) from send_rollups_daily
        where app_id = '$app' and day >= '$from' and day < '$to'") rollup rows; "
    window_figure+="the week at the last scale copied onto the four weeks before it): "
    window_figure+="\`report silent-loss --source rollups\` ${all} s by every dimension, ${by_channel} s by channel "
    window_figure+="(the whole command: start, connect, read)."
}
window_figure=""
[ -n "$scales" ] && rollup_window_figure

# The here-documents are unquoted: a backslash at a line's end joins the next line to it, so
# their long Markdown lines are split in the source only (going on in column 0).
ingest_table=$(cat <<EOF
Run $(date -u +%FT%TZ) on $(nproc) cores (shared), PostgreSQL $(q ingest "show server_version"), fsync on, $mode mode \
($installs installations, $sends_1x sends at 1×, parts: $(xargs <<<"$parts"), scales: \
${scales:-none}${baseline_bin:+, baseline $baseline_name}).

**Ingest** — week $week of the simulator's fleet: $events events ($sends sends in batches of 500, \
$((events - sends)) telemetry events in $telemetry_requests per-installation requests), $requests gzip requests. \
COPY (the limit, 1.00×) is \`psql \\copy\` of exactly the rows stored into the same tables and indexes, with the \
rollup queue's statement triggers as the schema had them until the writer enqueued its own work \
(bench/sql/queue_triggers.sql: the same whatever build is measured); beside it the same copy with no trigger. Load \
generator: CPU of the client process(es) alone (\`pushledger-bench post\`; psql for COPY; psql and awk for the naive \
peer). Idle: the machine's idle share (idle + iowait of all CPUs, /proc/stat) during the run: near 0 % it was \
CPU-bound, well above it waited on something else (latency, locks, disk).

| Path | Events/s (wall) | vs COPY | CPU-s per M events (server + Postgres) | vs COPY (CPU) \
| Load generator CPU-s per M events | Idle % | Notes |
|---|---:|---:|---:|---:|---:|---:|---|
| \`psql \\copy\` of the stored rows, the queue's triggers (limit) | $copy_rate | 1.00× | $copy_pg_cpu | 1.00× \
| $copy_client_cpu | $copy_idle | $rows rows into the same tables and indexes, ${copy_seconds} s |
| \`psql \\copy\` of the stored rows, no trigger | $copy_free_rate \
| $(calc "%.2f" "$copy_free_rate / $copy_rate")× | $copy_free_pg_cpu \
| $(calc "%.2f" "$copy_pg_cpu / $copy_free_pg_cpu")× | $copy_free_client_cpu | $copy_free_idle \
| the same rows, every trigger but foreign keys' dropped, ${copy_free_seconds} s |
| \`pushledger serve\`, 32 connections | $ingest_rate | $(calc "%.2f" "$ingest_rate / $copy_rate")× \
| $ingest_cpu + $ingest_pg_cpu | $(calc "%.2f" "$copy_pg_cpu / ($ingest_cpu + $ingest_pg_cpu)")× \
| $ingest_loadgen_cpu | $ingest_idle \
| p50 ${ingest_p50} ms, p99 ${ingest_p99} ms a request; peak RSS ${rss_32} MiB; \
$(calc "%.2f" "$ingest_rate / $copy_free_rate")× of COPY with no trigger |
| \`pushledger serve\`, phone-sized requests, $phone_connections + 4 connections | $phone_rate \
| $(calc "%.2f" "$phone_rate / $copy_rate")× | $phone_cpu + $phone_pg_cpu \
| $(calc "%.2f" "$copy_pg_cpu / ($phone_cpu + $phone_pg_cpu)")× | $phone_loadgen_cpu | $phone_idle \
| the whole pipeline's fleet without the follower: $phone_events events, telemetry in $phone_telemetry_requests \
requests of 1–3 events, sends in batches of 500 over the 4; p50 ${phone_p50} ms, p99 ${phone_p99} ms a request; \
$(calc "%.2f" "$phone_rate / $copy_free_rate")× of COPY with no trigger |
EOF
)
if part rss; then
    rss_row=$(cat <<EOF
| \`pushledger serve\`, 256 connections | $rss_rate | $(calc "%.2f" "$rss_rate / $copy_rate")× \
| $rss_cpu + $rss_pg_cpu | $(calc "%.2f" "$copy_pg_cpu / ($rss_cpu + $rss_pg_cpu)")× | $rss_loadgen_cpu | $rss_idle \
| peak RSS ${rss_256} MiB |
EOF
)
    ingest_table+=$'\n'"$rss_row"
fi
if part naive; then
    naive_table=$(cat <<EOF
| naive: one INSERT per row | $naive_rate | $(calc "%.3f" "$naive_rate / $copy_rate")× | $naive_pg_cpu \
| $(calc "%.2f" "$copy_pg_cpu / $naive_pg_cpu")× | $naive_client_cpu | $naive_idle \
| $naive_rows of the $rows rows (every ${naive_every}th), $per_request rows (one request) a transaction, 32 sessions, \
${naive_seconds} s |
| naive, autocommit | $auto_rate | $(calc "%.3f" "$auto_rate / $copy_rate")× | $auto_pg_cpu \
| $(calc "%.2f" "$copy_pg_cpu / $auto_pg_cpu")× | $auto_client_cpu | $auto_idle \
| the same rows, each INSERT its own transaction, 32 sessions, ${auto_seconds} s |

serve vs naive: $(calc "%.1f" "$ingest_rate / $naive_rate")× in events/s, \
$(calc "%.1f" "$naive_pg_cpu / ($ingest_cpu + $ingest_pg_cpu)")× in CPU per event (vs naive in autocommit: \
$(calc "%.1f" "$ingest_rate / $auto_rate")× in events/s).
EOF
)
    ingest_table+=$'\n'"$naive_table"
fi
pressure_line=$(cat <<EOF
CPU pressure on the machine during the run (PSI \`some\` avg300): \
$(awk -F'avg300=' '/^some/ { split($2, a, " "); print a[1] }' /proc/pressure/cpu 2>/dev/null || echo n/a) %.
EOF
)
ingest_table+=$'\n\n'"$pressure_line"
ab_table=""
if [ -n "$baseline_bin" ]; then
    ab_table=$(cat <<EOF


**Ingest A/B** — each side on its own copy of the warm database, one after the other: the week as above over 32 \
connections, then the phone-sized fleet of the whole-pipeline figure (no follower); vs COPY against this run's \
\`psql \\copy\` of the week ($copy_rate events/s). Transactions: commits in the side's database during its run (the \
writers' batches, plus a few of the server's own). Load generator and idle % as in the ingest table.

| Round | Requests | Writer | Events/s | vs COPY | CPU-s per M events (server + Postgres) \
| Load generator CPU-s per M events | Idle % | p50 / p99 ms | Transactions |
|---|---|---|---:|---:|---:|---:|---:|---:|---:|
$(printf '%s' "$ab_rows" | awk -v copy="$copy_rate" '{ while (match($0, /RATIO:[0-9.]+/)) { \
v = substr($0, RSTART + 6, RLENGTH - 6); $0 = substr($0, 1, RSTART - 1) sprintf("%.2f×", v / copy) \
substr($0, RSTART + RLENGTH) } print }')
EOF
)
fi
pipeline_table=""
if part pipeline; then
    pipeline_table=$(cat <<EOF


**Whole pipeline** — another fleet of the week ($pipe_events events: $pipe_telemetry_requests telemetry requests of \
1–3 events over $phone_connections connections, its sends in batches of 500 over 4 more, at once) into the warm \
database with \`pushledger rollup --follow --freshness $freshness\` running: from the first request until the rollups \
had caught up with the last answer (no lag, and the last pass committed after it: the pass's recorded end against \
the load generator's clock at its last answer), against \`psql \\copy\` of exactly the $pipe_rows rows stored (with \
the rollup queue's triggers as in the ingest table, and with no trigger). CPU per million events: the load generator \
(\`pushledger-bench post\`), the server; Postgres split into the follower's backends (refresh: its own and its \
second connection's) and the rest of the cluster (ingest). Idle: the machine's idle share while storing and over \
the whole run.

| Figure | Value | Target |
|---|---:|---|
| stored (last answer) \
| ${pipe_store_seconds} s ($(calc "%.0f" "$pipe_events / $pipe_store_seconds") events/s; p99 ${pipe_p99} ms: telemetry \
${pipe_tp99}, sends ${pipe_sp99}) | |
| stored and rolled up | ${pipe_seconds} s (${pipe_launch_seconds} s from the load generator's launch, its reading \
of the request files included, as runs up to 2026-12-07T1149 counted) | |
| \`psql \\copy\` of its rows, the queue's triggers \
| ${pipe_copy_seconds} s ($pipe_copy_pg_cpu Postgres CPU-s per M events) | |
| \`psql \\copy\` of its rows, no trigger \
| ${pipe_copy_free_seconds} s ($pipe_copy_free_pg_cpu Postgres CPU-s per M events) | |
| COPY time / pipeline time | $(calc "%.2f" "$pipe_copy_seconds / $pipe_seconds")× \
($(calc "%.2f" "$pipe_copy_free_seconds / $pipe_seconds")× with no trigger) | ≥ 0.25× (stretch 0.3×) |
| rollups caught up after the last answer | ${caught} s ($pipe_passes passes, the longest ${pipe_longest:-0} s) \
| ≤ 30 s |
| CPU-s per M events: load generator / server / Postgres ingest / Postgres refresh (follower process) \
| $pipe_loadgen_cpu / $pipe_server_cpu / $pipe_ingest_cpu / $pipe_refresh_cpu ($pipe_follower_cpu) | |
| refresh: Postgres CPU-µs per ingested event (the follower's backends) | $pipe_refresh_cpu | ≤ 35 |
| refresh / ingest Postgres CPU | $(calc "%.2f" "$pipe_refresh_cpu / ($pipe_ingest_cpu + 0.0001)")× | |
| machine idle: storing / stored and rolled up | ${pipe_store_idle} % / ${pipe_idle} % | |
| highest paced rate with p99 < 1 s and lag < freshness | $best_rate events/s | |

Paced runs (fresh fleets of half the size, the follower still running; latency counted from when each request was due; \
idle: the machine's idle share while posting):

| Fraction of the rate above | Target events/s | Achieved events/s | p50 ms | p99 ms | p99 telemetry / sends ms \
| Largest lag s | Idle % | Holds |
|---|---:|---:|---:|---:|---:|---:|---:|---|
$rate_rows
EOF
)
fi
reports_table=""
if [ -n "$scales" ]; then
    reports_table=$(cat <<EOF


**Reports** — rollup of the whole week and the weekly report, against the scan floor \`SELECT count(*)\` over the \
week's sends (copies of the fleet with new ids), and against one of the outcome engine's inputs alone: \`count(*)\` of \
the week's sends left-joined with their receipts. "Inputs read": every input the outcome engine reads for the week \
counted once each (the week's sends, snapshots and channel states, receipts and opens from 32 days before it, \
installations), the floor of any rollup that reads its inputs when it runs. "Aggregate only": the grouping of the \
rollup over the week's sends already classified (as if each send carried its outcome), the floor of a rollup that \
would only aggregate.

| Scale | Sends in week | Scan floor s | One join s | Inputs read s | Inputs / scan | Full rollup s | Full / scan \
| Full / inputs read | Full Postgres CPU-s | Aggregate only s | Aggregate / scan | Weekly report s | (load s) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$report_rows
"Outcomes written": the rebuilt week's \`send_outcomes\` rows copied into an empty table with the same indexes, loaded \
as a rebuild loads it (indexes built after the load): the floor of any rollup that keeps one row per send, as an \
incremental refresh needs.

| Scale | Inputs read s | Outcomes written s | Written / inputs read | Full / inputs read | Full / written |
|---|---:|---:|---:|---:|---:|
$apart_rows
$window_figure

**Incremental** — after the full rollup (\`pushledger rollup --full\`), one more hour of traffic is written \
and queued as the writer queues what it stores (new sends with receipts for half of them, as many late receipts of \
earlier days' sends, new snapshots with their channels) and \`pushledger rollup\` refreshes: wall time and \
Postgres CPU against the full rollup's.

| Scale | Events of the hour (share of the week's) | Sends reclassified | Refresh s | vs full (wall) \
| Refresh Postgres CPU-s | vs full (CPU) |
|---|---:|---:|---:|---:|---:|---:|
$incr_rows

**Causes, latency and which sends can confirm in** — the rebuild and the refresh above judge every unconfirmed \
send's cause (a look-up of the installation's first sign of life after it), every received or opened send's latency \
bucket, and which sends can confirm (push type, mutable content, message kind; background pushes by their slice's \
background receipts: the fleet's senders report their kinds of push); beside them, the previous full run's figures \
(${previous:-none}).

| Scale | Sends in week | Sends with a cause | Sends with a latency bucket | Unconfirmable | Background pushes \
| Full rollup s | previous run | Refresh s | previous run |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$cause_rows
EOF
)
fi
# The targets, each figure of this run in one table (with a baseline: its figure beside).
# range LIST RATE: "a–b" of the numbers in LIST as ratios to RATE.
range() {
    tr ' ' '\n' <<<"$1" | awk -v c="$2" 'NF { r = $1 / c; if (n++ == 0 || r < lo) lo = r; if (r > hi) hi = r }
        END { if (!n) print "n/a"; else if (sprintf("%.2f", lo) == sprintf("%.2f", hi)) printf "%.2f×", lo;
              else printf "%.2f–%.2f×", lo, hi }'
}
# ingest_ratios LIST: the events/s in LIST against today's COPY, and against COPY with no trigger.
ingest_ratios() { echo "$(range "$1" "$copy_rate") ($(range "$1" "$copy_free_rate") of trigger-free COPY)"; }
# pipe_figures EVENTS STORE_S PIPE_S CAUGHT SERVER INGEST REFRESH: the three pipeline cells (COPY
# time against the pipeline's, the catch-up, the refresh's Postgres CPU-µs per event).
pipe_figures() {
    echo "$(calc "%.2f" "$pipe_copy_seconds / $3")× ($(calc "%.2f" "$pipe_copy_free_seconds / $3")× of trigger-free" \
        "COPY; $1 events in $3 s)|$4 s|$7 ($(calc "%.2f" "$7 / ($6 + 0.0001)")× of ingest's $6)"
}
IFS='|' read -r t_pipe t_lag t_refresh <<<"$(part pipeline &&
    pipe_figures "$pipe_events" "$pipe_store_seconds" "$pipe_seconds" "$caught" "$pipe_server_cpu" \
        "$pipe_ingest_cpu" "$pipe_refresh_cpu" || echo "not run|not run|not run")"
targets_head="| figure | this build | target |"$'\n'"|---|---:|---|"
t_ingest="$(ingest_ratios "$ingest_rates")" t_phone="$(ingest_ratios "$phone_rates")"
t_rebuild=${rebuild_ratios:-not run}
if [ -n "$baseline_bin" ]; then
    targets_head="| figure | $baseline_name | this build | target |"$'\n'"|---|---:|---:|---|"
    t_ingest="$(ingest_ratios "$base_ingest_rates") | $t_ingest"
    t_phone="$(ingest_ratios "$base_phone_rates") | $t_phone"
    if part pipeline; then
        IFS='|' read -r b_pipe b_lag b_refresh <<<"$(pipe_figures "${base_pipe[@]:0:7}")"
    else b_pipe="not run" b_lag="not run" b_refresh="not run"; fi
    t_pipe="$b_pipe | $t_pipe" t_lag="$b_lag | $t_lag" t_refresh="$b_refresh | $t_refresh"
    t_rebuild="not run (the same rebuild) | $t_rebuild"
fi
targets_table=$(cat <<EOF


**Targets** — each figure of this run (tables below). COPY: \`psql \\copy\` of the same rows with the rollup \
queue's triggers (today's COPY), beside it with no trigger.

$targets_head
| ingest / \`psql \\copy\`, 32 connections, the bench week | $t_ingest | ≥ 0.65× (stretch 0.7×) |
| ingest / \`psql \\copy\` of the week, phone-sized requests ($phone_connections + 4 connections, no follower) \
| $t_phone | ≥ 0.35× (stretch 0.4×) |
| whole pipeline: \`psql \\copy\` time of its rows / its time | $t_pipe | ≥ 0.25× (stretch 0.3×) |
| rollups caught up after the last answer | $t_lag | ≤ 30 s |
| full rebuild / "Outcomes written" floor | $t_rebuild | ≤ 6× (stretch 5×) |
| refresh: Postgres CPU-µs per ingested event (the whole pipeline's follower) | $t_refresh | ≤ 35 |
EOF
)
keys_table=""
if part keys; then
    log "Keys: a known key's client alone, then beside $key_flood connections of random keys (${key_seconds} s each)"
    fresh_db keys
    serve keys
    key_reads() { curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "pushledger_key_fresh_reads" { print $2 }'; }
    # key_run CONNECTIONS: sets flood_* and ordinary_* (pushledger-bench keys); every known-key request must pass.
    key_run() {
        local figures
        figures=$("$benchbin" keys --port "$port" --key "$BENCH_TELEMETRY_KEY" --app $app --flood-connections "$1" \
            --seconds "$key_seconds") || { echo "bench: $figures" >&2; exit 1; }
        eval "$figures"
        [ "$ordinary_statuses" = "200:$ordinary_requests" ] ||
            { echo "bench: known key answered $ordinary_statuses" >&2; exit 1; }
    }
    key_run 0
    alone=("$ordinary_requests" "$ordinary_p50_ms" "$ordinary_p99_ms")
    reads0=$(key_reads)
    key_run "$key_flood"
    reads1=$(key_reads)
    stop_server
    [ "$flood_statuses" = "401:$flood_requests" ] || { echo "bench: random keys answered $flood_statuses" >&2; exit 1; }
    keys_table=$(cat <<EOF


**Keys under a flood of random keys** — a client posting one-event requests with a known key, 20 a second for \
${key_seconds} s, alone and then beside $key_flood connections posting a random key each request (each waits for a \
read of the key table that started after it arrived, then gets 401). Latency counts from each request's due time.

| Run | Known-key requests | p50 ms | p99 ms | Random-key requests (all 401) | p50 / p99 ms of a random key \
| Key-table reads/s |
|---|---:|---:|---:|---:|---:|---:|
| alone | ${alone[0]} | ${alone[1]} | ${alone[2]} | — | — | — |
| beside the flood | $ordinary_requests | $ordinary_p50_ms | $ordinary_p99_ms | $flood_requests \
| $flood_p50_ms / $flood_p99_ms | $(calc "%.1f" "($reads1 - $reads0) / $key_seconds") |
EOF
)
fi
pipe_ab_table=""
if [ -n "$baseline_bin" ] && part pipeline; then
    pipe_ab_table=$(cat <<EOF


**Whole pipeline A/B** — the same fleet, each side on its own copy of the warm database with its own serve and \
follower, the baseline first; both against the one \`psql \\copy\` of its rows above (${pipe_copy_seconds} s).

| Writer and engine | Stored s | Stored and rolled up s | COPY / pipeline | Caught up s | Passes | p99 ms \
| CPU-s per M events: load generator / server / ingest / refresh | refresh / ingest | Idle %: storing / whole run |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| $baseline_name | ${base_pipe[1]} | ${base_pipe[2]} | $(calc "%.2f" "$pipe_copy_seconds / ${base_pipe[2]}")× \
| ${base_pipe[3]} | ${base_pipe[8]} | ${base_pipe[7]} \
| ${base_pipe[9]} / ${base_pipe[4]} / ${base_pipe[5]} / ${base_pipe[6]} \
| $(calc "%.2f" "${base_pipe[6]} / (${base_pipe[5]} + 0.0001)")× | ${base_pipe[10]} / ${base_pipe[11]} |
| this build | $pipe_store_seconds | $pipe_seconds | $(calc "%.2f" "$pipe_copy_seconds / $pipe_seconds")× | $caught \
| $pipe_passes | $pipe_p99 | $pipe_loadgen_cpu / $pipe_server_cpu / $pipe_ingest_cpu / $pipe_refresh_cpu \
| $(calc "%.2f" "$pipe_refresh_cpu / ($pipe_ingest_cpu + 0.0001)")× | $pipe_store_idle / $pipe_idle |
EOF
)
fi
table="$ingest_table$targets_table$ab_table$pipeline_table$pipe_ab_table$reports_table$keys_table"
printf '%s\n' "$table"
if [ "$mode" = full ]; then
    out="bench/results/$(date -u +%Y-%m-%dT%H%M).md"
    printf '%s\n' "$table" >"$out"
    log "saved $out"
fi
