#!/usr/bin/env bash
# Fairness between apps under a flood, measured with and without it (docs/reliability.md):
# app A posts 500-send batches on 64 connections as fast as they are answered, retrying each
# 429 after its Retry-After; app B posts 20 sends a request, 20 requests a second, once each
# (`pushledger-bench flood`). The same run three times against `pushledger serve` on a
# cluster of its own with durable settings, each on a fresh database: with the fairness
# settings; with every writer allowed to one app (only the lane's share left); and with all of
# it opened up (every writer for one app, one lane as large as the queue, no events bound on a
# transaction); and, for the machine's own latency at the time, app B alone with the fairness
# settings. After each run the stored sends are checked against what each app was
# acknowledged and what it sent.
#   scripts/fairness.sh [SECONDS]   (default 20; FAIRNESS_CONFIG=debug to skip the release build)
# Prints Markdown and saves it under bench/results/fairness-<time>.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/measure.sh
source scripts/measure.sh
log() { printf '==> %s\n' "$*" >&2; }

seconds=${1:-20}
config=${FAIRNESS_CONFIG:-release}
flood_app=com.example.flood steady_app=com.example.steady
# The per-address cap is lifted: every client of the run is on 127.0.0.1.
common=(--per-address 128 --log-level warning)
# Run names and their serve flags (the defaults otherwise: 2 writers, --batch-events 5000).
runs=(on shared off alone)
declare -A flags=(
    [on]="--app-share 16"
    [shared]="--app-share 16 --app-writers 2"
    [off]="--app-share 512 --app-writers 2 --batch-events 100000000"
    [alone]="--app-share 16"
)
declare -A titles=(
    [on]="with fairness"
    [shared]="every writer to one app"
    [off]="without fairness"
    [alone]="B alone, no flood"
)
declare -A flood_flags=([alone]="--flood-connections 0")

bindir=$(swift build -c "$config" --show-bin-path)
log "Building ($config)"
for product in pushledger pushledger-bench; do
    swift build -c "$config" --product $product 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2 || true
done
bin=$bindir/pushledger bench=$bindir/pushledger-bench

admin_url=$(DATABASE_URL= scripts/db.sh start fairness)
url=$(sed -E "s#/[^/?]*(\?|\$)#/fairness\1#" <<<"$admin_url")
work=$root/.pgdata/fairness-work
server=""
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    [ -n "${FAIRNESS_KEEP:-}" ] || DATABASE_URL= scripts/db.sh destroy fairness
    rm -rf "$work"
}
trap cleanup EXIT
rm -rf "$work" && mkdir -p "$work"
q() { psql "$url" -qAtc "$1"; }

# run NAME FLAGS…: one flood against a fresh database; appends a column of figures.
declare -A figures
run() {
    local name=$1; shift
    psql "$admin_url" -qc "drop database if exists fairness with (force)" -c "create database fairness" >&2
    DATABASE_URL=$url "$bin" migrate --log-level warning
    BENCH_FLOOD_KEY=$(DATABASE_URL=$url "$bin" keys create --app $flood_app --scope sends --log-level warning)
    BENCH_STEADY_KEY=$(DATABASE_URL=$url "$bin" keys create --app $steady_app --scope sends --log-level warning)
    export BENCH_FLOOD_KEY BENCH_STEADY_KEY
    local port
    port=$(scripts/free-port.sh)
    DATABASE_URL=$url "$bin" serve --listen "127.0.0.1:$port" "${common[@]}" "$@" 2>"$work/serve-$name.log" &
    server=$!
    wait_for_port "$port" "$server" "$work/serve-$name.log"
    log "Flood $name ($seconds s): serve $*"
    local line
    # shellcheck disable=SC2086  # the flags are words
    line=$("$bench" flood --port "$port" --flood-app $flood_app --steady-app $steady_app --seconds "$seconds" \
        ${flood_flags[$name]:-} | tr '\n' ' ')
    kill -TERM "$server"; wait "$server" || true; server=""
    eval "$line"
    local stored_flood stored_steady twice
    stored_flood=$(q "select count(*) from event_ids where app_id = '$flood_app'")
    stored_steady=$(q "select count(*) from event_ids where app_id = '$steady_app'")
    twice=$(q "select count(*) - count(distinct (app_id, event_id)) from sends")
    # Every acknowledged send is stored; nothing beyond what was sent; nothing twice.
    local audit=ok
    { [ "$stored_flood" -ge "$flood_acknowledged" ] && [ "$stored_flood" -le "$flood_attempted" ] &&
      [ "$stored_steady" -ge "$steady_acknowledged" ] && [ "$stored_steady" -le "$steady_attempted" ] &&
      [ "$twice" -eq 0 ]; } || {
        audit="FAILED (A stored $stored_flood of $flood_acknowledged acknowledged,"
        audit+=" B $stored_steady of $steady_acknowledged, $twice twice)"
    }
    # One table row's cells, appended in pieces to keep the lines short.
    figures[$name]="$steady_requests|$steady_200|$(calc "%.1f" "100 * $steady_200 / $steady_requests")"
    figures[$name]+="|$steady_p50_ms|$steady_p99_ms|$steady_max_ms|$flood_200|$flood_429"
    figures[$name]+="|$flood_429_without_retry_after|$flood_acknowledged|$audit"
    log "$name: $line"
}
header="| figure |" rule="| --- |"
for name in "${runs[@]}"; do
    # shellcheck disable=SC2086  # the flags are words
    run "$name" ${flags[$name]}
    header+=" ${titles[$name]} (\`${flags[$name]}\`) |" rule+=" ---: |"
done

row() {  # row LABEL FIELD: one table row, the field of every run
    local line="| $1 |" name
    for name in "${runs[@]}"; do line+=" $(cut -d'|' -f"$2" <<<"${figures[$name]}") |"; done
    printf '%s\n' "$line"
}
psi=$(awk '/^some/ { sub("avg300=", "", $4); print $4 }' /proc/pressure/cpu 2>/dev/null || echo "?")
stamp=$(date -u +%Y-%m-%dT%H%M)
report=$(cat <<REPORT
# Fairness under a flood, $stamp ($config build, $seconds s a run)

Machine: $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg), CPU pressure (PSI some avg300) $psi %.
App A: 500 sends a request on 64 connections, each 429 retried after its Retry-After. App B: 20 sends a
request, 20 requests a second on 4 connections, once each. Both on 127.0.0.1 (\`${common[*]}\`).

$header
$rule
$(row "B requests" 1)
$(row "B 200s" 2)
$(row "B 200s, %" 3)
$(row "B latency p50, ms" 4)
$(row "B latency p99, ms" 5)
$(row "B latency max, ms" 6)
$(row "A 200s" 7)
$(row "A 429s" 8)
$(row "A 429s without Retry-After" 9)
$(row "A sends acknowledged" 10)
$(row "stored = acknowledged ⊆ sent, none twice" 11)
REPORT
)
printf '%s\n' "$report"
mkdir -p bench/results
printf '%s\n' "$report" >"bench/results/fairness-$stamp.md"
log "Saved bench/results/fairness-$stamp.md"
