-- The weekly report's reads: rollups only, so its time does not grow with events. Days are UTC
-- days [p_from, p_to).

create or replace function pushledger_rollup_totals(p_app text, p_from date, p_to date, p_by text[] default '{}')
returns table (
    channel text, platform text, app_version text, campaign text, provider text, week date,
    sends bigint, accepted bigint, rejected bigint, pending bigint, opened bigint, received bigint,
    blocked_app bigint, blocked_channel bigint, unconfirmed bigint, unattributed bigint,
    token_invalid bigint, to_invalid_token bigint)
language sql stable as $$
with window_slices as (
    -- Grouped by week, each ISO week is its own report window; otherwise [p_from, p_to) is.
    select distinct case when 'week' = any(p_by) then date_trunc('week', s.day)::date end as bucket,
           s.platform, s.app_version
      from instrumented_slices_daily s
     where s.app_id = p_app and s.day >= p_from and s.day < p_to
), judged as (
    -- Unattributed for lack of instrumentation that day, but the slice reported in the window.
    select r.*, case when w.platform is not null then r.unattributed_uninstrumented else 0 end as reclassified
      from send_rollups_daily r
      left join window_slices w
        on w.bucket is not distinct from (case when 'week' = any(p_by) then date_trunc('week', r.day)::date end)
       and w.platform = r.platform and w.app_version is not distinct from r.app_version
     where r.app_id = p_app and r.day >= p_from and r.day < p_to
)
select case when 'channel' = any(p_by) then r.channel end,
       case when 'platform' = any(p_by) then r.platform end,
       case when 'app_version' = any(p_by) then r.app_version end,
       case when 'campaign' = any(p_by) then r.campaign end,
       case when 'provider' = any(p_by) then r.provider end,
       case when 'week' = any(p_by) then date_trunc('week', r.day)::date end,
       sum(r.sends), sum(r.accepted), sum(r.rejected), sum(r.pending), sum(r.opened), sum(r.received),
       sum(r.blocked_app), sum(r.blocked_channel), sum(r.unconfirmed + r.reclassified),
       sum(r.unattributed - r.reclassified), sum(r.token_invalid), sum(r.to_invalid_token)
  from judged r
 group by 1, 2, 3, 4, 5, 6
 order by 1, 2, 3, 4, 5, 6
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
