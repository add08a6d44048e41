-- The weekly report's reads: rollups only, so its time does not grow with events. Days are UTC
-- days [p_from, p_to).

-- The rollup rows of the UTC days [p_from, p_to) with instrumentation judged over the report
-- window (metrics.md rule 8): a send unattributed only because its slice reported no receipt
-- that day is unconfirmed when the slice reported one anywhere in the window. The window is the
-- days, each ISO week apart when p_weekly, plus the (platform, app_version) slices in
-- p_platforms/p_app_versions (pairs, null a real null version): receipts of the window's hours
-- outside whole days (pushledger_window_rollup_rows), p_backgrounds whether each reported a
-- background push's receipt: a background push unconfirmable only because its slice reported no
-- such receipt that day is unconfirmed (or unattributed, without a known state) when the slice
-- reported one anywhere in the window.
drop function if exists pushledger_rollups_judged(text, date, date, boolean, text[], text[]);
drop function if exists pushledger_rollups_judged(text, date, date, boolean, text[], text[], boolean[]);
drop function if exists pushledger_rollup_totals(text, date, date, text[]);
create or replace function pushledger_rollups_judged(
    p_app text, p_from date, p_to date, p_weekly boolean default false,
    p_platforms text[] default '{}', p_app_versions text[] default '{}', p_backgrounds boolean[] default '{}')
returns table (
    day date, platform text, channel text, app_version text, campaign text, provider text,
    os_version text, sdk_int integer, standby_bucket text, background_restricted boolean,
    ignoring_battery_optimizations boolean, low_power_mode boolean, push_type text, message_kind text,
    sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint,
    blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint, unconfirmable bigint,
    token_invalid bigint, to_invalid_token bigint,
    superseded bigint, app_stopped bigint, expired bigint, device_inactive bigint, unexplained bigint,
    latency_lt_10s bigint, latency_lt_1m bigint, latency_lt_10m bigint, latency_lt_1h bigint, latency_lt_6h bigint,
    latency_lt_24h bigint, latency_ge_24h bigint)
language sql stable as $$
with window_slices as (
    select case when p_weekly then date_trunc('week', s.day)::date end as bucket,
           s.platform, s.app_version, bool_or(s.background) as background
      from (select i.day, i.platform, i.app_version, i.background
              from instrumented_slices_daily i
             where i.app_id = p_app and i.day >= p_from and i.day < p_to
            union all
            select null, u.platform, u.app_version, u.background
              from unnest(p_platforms, p_app_versions, p_backgrounds) u(platform, app_version, background)) s
     group by 1, 2, 3
), judged as (
    select r.*, case when w.platform is not null then r.unattributed_uninstrumented else 0 end as reclassified,
           w.platform is not null as widened, coalesce(w.background, false) as background_widened
      from send_rollups_daily r
      left join window_slices w
        on w.bucket is not distinct from (case when p_weekly then date_trunc('week', r.day)::date end)
       and w.platform = r.platform and w.app_version is not distinct from r.app_version
     where r.app_id = p_app and r.day >= p_from and r.day < p_to
)
select r.day, r.platform, r.channel, r.app_version, r.campaign, r.provider,
       r.os_version, r.sdk_int, r.standby_bucket, r.background_restricted, r.ignoring_battery_optimizations,
       r.low_power_mode, r.push_type, r.message_kind,
       r.sends::bigint, r.accepted::bigint, r.rejected::bigint, r.pending::bigint, r.opened::bigint,
       r.received::bigint, r.blocked_app::bigint, r.blocked_channel::bigint,
       (r.unconfirmed + r.reclassified + r.background_unconfirmed)::bigint,
       (r.unattributed - r.reclassified + r.background_unattributed)::bigint,
       (r.unconfirmable - r.background_unconfirmed - r.background_unattributed)::bigint,
       r.token_invalid::bigint, r.to_invalid_token::bigint,
       -- The causes of the sends judged unconfirmed over the wider window come with them.
       (r.superseded + case when r.widened then r.superseded_uninstrumented else 0 end
        + case when r.background_widened then r.superseded_background else 0 end)::bigint,
       (r.app_stopped + case when r.widened then r.app_stopped_uninstrumented else 0 end
        + case when r.background_widened then r.app_stopped_background else 0 end)::bigint,
       (r.expired + case when r.widened then r.expired_uninstrumented else 0 end
        + case when r.background_widened then r.expired_background else 0 end)::bigint,
       (r.device_inactive + case when r.widened then r.device_inactive_uninstrumented else 0 end
        + case when r.background_widened then r.device_inactive_background else 0 end)::bigint,
       (r.unexplained + case when r.widened then r.unexplained_uninstrumented else 0 end
        + case when r.background_widened then r.unexplained_background else 0 end)::bigint,
       r.latency_lt_10s::bigint, r.latency_lt_1m::bigint, r.latency_lt_10m::bigint, r.latency_lt_1h::bigint,
       r.latency_lt_6h::bigint, r.latency_lt_24h::bigint, r.latency_ge_24h::bigint
  from (select j.*,
               case when j.background_widened then j.unconfirmable_uninstrumented else 0 end as background_unconfirmed,
               case when j.background_widened then j.unconfirmable_unattributed else 0 end as background_unattributed
          from judged j) r
$$;

create or replace function pushledger_rollup_totals(p_app text, p_from date, p_to date, p_by text[] default '{}')
returns table (
    channel text, platform text, app_version text, campaign text, provider text, week date, push_type text,
    message_kind text,
    sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint,
    blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint, unconfirmable bigint,
    token_invalid bigint, to_invalid_token bigint,
    superseded bigint, app_stopped bigint, expired bigint, device_inactive bigint, unexplained bigint,
    latency_lt_10s bigint, latency_lt_1m bigint, latency_lt_10m bigint, latency_lt_1h bigint, latency_lt_6h bigint,
    latency_lt_24h bigint, latency_ge_24h bigint)
language sql stable as $$
-- Grouped by week, each ISO week is its own report window; otherwise [p_from, p_to) is.
select case when 'channel' = any(p_by) then r.channel end,
       case when 'platform' = any(p_by) then r.platform end,
       case when 'app_version' = any(p_by) then r.app_version end,
       case when 'campaign' = any(p_by) then r.campaign end,
       case when 'provider' = any(p_by) then r.provider end,
       case when 'week' = any(p_by) then date_trunc('week', r.day)::date end,
       case when 'push_type' = any(p_by) then r.push_type end,
       case when 'message_kind' = any(p_by) then r.message_kind end,
       sum(r.sends), sum(r.accepted), sum(r.rejected), sum(r.pending), sum(r.opened), sum(r.received),
       sum(r.blocked_app), sum(r.blocked_channel), sum(r.unconfirmed), sum(r.unattributed), sum(r.unconfirmable),
       sum(r.token_invalid), sum(r.to_invalid_token),
       sum(r.superseded), sum(r.app_stopped), sum(r.expired), sum(r.device_inactive), sum(r.unexplained),
       sum(r.latency_lt_10s), sum(r.latency_lt_1m), sum(r.latency_lt_10m), sum(r.latency_lt_1h), sum(r.latency_lt_6h),
       sum(r.latency_lt_24h), sum(r.latency_ge_24h)
  from pushledger_rollups_judged(p_app, p_from, p_to, 'week' = any(p_by)) r
 group by 1, 2, 3, 4, 5, 6, 7, 8
 order by 1, 2, 3, 4, 5, 6, 7, 8
$$;

-- Rejections by provider, reason class and reason over the days.
create or replace function pushledger_rollup_rejections(p_app text, p_from date, p_to date)
returns table (provider text, reason_class text, reason text, rejected bigint)
language sql stable as $$
select r.provider, r.reason_class, r.reason, sum(r.rejected)
  from send_rejections_daily r
 where r.app_id = p_app and r.day >= p_from and r.day < p_to
 group by 1, 2, 3
 order by 4 desc, 1, 2, 3
$$;

-- Tap-through landing by channel and campaign over the days.
create or replace function pushledger_rollup_landings(p_app text, p_from date, p_to date)
returns table (channel text, campaign text, opens bigint, landed_reported bigint, misrouted bigint)
language sql stable as $$
select l.channel, l.campaign, sum(l.opens), sum(l.landed_reported), sum(l.misrouted)
  from open_landings_daily l
 where l.app_id = p_app and l.day >= p_from and l.day < p_to
 group by 1, 2
 order by 1, 2
$$;

-- Alerts that fired in [p_from, p_to); empty when alerting is not set up (the caller checks
-- to_regclass('alert_transitions') to tell the two apart). plpgsql: the table may not exist.
create or replace function pushledger_fired_alerts(p_app text, p_from timestamptz, p_to timestamptz)
returns table (rule text, slice text, at timestamptz, current_rate float8, baseline_rate float8,
               delta_pp float8, p_value float8, message text)
language plpgsql stable as $$
begin
    if to_regclass('alert_transitions') is null then
        return;
    end if;
    return query execute
        'select a.rule, a.slice::text, a.at, a.current_rate, a.baseline_rate, a.delta_pp, a.p_value, a.message
           from alert_transitions a
          where a.app_id = $1 and a.state = ''firing'' and a.at >= $2 and a.at < $3
          order by a.at, a.id'
        using p_app, p_from, p_to;
end
$$;
