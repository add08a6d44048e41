-- Receipt instrumentation judged over the report's window, from daily rollups.
--
-- metrics.md judges a slice (app, platform, app_version) instrumented when it reported at least
-- one receipt inside the report window. A daily rollup row can only see its own day, so 0005
-- judged it per day, and a weekly total could count a Monday send as `unattributed` although the
-- slice reported receipts on Tuesday (the week's own classification calls it `unconfirmed`).
-- Rollups now keep what a wider window needs to decide exactly:
--   * `unattributed_uninstrumented`: the row's unattributed sends that are unattributed only
--     because their slice had no receipt that day (state known, installation resolved) — they
--     are `unconfirmed` in any window in which the slice reported a receipt;
--   * `instrumented_slices_daily`: the (platform, app_version) slices with a receipt that day.
-- pushledger_rollup_totals re-classifies with the window's slices (each ISO week its own window
-- when grouped by week), so a week read from rollups equals the week classified directly (held
-- by Tests/ReportsTests/WeeklyReportTests).

alter table send_rollups_daily add column unattributed_uninstrumented integer not null default 0;

create table instrumented_slices_daily (
    app_id      text not null,
    day         date not null,
    platform    text not null,
    app_version text,
    unique nulls not distinct (app_id, day, platform, app_version)
);

create or replace function pushledger_rollup_day(p_app text, p_day date, p_as_of timestamptz, p_window interval)
returns void
language plpgsql as $$
declare
    v_from timestamptz := p_day::timestamp at time zone 'UTC';
begin
    delete from send_rollups_daily where app_id = p_app and day = p_day;
    delete from send_rejections_daily where app_id = p_app and day = p_day;
    delete from instrumented_slices_daily where app_id = p_app and day = p_day;
    create temp table if not exists rollup_day_sends on commit drop as
        select * from pushledger_classified_sends(p_app, v_from, v_from, p_as_of, p_window) with no data;
    truncate rollup_day_sends;
    insert into rollup_day_sends
        select * from pushledger_classified_sends(p_app, v_from, v_from + interval '1 day', p_as_of, p_window);
    insert into send_rollups_daily (
        app_id, day, platform, channel, app_version, campaign, provider, sends, accepted, rejected, opened,
        received, pending, blocked_app, blocked_channel, unattributed, unconfirmed, token_invalid,
        to_invalid_token, as_of, refreshed_at, unattributed_uninstrumented)
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
           p_as_of, now(),
           -- Rule 8's other causes (no as-of snapshot, unresolved installation) hold in any window.
           count(*) filter (where outcome = 'unattributed' and snapshot_event_id is not null
                                  and installation_id is not null and not instrumented)
      from rollup_day_sends
     group by platform, channel, app_version, campaign, provider;
    insert into send_rejections_daily
    select p_app, p_day, platform, provider, reason_class, reason, status, count(*), now()
      from rollup_day_sends
     where outcome = 'rejected'
     group by platform, provider, reason_class, reason, status;
    -- The same slices as the engine's instrumented_slices for a one-day window.
    insert into instrumented_slices_daily (app_id, day, platform, app_version)
    select distinct p_app, p_day, r.platform, r.app_version
      from notification_receipts r
     where r.app_id = p_app and r.occurred_at >= v_from and r.occurred_at < v_from + interval '1 day'
       and r.occurred_at <= p_as_of;
end
$$;

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

grant select on instrumented_slices_daily to pushledger_reader;

-- Existing rollups lack both: recompute every day that has rollups or receipts.
insert into rollup_dirty_days (app_id, day)
select app_id, day from send_rollups_daily
union
select distinct app_id, pushledger_day(occurred_at) from notification_receipts;
