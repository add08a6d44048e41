-- The daily send rollups (send_rollups_daily, send_rejections_daily; docs/rollups.md): the
-- grouping of send_outcomes' rows, kept by moving them by the rows that changed. A rollup row is
-- keyed by the catalog's slice columns and counts each of its counters, as pushledger_counts_in
-- says (sql/engine/outcome_counters.sql).
-- Built from engine/outcome_counters.sql.

drop function if exists pushledger_apply_rollup_deltas(timestamptz, text);

-- Adds signed send_outcomes rows (sign -1: a row leaving, +1: a row arriving) to the rollups;
-- rows reaching zero go. The rows: those of rollup_delta (a refresh), or with p_all every row of
-- send_outcomes, each +1 (a rebuild, into empty rollups). Returns the (app, day)s whose counts
-- moved. Planned for the value of p_all, so the source it does not read is left out of the plan,
-- and with memory to hash a rebuild's groups (at the default a rebuild's week sorted its 256,000
-- rows on disk: 2.9 s against 0.9).
-- Reads rollup_delta (sql/engine/work_tables.sql) or send_outcomes;
-- writes send_rollups_daily, send_rejections_daily.
select pushledger_define($sql$
create or replace function pushledger_apply_rollup_deltas(p_as_of timestamptz, p_all boolean)
returns table (app_id text, day date)
language plpgsql
set plan_cache_mode = force_custom_plan
set work_mem = '256MB'
as $$
#variable_conflict use_column
declare
    v_apps text[];
    v_days date[];
begin
    with source as not materialized (
        -- Not materialized: each grouping below reads the rows itself (a rebuild's are every
        -- send's).
        select d.* from rollup_delta d where not p_all
        union all
        select 1, o.* from send_outcomes o where p_all
    ), fine as (
        -- Rows counted once per slice and everything a counter tests, first: the counters then
        -- sum a group each of these (a rebuild's week: ~9,000 groups of 256,000 sends), not a
        -- row per send each.
        select x.app_id, x.day, [[slice | x.{c}]], x.outcome, x.token_invalid, x.to_invalid_token, x.cause,
               x.latency_bucket, x.background, x.attributed, x.instrumented, sum(x.sign)::integer as n
          from (select x.*, pushledger_unconfirmable_for_background(x.outcome, x.provider, x.push_type,
                                                                  x.background_instrumented) as background,
                       x.display_state <> 'unknown' and x.installation_id is not null as attributed
                  -- Not pulled up: computed once a row.
                  from source x offset 0) x
         group by x.app_id, x.day, [[slice | x.{c}]], x.outcome, x.token_invalid, x.to_invalid_token, x.cause,
                  x.latency_bucket, x.background, x.attributed, x.instrumented
    ), deltas as (
        select d.app_id, d.day, [[slice | d.{c}]],
               [[outcome, cause, latency, uninstrumented, cause_uninstrumented, background, cause_background
                 | sum(d.n) filter (where pushledger_counts_in('{c}', d.outcome, d.token_invalid, d.to_invalid_token,
                                                               d.cause, d.latency_bucket, d.background, d.attributed,
                                                               d.instrumented)) as {c}]]
          from fine d
         group by d.app_id, d.day, [[slice | d.{c}]]
    ), moved as (
        insert into send_rollups_daily as r (
            app_id, day, [[slice | {c}]], as_of, refreshed_at,
            [[outcome, cause, latency, uninstrumented, cause_uninstrumented, background, cause_background | {c}]])
        select d.app_id, d.day, [[slice | d.{c}]], p_as_of, now(),
               [[outcome, cause, latency, uninstrumented, cause_uninstrumented, background, cause_background
                 | coalesce(d.{c}, 0)]]
          from deltas d
         where [[outcome, cause, latency, uninstrumented, cause_uninstrumented, background, cause_background
                 | d.{c} <> 0 | or]]
        on conflict (app_id, day, [[slice | {c}]]) do update set
            [[outcome, cause, latency, uninstrumented, cause_uninstrumented, background, cause_background
              | {c} = r.{c} + excluded.{c}]],
            as_of = excluded.as_of, refreshed_at = excluded.refreshed_at
        returning r.app_id, r.day
    ), rejection_deltas as (
        select d.app_id, d.day, d.platform, d.provider, d.reason_class, d.reason, d.status, sum(d.sign) as rejected
          from source d where pushledger_counts_in('rejected', d.outcome, d.token_invalid, d.to_invalid_token)
         group by 1, 2, 3, 4, 5, 6, 7 having sum(d.sign) <> 0
    ), rejections_moved as (
        insert into send_rejections_daily as r
        select d.app_id, d.day, d.platform, d.provider, d.reason_class, d.reason, d.status, d.rejected, now()
          from rejection_deltas d
        on conflict (app_id, day, platform, provider, reason_class, reason, status) do update set
            rejected = r.rejected + excluded.rejected, refreshed_at = excluded.refreshed_at
        returning r.app_id, r.day
    )
    select array_agg(m.app_id), array_agg(m.day) into v_apps, v_days
      from (select m.app_id, m.day from moved m union select m.app_id, m.day from rejections_moved m) m;

    delete from send_rollups_daily r using unnest(v_apps, v_days) m(app_id, day)
     where r.app_id = m.app_id and r.day = m.day and r.sends = 0;
    delete from send_rejections_daily r using unnest(v_apps, v_days) m(app_id, day)
     where r.app_id = m.app_id and r.day = m.day and r.rejected = 0;
    return query select m.app_id, m.day from unnest(v_apps, v_days) m(app_id, day);
end
$$
$sql$);
