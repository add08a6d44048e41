-- The weekly report's reads: rollups only, so its time does not grow with events. Days are UTC
-- days [p_from, p_to).
-- Built from engine/outcome_counters.sql.

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
select pushledger_define($sql$
create or replace function pushledger_rollups_judged(
    p_app text, p_from date, p_to date, p_weekly boolean default false,
    p_platforms text[] default '{}', p_app_versions text[] default '{}', p_backgrounds boolean[] default '{}')
returns setof pushledger_rollup_row
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
select r.day, [[slice | r.{c}]],
       [[outcome | (r.{c} + pushledger_widened('{c}', r.reclassified, r.background_unconfirmed,
                                                r.background_unattributed))::bigint]],
       -- The causes of the sends judged unconfirmed over the wider window come with them.
       [[cause | (r.{c} + case when r.widened then r.{c}_uninstrumented else 0 end
                  + case when r.background_widened then r.{c}_background else 0 end)::bigint]],
       [[latency | r.{c}::bigint]]
  from (select j.*,
               case when j.background_widened then j.unconfirmable_uninstrumented else 0 end as background_unconfirmed,
               case when j.background_widened then j.unconfirmable_unattributed else 0 end as background_unattributed
          from judged j) r
$$
$sql$);

select pushledger_define($sql$
create or replace function pushledger_rollup_totals(p_app text, p_from date, p_to date, p_by text[] default '{}')
returns table (
    channel text, platform text, app_version text, campaign text, provider text, week date, push_type text,
    message_kind text, browser text, push_service text, [[outcome, cause, latency | {c} {t}]])
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
       case when 'browser' = any(p_by) then r.browser end,
       case when 'push_service' = any(p_by) then r.push_service end,
       [[outcome, cause, latency | sum(r.{c})]]
  from pushledger_rollups_judged(p_app, p_from, p_to, 'week' = any(p_by)) r
 group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
 order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
$$
$sql$);

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
