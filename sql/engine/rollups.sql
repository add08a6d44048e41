-- Daily send rollups. A rollup row is the classification of one UTC day's sends with that day
-- as the report window, evaluated as of the refresh time. Outcomes change with as_of only while
-- a send can still be pending, so a refresh re-evaluates (a) the days marked dirty
-- (sql/engine/dirty_days.sql) and (b) every day whose rollups still count pending sends, until
-- its window passed. Rows keep `unattributed_uninstrumented` and instrumented_slices_daily so a
-- wider window re-judges instrumentation exactly (pushledger_rollup_totals, sql/reports/weekly.sql).

-- Recomputes one app's days [p_from, p_to) in one pass, each day judged as its own window.
create or replace function pushledger_rollup_days(p_app text, p_from date, p_to date, p_as_of timestamptz, p_window interval)
returns void
language plpgsql as $$
declare
    v_from timestamptz := p_from::timestamp at time zone 'UTC';
    v_to timestamptz := p_to::timestamp at time zone 'UTC';
begin
    delete from send_rollups_daily where app_id = p_app and day >= p_from and day < p_to;
    delete from send_rejections_daily where app_id = p_app and day >= p_from and day < p_to;
    delete from instrumented_slices_daily where app_id = p_app and day >= p_from and day < p_to;
    create temp table if not exists rollup_day_sends on commit drop as
        select * from pushledger_classified_sends(p_app, v_from, v_from, p_as_of, p_window) with no data;
    truncate rollup_day_sends;
    insert into rollup_day_sends
        select * from pushledger_classify_sends(p_app, v_from, v_to, p_as_of, p_window, true);
    insert into send_rollups_daily (
        app_id, day, platform, channel, app_version, campaign, provider, sends, accepted, rejected, opened,
        received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid,
        to_invalid_token, as_of, refreshed_at, unattributed_uninstrumented)
    select p_app, day, platform, channel, app_version, campaign, provider,
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
           p_as_of, now(),
           -- Rule 8's other causes (no as-of snapshot, unresolved installation) hold in any window.
           count(*) filter (where outcome = 'unattributed' and snapshot_event_id is not null
                                  and installation_id is not null and not instrumented)
      from rollup_day_sends
     group by day, platform, channel, app_version, campaign, provider;
    insert into send_rejections_daily
    select p_app, day, platform, provider, reason_class, reason, status, count(*), now()
      from rollup_day_sends
     where outcome = 'rejected'
     group by day, platform, provider, reason_class, reason, status;
    -- The same slices as the engine's, day by day.
    insert into instrumented_slices_daily (app_id, day, platform, app_version)
    select distinct p_app, pushledger_day(r.occurred_at), r.platform, r.app_version
      from notification_receipts r
     where r.app_id = p_app and r.occurred_at >= v_from and r.occurred_at < v_to
       and r.occurred_at <= p_as_of;
end
$$;

create or replace function pushledger_rollup_day(p_app text, p_day date, p_as_of timestamptz, p_window interval)
returns void
language sql as $$
    select pushledger_rollup_days(p_app, p_day, p_day + 1, p_as_of, p_window)
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

-- Recomputes the dirty days and the days still counting pending sends, a run of consecutive
-- days at a time; returns the (app, day)s recomputed. Takes an advisory lock: a dirty mark
-- committed after the refresh read it stays for the next one.
create or replace function pushledger_refresh_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
declare
    v_apps text[];
    v_days date[];
    v_run record;
begin
    perform pg_advisory_xact_lock(hashtext('pushledger_refresh_rollups'));
    with taken as (
        delete from rollup_dirty_days returning app_id, day
    )
    select array_agg(d.app_id), array_agg(d.day)
      into v_apps, v_days
      from (select app_id, day from taken
            union
            select app_id, day from send_rollups_daily where pending > 0) d;
    for v_run in select * from pushledger_day_runs(v_apps, v_days) loop
        perform pushledger_rollup_days(v_run.app_id, v_run.first_day, v_run.last_day + 1, p_as_of, p_window);
        for refreshed_day in select generate_series(v_run.first_day, v_run.last_day, interval '1 day')::date loop
            refreshed_app := v_run.app_id;
            return next;
        end loop;
    end loop;
end
$$;
