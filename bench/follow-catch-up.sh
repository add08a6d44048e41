#!/bin/bash
# The follower beside a simulated post: how long after the last answer the rollups caught up.
set -e
cd "$(dirname "$0")/.."
usage="usage: bench/follow-catch-up.sh ADMIN_DATABASE_URL"
usage+=" (INSTALLS, DAYS, FRESHNESS, PUSHLEDGER_BIN in the environment)"
ADMIN=${1:?$usage}
DB=pl_follow_bench_$$
psql -q "$ADMIN" -c "create database $DB"
URL=$(python3 -c "import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); \
  print(p._replace(path='/'+sys.argv[2]).geturl())" "$ADMIN" $DB)
export DATABASE_URL=$URL PUSHLEDGER_SQL_DIR=$PWD/sql
B=${PUSHLEDGER_BIN:-.build/release/pushledger}
$B migrate >/dev/null 2>&1
TK=$($B keys create --app com.example.shop --scope telemetry 2>/dev/null)
SK=$($B keys create --app com.example.shop --scope sends 2>/dev/null)
APP=$(psql -qtA "$URL" -c "select app_id from api_keys limit 1")
PORT=18093
$B serve --listen 127.0.0.1:$PORT 2>${TMPDIR:-/tmp}/follow-bench-serve.log &
SERVE=$!
$B rollup --follow --freshness ${FRESHNESS:-60s} 2>${TMPDIR:-/tmp}/follow-bench-follow.log &
FOLLOW=$!
trap "kill $SERVE $FOLLOW 2>/dev/null || true" EXIT
sleep 2
START=$(date +%s.%N)
$B simulate --url http://127.0.0.1:$PORT --telemetry-key "$TK" --sends-key "$SK" --installs ${INSTALLS:-2000} \
  --days ${DAYS:-3} --threads 8 --no-progress 2>${TMPDIR:-/tmp}/follow-bench-sim.log >/dev/null
END=$(date +%s.%N)
ENDSQL=$(psql -qtA "$URL" -c "select clock_timestamp()")
while :; do
  R=$(psql -qtA "$URL" -c "select (pass_started_at > '$ENDSQL'::timestamptz)::text from rollup_refresh_state")
  L=$(psql -qtA "$URL" -c "select lag_seconds from pushledger_rollup_status()")
  if [ "$R" = "true" ] && [ "$L" = "0" ]; then break; fi
  sleep 0.2
done
CAUGHT=$(date +%s.%N)
EVENTS=$(psql -qtA "$URL" -c "select (select count(*) from event_ids)")
SENDS=$(psql -qtA "$URL" -c "select count(*) from send_outcomes")
PASSES=$(grep -c 'msg="rollup pass"' ${TMPDIR:-/tmp}/follow-bench-follow.log)
MAXPASS=$(grep 'msg="rollup pass"' ${TMPDIR:-/tmp}/follow-bench-follow.log | sed 's/.* seconds=\([0-9.]*\).*/\1/' |
  sort -n | tail -1)
MAXLAG=$(grep 'msg="rollup pass"' ${TMPDIR:-/tmp}/follow-bench-follow.log | sed 's/.*lag_s=\([0-9.]*\).*/\1/' |
  sort -n | tail -1)
kill -TERM $FOLLOW; wait $FOLLOW; FRC=$?
kill -TERM $SERVE; wait $SERVE || true
python3 - "$START" "$END" "$CAUGHT" "$EVENTS" "$SENDS" "$PASSES" "$MAXPASS" "$MAXLAG" "$FRC" <<'PY'
import sys
s,e,c=map(float,sys.argv[1:4])
print(f"post_seconds={e-s:.1f} caught_up_after_last_answer_s={c-e:.1f} events={sys.argv[4]} "
      f"sends_rolled_up={sys.argv[5]} passes={sys.argv[6]} longest_pass_s={sys.argv[7]} "
      f"largest_lag_after_a_pass_s={sys.argv[8]} follower_exit={sys.argv[9]}")
PY
psql -q "$ADMIN" -c "drop database $DB"
