-- Daily send rollups (docs/rollups.md). A rollup row is the classification of one UTC day's
-- sends with that day as the report window, evaluated as of the last refresh. send_outcomes
-- keeps every send's facts and outcome; the rollups are always the grouping of its rows.
--
-- A refresh (pushledger_refresh_rollups) takes what the triggers queued since the last one
-- (sql/engine/dirty_days.sql), finds by index the sends it affects, classifies only those
-- (pushledger_classify_send_set), and moves the rollups by the difference between their old
-- and new rows; whole days marked dirty go through the set-based engine. A rebuild
-- (pushledger_rebuild_rollups) classifies everything in one set-based pass and aggregates.
-- Rows keep `unattributed_uninstrumented` and instrumented_slices_daily so a wider window
-- re-judges instrumentation exactly (pushledger_rollup_totals, sql/reports/weekly.sql).

drop function if exists pushledger_rollup_day(text, date, timestamptz, interval);
drop function if exists pushledger_rollup_days(text, date, date, timestamptz, interval);

-- One send_outcomes row from a classified send (the columns the rollups group by and count).
create or replace function pushledger_outcome_row(c pushledger_classified_send)
returns send_outcomes
language sql immutable as $$
    select row(c.app_id, c.sent_at, c.event_id, c.day, c.notification_id, c.installation_id, c.provider, c.channel,
               c.campaign, c.status, c.reason, c.reason_class, c.token_invalid, c.to_invalid_token, c.platform,
               c.app_version, c.display_state, c.channel_blocked, c.instrumented, c.opened, c.received_displayed,
               c.received_undisplayed, c.outcome, c.os_version, c.sdk_int, c.standby_bucket, c.background_restricted,
               c.ignoring_battery_optimizations, c.low_power_mode, c.cause, c.first_life_at, c.first_life_notification,
               c.latency_bucket)::send_outcomes
$$;

-- A rebuild loads send_outcomes and open_landing_notifications empty: their indexes (primary
-- key included) are dropped first and built once after the load, from their own definitions,
-- which costs less than keeping them up to date row by row. Returns the statements that build
-- them again, for pushledger_build_indexes. The caller holds the table's exclusive lock
-- (truncate), so nobody reads it without them.
create or replace function pushledger_drop_indexes(p_table regclass)
returns text[]
language plpgsql as $$
declare
    v_build text[] := '{}';
    v_index record;
begin
    for v_index in
        -- Keys first (they own their indexes), then the other indexes.
        select format('alter table %s add constraint %I %s', p_table, c.conname, pg_get_constraintdef(c.oid)) as build,
               format('alter table %s drop constraint %I', p_table, c.conname) as drop
          from pg_constraint c where c.conrelid = p_table and c.contype in ('p', 'u')
        union all
        select pg_get_indexdef(i.indexrelid), format('drop index %s', i.indexrelid::regclass)
          from pg_index i
         where i.indrelid = p_table and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
    loop
        v_build := v_build || v_index.build;
        execute v_index.drop;
    end loop;
    return v_build;
end
$$;

create or replace function pushledger_build_indexes(p_build text[])
returns void
language plpgsql as $$
declare
    v_statement text;
begin
    foreach v_statement in array p_build loop
        execute v_statement;
    end loop;
end
$$;

-- Classifies one app's days [p_from, p_to) in one set-based pass, each day judged as its own
-- window, into p_into: the session's table rollup_new, or send_outcomes for a rebuild.
create or replace function pushledger_classify_days(
    p_app text, p_from date, p_to date, p_as_of timestamptz, p_window interval, p_into text default 'rollup_new')
returns void
language plpgsql as $$
begin
    execute format(
        'insert into %I select (pushledger_outcome_row(c)).* from pushledger_classify_sends($1, $2, $3, $4, $5, true) c',
        p_into)
    using p_app, p_from::timestamp at time zone 'UTC', p_to::timestamp at time zone 'UTC', p_as_of, p_window;
end
$$;

-- The (app, day) pairs as runs of consecutive days of an app, each at most 7 days long: a
-- run is classified in one pass (the snapshots before it are looked up once per installation,
-- not once per day).
create or replace function pushledger_day_runs(p_apps text[], p_days date[])
returns table (app_id text, first_day date, last_day date)
language sql immutable as $$
select r.app_id, min(r.day), max(r.day)
  from (select d.app_id, d.day,
               -- Consecutive days share an island; islands are cut every 7 days.
               d.day - (row_number() over w)::integer as island,
               (row_number() over w - 1) / 7 as chunk
          from (select distinct u.app_id, u.day from unnest(p_apps, p_days) u(app_id, day)) d
        window w as (partition by d.app_id order by d.day)) r
 group by r.app_id, r.island, r.chunk
 order by 1, 2
$$;

-- The session's work tables: the keys of the sends to re-judge, and their new rows.
create or replace function pushledger_rollup_work_tables()
returns void
language plpgsql as $$
begin
    -- scope: what a send is judged again on. 2: every fact (pushledger_classify_send_set), 1: its
    -- confirmations, 0: time and its slice only (pushledger_rejudge_outcomes).
    create temp table if not exists rollup_send_set (app_id text, sent_at timestamptz, event_id uuid, scope smallint) on commit drop;
    create temp table if not exists rollup_keys (app_id text, sent_at timestamptz, event_id uuid, scope smallint) on commit drop;
    create temp table if not exists rollup_new (like send_outcomes) on commit drop;
    create temp table if not exists rollup_days (app_id text, day date) on commit drop;
    truncate rollup_send_set, rollup_keys, rollup_new, rollup_days;
end
$$;

-- Adds signed send_outcomes rows (sign -1: a row leaving, +1: a row arriving) to the rollups;
-- rows reaching zero go. p_source: the rows, rollup_delta (the session's changed rows), or
-- every row of send_outcomes (a rebuild, into empty rollups). Returns the (app, day)s whose
-- counts moved.
create or replace function pushledger_apply_rollup_deltas(p_as_of timestamptz, p_source text default 'rollup_delta')
returns table (app_id text, day date)
language plpgsql as $$
#variable_conflict use_column
declare
    v_source text := case p_source when 'send_outcomes' then '(select 1 as sign, o.* from send_outcomes o)'
                                   else 'rollup_delta' end;
begin
    create temp table if not exists rollup_moved (app_id text, day date) on commit drop;
    truncate rollup_moved;
    execute replace($sql$
    with deltas as (
        select d.app_id, d.day, d.platform, d.channel, d.app_version, d.campaign, d.provider,
               d.os_version, d.sdk_int, d.standby_bucket, d.background_restricted, d.ignoring_battery_optimizations,
               d.low_power_mode,
               sum(d.sign) as sends,
               sum(d.sign) filter (where d.outcome not in ('rejected', 'pending')) as accepted,
               sum(d.sign) filter (where d.outcome = 'rejected') as rejected,
               sum(d.sign) filter (where d.outcome = 'opened') as opened,
               sum(d.sign) filter (where d.outcome = 'received') as received,
               sum(d.sign) filter (where d.outcome = 'pending') as pending,
               sum(d.sign) filter (where d.outcome = 'blocked_app') as blocked_app,
               sum(d.sign) filter (where d.outcome = 'blocked_channel') as blocked_channel,
               sum(d.sign) filter (where d.outcome = 'unattributed') as unattributed,
               sum(d.sign) filter (where d.outcome = 'unconfirmed') as unconfirmed,
               sum(d.sign) filter (where d.token_invalid) as token_invalid,
               sum(d.sign) filter (where d.to_invalid_token) as to_invalid_token,
               -- Rule 8's other causes (no as-of snapshot, unresolved installation) hold in any window.
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.display_state <> 'unknown'
                                   and d.installation_id is not null and not d.instrumented) as uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'superseded') as superseded,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'app_stopped') as app_stopped,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'expired') as expired,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'device_inactive') as device_inactive,
               sum(d.sign) filter (where d.outcome = 'unconfirmed' and d.cause = 'unexplained') as unexplained,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'superseded') as superseded_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'app_stopped') as app_stopped_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'expired') as expired_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'device_inactive') as device_inactive_uninstrumented,
               sum(d.sign) filter (where d.outcome = 'unattributed' and d.cause = 'unexplained') as unexplained_uninstrumented,
               sum(d.sign) filter (where d.latency_bucket = 'lt_10s') as latency_lt_10s,
               sum(d.sign) filter (where d.latency_bucket = 'lt_1m') as latency_lt_1m,
               sum(d.sign) filter (where d.latency_bucket = 'lt_10m') as latency_lt_10m,
               sum(d.sign) filter (where d.latency_bucket = 'lt_1h') as latency_lt_1h,
               sum(d.sign) filter (where d.latency_bucket = 'lt_6h') as latency_lt_6h,
               sum(d.sign) filter (where d.latency_bucket = 'lt_24h') as latency_lt_24h,
               sum(d.sign) filter (where d.latency_bucket = 'ge_24h') as latency_ge_24h
          from $source d
         group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
    ), moved as (
        insert into send_rollups_daily as r (
            app_id, day, platform, channel, app_version, campaign, provider, sends, accepted, rejected, opened,
            received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid,
            to_invalid_token, as_of, refreshed_at, unattributed_uninstrumented,
            os_version, sdk_int, standby_bucket, background_restricted, ignoring_battery_optimizations, low_power_mode,
            superseded, app_stopped, expired, device_inactive, unexplained, superseded_uninstrumented, app_stopped_uninstrumented, expired_uninstrumented, device_inactive_uninstrumented, unexplained_uninstrumented, latency_lt_10s, latency_lt_1m, latency_lt_10m, latency_lt_1h, latency_lt_6h, latency_lt_24h, latency_ge_24h)
        select d.app_id, d.day, d.platform, d.channel, d.app_version, d.campaign, d.provider, d.sends,
               coalesce(d.accepted, 0), coalesce(d.rejected, 0), coalesce(d.opened, 0), coalesce(d.received, 0),
               coalesce(d.pending, 0), coalesce(d.blocked_app, 0), coalesce(d.blocked_channel, 0),
               coalesce(d.unattributed, 0), coalesce(d.unconfirmed, 0), coalesce(d.token_invalid, 0),
               coalesce(d.to_invalid_token, 0), $1, now(), coalesce(d.uninstrumented, 0),
               d.os_version, d.sdk_int, d.standby_bucket, d.background_restricted, d.ignoring_battery_optimizations,
               d.low_power_mode,
               coalesce(d.superseded, 0), coalesce(d.app_stopped, 0), coalesce(d.expired, 0), coalesce(d.device_inactive, 0), coalesce(d.unexplained, 0), coalesce(d.superseded_uninstrumented, 0), coalesce(d.app_stopped_uninstrumented, 0), coalesce(d.expired_uninstrumented, 0), coalesce(d.device_inactive_uninstrumented, 0), coalesce(d.unexplained_uninstrumented, 0), coalesce(d.latency_lt_10s, 0), coalesce(d.latency_lt_1m, 0), coalesce(d.latency_lt_10m, 0), coalesce(d.latency_lt_1h, 0), coalesce(d.latency_lt_6h, 0), coalesce(d.latency_lt_24h, 0), coalesce(d.latency_ge_24h, 0)
          from deltas d
         where d.sends <> 0 or d.accepted <> 0 or d.rejected <> 0 or d.opened <> 0 or d.received <> 0
            or d.pending <> 0 or d.blocked_app <> 0 or d.blocked_channel <> 0 or d.unattributed <> 0
            or d.unconfirmed <> 0 or d.token_invalid <> 0 or d.to_invalid_token <> 0 or d.uninstrumented <> 0
            or d.superseded <> 0 or d.app_stopped <> 0 or d.expired <> 0 or d.device_inactive <> 0 or d.unexplained <> 0 or d.superseded_uninstrumented <> 0 or d.app_stopped_uninstrumented <> 0 or d.expired_uninstrumented <> 0 or d.device_inactive_uninstrumented <> 0 or d.unexplained_uninstrumented <> 0 or d.latency_lt_10s <> 0 or d.latency_lt_1m <> 0 or d.latency_lt_10m <> 0 or d.latency_lt_1h <> 0 or d.latency_lt_6h <> 0 or d.latency_lt_24h <> 0 or d.latency_ge_24h <> 0
        on conflict (app_id, day, platform, channel, app_version, campaign, provider, os_version, sdk_int, standby_bucket,
                     background_restricted, ignoring_battery_optimizations, low_power_mode) do update set
            sends = r.sends + excluded.sends, accepted = r.accepted + excluded.accepted,
            rejected = r.rejected + excluded.rejected, opened = r.opened + excluded.opened,
            received = r.received + excluded.received, pending = r.pending + excluded.pending,
            blocked_app = r.blocked_app + excluded.blocked_app,
            blocked_channel = r.blocked_channel + excluded.blocked_channel,
            unattributed = r.unattributed + excluded.unattributed, unconfirmed = r.unconfirmed + excluded.unconfirmed,
            token_invalid = r.token_invalid + excluded.token_invalid,
            to_invalid_token = r.to_invalid_token + excluded.to_invalid_token,
            unattributed_uninstrumented = r.unattributed_uninstrumented + excluded.unattributed_uninstrumented,
            superseded = r.superseded + excluded.superseded,
            app_stopped = r.app_stopped + excluded.app_stopped,
            expired = r.expired + excluded.expired,
            device_inactive = r.device_inactive + excluded.device_inactive,
            unexplained = r.unexplained + excluded.unexplained,
            superseded_uninstrumented = r.superseded_uninstrumented + excluded.superseded_uninstrumented,
            app_stopped_uninstrumented = r.app_stopped_uninstrumented + excluded.app_stopped_uninstrumented,
            expired_uninstrumented = r.expired_uninstrumented + excluded.expired_uninstrumented,
            device_inactive_uninstrumented = r.device_inactive_uninstrumented + excluded.device_inactive_uninstrumented,
            unexplained_uninstrumented = r.unexplained_uninstrumented + excluded.unexplained_uninstrumented,
            latency_lt_10s = r.latency_lt_10s + excluded.latency_lt_10s,
            latency_lt_1m = r.latency_lt_1m + excluded.latency_lt_1m,
            latency_lt_10m = r.latency_lt_10m + excluded.latency_lt_10m,
            latency_lt_1h = r.latency_lt_1h + excluded.latency_lt_1h,
            latency_lt_6h = r.latency_lt_6h + excluded.latency_lt_6h,
            latency_lt_24h = r.latency_lt_24h + excluded.latency_lt_24h,
            latency_ge_24h = r.latency_ge_24h + excluded.latency_ge_24h,
            as_of = excluded.as_of, refreshed_at = excluded.refreshed_at
        returning r.app_id, r.day
    )
    insert into rollup_moved select distinct m.app_id, m.day from moved m
    $sql$, '$source', v_source) using p_as_of;

    execute replace($sql$
    with deltas as (
        select d.app_id, d.day, d.platform, d.provider, d.reason_class, d.reason, d.status, sum(d.sign) as rejected
          from $source d where d.outcome = 'rejected'
         group by 1, 2, 3, 4, 5, 6, 7 having sum(d.sign) <> 0
    ), moved as (
        insert into send_rejections_daily as r
        select d.app_id, d.day, d.platform, d.provider, d.reason_class, d.reason, d.status, d.rejected, now()
          from deltas d
        on conflict (app_id, day, platform, provider, reason_class, reason, status) do update set
            rejected = r.rejected + excluded.rejected, refreshed_at = excluded.refreshed_at
        returning r.app_id, r.day
    )
    insert into rollup_moved select distinct m.app_id, m.day from moved m
    $sql$, '$source', v_source);

    delete from send_rollups_daily r using (select distinct * from rollup_moved) m
     where r.app_id = m.app_id and r.day = m.day and r.sends = 0;
    delete from send_rejections_daily r using (select distinct * from rollup_moved) m
     where r.app_id = m.app_id and r.day = m.day and r.rejected = 0;
    return query select distinct m.app_id, m.day from rollup_moved m;
end
$$;

-- Replaces the send_outcomes rows of the re-judged sends (rollup_old: their rows before, the
-- set's and the recomputed days'; rollup_new: after) and moves the rollups by the rows that
-- changed. Returns the (app, day)s whose rollups moved; leaves the changed rows in rollup_delta.
create or replace function pushledger_replace_outcomes(p_as_of timestamptz)
returns table (app_id text, day date)
language plpgsql as $$
#variable_conflict use_column
begin
    create temp table if not exists rollup_delta (sign integer, like send_outcomes) on commit drop;
    truncate rollup_delta;
    insert into rollup_delta
    select -1, o.* from rollup_old o
     where not exists (select 1 from rollup_new n
                        where n.app_id = o.app_id and n.sent_at = o.sent_at and n.event_id = o.event_id
                          and row(n.*) is not distinct from row(o.*))
    union all
    select 1, n.* from rollup_new n
     where not exists (select 1 from rollup_old o
                        where o.app_id = n.app_id and o.sent_at = n.sent_at and o.event_id = n.event_id
                          and row(n.*) is not distinct from row(o.*));
    delete from send_outcomes s using rollup_delta d
     where d.sign = -1 and s.app_id = d.app_id and s.sent_at = d.sent_at and s.event_id = d.event_id;
    insert into send_outcomes
    select app_id, sent_at, event_id, day, notification_id, installation_id, provider, channel, campaign, status,
           reason, reason_class, token_invalid, to_invalid_token, platform, app_version, display_state,
           channel_blocked, instrumented, opened, received_displayed, received_undisplayed, outcome, os_version,
           sdk_int, standby_bucket, background_restricted, ignoring_battery_optimizations, low_power_mode, cause,
           first_life_at, first_life_notification, latency_bucket
      from rollup_delta where sign = 1;
    return query select * from pushledger_apply_rollup_deltas(p_as_of);
end
$$;

-- Takes the queued inputs a refresh as of p_as_of can apply, into the session's table
-- rollup_taken, and the whole days marked dirty, into rollup_days. Inputs naming a time after
-- p_as_of go back for a later refresh (applying what is due again then is harmless: a
-- re-judged send that did not change moves nothing).
create or replace function pushledger_take_rollup_inputs(p_as_of timestamptz)
returns void
language plpgsql as $$
begin
    create temp table if not exists rollup_taken on commit drop as select * from rollup_inputs with no data;
    truncate rollup_taken;
    with taken as (delete from rollup_inputs returning *)
    insert into rollup_taken select * from taken;
    insert into rollup_inputs select * from rollup_taken where due_at > p_as_of;
    with taken as (delete from rollup_dirty_days returning app_id, day)
    insert into rollup_days select distinct t.app_id, t.day from taken t;
end
$$;

-- The sends the taken inputs affect, into rollup_send_set, each found by index, with the scope
-- of what changed for them.
create or replace function pushledger_affected_sends(p_as_of timestamptz, p_window interval)
returns void
language plpgsql as $$
begin
    insert into rollup_send_set
    -- Sends stored, changed or removed.
    select t.app_id, k.sent_at, k.event_id, 2::smallint
      from rollup_taken t cross join unnest(t.keys, t.times) k(event_id, sent_at)
     where t.kind = 'send'
    union
    -- Sends of notifications with a new receipt or open.
    select s.app_id, s.sent_at, s.event_id, 1
      from (select distinct t.app_id, k.notification_id
              from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind in ('receipt', 'open')) c
      join sends s on s.app_id = c.app_id and s.notification_id = c.notification_id
    union
    -- Sends of an installation from a new snapshot's time to its next snapshot.
    select s.app_id, s.sent_at, s.event_id, 2
      from (select t.app_id, k.installation_id, min(k.occurred_at) as since, max(k.occurred_at) as latest
              from rollup_taken t cross join unnest(t.keys, t.times) k(installation_id, occurred_at)
             where t.kind = 'snapshot' group by 1, 2) n
      -- Up to the snapshot after the latest new one: new snapshots can follow each other.
      left join lateral (
            select n2.occurred_at from settings_snapshots n2
             where n2.app_id = n.app_id and n2.installation_id = n.installation_id and n2.occurred_at > n.latest
             order by n2.occurred_at limit 1) nx on true
      join sends s on s.app_id = n.app_id and s.installation_id = n.installation_id
                  and s.sent_at >= n.since and s.sent_at < coalesce(nx.occurred_at, 'infinity')
    union
    -- Later sends to a token whose invalidating result was stored or removed, or that was
    -- registered after an earlier invalidating result.
    select s.app_id, s.sent_at, s.event_id, 2
      from (select t.app_id, k.provider, k.token_key, min(k.at) as since, bool_or(t.kind = 'token') as result
              from rollup_taken t cross join unnest(t.keys, t.providers, t.times) k(token_key, provider, at)
             where t.kind in ('token', 'registration') group by 1, 2, 3) k
      join sends s on s.app_id = k.app_id and s.provider = k.provider and s.token_key = k.token_key
                  and s.sent_at >= k.since
     where k.result or exists (
            select 1 from sends p
             where p.app_id = k.app_id and p.provider = k.provider and p.token_key = k.token_key
               and p.sent_at < k.since and pushledger_reason_class(p.status, p.reason) = 'token_invalid')
    union
    -- Sends of an installation that appeared or changed platform (the platform of sends with no
    -- as-of snapshot).
    select s.app_id, s.sent_at, s.event_id, 2
      from (select distinct t.app_id, k.installation_id
              from rollup_taken t cross join unnest(t.keys) k(installation_id) where t.kind = 'installation') i
      join sends s on s.app_id = i.app_id and s.installation_id = i.installation_id
    union
    -- Sends with a cause of an installation with a new (or removed) telemetry event after them,
    -- whose first sign of life is not earlier than it: it may be their first sign of life now.
    -- Per installation, its earliest and latest event (a superset: re-judging one more send is
    -- harmless).
    select o.app_id, o.sent_at, o.event_id, 2
      from (select t.app_id, k.installation_id, min(k.occurred_at) as earliest, max(k.occurred_at) as latest
              from rollup_taken t cross join unnest(t.keys, t.times) k(installation_id, occurred_at)
             where t.kind = 'life' group by 1, 2) l
      join send_outcomes o on o.app_id = l.app_id and o.installation_id = l.installation_id and o.cause is not null
                          and o.sent_at < l.latest
     where coalesce(o.first_life_at, 'infinity') >= l.earliest
    union
    -- Sends with a cause whose first sign of life is a receipt of a notification with an
    -- attempt stored, changed or removed: that attempt may supersede them (or no longer).
    select o.app_id, o.sent_at, o.event_id, 2
      from (select t.app_id, k.notification_id
              from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind = 'notification'
            union
            select s.app_id, s.notification_id
              from (select distinct t.app_id, k.event_id, k.sent_at
                      from rollup_taken t cross join unnest(t.keys, t.times) k(event_id, sent_at) where t.kind = 'send') k
              join sends s on s.app_id = k.app_id and s.sent_at = k.sent_at and s.event_id = k.event_id) n
      join send_outcomes o on o.app_id = n.app_id and o.first_life_notification = n.notification_id
    union
    -- Pending sends whose confirmation window has passed.
    select o.app_id, o.sent_at, o.event_id, 0
      from send_outcomes o where o.outcome = 'pending' and o.sent_at <= p_as_of - p_window;
end
$$;

-- Instrumented slices: those of the whole days recomputed (rollup_days) again from their
-- receipts, and the slices first seen in the receipts of the taken notifications, whose sends not yet instrumented
-- go into rollup_send_set. Returns the (app, day)s that gained a slice.
create or replace function pushledger_refresh_slices(p_as_of timestamptz)
returns table (app_id text, day date)
language plpgsql as $$
#variable_conflict use_column
begin
    delete from instrumented_slices_daily sl using rollup_days d where sl.app_id = d.app_id and sl.day = d.day;
    insert into instrumented_slices_daily (app_id, day, platform, app_version)
    select distinct r.app_id, pushledger_day(r.occurred_at), r.platform, r.app_version
      from rollup_days d
      join notification_receipts r on r.app_id = d.app_id and r.occurred_at >= d.day::timestamp at time zone 'UTC'
                                  and r.occurred_at < (d.day + 1)::timestamp at time zone 'UTC'
     where r.occurred_at <= p_as_of;
    create temp table if not exists rollup_new_slices on commit drop as select * from instrumented_slices_daily with no data;
    truncate rollup_new_slices;
    -- The slices of the stored receipts of the notifications that got one (found by notification:
    -- a receipt erased since it was queued adds nothing).
    insert into rollup_new_slices
    select distinct r.app_id, pushledger_day(r.occurred_at), r.platform, r.app_version
      from (select distinct t.app_id, k.notification_id
              from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind = 'receipt') n
      join notification_receipts r on r.app_id = n.app_id and r.notification_id = n.notification_id
     where r.occurred_at <= p_as_of
       and not exists (select 1 from instrumented_slices_daily sl
                        where sl.app_id = r.app_id and sl.day = pushledger_day(r.occurred_at) and sl.platform = r.platform
                          and sl.app_version is not distinct from r.app_version);
    insert into instrumented_slices_daily select * from rollup_new_slices;
    insert into rollup_send_set
    select o.app_id, o.sent_at, o.event_id, 0
      from rollup_new_slices sl
      join send_outcomes o on o.app_id = sl.app_id and o.day = sl.day and o.platform = sl.platform
                          and o.app_version is not distinct from sl.app_version
     where not o.instrumented;
    return query select distinct sl.app_id, sl.day from rollup_new_slices sl;
end
$$;

-- The notifications whose landing rows (sql/engine/landings.sql) a refresh recomputes: those
-- with an open taken (stored or removed), and those of every send whose row changed (a row
-- holds the attempt's time, day, channel and campaign: a landing row moves only when one of its
-- notification's rows does); then recomputes them.
create or replace function pushledger_refresh_landings(p_as_of timestamptz)
returns void
language plpgsql as $$
begin
    create temp table if not exists landing_notifications (app_id text, notification_id uuid) on commit drop;
    truncate landing_notifications;
    insert into landing_notifications
    select t.app_id, k.notification_id from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind = 'open'
    union
    select r.app_id, r.notification_id from rollup_delta r;
    analyze landing_notifications;
    perform pushledger_refresh_landing_notifications(p_as_of, false);
end
$$;

-- Records a completed refresh.
create or replace function pushledger_record_refresh(p_as_of timestamptz, p_window interval, p_full boolean, p_sends bigint)
returns void
language sql as $$
    insert into rollup_refresh_state (as_of, window_length, refreshed_at, full_at, reclassified)
    values (p_as_of, p_window, now(), case when p_full then now() end, p_sends)
    on conflict (singleton) do update set
        as_of = excluded.as_of, window_length = excluded.window_length, refreshed_at = excluded.refreshed_at,
        full_at = coalesce(excluded.full_at, rollup_refresh_state.full_at), reclassified = excluded.reclassified
$$;

-- Recomputes everything from scratch as of p_as_of: every send of every app classified in one
-- set-based pass (runs of 7 days), send_outcomes and the rollups rewritten from it. For
-- repairs and definition changes, and the first refresh of a database. Returns every (app, day)
-- with rollups.
create or replace function pushledger_rebuild_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
declare
    v_run record;
    v_sends bigint;
    v_indexes text[];
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_rollups'));
    perform pushledger_rollup_work_tables();
    perform pushledger_take_rollup_inputs(p_as_of);
    truncate send_outcomes;
    v_indexes := pushledger_drop_indexes('send_outcomes');
    delete from send_rollups_daily;
    delete from send_rejections_daily;
    delete from instrumented_slices_daily;
    insert into instrumented_slices_daily (app_id, day, platform, app_version)
    select distinct r.app_id, pushledger_day(r.occurred_at), r.platform, r.app_version
      from notification_receipts r where r.occurred_at <= p_as_of;
    for v_run in
        with recursive apps as (
            select min(s.app_id) as app_id from sends s
            union all
            select (select min(s.app_id) from sends s where s.app_id > a.app_id) from apps a where a.app_id is not null
        ), spans as (
            select a.app_id,
                   (select pushledger_day(min(s.sent_at)) from sends s where s.app_id = a.app_id) as first_day,
                   (select pushledger_day(max(s.sent_at)) from sends s where s.app_id = a.app_id and s.sent_at <= p_as_of) as last_day
              from apps a where a.app_id is not null
        )
        select sp.app_id, d::date as first_day, least(d::date + 6, sp.last_day) as last_day
          from spans sp cross join generate_series(sp.first_day, sp.last_day, interval '7 days') d
         order by 1, 2
    loop
        perform pushledger_classify_days(v_run.app_id, v_run.first_day, v_run.last_day + 1, p_as_of, p_window, 'send_outcomes');
    end loop;
    perform pushledger_build_indexes(v_indexes);
    perform pushledger_apply_rollup_deltas(p_as_of, 'send_outcomes');
    select count(*) into v_sends from send_outcomes;
    -- Every day with rollups has its landing rollups computed (open_landings_days).
    insert into rollup_days select distinct r.app_id, r.day from send_rollups_daily r;
    perform pushledger_refresh_landing_notifications(p_as_of, true);
    perform pushledger_record_refresh(p_as_of, p_window, true, v_sends);
    return query
    select r.app_id, r.day from send_rollups_daily r union select sl.app_id, sl.day from instrumented_slices_daily sl
     order by 1, 2;
end
$$;

-- Brings the rollups up to date as of p_as_of from what arrived since the last refresh (see
-- the top of this file); returns the (app, day)s whose rollups moved, gained an instrumented
-- slice, or were recomputed whole. A refresh as of an earlier time than the last one, with
-- another confirmation window, or on a database never refreshed, rebuilds instead.
-- Takes an advisory lock; an input committed after the refresh took the queue stays queued
-- for the next one (its rows may be seen now too: applying them twice is harmless).
create or replace function pushledger_refresh_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
declare
    v_last rollup_refresh_state;
    v_run record;
    v_sends bigint;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_rollups'));
    select * into v_last from rollup_refresh_state;
    if not found or p_as_of < v_last.as_of or p_window <> v_last.window_length then
        return query select * from pushledger_rebuild_rollups(p_as_of, p_window);
        return;
    end if;
    perform pushledger_rollup_work_tables();
    perform pushledger_take_rollup_inputs(p_as_of);
    create temp table if not exists rollup_slice_days (app_id text, day date) on commit drop;
    truncate rollup_slice_days;
    insert into rollup_slice_days select * from pushledger_refresh_slices(p_as_of);
    perform pushledger_affected_sends(p_as_of, p_window);
    -- The whole days go through the engine.
    insert into rollup_keys
    select k.app_id, k.sent_at, k.event_id, max(k.scope) from rollup_send_set k
     where not exists (select 1 from rollup_days d where d.app_id = k.app_id and d.day = pushledger_day(k.sent_at))
     group by 1, 2, 3;
    create temp table if not exists rollup_old on commit drop as select * from send_outcomes with no data;
    truncate rollup_old;
    -- The set's rows by key, one look-up each (a hash join would read all of send_outcomes).
    insert into rollup_old
    select o.* from rollup_keys k
     cross join lateral (select * from send_outcomes o
                          where o.app_id = k.app_id and o.sent_at = k.sent_at and o.event_id = k.event_id) o;
    -- A send without a row (new, or dated after the last as_of) is judged on every fact.
    update rollup_keys k set scope = 2
     where k.scope < 2
       and not exists (select 1 from rollup_old o where o.app_id = k.app_id and o.sent_at = k.sent_at and o.event_id = k.event_id);
    analyze rollup_keys, rollup_old;
    truncate rollup_send_set;
    insert into rollup_send_set select * from rollup_keys where scope = 2;
    analyze rollup_send_set;
    insert into rollup_new select (pushledger_outcome_row(c)).* from pushledger_classify_send_set(p_as_of, p_window) c;
    insert into rollup_new select * from pushledger_rejudge_outcomes(p_as_of, p_window);
    for v_run in select * from pushledger_day_runs((select array_agg(d.app_id) from rollup_days d),
                                                   (select array_agg(d.day) from rollup_days d)) loop
        perform pushledger_classify_days(v_run.app_id, v_run.first_day, v_run.last_day + 1, p_as_of, p_window);
    end loop;
    insert into rollup_old
    select o.* from rollup_days d
      join send_outcomes o on o.app_id = d.app_id and o.sent_at >= d.day::timestamp at time zone 'UTC'
                          and o.sent_at < (d.day + 1)::timestamp at time zone 'UTC';
    select count(*) into v_sends from rollup_new;
    create temp table if not exists rollup_refreshed (app_id text, day date) on commit drop;
    truncate rollup_refreshed;
    insert into rollup_refreshed select * from pushledger_replace_outcomes(p_as_of);
    perform pushledger_refresh_landings(p_as_of);
    perform pushledger_record_refresh(p_as_of, p_window, false, v_sends);
    return query
    select r.app_id, r.day from rollup_refreshed r
    union select d.app_id, d.day from rollup_days d
    union select d.app_id, d.day from rollup_slice_days d
     order by 1, 2;
end
$$;
