#!/usr/bin/env bash
# The invalid-token feed's read at scale (the plan and timings, not a test):
#   scripts/bench-invalid-tokens.sh [SENDS]   (default 1000000)
# Creates the database pushledger_feed_bench on the cluster of DATABASE_URL (default: the
# project's demo cluster), migrates it, builds the data with generate_series and prints
# EXPLAIN ANALYZE of the feed's reads and their timings (bench/sql/invalid_token_feed.sql).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sends=${1:-1000000}
url=$("$root/scripts/db.sh" start)
base=${url%%\?*}
bench_url="${base%/*}/pushledger_feed_bench"
psql "$url" -qc "drop database if exists pushledger_feed_bench" -c "create database pushledger_feed_bench"
[ -x "$root/.build/debug/pushledger" ] || (cd "$root" && swift build --product pushledger)
DATABASE_URL="$bench_url" "$root/.build/debug/pushledger" --sql-dir "$root/sql" --log-level warning migrate
psql "$bench_url" -X -v sends="$sends" -f "$root/bench/sql/invalid_token_feed.sql"
