-- Report queries over the outcome engine (0004), as functions engineers can call in psql.
-- Every window is [p_from, p_to) evaluated as of p_as_of (metrics.md "Times").

-- Outcome counts per slice of the dimensions named in p_by (any of channel, platform,
-- app_version, campaign, day, provider); a dimension not named is null in every row.
-- Rates are left to the caller: each needs its numerator and denominator anyway.
create function pushledger_silent_loss(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now(),
    p_window interval default '24 hours', p_by text[] default '{}')
returns table (
    channel text, platform text, app_version text, campaign text, day date, provider text,
    sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint,
    blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint,
    token_invalid bigint, to_invalid_token bigint)
language sql stable as $$
select case when 'channel' = any(p_by) then c.channel end,
       case when 'platform' = any(p_by) then c.platform end,
       case when 'app_version' = any(p_by) then c.app_version end,
       case when 'campaign' = any(p_by) then c.campaign end,
       case when 'day' = any(p_by) then c.day end,
       case when 'provider' = any(p_by) then c.provider end,
       count(*),
       count(*) filter (where c.outcome not in ('rejected', 'pending')),
       count(*) filter (where c.outcome = 'rejected'),
       count(*) filter (where c.outcome = 'pending'),
       count(*) filter (where c.outcome = 'opened'),
       count(*) filter (where c.outcome = 'received'),
       count(*) filter (where c.outcome = 'blocked_app'),
       count(*) filter (where c.outcome = 'blocked_channel'),
       count(*) filter (where c.outcome = 'unconfirmed'),
       count(*) filter (where c.outcome = 'unattributed'),
       count(*) filter (where c.token_invalid),
       count(*) filter (where c.to_invalid_token)
  from pushledger_classified_sends(p_app, p_from, p_to, p_as_of, p_window) c
 group by 1, 2, 3, 4, 5, 6
 order by 1, 2, 3, 4, 5, 6
$$;

-- Provider rejections: one row per provider with its totals (reason_class, reason and status
-- null), then one row per (provider, reason class, reason, status) with its rejections.
-- `to_invalid_token` counts sends to a token already known invalid at send time.
create function pushledger_rejections(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now())
returns table (
    provider text, reason_class text, reason text, status integer,
    sends bigint, rejected bigint, token_invalid bigint, to_invalid_token bigint)
language sql stable as $$
with c as (
    select * from pushledger_classified_sends(p_app, p_from, p_to, p_as_of)
)
select c.provider, null::text, null::text, null::integer, count(*),
       count(*) filter (where c.outcome = 'rejected'),
       count(*) filter (where c.token_invalid), count(*) filter (where c.to_invalid_token)
  from c group by c.provider
union all
select c.provider, c.reason_class, c.reason, c.status, count(*), count(*),
       count(*) filter (where c.token_invalid), count(*) filter (where c.to_invalid_token)
  from c where c.outcome = 'rejected'
 group by c.provider, c.reason_class, c.reason, c.status
 order by 1, 2 nulls first, 3, 4
$$;

-- Tap-through landing of the opens (at or before p_as_of) of notifications whose latest send
-- attempt (at or before p_as_of) falls in the window, per channel, campaign and UTC day of
-- that attempt: a notification retried across a window edge is counted once, and attributed as
-- the schema's open_landings view does. `misrouted`: opens that landed on `fallback` or
-- `rejected`, out of `landed_reported` (opens that said where they landed).
create function pushledger_open_landings(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now())
returns table (channel text, campaign text, day date, opens bigint, landed_reported bigint, misrouted bigint)
language sql stable as $$
with latest as (
    select distinct on (s.notification_id) s.notification_id, s.event_id, s.sent_at, s.channel, s.campaign
      from sends s
     where s.app_id = p_app and s.sent_at >= p_from and s.sent_at < p_to and s.sent_at <= p_as_of
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
  join notification_opens o
    on o.app_id = p_app and o.notification_id = n.notification_id and o.occurred_at <= p_as_of
 group by 1, 2, 3
 order by 1, 2, 3
$$;

-- Daily landing rollups, kept beside send_rollups_daily so the weekly report reads no events.
create table open_landings_daily (
    app_id          text        not null,
    day             date        not null,
    channel         text        not null,
    campaign        text,
    opens           integer     not null,
    landed_reported integer     not null,
    misrouted       integer     not null,
    unique nulls not distinct (app_id, day, channel, campaign)
);

-- When each (app, day) of open_landings_daily was last recomputed: a day is recomputed when
-- its send rollups are newer (whoever refreshed them), so no refresh path can leave it stale.
create table open_landings_days (
    app_id       text        not null,
    day          date        not null,
    refreshed_at timestamptz not null,
    primary key (app_id, day)
);

-- Refreshes the send rollups (pushledger_refresh_rollups) and then the landing rollups of
-- every day whose send rollups changed; returns the (app, day)s whose send rollups were
-- recomputed. Idempotent and safe while ingest runs, like the refresh it wraps.
create function pushledger_refresh_report_rollups(
    p_as_of timestamptz default now(), p_window interval default '24 hours')
returns table (refreshed_app text, refreshed_day date)
language plpgsql as $$
begin
    create temp table if not exists report_refreshed_days (app_id text, day date) on commit drop;
    truncate report_refreshed_days;
    insert into report_refreshed_days select * from pushledger_refresh_rollups(p_as_of, p_window);

    -- Days refreshed now, or by an earlier refresh this function did not see.
    create temp table if not exists report_landing_days (app_id text, day date) on commit drop;
    truncate report_landing_days;
    insert into report_landing_days
    select app_id, day from report_refreshed_days
    union
    select r.app_id, r.day
      from send_rollups_daily r
      left join open_landings_days d on d.app_id = r.app_id and d.day = r.day
     group by r.app_id, r.day, d.refreshed_at
    having d.refreshed_at is null or max(r.refreshed_at) > d.refreshed_at;

    delete from open_landings_daily o using report_landing_days d where o.app_id = d.app_id and o.day = d.day;
    insert into open_landings_daily
    select d.app_id, d.day, l.channel, l.campaign, l.opens, l.landed_reported, l.misrouted
      from report_landing_days d
     cross join lateral pushledger_open_landings(
            d.app_id, d.day::timestamp at time zone 'UTC', (d.day + 1)::timestamp at time zone 'UTC', p_as_of) l;
    insert into open_landings_days (app_id, day, refreshed_at)
    select app_id, day, now() from report_landing_days
    on conflict (app_id, day) do update set refreshed_at = excluded.refreshed_at;

    return query select app_id, day from report_refreshed_days order by 1, 2;
end
$$;

grant select on open_landings_daily, open_landings_days to pushledger_reader;
