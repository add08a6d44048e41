#!/usr/bin/env bash
# `make demo`: the whole product on one machine — local Postgres, the ingest server, a
# simulated mature app's fleet and its push sender posted over HTTP, then the weekly report
# (Markdown on the terminal, Markdown and HTML files) and the silent-loss table per channel.
# Safe to run again: each run starts from a fresh demo database.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

app=com.example.shop
installs=${DEMO_INSTALLS:-2500}
# The weekly report compares the last full ISO week with the one before, so both must be
# days of a settled fleet: the reported days start at the Monday of the week before last
# (at most 18 days back, so that with the 11-day warm-up everything is within the contract's
# 30-day age limit), after 11 days of warm-up (the least that lets young installations settle).
warmup=11
days=$((14 + $(date -u +%u) - 1))
[ "$days" -le 18 ] || days=18
week=$(date -u -d '7 days ago' +%G-W%V)
reports=.pgdata/demo-report
step() { printf '\n==> %s\n' "$*" >&2; }

step "Building pushledger (release)"
swift build -c release --product pushledger 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2 || true
bin="$(swift build -c release --show-bin-path)/pushledger"
[ -x "$bin" ] || { echo "demo: build failed" >&2; exit 1; }

step "Starting the project-local PostgreSQL"
admin_url=$(scripts/db.sh start demo)
psql "$admin_url" -qc "drop database if exists pushledger_demo with (force)" -c "create database pushledger_demo" >&2
DATABASE_URL="${admin_url/\/pushledger\?//pushledger_demo?}"
export DATABASE_URL PUSHLEDGER_APP=$app

step "Migrating"
"$bin" migrate --log-level warning

step "Creating API keys for $app"
telemetry_key=$("$bin" keys create --app "$app" --scope telemetry --log-level warning)
sends_key=$("$bin" keys create --app "$app" --scope sends --log-level warning)

port=$(scripts/free-port.sh)
step "Starting pushledger serve on 127.0.0.1:$port (log: .pgdata/demo-serve.log)"
mkdir -p .pgdata
"$bin" serve --listen "127.0.0.1:$port" 2>.pgdata/demo-serve.log &
server=$!
trap 'kill -TERM $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET /readyz HTTP/1.0\r\n\r\n' >&3 &&
        head -c 12 <&3 | grep -q 200) 2>/dev/null; then break; fi
    sleep 0.1
done

# A fifth of the installations are browsers (Web Push): Chrome, Safari (iOS home-screen web apps too),
# Edge, Firefox and the rest, beside the iOS and Android phones.
web_share=0.2
step "Simulating $installs installations of a mature app (phones and browsers) and their pushes: $warmup days \
of warm-up, then $days days"
"$bin" simulate --url "http://127.0.0.1:$port" --telemetry-key "$telemetry_key" --sends-key "$sends_key" \
    --installs "$installs" --threads 24 --warmup-days "$warmup" --days "$days" --seed 7 --push-mix \
    --web-share "$web_share" --truth .pgdata/demo-truth.json

step "Stopping the server (graceful: in-flight requests finish first)"
kill -TERM $server
wait $server || true
trap - EXIT

# Provider cross-check: what FCM's Data API would report for the same fleet (the simulator's
# view of FCM: collapsed, dropped for a force-stopped app or an uninstalled one, expired,
# pending while offline, delivered otherwise), imported beside what devices confirmed and why.
step "Importing FCM Aggregated Delivery Data for the simulated fleet"
"$bin" simulate --dry-run --no-progress --installs "$installs" --warmup-days "$warmup" --days "$days" --seed 7 \
    --push-mix --web-share "$web_share" --fcm-delivery-data .pgdata/demo-fcm-delivery.json >/dev/null
"$bin" import fcm-delivery-data .pgdata/demo-fcm-delivery.json --app "$app" \
    --fcm-app-id 1:123456789012:android:5e1a0c0ffee0
"$bin" report provider-check --app "$app" --week "$week"

step "Refreshing rollups"
"$bin" rollup

# --- Link association (pushledger links check): a local HTTPS fixture plays shop.example.com ---
step "Checking the association files behind tapped links (shop.example.com served locally)"
links_dir=.pgdata/demo-links
links_port=$(scripts/link-fixture.sh start "$links_dir" scripts/link-sites)
"$bin" apps set --ios-app-id ABCDE12345.com.example.shop --android-package com.example.shop --android-cert-sha256 \
    0B:30:55:7A:9F:C4:E9:0E:33:58:7D:A2:C7:EC:11:36:5B:80:A5:CA:EF:14:39:5E:83:A8:CD:F2:17:3C:61:86
links_status=0
"$bin" links check --ca-file "$links_dir/ca.pem" --connect-to "::127.0.0.1:$links_port" --log-level warning \
    || links_status=$?
scripts/link-fixture.sh stop "$links_dir"
[ "$links_status" -le 1 ]  # 1: a check failed (here: /promotions is not covered), as intended
# --- end link association ---

step "Weekly report for $week (against the week before)"
mkdir -p "$reports"
"$bin" report weekly --week "$week" --format markdown --log-level warning >"$reports/weekly-$week.md"
"$bin" report weekly --week "$week" --format html --log-level warning >"$reports/weekly-$week.html"
cat "$reports/weekly-$week.md"

step "Silent loss per channel, last 14 days"
"$bin" report silent-loss --by channel --from "$(date -u -d '14 days ago' +%F)" --to "$(date -u +%F)"

step "Web beside iOS and Android: silent loss per platform, browser and push service, last 14 days"
"$bin" report silent-loss --by platform,browser,push_service --from "$(date -u -d '14 days ago' +%F)" \
    --to "$(date -u +%F)" \
    --columns platform,browser,push_service,sends,accepted,received,opened,blocked_app,unconfirmed,silent_loss_rate

step "Sends that could not confirm (unconfirmable), by push type and message kind, last 14 days"
"$bin" report silent-loss --by provider,push_type,message_kind --from "$(date -u -d '14 days ago' +%F)" \
    --to "$(date -u +%F)" \
    --columns provider,push_type,message_kind,sends,accepted,unconfirmable,unattributed,silent_loss_rate

step "Why sends went unconfirmed and how late the others came, per platform and channel, last 14 days"
"$bin" report silent-loss --by platform,channel --from "$(date -u -d '14 days ago' +%F)" --to "$(date -u +%F)" \
    --columns platform,channel,superseded,app_stopped,expired,device_inactive,unexplained,unexplained_rate
"$bin" report silent-loss --by platform,channel --from "$(date -u -d '14 days ago' +%F)" --to "$(date -u +%F)" \
    --columns platform,channel,received,opened,late_share,p50_bucket,p90_bucket,p99_bucket

# The here-document is unquoted: a backslash at a line's end joins the next line to it (lines kept short).
cat <<NEXT

The weekly report, as Markdown and as HTML with its charts:
  $root/$reports/weekly-$week.md
  $root/$reports/weekly-$week.html

Next:
  psql "$DATABASE_URL" -c 'select * from send_rollup_rates_daily order by day desc \
limit 20'   # plain SQL, views in sql/
  $bin report prompt-timing --week $week   # also: report rejections, query silent-loss --since 24h, alert check
  dashboards/ holds Grafana provisioning and the Delivery, Permissions and Pipeline health dashboards
  make db-stop   # the demo's Postgres stays up for the lines above; this stops it
NEXT
