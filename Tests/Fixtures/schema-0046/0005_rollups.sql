-- Daily rollups of classified sends, refreshed incrementally, and the read-only role.
--
-- A rollup row is the classification of one UTC day's sends with that day as the report
-- window (so receipt instrumentation is judged per day), evaluated as of the refresh time.
-- Outcomes change with as_of only while a send can still be pending, so a refresh re-evaluates
-- (a) the days the writer marked dirty (new sends, receipts, opens, snapshots, re-resolved
-- sends) and (b) every day whose rollups still count pending sends, until its window passed.

create table send_rollups_daily (
    app_id           text        not null,
    day              date        not null,
    platform         text        not null,
    channel          text        not null,
    app_version      text,
    campaign         text,
    provider         text        not null,
    sends            integer     not null,
    accepted         integer     not null,  -- 2xx and not pending
    rejected         integer     not null,
    opened           integer     not null,
    received         integer     not null,
    pending          integer     not null,
    blocked_app      integer     not null,
    blocked_channel  integer     not null,
    unattributed     integer     not null,
    unconfirmed      integer     not null,
    token_invalid    integer     not null,
    to_invalid_token integer     not null,  -- sends to a token already known invalid
    as_of            timestamptz not null,
    refreshed_at     timestamptz not null,
    unique nulls not distinct (app_id, day, platform, channel, app_version, campaign, provider)
);
create index send_rollups_daily_pending on send_rollups_daily (app_id, day) where pending > 0;

-- Rejections by provider and reason (the weekly report's breakdown and the rejections_up alert).
create table send_rejections_daily (
    app_id       text        not null,
    day          date        not null,
    platform     text        not null,
    provider     text        not null,
    reason_class text        not null,
    reason       text,
    status       integer     not null,
    rejected     integer     not null,
    refreshed_at timestamptz not null,
    unique nulls not distinct (app_id, day, platform, provider, reason_class, reason, status)
);

-- Dirty days, marked by statement-level triggers so every path that changes inputs (the
-- writer, imports, repairs) is covered, one set-based insert per statement:
--   sends: the days of inserted, updated (re-resolved) or deleted sends;
--   receipts: the day a receipt occurred (instrumentation) and the days of the sends it confirms;
--   opens: the days of the sends they confirm;
--   snapshots: the days of the installation's sends at or after the snapshot.
create function pushledger_mark_dirty_sends()
returns trigger
language plpgsql as $$
begin
    insert into rollup_dirty_days (app_id, day)
    select distinct app_id, pushledger_day(sent_at) from changed_rows order by 1, 2;
    return null;
end
$$;

create function pushledger_mark_dirty_receipts()
returns trigger
language plpgsql as $$
begin
    insert into rollup_dirty_days (app_id, day)
    select distinct app_id, day from (
        select r.app_id, pushledger_day(r.occurred_at) as day
          from changed_rows r where tg_table_name = 'notification_receipts'
        union all
        select s.app_id, pushledger_day(s.sent_at)
          from changed_rows r join sends s on s.app_id = r.app_id and s.notification_id = r.notification_id
    ) days order by 1, 2;
    return null;
end
$$;

create function pushledger_mark_dirty_snapshots()
returns trigger
language plpgsql as $$
begin
    insert into rollup_dirty_days (app_id, day)
    select distinct s.app_id, pushledger_day(s.sent_at)
      from changed_rows n
      join sends s on s.app_id = n.app_id and s.installation_id = n.installation_id and s.sent_at >= n.occurred_at
     order by 1, 2;
    return null;
end
$$;

create trigger sends_dirty_insert after insert on sends
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_sends();
create trigger sends_dirty_update_old after update on sends
    referencing old table as changed_rows for each statement execute function pushledger_mark_dirty_sends();
create trigger sends_dirty_update_new after update on sends
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_sends();
create trigger sends_dirty_delete after delete on sends
    referencing old table as changed_rows for each statement execute function pushledger_mark_dirty_sends();
create trigger notification_receipts_dirty after insert on notification_receipts
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_receipts();
create trigger notification_opens_dirty after insert on notification_opens
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_receipts();
create trigger settings_snapshots_dirty after insert on settings_snapshots
    referencing new table as changed_rows for each statement execute function pushledger_mark_dirty_snapshots();

-- Recomputes one app's day from pushledger_classified_sends.
create function pushledger_rollup_day(p_app text, p_day date, p_as_of timestamptz, p_window interval)
returns void
language plpgsql as $$
declare
    v_from timestamptz := p_day::timestamp at time zone 'UTC';
begin
    delete from send_rollups_daily where app_id = p_app and day = p_day;
    delete from send_rejections_daily where app_id = p_app and day = p_day;
    create temp table if not exists rollup_day_sends on commit drop as
        select * from pushledger_classified_sends(p_app, v_from, v_from, p_as_of, p_window) with no data;
    truncate rollup_day_sends;
    insert into rollup_day_sends
        select * from pushledger_classified_sends(p_app, v_from, v_from + interval '1 day', p_as_of, p_window);
    insert into send_rollups_daily
    select p_app, p_day, platform, channel, app_version, campaign, provider,
           count(*),
           count(*) filter (where outcome not in ('rejected', 'pending')),
           count(*) filter (where outcome = 'rejected'),
           count(*) filter (where outcome = 'opened'),
           count(*) filter (where outcome = 'received'),
           count(*) filter (where outcome = 'pending'),
           count(*) filter (where outcome = 'blocked_app'),
           count(*) filter (where outcome = 'blocked_channel'),
           count(*) filter (where outcome = 'unattributed'),
           count(*) filter (where outcome = 'unconfirmed'),
           count(*) filter (where token_invalid),
           count(*) filter (where to_invalid_token),
           p_as_of, now()
      from rollup_day_sends
     group by platform, channel, app_version, campaign, provider;
    insert into send_rejections_daily
    select p_app, p_day, platform, provider, reason_class, reason, status, count(*), now()
      from rollup_day_sends
     where outcome = 'rejected'
     group by platform, provider, reason_class, reason, status;
end
$$;

-- Refreshes the rollups of every dirty or still-pending (app, day); returns them. Safe while
-- ingest runs: the dirty marks it consumes were committed before it read the data, and marks
-- committed later stay for the next refresh. Concurrent refreshes take turns.
create function pushledger_refresh_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
declare
    v_apps text[];
    v_days date[];
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_rollups'));
    with taken as (
        delete from rollup_dirty_days returning app_id, day
    )
    select coalesce(array_agg(d.app_id order by d.app_id, d.day), '{}'),
           coalesce(array_agg(d.day order by d.app_id, d.day), '{}')
      into v_apps, v_days
      from (select app_id, day from taken
            union
            select app_id, day from send_rollups_daily where pending > 0) d;
    for i in 1 .. coalesce(array_length(v_apps, 1), 0) loop
        perform pushledger_rollup_day(v_apps[i], v_days[i], p_as_of, p_window);
        refreshed_app := v_apps[i];
        refreshed_day := v_days[i];
        return next;
    end loop;
end
$$;

-- Marks days dirty by hand (after a repair or a change of definitions); the next refresh
-- recomputes them.
create function pushledger_mark_rollups_dirty(p_app text, p_from date, p_to date)
returns void
language sql as $$
    insert into rollup_dirty_days (app_id, day)
    select p_app, d::date from generate_series(p_from, p_to, interval '1 day') d
$$;

-- Rates per rollup row, with numerators and denominators (metrics.md "Rates"); null when the
-- denominator is 0.
create view send_rollup_rates_daily as
select r.*,
       r.blocked_app + r.blocked_channel + r.unconfirmed as silent_loss,
       (r.blocked_app + r.blocked_channel + r.unconfirmed)::double precision / nullif(r.accepted, 0) as silent_loss_rate,
       (r.blocked_app + r.blocked_channel)::double precision / nullif(r.accepted, 0) as known_blocked_rate,
       r.unconfirmed::double precision / nullif(r.accepted, 0) as unconfirmed_rate,
       (r.received + r.opened)::double precision / nullif(r.accepted, 0) as confirmed_delivery_rate,
       r.opened::double precision / nullif(r.accepted, 0) as open_rate,
       r.rejected::double precision / nullif(r.sends, 0) as rejection_rate,
       r.token_invalid::double precision / nullif(r.sends, 0) as token_invalid_rate,
       r.accepted < 30 as low_volume
  from send_rollups_daily r;

-- The read-only role for dashboards and report readers (roles are cluster-wide: created once).
do $$
begin
    if not exists (select 1 from pg_roles where rolname = 'pushledger_reader') then
        create role pushledger_reader nologin;
    end if;
exception when duplicate_object or unique_violation then
    null;  -- another database's migration created it at the same moment
end
$$;
grant usage on schema public to pushledger_reader;
-- Everything but key hashes, the raw failed events and the writer's bookkeeping.
grant select on send_rollups_daily, send_rejections_daily, send_rollup_rates_daily,
    sends, settings_snapshots, channel_states, notification_receipts, notification_opens,
    installations, push_tokens, token_registrations, permission_prompts, experiment_exposures
    to pushledger_reader;
