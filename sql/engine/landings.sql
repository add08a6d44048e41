-- Tap-through landing: per open, and as daily rollups kept beside send_rollups_daily so the
-- weekly report reads no events (kept by the send refresh, sql/engine/rollups.sql). Opens are
-- read from pushledger_confirmation_lookback() before the window, as the outcome engine reads them.

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

-- Reads notification_opens, sends; writes nothing.
create or replace function pushledger_open_landings(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now())
returns table (channel text, campaign text, day date, opens bigint, landed_reported bigint, misrouted bigint)
language sql stable as $$
with opens as materialized (
    select o.notification_id, o.landed
      from notification_opens o
     where o.app_id = p_app and o.occurred_at >= p_from - pushledger_confirmation_lookback()
         and o.occurred_at <= p_as_of
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

-- The landing rows (open_landing_notifications) of the notifications in landing_notifications,
-- recomputed as of p_as_of (every notification with an open when p_all: a rebuild), and
-- open_landings_daily moved by the difference. Records in open_landings_days the days that
-- moved and the days in rollup_days (recomputed whole).
-- Reads landing_notifications, rollup_days (sql/engine/work_tables.sql), notification_opens,
-- sends; writes landing_notifications (a rebuild's), landing_new, landing_delta,
-- open_landing_notifications, open_landings_daily, open_landings_days.
create or replace function pushledger_refresh_landing_notifications(p_as_of timestamptz, p_all boolean)
returns void
language plpgsql as $$
declare
    v_indexes text[];
begin
    truncate landing_new, landing_delta;
    if p_all then
        insert into landing_notifications
        select distinct o.app_id, o.notification_id from notification_opens o where o.occurred_at <= p_as_of;
    end if;
    -- By join, not one look-up a notification: a pass that recomputes whole days names tens of
    -- thousands of notifications, and the planner, told how many, looks a few up by index itself.
    analyze landing_notifications;
    insert into landing_new
    select distinct on (s.app_id, s.notification_id) s.app_id, s.notification_id, pushledger_day(s.sent_at),
           s.channel, s.campaign, o.opens, o.landed_reported, o.misrouted
      from (select o.app_id, o.notification_id, count(*) as opens, count(o.landed) as landed_reported,
                   count(*) filter (where o.landed in ('fallback', 'rejected')) as misrouted
              from (select distinct * from landing_notifications) n
              join notification_opens o on o.app_id = n.app_id and o.notification_id = n.notification_id
             where o.occurred_at <= p_as_of
             group by 1, 2) o
      join sends s on s.app_id = o.app_id and s.notification_id = o.notification_id and s.sent_at <= p_as_of
     order by s.app_id, s.notification_id, s.sent_at desc, s.event_id desc;
    if p_all then
        insert into landing_delta select 1, n.* from landing_new n;
        truncate open_landing_notifications;
        v_indexes := pushledger_drop_indexes('open_landing_notifications');
        delete from open_landings_daily;
    else
        insert into landing_delta
        select -1, o.* from (select distinct * from landing_notifications) n
          join open_landing_notifications o on o.app_id = n.app_id and o.notification_id = n.notification_id
         where not exists (select 1 from landing_new x
                            where x.app_id = o.app_id and x.notification_id = o.notification_id
                              and row(x.*) is not distinct from row(o.*))
        union all
        select 1, x.* from landing_new x
         where not exists (select 1 from open_landing_notifications o
                            where o.app_id = x.app_id and o.notification_id = x.notification_id
                              and row(x.*) is not distinct from row(o.*));
        delete from open_landing_notifications o using landing_delta d
         where d.sign = -1 and o.app_id = d.app_id and o.notification_id = d.notification_id;
    end if;
    insert into open_landing_notifications
    select app_id, notification_id, day, channel, campaign, opens, landed_reported, misrouted
      from landing_delta where sign = 1;
    if p_all then
        perform pushledger_build_indexes(v_indexes);
    end if;

    insert into open_landings_daily as l
    select d.app_id, d.day, d.channel, d.campaign, sum(d.sign * d.opens), sum(d.sign * d.landed_reported),
           sum(d.sign * d.misrouted)
      from landing_delta d
     group by 1, 2, 3, 4
    on conflict (app_id, day, channel, campaign) do update set
        opens = l.opens + excluded.opens, landed_reported = l.landed_reported + excluded.landed_reported,
        misrouted = l.misrouted + excluded.misrouted;
    delete from open_landings_daily l using (select distinct app_id, day from landing_delta) d
     where l.app_id = d.app_id and l.day = d.day and l.opens = 0;
    insert into open_landings_days (app_id, day, refreshed_at)
    select app_id, day, now() from (select app_id, day from landing_delta union select app_id, day from rollup_days) d
    on conflict (app_id, day) do update set refreshed_at = excluded.refreshed_at;
end
$$;

grant select on open_landings to pushledger_reader;
