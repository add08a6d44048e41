-- The cost of a cause look-up per send (docs/performance.md "Causes of unconfirmed sends"): a synthetic
-- app of 20,000 Android installations over 30 days (a snapshot and a receipt each a day), 200,000
-- sends; EXPLAIN ANALYZE of pushledger_send_cause over 20,000 sends against the same sends without it.
-- psql "$DATABASE_URL" -f bench/cause-lookups.sql (on a throwaway database: it adds app "bench").
\timing on
set client_min_messages = warning;
select pushledger_ensure_partitions('2026-10-01', '2026-12-31');
-- 20,000 installations over 30 days: each a snapshot a day, receipts, tokens; 200,000 sends.
insert into settings_snapshots (app_id, event_id, installation_id, platform, notifications_enabled, at, occurred_at, received_at)
select 'bench', gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'android', true, t, t, t
  from generate_series(1, 20000) i, generate_series(0, 29) d,
       lateral (select timestamptz '2026-11-01' + d * interval '1 day' + (i % 1440) * interval '1 minute' as t) x;
insert into notification_receipts (app_id, event_id, installation_id, platform, notification_id, displayed, at, occurred_at, received_at)
select 'bench', gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'android', gen_random_uuid(), true, t, t, t
  from generate_series(1, 20000) i, generate_series(0, 29) d,
       lateral (select timestamptz '2026-11-01' + d * interval '1 day' + ((i * 7) % 1440) * interval '1 minute' as t) x;
insert into sends (app_id, event_id, notification_id, provider, token, installation_id, resolved_by, channel, sent_at, status, received_at)
select 'bench', gen_random_uuid(), gen_random_uuid(), 'fcm', 'tok', ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid,
       'explicit', 'orders', t, 200, t
  from generate_series(1, 20000) i, generate_series(0, 9) n,
       lateral (select timestamptz '2026-11-01' + n * interval '3 days' + ((i * 13) % 1440) * interval '1 minute' as t) x;
analyze;
-- The cause of 20,000 sends, each by its look-ups.
explain (analyze, buffers, timing off)
select count(c.cause) from (select * from sends where app_id = 'bench' order by event_id limit 20000) s
 cross join lateral pushledger_send_cause(s.app_id, s.installation_id, s.notification_id, s.provider, s.collapse_id,
                                          s.expires_at, s.sent_at, timestamptz '2026-12-01') c;
-- The same sends without the cause: what a look-up-free pass over them costs.
explain (analyze, buffers, timing off)
select count(*) from (select * from sends where app_id = 'bench' order by event_id limit 20000) s;
