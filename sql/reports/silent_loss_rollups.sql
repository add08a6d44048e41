-- Silent loss per slice, from the outcome engine or from the rollups: send_rollups_daily for
-- the window's whole UTC days, as of the rollups' as_of. Exactly the
-- engine's answer as of p_as_of when the rollups were refreshed then and no input changed
-- since: a rollup day is its sends classified as of the refresh with the day as its window,
-- and the classification of a send depends on its window only through instrumentation
-- (rule 8), judged again here over the whole window (pushledger_rollups_judged). jit is off:
-- compiling these plans cost ~0.3 s a call, more than running them. Every function returns
-- pushledger_rollup_row (sql/engine/outcome_counters.sql).
-- Built from engine/outcome_counters.sql.

-- The sends of [p_from, p_to) classified by the engine as of p_as_of, one rollup-shaped row a
-- send, with instrumentation judged over the whole report window: the slices the rollups of
-- the days [p_first, p_last) saw and those in p_platforms/p_app_versions (the receipts of the
-- window's other hours; p_backgrounds: whether each reported a background push's receipt).
-- "Unattributed only for lack of instrumentation" is the test the rollups count as
-- unattributed_uninstrumented, "unconfirmable only for lack of background receipts"
-- (pushledger_unconfirmable_for_background) the one they count as unconfirmable_uninstrumented
-- and unconfirmable_unattributed (sql/engine/send_rollups.sql).
drop function if exists pushledger_classified_rollup_rows(text, timestamptz, timestamptz, timestamptz, interval, date,
                                                          date, text[], text[]);
drop function if exists pushledger_classified_rollup_rows(text, timestamptz, timestamptz, timestamptz, interval, date,
                                                          date, text[], text[], boolean[]);
drop function if exists pushledger_window_rollup_rows(text, timestamptz, timestamptz, timestamptz, interval);
drop function if exists pushledger_silent_loss(text, timestamptz, timestamptz, timestamptz, interval, text[], text);
select pushledger_define($sql$
create or replace function pushledger_classified_rollup_rows(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz, p_window interval,
    p_first date, p_last date, p_platforms text[], p_app_versions text[], p_backgrounds boolean[])
returns setof pushledger_rollup_row
language sql stable
set jit = off as $$
with window_slices as (
    -- Keyed so the join hashes: a null app_version is its own slice (chr(1) never is one).
    select s.platform, s.version_key, bool_or(s.background) as background
      from (select i.platform, coalesce(i.app_version, chr(1)) as version_key, i.background
              from instrumented_slices_daily i
             where i.app_id = p_app and i.day >= p_first and i.day < p_last
            union all
            select u.platform, coalesce(u.app_version, chr(1)), u.background
              from unnest(p_platforms, p_app_versions, p_backgrounds) u(platform, app_version, background)) s
     group by 1, 2
), judged as (
    select c.day, c.platform, c.channel, c.app_version, c.campaign, c.provider, c.token_invalid, c.to_invalid_token,
           c.os_version, c.sdk_int, c.standby_bucket, c.background_restricted, c.ignoring_battery_optimizations,
           c.low_power_mode, c.push_type, c.message_kind, c.browser, c.push_service, c.cause, c.latency_bucket,
           case when c.outcome = 'unattributed' and c.snapshot_event_id is not null and c.installation_id is not null
                     and not c.instrumented and w.platform is not null
                then 'unconfirmed'
                when pushledger_unconfirmable_for_background(c.outcome, c.provider, c.push_type,
                                                             c.background_instrumented) and w.background
                then case when c.snapshot_event_id is not null and c.installation_id is not null then 'unconfirmed'
                          else 'unattributed' end
                else c.outcome end as outcome
      from pushledger_classified_sends(p_app, p_from, p_to, p_as_of, p_window) c
      left join window_slices w on w.platform = c.platform and w.version_key = coalesce(c.app_version, chr(1))
)
select j.day, [[slice | j.{c}]],
       -- The counters (sql/engine/outcome_counters.sql), each 1 or 0 for this send.
       [[outcome, cause, latency
         | coalesce(pushledger_counts_in('{c}', j.outcome, j.token_invalid, j.to_invalid_token, j.cause,
                                         j.latency_bucket), false)::int::bigint]]
  from judged j
$$
$sql$);

-- Rollup-shaped rows of [p_from, p_to): the whole days from the rollups, the hours before the
-- first and after the last whole day (if any) classified by the engine as of p_as_of, every row
-- judged with the instrumentation of the whole window.
select pushledger_define($sql$
create or replace function pushledger_window_rollup_rows(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz, p_window interval)
returns setof pushledger_rollup_row
language plpgsql stable
set jit = off as $$
#variable_conflict use_column
declare
    -- The whole days [v_first, v_last); none when the window holds no whole day.
    v_first date := pushledger_day(p_from) + case when p_from = pushledger_day(p_from)::timestamp at time zone 'UTC'
        then 0 else 1 end;
    v_last date := greatest(pushledger_day(p_to), v_first);
    v_head_to timestamptz := least(p_to, v_first::timestamp at time zone 'UTC');
    v_tail_from timestamptz := greatest(p_from, v_last::timestamp at time zone 'UTC');
    v_platforms text[];
    v_app_versions text[];
    v_backgrounds boolean[];
begin
    if v_first >= v_last then
        v_head_to := p_to;
        v_tail_from := p_to;
    end if;
    -- The slices that reported a receipt in the hours outside whole days (the engine's rule), and
    -- whether one was of a background push. Only when there are such hours: the fleet-wide
    -- reports (FleetReads) read whole days from the rollups alone, without the engine's tables.
    v_platforms := '{}';
    v_app_versions := '{}';
    v_backgrounds := '{}';
    if p_from < v_head_to or v_tail_from < p_to then
        select coalesce(array_agg(s.platform), '{}'), coalesce(array_agg(s.app_version), '{}'),
               coalesce(array_agg(s.background), '{}')
          into v_platforms, v_app_versions, v_backgrounds
          from (select r.platform, r.app_version, bool_or(b.background) as background
                  from notification_receipts r
                 cross join lateral pushledger_background_receipt(p_app, r.notification_id, r.occurred_at, p_as_of) b
                 where r.app_id = p_app and r.occurred_at <= p_as_of
                   and ((r.occurred_at >= p_from and r.occurred_at < v_head_to)
                        or (r.occurred_at >= v_tail_from and r.occurred_at < p_to))
                 group by 1, 2) s;
    end if;
    return query
    select * from pushledger_rollups_judged(p_app, v_first, v_last, false, v_platforms, v_app_versions, v_backgrounds);
    if p_from < v_head_to then
        return query select * from pushledger_classified_rollup_rows(p_app, p_from, v_head_to, p_as_of, p_window,
                                                                     v_first, v_last, v_platforms, v_app_versions,
                                                                     v_backgrounds);
    end if;
    if v_tail_from < p_to then
        return query select * from pushledger_classified_rollup_rows(p_app, v_tail_from, p_to, p_as_of, p_window,
                                                                     v_first, v_last, v_platforms, v_app_versions,
                                                                     v_backgrounds);
    end if;
end
$$
$sql$);

-- Outcome, cause and latency bucket counts per slice of the dimensions named in p_by (any of
-- channel, platform, app_version, campaign, day, provider, the v1.2 slices os_version,
-- sdk_int, standby_bucket, background_restricted, ignoring_battery_optimizations,
-- low_power_mode, and the v1.3 push_type, message_kind, browser, push_service); a dimension not named is
-- null in every row. Rates
-- are left to the caller: each needs its numerator and denominator anyway. p_source 'engine'
-- classifies the window's sends as of p_as_of; 'rollups' reads pushledger_window_rollup_rows,
-- as of the rollups' as_of (the caller passes it as p_as_of).
drop function if exists pushledger_silent_loss(text, timestamptz, timestamptz, timestamptz, interval, text[]);
drop function if exists pushledger_silent_loss(text, timestamptz, timestamptz, timestamptz, interval, text[], text);
select pushledger_define($sql$
create or replace function pushledger_silent_loss(
    p_app text, p_from timestamptz, p_to timestamptz, p_as_of timestamptz default now(),
    p_window interval default '24 hours', p_by text[] default '{}', p_source text default 'engine')
returns setof pushledger_rollup_row
language sql stable
set jit = off as $$
select case when 'day' = any(p_by) then r.day end, [[slice | case when '{c}' = any(p_by) then r.{c} end]],
       [[outcome, cause, latency | sum(r.{c})::bigint]]
  from (select * from pushledger_window_rollup_rows(p_app, p_from, p_to, p_as_of, p_window)
         where p_source = 'rollups'
        union all
        -- The window's own instrumentation only: no days, no other slices to judge with.
        select * from pushledger_classified_rollup_rows(p_app, p_from, p_to, p_as_of, p_window,
                                                        'infinity', 'infinity', '{}', '{}', '{}')
         where p_source = 'engine') r
 group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
 -- channel, platform, app_version, campaign, day, then the others in their order.
 order by 3, 2, 4, 5, 1, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
$$
$sql$);
