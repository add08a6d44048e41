-- Tap-through landing: per open, and as daily rollups kept beside send_rollups_daily so the
-- weekly report reads no events. Opens are read from pushledger_confirmation_lookback() before
-- the window, as the outcome engine reads them.

-- Tap-through landing (metrics.md misrouted_open_rate; weekly report "tap-through landing"):
-- each open with the channel, campaign and provider of its notification's latest send attempt
-- (retries share the notification_id and its channel). `misrouted` is null when the open did
-- not report `landed`, so count(misrouted) is the rate's denominator.
drop view if exists open_landings;
create view open_landings as
select o.app_id, o.event_id, o.installation_id, o.platform, o.app_version, o.notification_id,
       o.action, o.link, o.landed, o.landed in ('fallback', 'rejected') as misrouted,
       o.at, o.occurred_at, o.received_at,
       s.channel, s.campaign, s.provider
  from notification_opens o
  left join lateral (
        select s.channel, s.campaign, s.provider
          from sends s
         where s.app_id = o.app_id and s.notification_id = o.notification_id
         order by s.sent_at desc, s.event_id desc
         limit 1) s on true;

create or replace function pushledger_open_landings(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now())
returns table (channel text, campaign text, day date, opens bigint, landed_reported bigint, misrouted bigint)
language sql stable as $$
with opens as materialized (
    select o.notification_id, o.landed
      from notification_opens o
     where o.app_id = p_app and o.occurred_at >= p_from - pushledger_confirmation_lookback() and o.occurred_at <= p_as_of
), latest as (
    select distinct on (s.notification_id) s.notification_id, s.event_id, s.sent_at, s.channel, s.campaign
      from sends s
     where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
       and s.notification_id in (select o.notification_id from opens o)
     order by s.notification_id, s.sent_at desc, s.event_id desc
), notifications as (
    select l.* from latest l
     where not exists (
            select 1 from sends x
             where x.app_id = p_app and x.notification_id = l.notification_id and x.sent_at <= p_as_of
               and (x.sent_at, x.event_id) > (l.sent_at, l.event_id))
)
select n.channel, n.campaign, pushledger_day(n.sent_at), count(*), count(o.landed),
       count(*) filter (where o.landed in ('fallback', 'rejected'))
  from notifications n
  join opens o on o.notification_id = n.notification_id
 group by 1, 2, 3
 order by 1, 2, 3
$$;

-- Recomputes the landing rollups of the days the send refreshes marked (open_landings_dirty_days),
-- and of any day whose send rollups are newer than its landing rollups (whoever refreshed
-- them), the days of an app read in runs of up to 7 consecutive days.
create or replace function pushledger_refresh_landings(p_as_of timestamptz)
returns void
language plpgsql as $$
begin
    create temp table if not exists report_landing_days (app_id text, day date) on commit drop;
    truncate report_landing_days;
    with taken as (delete from open_landings_dirty_days returning app_id, day)
    insert into report_landing_days
    select app_id, day from taken
    union
    select r.app_id, r.day
      from send_rollups_daily r
      left join open_landings_days d on d.app_id = r.app_id and d.day = r.day
     group by r.app_id, r.day, d.refreshed_at
    having d.refreshed_at is null or max(r.refreshed_at) > d.refreshed_at;

    delete from open_landings_daily o using report_landing_days d where o.app_id = d.app_id and o.day = d.day;
    insert into open_landings_daily
    select r.app_id, l.day, l.channel, l.campaign, l.opens, l.landed_reported, l.misrouted
      from (select array_agg(app_id) as apps, array_agg(day) as days from report_landing_days) d
     cross join lateral pushledger_day_runs(d.apps, d.days) r
     cross join lateral pushledger_open_landings(
            r.app_id, r.first_day::timestamp at time zone 'UTC', (r.last_day + 1)::timestamp at time zone 'UTC',
            p_as_of) l;
    insert into open_landings_days (app_id, day, refreshed_at)
    select app_id, day, now() from report_landing_days
    on conflict (app_id, day) do update set refreshed_at = excluded.refreshed_at;
end
$$;

-- Refreshes the send rollups (pushledger_refresh_rollups) and then the landing rollups
-- (pushledger_refresh_landings); returns the (app, day)s the send refresh reports. Idempotent
-- and safe while ingest runs, like the refresh it wraps.
create or replace function pushledger_refresh_report_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
begin
    create temp table if not exists report_refreshed_days (app_id text, day date) on commit drop;
    truncate report_refreshed_days;
    insert into report_refreshed_days select * from pushledger_refresh_rollups(p_as_of, p_window);
    perform pushledger_refresh_landings(p_as_of);
    return query select app_id, day from report_refreshed_days order by 1, 2;
end
$$;

-- The same from scratch: pushledger_rebuild_rollups, then the landing rollups of every day.
create or replace function pushledger_rebuild_report_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
begin
    create temp table if not exists report_refreshed_days (app_id text, day date) on commit drop;
    truncate report_refreshed_days;
    insert into report_refreshed_days select * from pushledger_rebuild_rollups(p_as_of, p_window);
    delete from open_landings_daily;
    perform pushledger_refresh_landings(p_as_of);
    return query select app_id, day from report_refreshed_days order by 1, 2;
end
$$;

grant select on open_landings to pushledger_reader;
