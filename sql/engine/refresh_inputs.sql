-- What a refresh must judge again: the inputs queued since the last one (by the functions of
-- sql/engine/dirty_days.sql) taken, and the sends they affect found by index, into the working
-- tables of sql/engine/work_tables.sql. docs/rollups.md "What a refresh judges again".

-- Takes the queued inputs a refresh as of p_as_of can apply, and the whole days marked dirty.
-- Inputs naming a time after p_as_of go back for a later refresh (applying what is due again
-- then is harmless: a re-judged send that did not change moves nothing).
-- Reads rollup_inputs, rollup_dirty_days (and empties them);
-- writes rollup_taken, rollup_days (sql/engine/work_tables.sql), rollup_inputs (what is not due).
create or replace function pushledger_take_rollup_inputs(p_as_of timestamptz)
returns void
language plpgsql as $$
begin
    with taken as (delete from rollup_inputs returning *)
    insert into rollup_taken select * from taken;
    insert into rollup_inputs select * from rollup_taken where due_at > p_as_of;
    with taken as (delete from rollup_dirty_days returning app_id, day)
    insert into rollup_days select distinct t.app_id, t.day from taken t;
end
$$;

-- The sends stored, changed or removed that the taken inputs name, each to be judged on every
-- fact (sql/engine/work_tables.sql, rollup_send_set). Before anything they affect is looked up:
-- a day mostly of such sends is recomputed whole (pushledger_promote_busy_days), and its sends
-- need no look-ups then. Those still stored, with their notification, go into rollup_stored:
-- the slices and the look-ups read their notifications from there, joined once.
-- Reads rollup_taken, sends; writes rollup_send_set, rollup_stored.
create or replace function pushledger_stored_sends()
returns void
language plpgsql as $$
begin
    with taken as (
        select distinct t.app_id, k.sent_at, k.event_id
          from rollup_taken t cross join unnest(t.keys, t.times) k(event_id, sent_at)
         where t.kind = 'send'
    ), judged as (
        insert into rollup_send_set select k.app_id, k.sent_at, k.event_id, 2::smallint from taken k
    )
    insert into rollup_stored
    select s.app_id, s.notification_id, s.push_type = 'background'
      from taken k
      join sends s on s.app_id = k.app_id and s.sent_at = k.sent_at and s.event_id = k.event_id;
end
$$;

-- The other sends the taken inputs affect, each found by index, with the scope of what changed
-- for them (rollup_send_set), but those of the days recomputed whole (rollup_days): all of
-- their sends are judged again.
-- Reads rollup_taken, rollup_stored, rollup_days, sends, settings_snapshots, send_outcomes;
-- writes rollup_send_set.
create or replace function pushledger_affected_sends(p_as_of timestamptz, p_window interval)
returns void
language plpgsql as $$
begin
    insert into rollup_send_set
    -- The sends and rows outside the whole days, filtered as each branch reads them: when a
    -- fleet arrives at once nearly every send the inputs name is on a whole day, and filtering
    -- the union's rows only at the end read and grouped them all first (0.2 s of the
    -- pipeline's pass, for none kept).
    with outside_sends as not materialized (
        select s.* from sends s
         where not exists (select 1 from rollup_days d
                            where d.app_id = s.app_id and d.day = pushledger_day(s.sent_at))
    ), outside_outcomes as not materialized (
        select o.* from send_outcomes o
         where not exists (select 1 from rollup_days d where d.app_id = o.app_id and d.day = o.day)
    )
    select a.* from (
        -- Sends of notifications with a new receipt or open.
        select s.app_id, s.sent_at, s.event_id, 1::smallint as scope
          from (select distinct t.app_id, k.notification_id
                  from rollup_taken t cross join unnest(t.keys) k(notification_id)
                 where t.kind in ('receipt', 'open')) c
          join outside_sends s on s.app_id = c.app_id and s.notification_id = c.notification_id
        union
        -- Sends of an installation from a new snapshot's time to its next snapshot.
        select s.app_id, s.sent_at, s.event_id, 2
          from (select n.app_id, n.installation_id, n.since,
                       -- Up to the snapshot after the latest new one: new snapshots can follow each
                       -- other. Looked up once an installation (offset 0 keeps it before the join).
                       coalesce((select n2.occurred_at from settings_snapshots n2
                                  where n2.app_id = n.app_id and n2.installation_id = n.installation_id
                                    and n2.occurred_at > n.latest
                                  order by n2.occurred_at limit 1), 'infinity') as until
                  from (select t.app_id, k.installation_id, min(k.occurred_at) as since, max(k.occurred_at) as latest
                          from rollup_taken t cross join unnest(t.keys, t.times) k(installation_id, occurred_at)
                         where t.kind = 'snapshot' group by 1, 2) n
                offset 0) n
          join outside_sends s on s.app_id = n.app_id and s.installation_id = n.installation_id
                      and s.sent_at >= n.since and s.sent_at < n.until
        union
        -- Later sends to a token whose invalidating result was stored or removed, or that was
        -- registered after an earlier invalidating result.
        select s.app_id, s.sent_at, s.event_id, 2
          from (select t.app_id, k.provider, k.token_key, min(k.at) as since, bool_or(t.kind = 'token') as result
                  from rollup_taken t cross join unnest(t.keys, t.providers, t.times) k(token_key, provider, at)
                 where t.kind in ('token', 'registration') group by 1, 2, 3) k
          join outside_sends s on s.app_id = k.app_id and s.provider = k.provider and s.token_key = k.token_key
                      and s.sent_at >= k.since
         where k.result or exists (
                select 1 from sends p
                 where p.app_id = k.app_id and p.provider = k.provider and p.token_key = k.token_key
                   and p.sent_at < k.since
                   and pushledger_reason_class(p.provider, p.status, p.reason) = 'token_invalid')
        union
        -- Sends of an installation that appeared or changed platform (the platform of sends with no
        -- as-of snapshot).
        select s.app_id, s.sent_at, s.event_id, 2
          from (select distinct t.app_id, k.installation_id
                  from rollup_taken t cross join unnest(t.keys) k(installation_id) where t.kind = 'installation') i
          join outside_sends s on s.app_id = i.app_id and s.installation_id = i.installation_id
        union
        -- Sends with a cause of an installation with a new (or removed) telemetry event after them,
        -- whose first sign of life is not earlier than it: it may be their first sign of life now.
        -- Per installation, its earliest and latest event (a superset: re-judging one more send is
        -- harmless).
        select o.app_id, o.sent_at, o.event_id, 2
          from (select t.app_id, k.installation_id, min(k.occurred_at) as earliest, max(k.occurred_at) as latest
                  from rollup_taken t cross join unnest(t.keys, t.times) k(installation_id, occurred_at)
                 where t.kind = 'life' group by 1, 2) l
          join outside_outcomes o on o.app_id = l.app_id and o.installation_id = l.installation_id
                                 and o.cause is not null and o.sent_at < l.latest
         where coalesce(o.first_life_at, 'infinity') >= l.earliest
        union
        -- Sends with a cause whose first sign of life is a receipt of a notification with an
        -- attempt stored, changed or removed: that attempt may supersede them (or no longer).
        select o.app_id, o.sent_at, o.event_id, 2
          from (select t.app_id, k.notification_id
                  from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind = 'notification'
                union
                select s.app_id, s.notification_id from rollup_stored s) n
          join outside_outcomes o on o.app_id = n.app_id and o.first_life_notification = n.notification_id
        union
        -- Pending sends whose confirmation window has passed.
        select o.app_id, o.sent_at, o.event_id, 0
          from outside_outcomes o where o.outcome = 'pending' and o.sent_at <= p_as_of - p_window
      ) a;
end
$$;

-- Instrumented slices: those of the whole days recomputed again from their receipts, and the
-- slices first seen in the receipts of the taken notifications (found by notification: a
-- receipt erased since it was queued adds nothing), whose sends not yet instrumented are
-- judged again (scope 0). A slice also first reports background receipts through a taken
-- receipt, or a taken background push whose receipt came first; its background pushes not yet
-- instrumented are judged again. Returns the (app, day)s that gained a slice.
-- Reads rollup_days, rollup_taken, rollup_stored (sql/engine/work_tables.sql),
-- notification_receipts, sends, send_outcomes; writes instrumented_slices_daily, rollup_send_set.
create or replace function pushledger_refresh_slices(p_as_of timestamptz)
returns table (app_id text, day date)
language plpgsql as $$
#variable_conflict use_column
begin
    delete from instrumented_slices_daily sl using rollup_days d where sl.app_id = d.app_id and sl.day = d.day;
    insert into instrumented_slices_daily (app_id, day, platform, app_version, background)
    select r.app_id, pushledger_day(r.occurred_at), r.platform, r.app_version, bool_or(b.background)
      from rollup_days d
      join notification_receipts r on r.app_id = d.app_id and r.occurred_at >= d.day::timestamp at time zone 'UTC'
                                  and r.occurred_at < (d.day + 1)::timestamp at time zone 'UTC'
     cross join lateral pushledger_background_receipt(r.app_id, r.notification_id, r.occurred_at, p_as_of) b
     where r.occurred_at <= p_as_of
     group by 1, 2, 3, 4;
    return query
    with receipt_slices as materialized (
        select r.app_id, pushledger_day(r.occurred_at) as day, r.platform, r.app_version,
               bool_or(b.background) as background
          from (select t.app_id, k.notification_id
                  from rollup_taken t cross join unnest(t.keys) k(notification_id) where t.kind = 'receipt'
                union
                select s.app_id, s.notification_id from rollup_stored s where s.background) n
          join notification_receipts r on r.app_id = n.app_id and r.notification_id = n.notification_id
         cross join lateral pushledger_background_receipt(r.app_id, r.notification_id, r.occurred_at, p_as_of) b
         where r.occurred_at <= p_as_of
         group by 1, 2, 3, 4
    ), new_slices as materialized (
        -- Slices new to their day (new), or newly reporting background receipts.
        select x.*, sl.app_id is null as new
          from receipt_slices x
          left join instrumented_slices_daily sl
            on sl.app_id = x.app_id and sl.day = x.day and sl.platform = x.platform
           and sl.app_version is not distinct from x.app_version
         where sl.app_id is null or (x.background and not sl.background)
    ), stored as (
        insert into instrumented_slices_daily as sl (app_id, day, platform, app_version, background)
        select n.app_id, n.day, n.platform, n.app_version, n.background from new_slices n
        on conflict (app_id, day, platform, app_version) do update set background = sl.background or excluded.background
    ), queued as (
        insert into rollup_send_set
        select o.app_id, o.sent_at, o.event_id, 0
          from new_slices sl
          join send_outcomes o on o.app_id = sl.app_id and o.day = sl.day and o.platform = sl.platform
                              and o.app_version is not distinct from sl.app_version
         where sl.new and not o.instrumented
        union
        select o.app_id, o.sent_at, o.event_id, 0
          from new_slices sl
          join send_outcomes o on o.app_id = sl.app_id and o.day = sl.day and o.platform = sl.platform
                              and o.app_version is not distinct from sl.app_version
         where sl.background and o.push_type = 'background' and not o.background_instrumented
    )
    select distinct sl.app_id, sl.day from new_slices sl;
end
$$;
